//===- GeneralRemapTest.cpp - random general remaps, run and checked ------===//
//
// The property test of 003 ch. 6's remapping: random pairs of k-Tile formats
// over one data shape (templates, offsets, senses, Gray dims, empty and
// replicated dims, any number of PEs) on random MasPar grids of any sides,
// planned by planGeneralRemap, run on the simulator and checked element by
// element; every prediction equals its simulation and no plan beats the
// lower bound.
//
//===----------------------------------------------------------------------===//
#include "DigitTile.h"
#include "RandomTile.h"
#include "TestSeed.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/General.h"
#include "passes/DigitPlanner.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace mapc;
using mapc::test::compact;
using mapc::test::digitTile;
using mapc::test::oneStepPlan;
using mapc::test::randomAlignedDigitPair;

namespace {

/// How often each method led a plan, so the random test can show it
/// exercised them all.
std::map<rt::GeneralStepKind, unsigned> methodsSeen;

/// Plans `src -> dst` on a width x height MasPar, runs it, and checks
/// every element, the prediction and the bound.
void runAndCheck(const rt::TileMap &src, const rt::TileMap &dst, unsigned width,
                 unsigned height, unsigned cluster, unsigned elemBytes,
                 bool copy, const std::string &what) {
  GeneralPlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = elemBytes;
  req.copy = copy;
  req.shape.width = width;
  req.shape.height = height;
  req.shape.clusterSize = cluster;
  auto planned = planGeneralRemap(req);
  ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned))
      << what << ": " << std::get<std::string>(planned);
  const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
  if (!plan.steps.empty())
    ++methodsSeen[plan.steps[0].kind];
  int64_t slots = std::max(rt::slotsOf(src), rt::slotsOf(dst));
  for (const rt::GeneralStep &s : plan.steps)
    slots = std::max(slots, rt::slotsOf(s.to));
  const uint64_t region = uint64_t(slots) * elemBytes;
  rt::MasPar m(width, height, 3 * region, cluster);
  rt::Regions regions{{copy ? 0 : region}, {region}, {2 * region}};
  auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
  auto readOf = [&](unsigned pe) -> const uint8_t * { return m.memoryOf(pe); };
  rt::storePattern(memoryOf, src, elemBytes, regions.src.base, 7);
  std::string why;
  ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why))
      << what << ": " << why;
  EXPECT_EQ(rt::countMismatches(readOf, dst, elemBytes, regions.dst.base, 7),
            0u)
      << what;
  EXPECT_EQ(m.ledger().total(), plan.predictedTicks) << what;
  std::string steps;
  for (const rt::GeneralStep &s : plan.steps)
    steps += std::string(" ") + rt::generalStepKindName(s.kind) +
             (s.inPlace ? "(in place)" : "");
  EXPECT_LE(plan.lowerBound, m.ledger().total())
      << what << ":" << steps << ", " << elemBytes << " bytes"
      << (copy ? ", copy" : "") << ", " << width << " x " << height
      << ", cluster " << cluster;
}

std::vector<int64_t> randomShape(std::mt19937 &rng) {
  std::vector<int64_t> shape(std::uniform_int_distribution<int>(1, 3)(rng));
  for (int64_t &s : shape)
    s = std::uniform_int_distribution<int>(1, 9)(rng);
  return shape;
}

} // namespace

// 003 6.1.3's digit sense example, a_0:2, !a_1:3, a_2:3 on a 1-d device,
// remapped to the plain order: every element is checked.
TEST(GeneralRemap, DigitSenseExample) {
  KTile sensed;
  sensed.data = {SpaceDim::plain(18)};
  sensed.kdims = {KDim::plain(2), KDim::plain(3), KDim::plain(3)};
  sensed.kdims[1].sense = Sense::Minus;
  sensed.groups = {3};
  sensed.m = {{0, 1, 2}};
  sensed.device = {SpaceDim::plain(18)};
  ASSERT_TRUE(sensed.verify().empty());
  // 003 6.1.3's picture, most significant digit left: 4 10 16 2 8 14 ...
  std::vector<int64_t> cells;
  for (int64_t a = 0; a < 18; ++a)
    cells.push_back(sensed.dataAt(a));
  EXPECT_EQ(cells, (std::vector<int64_t>{4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7,
                                         16, 17, 14, 15, 12, 13}));
  KTile plain = sensed;
  plain.kdims[1].sense = Sense::Plus;
  runAndCheck(sensed, plain, 1, 1, 16, 4, false, "sense");
}

