//===- RemapCyclesTest.cpp - cycles move every element where it belongs ---===//
#include "passes/RemapCycles.h"

#include <gtest/gtest.h>
#include <random>

using namespace mapc;

namespace {

/// Data index at device address `addr` under `map`, or -1 when disabled
/// bits do not match (003 4.1.2).
int64_t dataAt(const IndexBitMap &map, uint64_t addr) {
  int64_t data = 0;
  for (unsigned i = 0; i < map.bits.size(); ++i) {
    bool b = (addr >> i) & 1;
    const DeviceBit &d = map.bits[i];
    if (!d.enabled) {
      if (b != d.value)
        return -1;
    } else if (b != d.value) {
      data |= int64_t(1) << d.dataBit;
    }
  }
  return data;
}

/// Applies the cycles to a source address: each bit goes to the next
/// element's position, inverted there if marked.
uint64_t apply(const std::vector<Cycle> &cycles, uint64_t addr) {
  uint64_t out = addr;
  for (const Cycle &c : cycles)
    for (size_t k = 0; k < c.size(); ++k) {
      unsigned from = c[k == 0 ? c.size() - 1 : k - 1].bit;
      bool b = ((addr >> from) & 1) != c[k].invertedAfter;
      out = (out & ~(uint64_t(1) << c[k].bit)) | (uint64_t(b) << c[k].bit);
    }
  return out;
}

IndexBitMap randomMap(std::mt19937 &rng, unsigned m, unsigned p,
                      unsigned dataBits) {
  IndexBitMap map;
  map.memoryBits = m;
  map.peBits = p;
  map.dataBits = dataBits;
  map.bits.resize(m + p);
  std::vector<unsigned> pos(m + p);
  for (unsigned i = 0; i < pos.size(); ++i)
    pos[i] = i;
  std::shuffle(pos.begin(), pos.end(), rng);
  for (unsigned i = 0; i < m + p; ++i) {
    DeviceBit &b = map.bits[pos[i]];
    b.enabled = i < dataBits;
    b.dataBit = i < dataBits ? i : 0;
    b.value = rng() & 1;
  }
  return map;
}

TEST(RemapCycles, Figure43) {
  IndexBitMap src, dst;
  src.memoryBits = dst.memoryBits = 2;
  src.peBits = dst.peBits = 2;
  src.dataBits = dst.dataBits = 3;
  // m0 m1 p0 p1: source a1 1 !a0 a2; destination 1 !a0 !a1 !a2.
  src.bits = {
      {true, 1, false}, {false, 0, true}, {true, 0, true}, {true, 2, false}};
  dst.bits = {
      {false, 0, true}, {true, 0, true}, {true, 1, true}, {true, 2, true}};
  auto cycles = std::get<std::vector<Cycle>>(remapCycles(src, dst));
  EXPECT_EQ(formatCycles(src, cycles), "(m0, !p0, m1~)(!p1)");
}

TEST(RemapCycles, RandomRemapsMoveEveryElementToItsDestination) {
  std::mt19937 rng(6);
  for (int iter = 0; iter < 20000; ++iter) {
    unsigned m = rng() % 6, p = rng() % 5;
    if (m + p == 0)
      continue;
    unsigned dataBits = rng() % (m + p + 1);
    IndexBitMap src = randomMap(rng, m, p, dataBits);
    IndexBitMap dst = randomMap(rng, m, p, dataBits);
    auto result = remapCycles(src, dst);
    ASSERT_TRUE(std::holds_alternative<std::vector<Cycle>>(result));
    const auto &cycles = std::get<std::vector<Cycle>>(result);
    for (const Cycle &c : cycles) {
      unsigned disabled = 0;
      for (const CycleBit &b : c)
        disabled += b.disabledInSource;
      ASSERT_LE(disabled, 1u) << "at most one disabled bit per cycle";
    }
    for (uint64_t a = 0; a < (uint64_t(1) << (m + p)); ++a) {
      int64_t v = dataAt(src, a);
      if (v < 0)
        continue;
      ASSERT_EQ(dataAt(dst, apply(cycles, a)), v)
          << "iteration " << iter << " address " << a << ": "
          << formatCycles(src, cycles);
    }
  }
}

} // namespace
