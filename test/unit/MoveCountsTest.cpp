//===- MoveCountsTest.cpp - a move counted from runs equals its table -----===//
//
// The property test of rt::countMoveByRuns (MoveCounts.h): on random HPF
// redistributions (block, block(n), cyclic, cyclic(k) and '*' dims, 1 to 3
// dims, grids whose sides are not powers of two, aligned and transposed
// realigns) the counts from runs and periods must equal the counts from
// the table of sources element by element whenever the fast path answers,
// and it must answer for nine in ten one-dim distributions (and many of
// several dims, when both distribute the same dims); so must the bound, the
// move's shape and the held slots. Every plan planned with the counts must
// be the plan planned element by element, and must run and verify on the
// simulator with its prediction equal to the simulation.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/MoveCounts.h"
#include "TestSeed.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/TileWalk.h"
#include "passes/GeneralPlanner.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace mapc;

namespace {

int64_t pick(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// A random distribution of `shape` onto `procs`, one '*' dim per dim the
/// processors lack; block(n) with a block of at least n / p.
KTile randomHpf(std::mt19937 &rng, const std::vector<int64_t> &shape,
                const std::vector<int64_t> &procs) {
  std::vector<DistFormatSpec> f(shape.size());
  std::vector<size_t> dims(shape.size());
  for (size_t d = 0; d < dims.size(); ++d)
    dims[d] = d;
  std::shuffle(dims.begin(), dims.end(), rng);
  std::set<size_t> distributed(dims.begin(), dims.begin() + procs.size());
  size_t pc = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!distributed.count(d)) {
      f[d].kind = DistFormatSpec::Star;
      continue;
    }
    const int64_t p = procs[pc++];
    switch (rng() % 4) {
    case 0:
      f[d].kind = DistFormatSpec::Block;
      break;
    case 1:
      f[d].kind = DistFormatSpec::Block;
      f[d].arg = (shape[d] + p - 1) / p + pick(rng, 0, 5);
      break;
    case 2:
      f[d].kind = DistFormatSpec::Cyclic;
      break;
    default:
      f[d].kind = DistFormatSpec::Cyclic;
      f[d].arg = pick(rng, 2, 40);
      break;
    }
  }
  auto r = lowerDistribute(shape, f, procs);
  EXPECT_TRUE(std::holds_alternative<KTile>(r));
  return std::get<KTile>(r);
}

/// A one-dim array of n aligned with a random HPF template of `tlen`
/// (`stride` i + `offset`), or transposed into a 2-d template.
std::optional<KTile> randomAlign(std::mt19937 &rng, int64_t n,
                                 const std::vector<int64_t> &procs) {
  const int64_t stride = pick(rng, 1, 3), offset = pick(rng, 0, 7);
  std::vector<int64_t> shape = {stride * (n - 1) + offset + 1 +
                                pick(rng, 0, 5)};
  if (procs.size() == 2)
    shape.push_back(pick(rng, 2, 9));
  KTile target = randomHpf(rng, shape, procs);
  std::vector<AlignSubSpec> subs(shape.size());
  const size_t live = procs.size() == 2 ? rng() % 2 : 0;
  for (size_t r = 0; r < subs.size(); ++r) {
    if (r != live) {
      subs[r].kind = AlignSubSpec::Constant;
      subs[r].offset = pick(rng, 0, shape[r] - 1);
      continue;
    }
    subs[r].kind = AlignSubSpec::Dummy;
    subs[r].dummy = 0;
    subs[r].stride = stride;
    subs[r].offset = offset;
  }
  auto a = lowerAlign({n}, target, subs);
  if (!std::holds_alternative<KTile>(a))
    return std::nullopt;
  return std::get<KTile>(a);
}

int64_t heldSlotsByWalk(const rt::TileMap &l) {
  std::set<int64_t> held;
  rt::TileWalk w(l);
  for (int64_t n = l.dataSize(); w.index() < n; w.next())
    held.insert(w.address() % rt::slotsOf(l));
  return int64_t(held.size());
}

rt::MachineShape machineFor(const rt::TileMap &a, const rt::TileMap &b,
                            unsigned cluster) {
  rt::MachineShape m;
  m.width = unsigned(std::max(rt::pesOf(a), rt::pesOf(b)));
  m.height = 1;
  m.clusterSize = cluster;
  return m;
}

