//===- PlanTextTest.cpp - --emit=plan's counted figures equal the walk ----===//
//
// --emit=plan prints each general step's moved and held cells, an exchange
// step's rounds and a digit exchange's digits and sends per round. It reads
// them off the move's counts (MoveCounts.h) or its frames' digits
// (FrameExchange.h) where those exist, so that a plan of 10^8 elements
// prints in the time it plans. On thousands of random HPF redistributions
// (block, cyclic, cyclic(k); one and two dims; block <-> cyclic(k) pairs
// whose layouts are digit frames, so that a digit exchange is found) with
// 1- to 16-byte elements, the planner's plan and a plan of every kind of
// step printed so must be the text printed from the table of sources,
// byte for byte; most steps must not walk.
//
//===----------------------------------------------------------------------===//
#include "ProgramRun.h"
#include "RandomHpf.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <random>

using namespace mapc;

namespace {

using Kind = rt::GeneralStepKind;

int64_t pick(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// The two texts of `plan`'s steps; how many steps walked when counted.
size_t expectSameText(const rt::GeneralPlan &plan, const std::string &what) {
  std::string counted, walked;
  llvm::raw_string_ostream c(counted), w(walked);
  // Every size counted (mapc counts only families of 256 elements or more
  // on average, where counting pays).
  const size_t walks =
      printGeneralSteps(plan, StepFigures::Counted, c, /*minPerFamily=*/0);
  EXPECT_EQ(printGeneralSteps(plan, StepFigures::Walked, w), plan.steps.size());
  EXPECT_EQ(counted, walked) << what;
  return walks;
}

/// block <-> cyclic(k) of p * p * k * m elements on p PEs: digit frames
/// that align (a digit exchange when the planner finds one).
std::pair<KTile, KTile> framePair(std::mt19937 &rng, int64_t &n) {
  const int64_t p = pick(rng, 2, 10), k = pick(rng, 1, 6), m = pick(rng, 1, 4);
  n = p * p * k * m;
  std::vector<DistFormatSpec> block(1), cyclic(1);
  block[0].kind = DistFormatSpec::Block;
  cyclic[0].kind = DistFormatSpec::Cyclic;
  cyclic[0].arg = k;
  KTile a = std::get<KTile>(lowerDistribute({n}, block, {p}));
  KTile b = std::get<KTile>(lowerDistribute({n}, cyclic, {p}));
  if (rng() % 2)
    std::swap(a, b);
  return {a, b};
}

} // namespace

TEST(PlanText, CountedEqualsWalked) {
  std::mt19937 rng(11282);
  const unsigned elemSizes[] = {1, 2, 4, 8, 16};
  const std::vector<std::vector<int64_t>> grids = {
      {2}, {3}, {5}, {7}, {10}, {16}, {31}, {3, 5}, {2, 3}, {4, 4}};
  size_t steps = 0, walks = 0, digitExchanges = 0;
  for (unsigned run = 0; run < 3000; ++run) {
    rt::GeneralPlan plan;
    std::string what;
    int64_t pes = 1;
    if (run % 3 == 0) {
      int64_t n = 0;
      auto [a, b] = framePair(rng, n);
      plan.source = a;
      plan.dest = b;
      pes = rt::pesOf(plan.source);
      what = "frames of " + std::to_string(n);
    } else {
      const std::vector<int64_t> &procs = grids[run % grids.size()];
      std::vector<int64_t> shape(procs.size());
      for (int64_t &s : shape)
        s = procs.size() == 1 ? pick(rng, 1, 3000) : pick(rng, 1, 40);
      plan.source = test::randomBlockCyclic(rng, shape, procs);
      plan.dest = test::randomBlockCyclic(rng, shape, procs);
      if (HasFailure())
        return;
      for (int64_t p : procs)
        pes *= p;
      what = "hpf of " + std::to_string(plan.source.dataSize());
    }
    plan.elemBytes = elemSizes[run % 5];
    what += ", " + std::to_string(plan.elemBytes) + "-byte elements";
    // Every kind of step the printer draws, to the destination and back
    // in place (the tests do not run them: only their text is compared).
    for (Kind kind : {Kind::Exchange, Kind::DigitExchange, Kind::Local})
      for (bool inPlace : {false, true}) {
        rt::GeneralStep s;
        s.kind = kind;
        s.inPlace = inPlace;
        s.to = inPlace ? plan.source : plan.dest;
        plan.steps.push_back(s);
      }
    walks += expectSameText(plan, what);
    steps += plan.steps.size();
    // The planner's own plan.
    GeneralPlanRequest req;
    req.src = plan.source;
    req.dst = plan.dest;
    req.elemBytes = plan.elemBytes;
    req.copy = run % 2;
    req.shape = {unsigned(pes), 1, 16};
    auto planned = planGeneralRemap(req);
    if (auto *p = std::get_if<rt::GeneralPlan>(&planned)) {
      walks += expectSameText(*p, what + ", planned");
      steps += p->steps.size();
      for (const rt::GeneralStep &s : p->steps)
        digitExchanges += s.kind == Kind::DigitExchange;
    }
    if (HasFailure())
      return;
  }
  // Most moves are counted; the planner picks digit exchanges between
  // the frames, which the printer reads off their digits.
  EXPECT_LT(walks * 2, steps);
  EXPECT_GT(digitExchanges, 100u);
  std::printf("%zu of %zu steps walked; %zu digit exchanges planned\n", walks,
              steps, digitExchanges);
}