TEST(GeneralRemap, RandomTilesOnAnyGrid) {
  std::mt19937 rng(20261124);
  unsigned runs = 0;
  methodsSeen.clear();
  while (runs < 10000) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    KTile a = test::randomTileFor(rng, shape, spec);
    KTile b = test::randomTileFor(rng, shape, spec);
    ASSERT_TRUE(a.verify().empty());
    ASSERT_TRUE(b.verify().empty());
    unsigned width = std::uniform_int_distribution<unsigned>(1, 7)(rng);
    unsigned height = std::uniform_int_distribution<unsigned>(1, 5)(rng);
    if (rt::pesOf(a) > width * height || rt::pesOf(b) > width * height)
      continue; // the layouts must fit the machine's PEs
    unsigned cluster = 1u << std::uniform_int_distribution<unsigned>(0, 4)(rng);
    unsigned elemBytes = 1u
                         << std::uniform_int_distribution<unsigned>(0, 4)(rng);
    bool copy = rng() % 2;
    runAndCheck(a, b, width, height, cluster, elemBytes, copy,
                "run " + std::to_string(runs));
    if (HasFailure())
      return;
    ++runs;
  }
  for (auto kind :
       {rt::GeneralStepKind::Local, rt::GeneralStepKind::Slotwise,
        rt::GeneralStepKind::Exchange, rt::GeneralStepKind::BruteForce})
    EXPECT_GT(methodsSeen[kind], 500u) << rt::generalStepKindName(kind);
}

// Every method is exercised: a local permutation (in place), a slotwise
// processor permutation and brute force, each forced by the shape of the
// move, on a 3 x 5 grid.
TEST(GeneralRemap, EachMethod) {
  auto oneDim = [](std::vector<int64_t> ks,
                   std::vector<std::vector<unsigned>> m,
                   std::vector<int64_t> dev) {
    KTile t;
    int64_t n = 1;
    for (int64_t k : ks) {
      t.kdims.push_back(KDim::plain(k));
      n *= k;
    }
    t.data = {SpaceDim::plain(n)};
    t.groups = {unsigned(ks.size())};
    t.m = std::move(m);
    for (int64_t d : dev)
      t.device.push_back(SpaceDim::plain(d));
    return t;
  };
  // a0:5 a1:3 in memory, a2:15 over the PEs; swapping the memory digits is
  // local, moving the PE digit's order is a processor permutation.
  KTile base = oneDim({5, 3, 15}, {{0, 1}, {2}}, {15, 15});
  KTile memSwap = oneDim({5, 3, 15}, {{1, 0}, {2}}, {15, 15});
  KTile peRev = base;
  peRev.kdims[2].sense = Sense::Minus;
  KTile pm = oneDim({5, 3, 15}, {{2}, {0, 1}}, {15, 15});
  for (const auto &[to, kind] : {std::pair<KTile, rt::GeneralStepKind>{
                                     memSwap, rt::GeneralStepKind::Local},
                                 {peRev, rt::GeneralStepKind::Slotwise}}) {
    GeneralPlanRequest req;
    req.src = base;
    req.dst = to;
    req.elemBytes = 4;
    req.shape = {3, 5, 16};
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    ASSERT_EQ(plan.steps.size(), 1u);
    EXPECT_EQ(plan.steps[0].kind, kind);
    EXPECT_TRUE(plan.steps[0].inPlace);
    runAndCheck(base, to, 3, 5, 16, 4, false, "method");
  }
  runAndCheck(base, pm, 3, 5, 16, 4, false, "p/m");
  runAndCheck(base, pm, 3, 5, 16, 16, true, "p/m copy");
}