/// Checks the counts of `a -> b` from runs against the table; true when
/// the runs answered.
bool checkCounts(const rt::TileMap &a, const rt::TileMap &b, int64_t limit,
                 const std::string &what, bool everyMachine = true) {
  const std::optional<rt::MoveCounts> runs = rt::countMoveByRuns(a, b, limit);
  if (!runs)
    return false;
  const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
  const rt::MoveCounts table = rt::countMoveByElements(a, b, sources);
  EXPECT_EQ(runs->elements, table.elements) << what;
  EXPECT_EQ(runs->pairCount(), table.pairCount()) << what;
  EXPECT_TRUE(runs->pairs() == table.pairs()) << what;
  EXPECT_EQ(runs->stay, table.stay) << what;
  EXPECT_EQ(runs->sameSlot, table.sameSlot) << what;
  EXPECT_EQ(runs->slotUniformTo, table.slotUniformTo) << what;
  EXPECT_EQ(runs->slotUniformFrom, table.slotUniformFrom) << what;
  EXPECT_EQ(runs->localUniform, table.localUniform) << what;
  EXPECT_EQ(runs->localSlots, table.localSlots) << what;
  const rt::MoveShape s1 = rt::analyseMove(*runs, rt::pesOf(a)),
                      s2 = rt::analyseMove(a, b, sources);
  EXPECT_EQ(s1.identity, s2.identity) << what;
  EXPECT_EQ(s1.local, s2.local) << what;
  EXPECT_EQ(s1.slotUniformTo, s2.slotUniformTo) << what;
  EXPECT_EQ(s1.slotUniformFrom, s2.slotUniformFrom) << what;
  EXPECT_EQ(s1.keepsSlots, s2.keepsSlots) << what;
  EXPECT_EQ(s1.moved, s2.moved) << what;
  EXPECT_EQ(s1.held, s2.held) << what;
  EXPECT_EQ(s1.busiestSource, s2.busiestSource) << what;
  EXPECT_EQ(s1.leaving, s2.leaving) << what;
  for (unsigned cluster : {1u, 4u, 16u})
    for (bool copy : {false, true})
      for (unsigned bytes : {1u, 4u, 16u}) {
        if (!everyMachine && (cluster != 16 || copy || bytes != 4))
          continue;
        const rt::MachineShape m = machineFor(a, b, cluster);
        rt::CostModel cost;
        // The counts have no slots, so no per-address terms: never more
        // than the table's bound.
        EXPECT_LE(rt::generalLowerBound(*runs, bytes, copy, m, cost),
                  rt::generalLowerBound(a, b, bytes, copy, m, cost, &sources))
            << what;
      }
  if (std::optional<int64_t> held = rt::heldSlotsByRuns(b)) {
    EXPECT_EQ(*held, heldSlotsByWalk(b)) << what;
  }
  return true;
}

/// A layout in short: data lengths, then per device dim its digits.
std::string describe(const rt::TileMap &l) {
  std::string s = "[";
  for (const SpaceDim &d : l.data)
    s += std::to_string(d.len) + " ";
  s += "]";
  for (size_t d = 0; d < l.m.size(); ++d) {
    s += " d" + std::to_string(d) + ":";
    for (unsigned g : l.m[d])
      s += " " + std::to_string(l.kdims[g].k);
  }
  return s;
}
std::string describe(const rt::TileMap &a, const rt::TileMap &b) {
  return describe(a) + " -> " + describe(b);
}

} // namespace

TEST(MoveCounts, RunsEqualTheTable) {
  std::mt19937 rng(test::testSeed(20261126));
  const std::vector<std::vector<int64_t>> grids = {
      {3}, {5}, {6}, {7}, {10}, {31}, {3, 5}, {7, 3}, {2, 3, 5}};
  unsigned oneDim = 0, answered = 0, oneDimAnswered = 0;
  unsigned planned = 0, plannedAnswered = 0; // one-dim at the planner's limit
  for (unsigned run = 0; run < 3000; ++run) {
    const std::vector<int64_t> &procs = grids[run % grids.size()];
    const size_t rank = std::max<size_t>(procs.size(), size_t(pick(rng, 1, 3)));
    std::vector<int64_t> shape(rank);
    for (int64_t &s : shape)
      s = rank == 1 ? pick(rng, 1, 3000) : pick(rng, 1, 40);
    KTile a = randomHpf(rng, shape, procs), b = randomHpf(rng, shape, procs);
    if (HasFailure())
      return;
    // Low limits take the period-by-period paths on small arrays.
    const int64_t limit = run % 3 == 0 ? int64_t(1) << 16 : pick(rng, 1, 64);
    const bool ok = checkCounts(a, b, limit, describe(a, b));
    answered += ok;
    if (rank == 1) {
      ++oneDim;
      oneDimAnswered += ok;
      if (run % 3 == 0) {
        ++planned;
        plannedAnswered += ok;
        EXPECT_TRUE(ok) << "not counted from runs: " << describe(a, b);
      }
      // Both ways round, and against itself (a copy back).
      checkCounts(b, a, limit, describe(b, a));
      checkCounts(a, a, limit, describe(a, a));
    }
    if (HasFailure())
      return;
  }
  // Every one-dim distribution is counted from its runs at the planner's
  // limit, which lists all runs of 3000 elements (checked above; all of
  // some 44,000 over 200 seeds). The low limits leave some to the table: a
  // side (a block) with more runs than the limit and no shorter period, 12%
  // under the fixed seed and 9-19% over 200 others, so 1 in 4 fails.
  const unsigned low = oneDim - planned,
                 lowAnswered = oneDimAnswered - plannedAnswered;
  EXPECT_GE(lowAnswered * 4, low * 3)
      << lowAnswered << " of " << low << " one-dim moves at low limits";
  std::printf("counted from runs: %u of %u moves (%u of %u one-dim)\n",
              answered, 3000u, oneDimAnswered, oneDim);
}

