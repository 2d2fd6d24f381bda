//===- ExchangePriceTest.cpp - exchange steps priced from pair counts -----===//
//
// The pricing machine prices a large exchange step from its pair counts,
// each matching of the pair schedule once (runtime/lib/ExchangePrice.h),
// while --run builds and runs every round. On a few thousand random HPF
// redistributions (block, cyclic(k), 1-3 dims, shapes and grids that are not
// powers of two, 1- to 16-byte elements, clusters of 1 to 16), the priced
// ticks must equal the ticks of the step run on a real machine, and the
// elements must arrive.
//
//===----------------------------------------------------------------------===//
#include "RandomHpf.h"
#include "RandomTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace mapc;

TEST(ExchangePrice, PairPricedEqualsRun) {
  std::mt19937 rng(1125);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const std::vector<std::vector<int64_t>> grids = {
      {2}, {3}, {5}, {6}, {7}, {2, 3}, {3, 2}, {1, 5}, {3, 3}, {10}};
  const unsigned widths[] = {1, 2, 4, 8, 16};
  unsigned byPairs = 0, runs = 2500;
  for (unsigned run = 0; run < runs; ++run) {
    const std::vector<int64_t> &procs = grids[run % grids.size()];
    const int64_t pes = procs[0] * (procs.size() > 1 ? procs[1] : 1);
    // Enough elements that many go by pair counts (over 1024 sends, 64 a
    // pair), some not.
    const int64_t n = pick(800, 400 * pes + 2000);
    std::vector<int64_t> shape;
    if (procs.size() == 1)
      shape = {n};
    else
      shape = {pick(30, 90), n / 60 + 2};
    KTile a = test::randomBlockCyclic(rng, shape, procs),
          b = test::randomBlockCyclic(rng, shape, procs);
    if (HasFailure())
      return;
    rt::GeneralPlan plan;
    plan.source = a;
    plan.dest = b;
    plan.elemBytes = widths[run % 5];
    plan.copy = true;
    rt::GeneralStep s;
    s.kind = rt::GeneralStepKind::Exchange;
    s.to = b;
    plan.steps = {s};
    rt::MachineShape machine;
    machine.width = unsigned(procs[0]);
    machine.height = unsigned(procs.size() > 1 ? procs[1] : 1);
    machine.clusterSize = 1u << pick(0, 4);

    // Which steps the executor schedules from pair counts.
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const int64_t fromSlots = rt::slotsOf(a), toSlots = rt::slotsOf(b);
    std::set<std::pair<int64_t, int64_t>> pairs;
    uint64_t sends = 0;
    for (size_t c = 0; c < sources.size(); ++c)
      if (sources[c] != rt::kNoSource &&
          int64_t(sources[c]) / fromSlots != int64_t(c) / toSlots) {
        ++sends;
        pairs.insert({sources[c] / fromSlots, int64_t(c) / toSlots});
      }
    byPairs += sends > 1024 && sends >= 64 * pairs.size();

    const std::string what = "run " + std::to_string(run);
    const int64_t priced =
        rt::predictGeneralStep(plan, 0, machine, rt::CostModel(), &sources);
    ASSERT_GE(priced, 0) << what;
    const uint64_t region =
        uint64_t(std::max(fromSlots, toSlots)) * plan.elemBytes;
    rt::MasPar m(machine.width, machine.height, 2 * region,
                 machine.clusterSize);
    rt::Regions regions{{0}, {region}, {region}};
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, a, plan.elemBytes, regions.src.base, 5);
    std::string why;
    ASSERT_TRUE(rt::runGeneralStep(m, plan, 0, regions, &why, &sources))
        << what << ": " << why;
    ASSERT_EQ(m.ledger().total(), priced) << what;
    ASSERT_EQ(
        rt::countMismatches(readOf, b, plan.elemBytes, regions.dst.base, 5), 0u)
        << what;
  }
  // The pair pricing must have been exercised, and not always.
  EXPECT_GT(byPairs, runs / 4);
  EXPECT_LT(byPairs, runs);
}

// The bound that lets the planners skip an exchange step unpriced
// (rt::exchangeStepBound) never exceeds the step's simulated price, in
// place or not, on random remaps between random k-Tile formats whose
// destination does not replicate, on grids of any sides with clusters of
// 1 to 16; on HPF redistributions (every PE busy) it comes close.
TEST(ExchangePrice, BoundNeverAboveThePrice) {
  std::mt19937 rng(5311);
  auto pick = [&](unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  };
  unsigned checked = 0, inPlace = 0;
  double closest = 0;
  for (unsigned run = 0; checked < 3000; ++run) {
    rt::MachineShape machine;
    machine.width = pick(1, 7);
    machine.height = pick(1, 5);
    machine.clusterSize = 1u << pick(0, 4);
    KTile a, b;
    if (run % 4 == 0) { // an HPF redistribution of a few thousand elements
      const std::vector<int64_t> procs = {machine.width, machine.height};
      const std::vector<int64_t> shape = {pick(10, 80), pick(10, 80)};
      a = test::randomBlockCyclic(rng, shape, procs);
      b = test::randomBlockCyclic(rng, shape, procs);
    } else {
      std::vector<int64_t> shape(pick(1, 3));
      for (int64_t &s : shape)
        s = pick(1, 9);
      a = test::randomTileFor(rng, shape, {});
      b = test::randomTileFor(rng, shape, {});
    }
    if (HasFailure())
      return;
    if (b.replicates() || rt::pesOf(a) > machine.peCount() ||
        rt::pesOf(b) > machine.peCount())
      continue;
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const rt::MoveShape shape = rt::analyseMove(a, b, sources);
    if (shape.local)
      continue;
    rt::GeneralPlan plan;
    plan.source = a;
    plan.dest = b;
    plan.elemBytes = 1u << pick(0, 4);
    const int64_t bound = rt::exchangeStepBound(shape.leaving, plan.elemBytes,
                                                machine, rt::CostModel());
    for (bool place : {false, true}) {
      plan.copy = !place;
      rt::GeneralStep s;
      s.kind = rt::GeneralStepKind::Exchange;
      s.to = b;
      s.inPlace = place;
      plan.steps = {s};
      const int64_t ticks =
          rt::predictGeneralStep(plan, 0, machine, rt::CostModel(), &sources);
      if (ticks < 0)
        continue; // not in place
      ASSERT_LE(bound, ticks) << "remap " << run << (place ? " in place" : "");
      inPlace += place;
      if (run % 4 == 0)
        closest = std::max(closest, double(bound) / double(ticks));
    }
    ++checked;
  }
  EXPECT_GT(inPlace, 100u);
  EXPECT_GT(closest, 0.5); // not a vacuous bound
}