// A processor permutation of 15 slots that keeps every slot: the slotwise
// method sends consecutive slots together, up to 64 bits a send (003
// 5.6.3), so 1-byte elements take 4 sends (8 + 4 + 2 + 1 slots), 2-byte
// ones 5 (4 + 4 + 4 + 2 + 1), 4-byte ones 8 (7 pairs and one) and 8-byte
// ones 15; every run is checked
// element by element, against its prediction and under the bound.
TEST(GeneralRemap, SlotwiseChunks) {
  KTile base;
  base.kdims = {KDim::plain(5), KDim::plain(3), KDim::plain(15)};
  base.data = {SpaceDim::plain(225)};
  base.groups = {3};
  base.m = {{0, 1}, {2}};
  base.device = {SpaceDim::plain(15), SpaceDim::plain(15)};
  KTile peRev = base;
  peRev.kdims[2].sense = Sense::Minus;
  for (auto [bytes, sends] :
       {std::pair<unsigned, int64_t>{1, 4}, {2, 5}, {4, 8}, {8, 15}}) {
    GeneralPlanRequest req;
    req.src = base;
    req.dst = peRev;
    req.elemBytes = bytes;
    req.shape = {3, 5, 16};
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    ASSERT_EQ(plan.steps.size(), 1u);
    ASSERT_EQ(plan.steps[0].kind, rt::GeneralStepKind::Slotwise);
    rt::MasPar m(3, 5, 3 * 15 * 8, 16);
    rt::Regions regions{{0}, {0}, {2 * 15 * 8}};
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
    EXPECT_EQ(m.ledger().routerSends, sends) << bytes << " bytes";
    runAndCheck(base, peRev, 3, 5, 16, bytes, false,
                "chunks of " + std::to_string(bytes) + "-byte elements");
    runAndCheck(base, peRev, 3, 5, 16, bytes, true, "chunks, copy");
  }
}

// 003 fig. 6.15: 7 clusters (a-g) of 3 PEs, each PE sending to the cluster
// written in its column of panel i (cluster a's PEs send to f, d and b). A
// contention-free order gives every PE one of 3 steps so that in each step
// the 7 clusters send to 7 different clusters and so receive from 7
// different ones (003 6.4, Hall's theorem).
TEST(GeneralRemap, Figure615ContentionFreeOrder) {
  const char *panel[3] = {"fgbbaaa", "deggcef", "bdcdcef"};
  std::vector<std::pair<uint32_t, uint32_t>> sends;
  for (unsigned col = 0; col < 7; ++col)
    for (unsigned k = 0; k < 3; ++k)
      sends.push_back({col, uint32_t(panel[k][col] - 'a')});
  std::vector<uint32_t> step;
  uint32_t steps = 0;
  ASSERT_TRUE(rt::colourBipartite(sends, 7, step, steps, 1000));
  EXPECT_EQ(steps, 3u);
  for (uint32_t s = 0; s < steps; ++s) {
    std::vector<unsigned> out(7, 0), in(7, 0);
    for (size_t e = 0; e < sends.size(); ++e)
      if (step[e] == s) {
        ++out[sends[e].first];
        ++in[sends[e].second];
      }
    for (unsigned c = 0; c < 7; ++c) {
      EXPECT_EQ(out[c], 1u) << "step " << s << " cluster " << c;
      EXPECT_EQ(in[c], 1u) << "step " << s << " cluster " << c;
    }
  }
}

// 003 6.2.1's recursive doubling: 8 elements, one per PE on PEs 0-7, each
// replicated over all 32 PEs of a 1-d machine (the `*` digit spans the PE
// dim). Forwarding copies (receivers passing on what they received) takes
// fewer rounds than sending 31 copies from each source; every copy checks.
TEST(GeneralRemap, ReplicationByRecursiveDoubling) {
  KTile src;
  src.data = {SpaceDim::plain(8)};
  src.kdims = {KDim::plain(8), KDim::plain(4), KDim::plain(1)};
  src.kdims[1].ok = 0; // PEs 0-7 only
  src.groups = {1, 2};
  src.m = {{2}, {0, 1}};
  src.device = {SpaceDim::plain(1), SpaceDim::plain(32)};
  KTile dst;
  dst.data = {SpaceDim::plain(8)};
  dst.kdims = {KDim::plain(8), KDim::plain(32)};
  dst.kdims[1].ok = kReplicated;
  dst.groups = {1, 1};
  dst.m = {{0}, {1}};
  dst.device = {SpaceDim::plain(8), SpaceDim::plain(32)};
  ASSERT_TRUE(src.verify().empty());
  ASSERT_TRUE(dst.verify().empty());
  rt::ExchangeRoundList rounds;
  std::vector<rt::ExchangeSend> fanOut;
  ASSERT_TRUE(rt::exchangeSchedule(src, dst, rt::sourcesOf(src, dst), 32,
                                   rounds, fanOut));
  bool forwarded = false;
  for (const auto &round : rounds)
    for (const rt::ExchangeSend &e : round)
      forwarded |= e.forwarded;
  EXPECT_TRUE(forwarded);
  EXPECT_LT(rounds.size(), 31u);
  runAndCheck(src, dst, 32, 1, 16, 4, false, "doubling");
  runAndCheck(src, dst, 32, 1, 16, 16, true, "doubling copy");
}

