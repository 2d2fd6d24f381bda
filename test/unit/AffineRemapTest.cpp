//===- AffineRemapTest.cpp - random affine remaps, run and checked --------===//
//
// The property of issue 4: random GF(2)-affine layouts (random invertible
// matrices, XOR constants, disabled bits) remapped on the simulated MasPar,
// Boolean cube and mesh, every element checked where the destination
// layout wants it.
//
//===----------------------------------------------------------------------===//
#include "passes/AffinePlanner.h"
#include "passes/NetworkPlanner.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/NetworkExecute.h"

#include <gtest/gtest.h>

#include <random>

using namespace mapc;
using namespace mapc::rt;

namespace {

/// dataBits of the mBits + pBits device bits hold a random invertible
/// XOR of data bits plus a constant; the rest are disabled.
AffineLayout randomAffine(std::mt19937_64 &rng, unsigned mBits, unsigned pBits,
                          unsigned dataBits) {
  unsigned n = mBits + pBits;
  AffineLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = dataBits;
  l.row.assign(n, 0);
  std::vector<unsigned> pos(n);
  for (unsigned i = 0; i < n; ++i)
    pos[i] = i;
  std::shuffle(pos.begin(), pos.end(), rng);
  // Rows: identity mixed by random transvections stays invertible.
  std::vector<uint64_t> rows(dataBits);
  for (unsigned d = 0; d < dataBits; ++d)
    rows[d] = uint64_t(1) << d;
  for (unsigned k = 0; k < 2 * dataBits && dataBits > 1; ++k) {
    unsigned a = rng() % dataBits, b = rng() % dataBits;
    if (a != b && rng() % 2)
      rows[a] ^= rows[b];
  }
  for (unsigned d = 0; d < dataBits; ++d)
    l.row[pos[d]] = rows[d];
  for (unsigned i = dataBits; i < n; ++i)
    l.disabled |= uint64_t(1) << pos[i];
  l.constant = rng() & ((uint64_t(1) << n) - 1);
  return l;
}

uint64_t mismatches(const std::function<const uint8_t *(unsigned)> &mem,
                    const AffineLayout &l, unsigned elemBytes, uint64_t tag) {
  return countMismatches(mem, l, elemBytes, 0, tag);
}

} // namespace

TEST(AffineRemap, RandomOnMasPar) {
  std::mt19937_64 rng(41);
  MachineShape shape;
  shape.width = 4;
  shape.height = 4;
  shape.clusterSize = 4;
  for (unsigned trial = 0; trial < 6000; ++trial) {
    unsigned mBits = rng() % 5, pBits = 4, n = mBits + pBits;
    unsigned dataBits = n - (rng() % 3 == 0 ? rng() % 3 : 0);
    AffinePlanRequest r;
    r.src = randomAffine(rng, mBits, pBits, dataBits);
    r.dst = randomAffine(rng, mBits, pBits, dataBits);
    r.elemBytes = 1u << (rng() % 4);
    r.copy = rng() % 4 == 0;
    r.shape = shape;
    auto planned = planAffineRemap(r, PlannerKind::Optimal);
    ASSERT_TRUE(std::holds_alternative<Plan>(planned))
        << std::get<std::string>(planned);
    const Plan &p = std::get<Plan>(planned);
    uint64_t bytes = (uint64_t(1) << mBits) * r.elemBytes;
    MasPar m(4, 4, 3 * bytes, 4);
    auto mem = [&](unsigned pe) { return m.memoryOf(pe); };
    uint64_t srcBase = r.copy ? bytes : 0;
    storePattern(mem, r.src, r.elemBytes, srcBase, trial);
    std::string why;
    ASSERT_TRUE(executePlan(m, p, {{srcBase}, {0}, {2 * bytes}}, {}, &why))
        << why;
    auto cmem = [&](unsigned pe) -> const uint8_t * { return m.memoryOf(pe); };
    ASSERT_EQ(mismatches(cmem, r.dst, r.elemBytes, trial), 0u)
        << "trial " << trial << " " << r.src.str() << " -> " << r.dst.str();
    if (!r.src.disabled && !r.dst.disabled) {
      EXPECT_EQ(m.ledger().total(), p.predictedTicks) << "trial " << trial;
    }
    EXPECT_LE(p.lowerBound, m.ledger().total()) << "trial " << trial;
  }
}

TEST(AffineRemap, RandomOnCubeAndMesh) {
  std::mt19937_64 rng(42);
  for (unsigned trial = 0; trial < 4000; ++trial) {
    bool cube = trial % 2;
    unsigned pBits = cube ? rng() % 6 : 4, mBits = rng() % 4;
    unsigned n = mBits + pBits;
    unsigned dataBits = n - (rng() % 3 == 0 ? rng() % (n + 1) / 2 : 0);
    NetworkPlanRequest r;
    r.shape = cube ? NetworkShape::booleanCube(pBits)
                   : (trial % 4 == 0 ? NetworkShape::mesh({16})
                                     : NetworkShape::mesh({4, 4}));
    r.src = randomAffine(rng, mBits, pBits, dataBits);
    r.dst = randomAffine(rng, mBits, pBits, dataBits);
    r.elemBytes = 1u << (rng() % 4);
    r.copy = rng() % 4 == 0;
    auto planned = planNetworkRemap(r);
    ASSERT_TRUE(std::holds_alternative<Plan>(planned))
        << std::get<std::string>(planned);
    const Plan &p = std::get<Plan>(planned);
    uint64_t bytes = (uint64_t(1) << mBits) * r.elemBytes;
    NetworkMachine m(r.shape, 2 * bytes);
    auto mem = [&](unsigned node) { return m.memory(node); };
    uint64_t srcBase = r.copy ? bytes : 0;
    storePattern(mem, r.src, r.elemBytes, srcBase, trial);
    std::string why;
    ASSERT_TRUE(executeNetworkPlan(m, p, {{srcBase}, {0}, {0}}, {}, &why))
        << why;
    auto cmem = [&](unsigned node) -> const uint8_t * {
      return m.memory(node);
    };
    ASSERT_EQ(mismatches(cmem, r.dst, r.elemBytes, trial), 0u)
        << "trial " << trial << " " << r.src.str() << " -> " << r.dst.str();
    EXPECT_EQ(m.ledger().cycles, p.predictedTicks) << "trial " << trial;
    EXPECT_LE(p.lowerBound, m.ledger().cycles) << "trial " << trial;
  }
}
