//===- PlannerTest.cpp - random remaps planned and run on the simulator ---===//
//
// 003 5.7's test: random pairs of index bit maps, remapped in place and by
// copying with every element width, each result checked element by element.
// Also: the predicted ticks equal the simulated ticks (with a disabled bit
// the planner prices by running the plan on a ledger-only machine), and
// router plans never beat the
// lower bound (which, like 003 fig. 5.4, assumes indirect addressing for
// mixed cycles and so does not bind xnet or brute-force steps).
//
//===----------------------------------------------------------------------===//
#include "RandomRemap.h"
#include "mapc/runtime/Contents.h"
#include "passes/RemapPlanner.h"

#include "gtest/gtest.h"

using namespace mapc;

namespace {

/// How often each step kind ran, so the tests can insist on coverage.
int kindCount[4] = {0, 0, 0, 0};
/// Steps that are one part of a split (m*) permutation (003 4.4.5).
int splitParts = 0;

struct Outcome {
  int64_t ticks = 0, predicted = 0, bound = 0;
  bool usedXnet = false;
};

Outcome runOne(std::mt19937_64 &rng, PlannerKind kind, unsigned mBits,
               unsigned width, unsigned height, unsigned cluster,
               unsigned elemBytes, bool copy, const std::string &label) {
  unsigned pBits = 0;
  while ((1u << pBits) < width * height)
    ++pBits;
  auto [src, dst] = test::randomRemap(rng, mBits, pBits);
  PlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = elemBytes;
  req.copy = copy;
  req.shape = {width, height, cluster};
  auto planned = planRemap(req, kind);
  Outcome o;
  if (auto *err = std::get_if<std::string>(&planned)) {
    ADD_FAILURE() << label << ": " << *err << "\n"
                  << src.str() << " -> " << dst.str();
    return o;
  }
  const rt::Plan &plan = std::get<rt::Plan>(planned);
  uint64_t bytes = src.memorySize() * elemBytes;
  rt::MasPar m(width, height, 3 * bytes, cluster);
  rt::Regions regions{{0}, {copy ? bytes : 0}, {2 * bytes}};
  rt::storePattern(m, src, elemBytes, regions.src.base, 7);
  std::string why;
  bool ok = rt::executePlan(m, plan, regions, {}, &why);
  EXPECT_TRUE(ok) << label << ": " << why;
  uint64_t bad = rt::countMismatches(m, dst, elemBytes, regions.dst.base, 7);
  EXPECT_EQ(bad, 0u) << label << ": " << src.str() << " -> " << dst.str()
                     << " (" << plan.steps.size() << " steps)";
  o.ticks = m.ledger().total();
  o.predicted = plan.predictedTicks;
  o.bound = plan.lowerBound;
  for (const rt::Step &s : plan.steps) {
    ++kindCount[int(s.kind)];
    splitParts +=
        s.why.find("too large for one data-cycle list") != std::string::npos;
  }
  for (const rt::Step &s : plan.steps)
    o.usedXnet |=
        s.kind == rt::StepKind::Xnet || s.kind == rt::StepKind::BruteForce;
  // With a disabled bit the plan is priced by running it on a ledger-only
  // machine (RemapPlanner.cpp, priceWithDisabledBits): equal as well.
  EXPECT_EQ(o.predicted, o.ticks)
      << label << ": " << src.str() << " -> " << dst.str();
  for (const rt::Step &s : plan.steps)
    EXPECT_GE(s.predictedTicks, 0) << label;
  return o;
}

TEST(Planner, RandomRemapsOptimal) {
  std::mt19937_64 rng(20261122);
  const unsigned widths[] = {1, 2, 4, 8, 16};
  // Grids from 1 PE to 256 (0 to 8 p-bits), clusters of 4 or 16.
  const unsigned shapes[][3] = {{1, 1, 1}, {2, 1, 2},  {4, 4, 4},
                                {8, 4, 4}, {8, 8, 16}, {16, 16, 16}};
  for (int i = 0; i < 12000; ++i) {
    const unsigned *sh = shapes[i % 6];
    unsigned mBits = unsigned(rng() % (sh[0] * sh[1] >= 64 ? 6 : 9));
    unsigned e = widths[rng() % 5];
    bool copy = rng() % 2;
    Outcome o = runOne(rng, PlannerKind::Optimal, mBits, sh[0], sh[1], sh[2], e,
                       copy, "optimal #" + std::to_string(i));
    if (!o.usedXnet) {
      EXPECT_GE(o.ticks, o.bound) << "optimal #" << i;
    }
    if (HasFailure())
      return;
  }
  // Every method of the optimal planner was chosen and checked.
  for (int k = 0; k < 4; ++k)
    EXPECT_GT(kindCount[k], 0) << rt::stepKindName(rt::StepKind(k));
}

// The issue's whole range: 0-14 p-bits and 0-15 m-bits, with at most 17
// device bits in all so that each remap simulates in milliseconds. Large
// (m*) permutations on small PE arrays are split (003 4.4.5).
TEST(Planner, RandomRemapsWide) {
  std::mt19937_64 rng(1415);
  const unsigned widths[] = {1, 2, 4, 8};
  unsigned most[2] = {0, 0};
  for (int i = 0; i < 3000; ++i) {
    unsigned pBits = unsigned(rng() % 15);
    unsigned mBits = unsigned(rng() % (std::min(15u, 17 - pBits) + 1));
    unsigned width = 1u << ((pBits + 1) / 2), height = 1u << (pBits / 2);
    unsigned cluster = pBits >= 4 && rng() % 2 ? 16 : 4;
    unsigned e = widths[rng() % 4];
    bool copy = rng() % 2;
    Outcome o = runOne(rng, PlannerKind::Optimal, mBits, width, height, cluster,
                       e, copy, "wide #" + std::to_string(i));
    if (!o.usedXnet) {
      EXPECT_GE(o.ticks, o.bound) << "wide #" << i;
    }
    most[0] = std::max(most[0], mBits);
    most[1] = std::max(most[1], pBits);
    if (HasFailure())
      return;
  }
  EXPECT_EQ(most[0], 15u);
  EXPECT_EQ(most[1], 14u);
  EXPECT_GT(splitParts, 0);
}

TEST(Planner, RandomRemapsBaselines) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 3000; ++i) {
    unsigned mBits = unsigned(rng() % 6);
    bool copy = rng() % 2;
    runOne(rng, i % 2 ? PlannerKind::Atomic : PlannerKind::BruteForce, mBits, 4,
           4, 4, 1u << (rng() % 4), copy, "baseline #" + std::to_string(i));
    if (HasFailure())
      return;
  }
}

} // namespace