// 003 fig. 6.3: a base-6 P/M exchange on 6 PEs is one digit-exchange step
// in place: 5 rounds paired as function 6.1 pairs them, with per-PE offsets
// and no schedule table. With identity memory digits below the exchanged
// one (a 6 x 6 transpose of 4-element rows) the four u8 elements of a row
// travel in one 32-bit send: 3 pair-rounds of 2 sends (the last a single
// send), so 5 sends instead of 20.
TEST(GeneralRemap, DigitExchangeFigure63) {
  for (bool rows : {false, true}) {
    std::vector<int64_t> bases = {6, 6};
    KTile from = digitTile(bases, {0}, {1}), to = digitTile(bases, {1}, {0});
    if (rows) {
      bases = {4, 6, 6};
      from = digitTile(bases, {0, 1}, {2});
      to = digitTile(bases, {0, 2}, {1});
    }
    GeneralPlanRequest req;
    req.src = from;
    req.dst = to;
    req.elemBytes = 1;
    req.shape = {6, 1, 16};
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    ASSERT_EQ(plan.steps.size(), 1u);
    EXPECT_EQ(plan.steps[0].kind, rt::GeneralStepKind::DigitExchange);
    EXPECT_TRUE(plan.steps[0].inPlace);
    const uint64_t region = uint64_t(rt::slotsOf(from));
    rt::MasPar m(6, 1, 3 * region, 16);
    rt::Regions regions{{region}, {region}, {2 * region}};
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
    EXPECT_EQ(m.ledger().routerSends, 5) << (rows ? "rows" : "elements");
    runAndCheck(from, to, 6, 1, 16, 1, false, "fig. 6.3");
    runAndCheck(from, to, 6, 1, 16, 1, true, "fig. 6.3, copy");
  }
}

// 003 6.2.1's combined permutation plans in several steps (6.2.2): a
// processor permutation in place and a memory permutation in place, cheaper
// than one step of the general methods. Its base-5 P/M exchange was 6.2.2's
// three steps too (a0 moved above a1 so that a1's 3 elements travel
// together) until the digit exchange packed the elements of several high
// parts into one send: now one digit-exchange step beats the three, which
// the planner still prices.
TEST(GeneralRemap, FiveStepPlans) {
  // [p: a3:2 a2:5 | m: a1:3 a0:2] -> [p: a2:5 a3:2 | m: a0:2 a1:3]
  std::vector<int64_t> b1 = {2, 3, 5, 2};
  KTile s1 = digitTile(b1, {0, 1}, {2, 3}), d1 = digitTile(b1, {1, 0}, {3, 2});
  // [p: a3:2 a2:5 | m: a1:3 a0:5] -> [p: a3:2 a0:5 | m: a1:3 a2:5]
  std::vector<int64_t> b2 = {5, 3, 5, 2};
  KTile s2 = digitTile(b2, {0, 1}, {2, 3}), d2 = digitTile(b2, {2, 1}, {0, 3});
  for (const auto &[s, d] : {std::pair<KTile, KTile>{s1, d1}, {s2, d2}}) {
    GeneralPlanRequest req;
    req.src = s;
    req.dst = d;
    req.elemBytes = 1;
    req.shape = {32, 32, 16};
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    if (s == s1) {
      EXPECT_GT(plan.steps.size(), 1u);
      EXPECT_NE(plan.steps[0].why.find("003 6.2."), std::string::npos)
          << plan.steps[0].why;
    } else {
      ASSERT_EQ(plan.steps.size(), 1u);
      EXPECT_EQ(plan.steps[0].kind, rt::GeneralStepKind::DigitExchange);
      EXPECT_NE(plan.steps[0].why.find("003 6.2.2 local[in place]+digit-"
                                       "exchange[in place]+local[in place]"),
                std::string::npos)
          << plan.steps[0].why;
    }
    runAndCheck(s, d, 32, 32, 16, 1, false, "6.2.1");
    runAndCheck(s, d, 32, 32, 16, 4, true, "6.2.1, copy");
  }
}

