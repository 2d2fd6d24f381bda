//===- BruteForceBoundTest.cpp - the bound that lets planning skip brute force
//
// The general planner does not run brute force (003 6.3.3) when
// bruteForceStepBound already reaches the best price found, so the bound
// must never exceed what the step really costs: checked against the
// simulated price on random remaps of random k-Tile formats on random
// grids, and shown to skip the brute-force pricing of an HPF
// redistribution on 7 PEs.
//
//===----------------------------------------------------------------------===//
#include "RandomTile.h"
#include "mapc/runtime/General.h"
#include "passes/GeneralPlanner.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <random>

using namespace mapc;

TEST(BruteForceBound, NeverAboveTheSimulatedPrice) {
  std::mt19937 rng(6338);
  auto pick = [&](unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  };
  unsigned checked = 0, tight = 0;
  while (checked < 3000) {
    std::vector<int64_t> shape(pick(1, 3));
    for (int64_t &s : shape)
      s = pick(1, 9);
    KTile a = test::randomTileFor(rng, shape, {});
    KTile b = test::randomTileFor(rng, shape, {});
    GeneralPlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = 1u << pick(0, 4);
    req.shape.width = pick(1, 7);
    req.shape.height = pick(1, 5);
    req.shape.clusterSize = 1u << pick(0, 4);
    if (rt::pesOf(a) > req.shape.peCount() ||
        rt::pesOf(b) > req.shape.peCount())
      continue;
    rt::GeneralPlan plan;
    plan.source = a;
    plan.dest = b;
    plan.elemBytes = req.elemBytes;
    plan.copy = true;
    rt::GeneralStep s;
    s.kind = rt::GeneralStepKind::BruteForce;
    s.to = b;
    plan.steps.push_back(s);
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const int64_t ticks =
        rt::predictGeneralStep(plan, 0, req.shape, req.cost, &sources);
    ASSERT_GE(ticks, 0);
    const int64_t bound =
        bruteForceStepBound(req, rt::analyseMove(a, b, sources));
    ASSERT_LE(bound, ticks) << "remap " << checked;
    tight += bound == ticks;
    ++checked;
  }
  EXPECT_GT(tight, 0u); // the bound is met where no element leaves its PE
}

TEST(BruteForceBound, SkipsBruteForceOnSevenPes) {
  auto tile = [](DistFormatSpec::Kind kind, int64_t arg) {
    DistFormatSpec f;
    f.kind = kind;
    f.arg = arg;
    return std::get<KTile>(lowerDistribute({5000}, {f}, {7}));
  };
  GeneralPlanRequest req;
  req.src = tile(DistFormatSpec::Block, 0);
  req.dst = tile(DistFormatSpec::Cyclic, 3);
  req.elemBytes = 4;
  req.shape.width = 7;
  req.shape.height = 1;
  req.shape.clusterSize = 16;
  auto planned = planGeneralRemap(req);
  ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
  const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
  ASSERT_FALSE(plan.steps.empty());
  EXPECT_EQ(plan.steps[0].kind, rt::GeneralStepKind::Exchange);
  EXPECT_NE(plan.steps[0].why.find("brute-force at least"), std::string::npos)
      << plan.steps[0].why;
}