TEST(MoveCounts, AlignedAndTransposed) {
  std::mt19937 rng(11261);
  unsigned answered = 0;
  for (unsigned run = 0; run < 600; ++run) {
    const std::vector<int64_t> procs =
        run % 2 ? std::vector<int64_t>{pick(rng, 2, 7)}
                : std::vector<int64_t>{pick(rng, 2, 4), pick(rng, 2, 5)};
    const int64_t n = pick(rng, 1, 400);
    std::optional<KTile> a = randomAlign(rng, n, procs);
    KTile b = randomHpf(rng, {n}, {procs[0]});
    if (!a || HasFailure())
      continue;
    answered += checkCounts(*a, b, pick(rng, 1, 64), describe(*a, b));
    checkCounts(b, *a, 1 << 16, describe(b, *a));
    if (HasFailure())
      return;
  }
  std::printf("aligned moves counted from runs: %u of 600\n", answered);
}

// Large one-dim moves, whose runs are too many to list: the periodic paths
// at the sizes the benchmark plans.
TEST(MoveCounts, LargeOneDim) {
  std::mt19937 rng(1126);
  for (unsigned run = 0; run < 12; ++run) {
    const int64_t p = pick(rng, 2, 12), n = pick(rng, 100000, 400000);
    KTile a = randomHpf(rng, {n}, {p}), b = randomHpf(rng, {n}, {p});
    EXPECT_TRUE(checkCounts(a, b, int64_t(1) << 16, describe(a, b)))
        << describe(a, b);
  }
}

// Found with other seeds of LargeOneDim (2026-12-02): plain cyclic has too
// many runs to list, cyclic(31) few enough, and listing those against
// cyclic's period would make too many families; the two periodic sides
// still repeat together every 341 elements, which the counts now use
// instead of giving up.
TEST(MoveCounts, ListedAgainstPeriodicFallsBackToTheCommonPeriod) {
  const int64_t n = 373472;
  KTile a = std::get<KTile>(
      lowerDistribute({n}, {{DistFormatSpec::Cyclic, 0}}, {11}));
  KTile b = std::get<KTile>(
      lowerDistribute({n}, {{DistFormatSpec::Cyclic, 31}}, {11}));
  EXPECT_TRUE(checkCounts(a, b, int64_t(1) << 16, describe(a, b)));
  EXPECT_TRUE(checkCounts(b, a, int64_t(1) << 16, describe(b, a)));
}