// Random aligned digit permutations: random bases, random digit orders on
// both sides, some digits of equal base traded between P and M, on grids
// of any sides, either layout in compact form (so the planner must align
// the factorisations first); every element checked, every prediction equal
// to its simulation, every plan above the bound. The digit-exchange step and
// plans of several steps must be taken often: the fixed seed's 600 pairs
// take 126 and 32; 200 other seeds took 110-158 and 13-38 (plans of several
// steps are 1 pair in 26), so they draw on to the targets.
TEST(GeneralRemap, RandomDigitPermutations) {
  std::mt19937 rng(test::testSeed(20261125));
  unsigned runs = 0, digitExchanges = 0, multiStep = 0;
  auto covered = [&] { return digitExchanges > 90 && multiStep > 30; };
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  while (test::keepDrawing(runs, 600, covered())) {
    std::vector<int64_t> bases;
    KTile a, b;
    std::tie(a, b) = randomAlignedDigitPair(rng, bases);
    if (rng() % 2)
      a = compact(a);
    if (rng() % 2)
      b = compact(b);
    ASSERT_TRUE(a.verify().empty());
    ASSERT_TRUE(b.verify().empty());
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 64 || rt::slotsOf(a) > 64)
      continue;
    unsigned width = unsigned(pick(1, 8));
    unsigned height = unsigned((pes + width - 1) / width);
    unsigned cluster = 1u << pick(0, 4);
    unsigned elemBytes = 1u << pick(0, 4);
    bool copy = rng() % 4 == 0;
    GeneralPlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = elemBytes;
    req.copy = copy;
    req.shape = {width, height, cluster};
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    for (const rt::GeneralStep &s : std::get<rt::GeneralPlan>(planned).steps)
      if (s.kind == rt::GeneralStepKind::DigitExchange) {
        ++digitExchanges;
        break;
      }
    multiStep += std::get<rt::GeneralPlan>(planned).steps.size() > 1;
    runAndCheck(a, b, width, height, cluster, elemBytes, copy,
                "digit run " + std::to_string(runs));
    if (HasFailure())
      return;
    ++runs;
  }
  EXPECT_TRUE(covered()) << "in " << runs << " pairs: " << digitExchanges
                         << " plans with a digit exchange (above 90 wanted), "
                         << multiStep << " of several steps (above 30)";
}

// Random aligned digit permutations whose digits differ in sense (each
// digit of either map reversed with odds 1 in 2; 003 6.1, digit sense): a
// reversal is a memory or processor permutation of that digit's values, so
// 003 6.2.2's plans take such pairs, their layouts between carrying the
// source's senses or the destination's. Every candidate of
// digitPermutationPlans runs on the simulator, every element checked, its
// prediction equal to the run; the planner's pick runs too.
TEST(GeneralRemap, RandomReversedDigitPermutations) {
  std::mt19937 rng(20261128);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned runs = 0, candidates = 0, chosen = 0;
  int64_t total = 0;
  while (runs < 2000) {
    std::vector<int64_t> bases;
    KTile a, b;
    std::tie(a, b) = randomAlignedDigitPair(rng, bases);
    bool differ = false;
    for (size_t l = 0; l < bases.size(); ++l) {
      if (rng() % 2)
        a.kdims[l].sense = rt::Sense::Minus;
      if (rng() % 2)
        b.kdims[l].sense = rt::Sense::Minus;
      differ |= a.kdims[l].sense != b.kdims[l].sense;
    }
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (!differ || pes > 64 || rt::slotsOf(a) > 64)
      continue;
    const unsigned width = unsigned(pick(1, 8));
    const rt::MachineShape grid{width, unsigned((pes + width - 1) / width),
                                1u << pick(0, 4)};
    const GeneralPlanRequest req =
        test::planRequest(a, b, 1u << pick(0, 3), rng() % 4 == 0, grid);
    const std::string what = "reversed run " + std::to_string(runs);
    for (const PricedPlan &p : digitPermutationPlans(req)) {
      rt::GeneralPlan plan;
      plan.source = a;
      plan.dest = b;
      plan.elemBytes = req.elemBytes;
      plan.copy = req.copy;
      plan.steps = p.steps;
      const test::PlanRun run = test::simulatePlan(plan, grid, 5);
      ASSERT_TRUE(run.ran) << what << ": " << p.name << ": " << run.why;
      EXPECT_EQ(run.wrong, 0u) << what << ": " << p.name;
      EXPECT_EQ(run.ticks, p.ticks) << what << ": " << p.name;
      ++candidates;
    }
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned)) << what;
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    chosen += plan.steps[0].why.rfind("003 6.2", 0) == 0;
    total += plan.predictedTicks;
    const test::PlanRun run = test::simulatePlan(plan, grid, 9);
    ASSERT_TRUE(run.ran) << what << ": " << run.why;
    EXPECT_EQ(run.wrong, 0u) << what;
    EXPECT_EQ(run.ticks, plan.predictedTicks) << what;
    if (HasFailure())
      return;
    ++runs;
  }
  std::printf("6.2.2 candidates run: %u over %u pairs; a 6.2.2 plan chosen "
              "in %u; the picks' ticks %lld\n",
              candidates, runs, chosen, (long long)total);
  EXPECT_GT(candidates, 8000u);
  EXPECT_GT(chosen, 120u);
}

