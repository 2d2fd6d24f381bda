//===- TwoStageTest.cpp - the stage between XOR layouts and any other -----===//
//
// DigitMap::withoutXor (a perfect matching of an invertible GF(2) matrix's
// rows to its columns) and the tables of sources of the whole remaps
// through it (program/TwoStage.h), on random invertible bit matrices.
//
//===----------------------------------------------------------------------===//
#include "TwoStage.h"

#include "ir/KTilePrinter.h"
#include "mapc/runtime/General.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace mapc;

namespace {

/// A `bits` layout of a 1-d array of 2^(m + p) elements: device bit i (m
/// bits of memory, then p of PEs, least significant first) holds the XOR
/// of the data bits in rows[i], its first name `first[i]`.
DigitMap bitsLayout(unsigned m, const std::vector<uint64_t> &rows,
                    const std::vector<unsigned> &first,
                    const std::vector<bool> &inverted = {}) {
  DigitMap d;
  d.isBits = true;
  d.dataBases.assign(rows.size(), 2);
  d.shape = {int64_t(1) << rows.size()};
  for (size_t i = 0; i < rows.size(); ++i) {
    DeviceDigit b;
    b.index = first[i];
    b.xorMask = rows[i] & ~(uint64_t(1) << first[i]);
    b.inverted = i < inverted.size() && inverted[i];
    (i < m ? d.memory : d.pes).push_back(b);
  }
  return d;
}

Layout layoutOf(const DigitMap &d) {
  Layout l;
  l.name = "X";
  l.array = "A";
  l.digits = d;
  return l;
}

TEST(TwoStage, WithoutXorKeepsEachFirstNameWhereItCan) {
  // bits [p: a2^a0 a1 | m: a0]: every first name is free to keep.
  DigitMap d = bitsLayout(1, {0b001, 0b010, 0b101}, {0, 1, 2});
  ASSERT_EQ(digitMapText(d), "bits [p: a2^a0 a1 | m: a0]");
  auto plain = d.withoutXor();
  ASSERT_TRUE(plain);
  EXPECT_EQ(digitMapText(*plain), "bits [p: a2 a1 | m: a0]");
}

TEST(TwoStage, WithoutXorAugmentsWhereFirstNamesClash) {
  // bits [p: a0^a1 | m: !a0]: m0 holds a0, so p0 must take a1; the
  // inversion stays where it was.
  DigitMap d = bitsLayout(1, {0b01, 0b11}, {0, 0}, {true, false});
  ASSERT_EQ(digitMapText(d), "bits [p: a0^a1 | m: !a0]");
  auto plain = d.withoutXor();
  ASSERT_TRUE(plain);
  EXPECT_EQ(digitMapText(*plain), "bits [p: a1 | m: !a0]");
}

TEST(TwoStage, WithoutXorRefusesRowsWithNoMatching) {
  // Both rows hold only a0 (a singular matrix, which Sema rejects).
  DigitMap d = bitsLayout(1, {0b01, 0b01}, {0, 0});
  EXPECT_FALSE(d.withoutXor());
}

TEST(TwoStage, ReplicatedXorLayoutHasNoStage) {
  DigitMap d = bitsLayout(1, {0b01, 0b11}, {0, 1});
  DeviceDigit star;
  star.kind = DeviceDigit::Star;
  d.memory.push_back(star);
  auto stage = xorStageOf(layoutOf(d));
  ASSERT_TRUE(std::holds_alternative<std::string>(stage));
  EXPECT_NE(std::get<std::string>(stage).find("replicates ('*')"),
            std::string::npos);
}

/// Random invertible rows: a shuffled identity, then rows added to others.
std::vector<uint64_t> randomRows(unsigned n, std::mt19937_64 &rng) {
  std::vector<uint64_t> rows(n);
  for (unsigned i = 0; i < n; ++i)
    rows[i] = uint64_t(1) << i;
  std::shuffle(rows.begin(), rows.end(), rng);
  for (unsigned k = 0; k < 3 * n; ++k) {
    unsigned i = unsigned(rng() % n), j = unsigned(rng() % n);
    if (i != j)
      rows[i] ^= rows[j];
  }
  // At least one XOR item.
  if (std::all_of(rows.begin(), rows.end(),
                  [](uint64_t r) { return (r & (r - 1)) == 0; }))
    rows[0] ^= rows[1];
  return rows;
}

TEST(TwoStage, RandomMatricesMatchAndTheirSourcesHoldTheSameElements) {
  std::mt19937_64 rng(20261202);
  int checked = 0;
  for (int round = 0; round < 300; ++round) {
    const unsigned n = 2 + unsigned(rng() % 9), m = unsigned(rng() % (n + 1));
    std::vector<uint64_t> rows = randomRows(n, rng);
    std::vector<unsigned> first(n);
    std::vector<bool> inverted(n);
    for (unsigned i = 0; i < n; ++i) {
      // Any data bit of the row may be its first name.
      std::vector<unsigned> names;
      for (unsigned b = 0; b < n; ++b)
        if (rows[i] >> b & 1)
          names.push_back(b);
      first[i] = names[rng() % names.size()];
      inverted[i] = rng() % 4 == 0;
    }
    DigitMap d = bitsLayout(m, rows, first, inverted);
    auto stage = xorStageOf(layoutOf(d));
    ASSERT_TRUE(std::holds_alternative<XorStage>(stage))
        << digitMapText(d) << ": " << std::get<std::string>(stage);
    const XorStage &s = std::get<XorStage>(stage);
    // Each plain bit holds one data bit of its row, each data bit once.
    uint64_t seen = 0;
    size_t r = 0;
    for (const auto *digits : {&s.plain.memory, &s.plain.pes})
      for (const DeviceDigit &b : *digits) {
        EXPECT_EQ(b.xorMask, 0u);
        EXPECT_TRUE(rows[r] >> b.index & 1) << digitMapText(d);
        EXPECT_EQ(b.inverted, inverted[r]);
        seen |= uint64_t(1) << b.index;
        ++r;
      }
    EXPECT_EQ(seen, (uint64_t(1) << n) - 1) << digitMapText(d);
    // The whole remaps' tables against another layout of the array (a
    // random bit permutation), both ways: each source cell holds the
    // element of the cell it feeds.
    std::vector<uint64_t> perm(n);
    for (unsigned i = 0; i < n; ++i)
      perm[i] = uint64_t(1) << i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<unsigned> own(n);
    for (unsigned i = 0; i < n; ++i)
      own[i] = unsigned(__builtin_ctzll(perm[i]));
    DigitMap other = bitsLayout(unsigned(rng() % (n + 1)), perm, own);
    const rt::TileMap to = other.toTileMap();
    const std::vector<uint32_t> from = sourcesFromXor(s, to);
    ASSERT_EQ(from.size(), size_t(to.deviceSize()));
    for (size_t b = 0; b < from.size(); ++b) {
      ASSERT_NE(from[b], rt::kNoSource);
      EXPECT_EQ(d.dataAt(from[b]), to.dataAt(int64_t(b)));
    }
    const std::vector<uint32_t> back = sourcesToXor(to, s);
    ASSERT_EQ(back.size(), size_t(d.deviceSize()));
    for (size_t x = 0; x < back.size(); ++x) {
      ASSERT_NE(back[x], rt::kNoSource);
      EXPECT_EQ(to.dataAt(back[x]), d.dataAt(int64_t(x)));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

} // namespace