// The planner with the counts plans what it plans element by element, and
// the plan runs and verifies with its prediction equal to the simulation:
// one-dim moves and two-dim ones on two-sided grids.
TEST(MoveCounts, PlansEqualAndRun) {
  std::mt19937 rng(26112026);
  const int64_t sides[] = {3, 5, 6, 7, 10, 12};
  unsigned run = 0, moved = 0;
  for (; run < 400; ++run) {
    // One dim, or two on a grid of two sides (every dim distributed, so
    // that the PE numbers compare dim by dim).
    const bool two = run % 4 == 3;
    const int64_t p = sides[run % 6], p2 = two ? pick(rng, 2, 5) : 1;
    int64_t n = pick(rng, 1, run % 5 == 0 ? 30000 : 3000);
    std::vector<int64_t> shape = {n}, procs = {p};
    if (two) {
      shape = {pick(rng, 1, 80), pick(rng, 1, 80)};
      procs = {p, p2};
      n = shape[0] * shape[1];
    }
    KTile a = randomHpf(rng, shape, procs), b = randomHpf(rng, shape, procs);
    if (HasFailure())
      return;
    GeneralPlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = 1u << pick(rng, 0, 3);
    req.copy = rng() % 2;
    req.shape.width = unsigned(p);
    req.shape.height = unsigned(p2);
    req.shape.clusterSize = 1u << pick(rng, 0, 4);
    req.countByRunsFrom = 0;
    auto fast = planGeneralRemap(req);
    req.countByRuns = false;
    auto slow = planGeneralRemap(req);
    const std::string what = describe(a, b);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(fast)) << what;
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(slow)) << what;
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(fast),
                          &ref = std::get<rt::GeneralPlan>(slow);
    EXPECT_EQ(plan.predictedTicks, ref.predictedTicks) << what;
    // Counted, the bound has no per-address terms (General.h).
    EXPECT_LE(plan.lowerBound, ref.lowerBound) << what;
    ASSERT_EQ(plan.steps.size(), ref.steps.size()) << what;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      EXPECT_EQ(plan.steps[i].kind, ref.steps[i].kind) << what;
      EXPECT_EQ(plan.steps[i].inPlace, ref.steps[i].inPlace) << what;
      EXPECT_EQ(plan.steps[i].predictedTicks, ref.steps[i].predictedTicks)
          << what;
      EXPECT_EQ(plan.steps[i].why, ref.steps[i].why) << what;
    }
    if (plan.steps.empty() || n > 5000)
      continue;
    ++moved;
    int64_t slots = std::max(rt::slotsOf(a), rt::slotsOf(b));
    for (const rt::GeneralStep &s : plan.steps)
      slots = std::max(slots, rt::slotsOf(s.to));
    const uint64_t region = uint64_t(slots) * req.elemBytes;
    rt::MasPar m(unsigned(p), unsigned(p2), 3 * region, req.shape.clusterSize);
    rt::Regions regions{{req.copy ? 0 : region}, {region}, {2 * region}};
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, a, req.elemBytes, regions.src.base, 5);
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why))
        << what << ": " << why;
    EXPECT_EQ(
        rt::countMismatches(readOf, b, req.elemBytes, regions.dst.base, 5), 0u)
        << what;
    EXPECT_EQ(m.ledger().total(), plan.predictedTicks) << what;
    EXPECT_LE(plan.lowerBound, m.ledger().total()) << what;
    if (HasFailure())
      return;
  }
  EXPECT_GT(moved, 150u);
}

// The benchmark's HPF redistributions (bench/MixedRadix.cpp) are counted
// from their runs at full size, both ways.
TEST(MoveCounts, BenchmarkShapes) {
  struct Case {
    std::vector<int64_t> shape, procs;
    std::vector<DistFormatSpec> from, to;
  };
  auto fmt = [](DistFormatSpec::Kind k, int64_t arg = 0) {
    DistFormatSpec f;
    f.kind = k;
    f.arg = arg;
    return f;
  };
  const auto block = fmt(DistFormatSpec::Block);
  const std::vector<Case> cases = {
      {{1000000}, {7}, {block}, {fmt(DistFormatSpec::Cyclic, 3)}},
      {{1000000}, {10}, {block}, {fmt(DistFormatSpec::Cyclic, 5)}},
      {{1000, 1000},
       {3, 5},
       {block, block},
       {fmt(DistFormatSpec::Cyclic), fmt(DistFormatSpec::Cyclic, 3)}},
      {{1250, 800},
       {3, 5},
       {block, block},
       {fmt(DistFormatSpec::Cyclic), fmt(DistFormatSpec::Cyclic, 3)}},
      {{1000, 1000},
       {31, 33},
       {block, block},
       {fmt(DistFormatSpec::Cyclic, 2), fmt(DistFormatSpec::Cyclic)}},
  };
  for (const Case &c : cases) {
    auto a = lowerDistribute(c.shape, c.from, c.procs);
    auto b = lowerDistribute(c.shape, c.to, c.procs);
    ASSERT_TRUE(std::holds_alternative<KTile>(a));
    ASSERT_TRUE(std::holds_alternative<KTile>(b));
    const KTile &x = std::get<KTile>(a), &y = std::get<KTile>(b);
    EXPECT_TRUE(checkCounts(x, y, int64_t(1) << 16, describe(x, y), false))
        << describe(x, y);
    EXPECT_TRUE(checkCounts(y, x, int64_t(1) << 16, describe(y, x), false))
        << describe(y, x);
  }
}