// A digit-exchange step refuses a move it cannot do, with a reason, rather
// than move elements wrongly. Here the PE digit arrives reversed (element
// (x, y) goes to PE 5 - y, slot x): since processor permutations fold into
// the exchange's destinations this is a digit exchange, but not one that
// function 6.1's walk runs in place (PE x receives digit 5 - x where it
// sends x): with indirect loads only (direct ones as dear) it refuses.
// Loaded directly, a PE's 6 elements are one transfer that writes the
// cells it read, so it runs in place (rt::digitExchangeRunsInPlace). A
// memory digit reversed in place is no digit exchange at all. The planner
// then takes another method, and the remap still checks.
TEST(GeneralRemap, DigitExchangeRejects) {
  std::vector<int64_t> bases = {6, 6};
  KTile from = digitTile(bases, {0}, {1}), to = digitTile(bases, {1}, {0});
  to.kdims[0].sense = Sense::Minus;
  ASSERT_TRUE(to.verify().empty());
  rt::GeneralPlan plan = oneStepPlan(
      from, to, rt::GeneralStepKind::DigitExchange, /*inPlace=*/true);
  rt::CostModel flat;
  std::copy(flat.loadIndirect, flat.loadIndirect + 4, flat.load);
  rt::MasPar m(6, 1, 64, 16, flat);
  rt::Regions regions{{0}, {0}, {32}};
  std::string why;
  EXPECT_FALSE(rt::executeGeneralPlan(m, plan, regions, {}, &why));
  EXPECT_NE(why.find("digit exchange"), std::string::npos) << why;
  {
    rt::MasPar direct(6, 1, 64, 16);
    auto memoryOf = [&](unsigned pe) { return direct.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return direct.memoryOf(pe);
    };
    rt::storePattern(memoryOf, from, 1, 0, 7);
    EXPECT_TRUE(rt::executeGeneralPlan(direct, plan, regions, {}, &why)) << why;
    EXPECT_EQ(rt::countMismatches(readOf, to, 1, 0, 7), 0u);
  }
  rt::DigitExchangeShape shape;
  ASSERT_TRUE(
      rt::findDigitExchange(from, to, rt::sourcesOf(from, to), shape, nullptr));
  EXPECT_TRUE(shape.foldsPePermutation());
  EXPECT_FALSE(shape.canRunInPlace());
  KTile local = from;
  local.kdims[0].sense = Sense::Minus;
  EXPECT_FALSE(rt::findDigitExchange(from, local, rt::sourcesOf(from, local),
                                     shape, &why));
  EXPECT_NE(why.find("digit exchange"), std::string::npos) << why;
  plan.dest = local;
  plan.steps[0].to = local;
  EXPECT_FALSE(rt::executeGeneralPlan(m, plan, regions, {}, &why));
  // The other way round is one: base 6, weights 1 and 1.
  KTile plain = digitTile(bases, {1}, {0});
  ASSERT_TRUE(rt::findDigitExchange(from, plain, rt::sourcesOf(from, plain),
                                    shape, nullptr));
  EXPECT_EQ(shape.base, 6);
  EXPECT_EQ(shape.peWeight, 1);
  EXPECT_EQ(shape.slotWeight, 1);
  runAndCheck(from, to, 6, 1, 16, 1, false, "reversed");
}

// The 8-element vector over 30 PEs, run on the simulator: the copies of all
// elements go together (9 rounds; recursive doubling alone took 23), every
// copy checks and the prediction equals the simulation.
TEST(GeneralRemap, ReplicatedVectorOverThirty) {
  KTile src, dst;
  test::replicatedVector(8, 30, src, dst);
  ASSERT_TRUE(src.verify().empty());
  ASSERT_TRUE(dst.verify().empty());
  rt::ExchangeRoundList rounds;
  std::vector<rt::ExchangeSend> fanOut;
  ASSERT_TRUE(rt::exchangeSchedule(src, dst, rt::sourcesOf(src, dst), 30,
                                   rounds, fanOut));
  EXPECT_EQ(rounds.size(), 9u);
  // The planner keeps the exchange: the 9 rounds beat 29 sends from each
  // source (slotwise).
  GeneralPlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = 4;
  req.shape.width = 30;
  req.shape.height = 1;
  req.shape.clusterSize = 16;
  auto planned = planGeneralRemap(req);
  ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
  const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
  std::string steps;
  for (const rt::GeneralStep &s : plan.steps)
    steps += std::string(" ") + rt::generalStepKindName(s.kind) + " " +
             std::to_string(s.predictedTicks);
  std::printf("8 over 30:%s; %llu ticks, bound %llu\n", steps.c_str(),
              (unsigned long long)plan.predictedTicks,
              (unsigned long long)plan.lowerBound);
  runAndCheck(src, dst, 30, 1, 16, 4, false, "8 over 30");
  runAndCheck(src, dst, 30, 1, 16, 8, true, "8 over 30 copy");
}

// Random replicated vectors on 2 to 40 PEs (1 or 2 rows), every element
// checked, predictions equal to simulations, bounds below the plans.
TEST(GeneralRemap, RandomReplicatedVectors) {
  std::mt19937 rng(611);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 60; ++iter) {
    const unsigned width = unsigned(pick(2, 20)), height = unsigned(pick(1, 2));
    const int64_t pes = int64_t(width) * height;
    const int64_t n = pick(1, int(std::min<int64_t>(pes, 12)));
    KTile src, dst;
    test::replicatedVector(n, pes, src, dst);
    ASSERT_TRUE(src.verify().empty());
    ASSERT_TRUE(dst.verify().empty());
    runAndCheck(src, dst, width, height, 1u << pick(0, 4), 1u << pick(0, 3),
                pick(0, 1) == 1,
                "vector " + std::to_string(n) + " over " + std::to_string(pes));
  }
}

// colourBipartite keeps a row of colours only for vertices of high degree
// (at least a sixteenth of the largest); the others look their colours up
// among their own edges. Either way the colouring is proper and takes the
// largest degree's colours: a broadcast (one vertex of degree n - 1, the
// rest 1), a broadcast with a few busy receivers, and random multigraphs.
TEST(GeneralRemap, ColouringWithAndWithoutRows) {
  std::mt19937 rng(1201);
  auto check = [](const std::vector<std::pair<uint32_t, uint32_t>> &edges,
                  unsigned vertices) {
    std::vector<uint32_t> colour;
    uint32_t colours = 0;
    ASSERT_TRUE(rt::colourBipartite(edges, vertices, colour, colours,
                                    64 * edges.size() + 4096));
    std::vector<uint32_t> outDeg(vertices, 0), inDeg(vertices, 0);
    for (const auto &[u, v] : edges) {
      ++outDeg[u];
      ++inDeg[v];
    }
    uint32_t degree = 0;
    for (unsigned p = 0; p < vertices; ++p)
      degree = std::max({degree, outDeg[p], inDeg[p]});
    EXPECT_EQ(colours, degree);
    std::set<std::pair<uint32_t, uint32_t>> left, right;
    for (size_t e = 0; e < edges.size(); ++e) {
      ASSERT_LT(colour[e], colours);
      EXPECT_TRUE(left.insert({edges[e].first, colour[e]}).second) << e;
      EXPECT_TRUE(right.insert({edges[e].second, colour[e]}).second) << e;
    }
  };
  for (unsigned n : {2u, 17u, 1000u, 4095u}) {
    std::vector<std::pair<uint32_t, uint32_t>> broadcast;
    for (uint32_t q = 1; q < n; ++q)
      broadcast.push_back({0, q});
    check(broadcast, n);
    // A few receivers that also take from others.
    for (uint32_t q = 1; q < std::min(n, 40u); ++q)
      for (uint32_t k = 0; k < q % 7; ++k)
        broadcast.push_back({uint32_t(1 + rng() % (n - 1)), q});
    check(broadcast, n);
  }
  for (int trial = 0; trial < 50; ++trial) {
    const unsigned n = 2 + unsigned(rng() % 300);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    const unsigned count = unsigned(rng() % (8 * n));
    // Skewed: some vertices take most edges, so that rows and lookups mix.
    for (unsigned e = 0; e < count; ++e) {
      const uint32_t u = rng() % 4 == 0 ? uint32_t(rng() % 3) : rng() % n;
      const uint32_t v = rng() % 4 == 0 ? uint32_t(rng() % 3) : rng() % n;
      edges.push_back({u, v});
    }
    check(edges, n);
  }
}

// digitPermutationPlans with a budget (the one-step digit exchange in
// place's price, as planGeneralRemap gives it) bounds a plan only where its
// floor is at or above the budget and below its price; every other plan is
// priced as without a budget, step by step. Random #5 of the mixed-radix
// bench (648 PEs in clusters of 16, base 18: four of its six searches are
// bounded off) and a small exchange of 64 PEs. The budgeted plans come
// first, before the searches they skip are kept. Sabotaged (a plan bounded
// when its floor is 20000 ticks below the budget), it fails.
TEST(GeneralRemap, BudgetBoundsOnlyPlansThatLose) {
  struct Case {
    std::vector<int64_t> bases;
    std::vector<unsigned> mem, pe, mem2, pe2;
    rt::MachineShape shape;
    int atLeastBounded;
  };
  const Case cases[] = {
      {{5, 3, 6, 3, 3, 2, 6, 6},
       {0, 1, 2},
       {3, 4, 5, 6, 7},
       {6, 4, 0},
       {5, 2, 3, 7, 1},
       {32, 32, 16},
       1},
      {{10, 8, 8, 8}, {0, 1}, {2, 3}, {3, 0}, {1, 2}, {8, 8, 16}, 0},
  };
  for (const Case &k : cases) {
    const KTile from = digitTile(k.bases, k.mem, k.pe),
                to = digitTile(k.bases, k.mem2, k.pe2);
    const GeneralPlanRequest req =
        test::planRequest(from, to, 1, false, k.shape);
    rt::GeneralPlan one;
    one.source = from;
    one.dest = to;
    one.elemBytes = 1;
    rt::GeneralStep s;
    s.kind = rt::GeneralStepKind::DigitExchange;
    s.to = to;
    s.inPlace = true;
    one.steps = {s};
    int64_t budget = rt::predictGeneralStep(one, 0, req.shape, req.cost);
    if (budget < 0) { // not in place: any budget tells
      one.steps[0].inPlace = false;
      budget = rt::predictGeneralStep(one, 0, req.shape, req.cost);
    }
    ASSERT_GT(budget, 0);
    const std::vector<PricedPlan> cut =
        digitPermutationPlans(req, req.resignifyFloors, budget);
    const std::vector<PricedPlan> all =
        digitPermutationPlans(req, req.resignifyFloors);
    ASSERT_EQ(cut.size(), all.size());
    int bounded = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(cut[i].name, all[i].name);
      EXPECT_FALSE(all[i].bounded);
      ASSERT_EQ(cut[i].steps.size(), all[i].steps.size()) << all[i].name;
      if (cut[i].bounded) {
        ++bounded;
        EXPECT_GE(cut[i].ticks, budget) << all[i].name;
        EXPECT_LE(cut[i].ticks, all[i].ticks) << all[i].name;
        continue;
      }
      EXPECT_EQ(cut[i].ticks, all[i].ticks) << all[i].name;
      for (size_t j = 0; j < all[i].steps.size(); ++j)
        EXPECT_EQ(cut[i].steps[j].predictedTicks,
                  all[i].steps[j].predictedTicks)
            << all[i].name << " step " << j;
    }
    std::printf("budget %lld: %d of %zu plans bounded\n", (long long)budget,
                bounded, all.size());
    EXPECT_GE(bounded, k.atLeastBounded);
  }
}
