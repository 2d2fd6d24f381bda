//===- FramePriceTest.cpp - digit frames' steps priced from their digits
//---===//
//
// frameStepTicks (passes/FramePrice.h) against rt::predictGeneralStep, run
// on the table of sources, for local, slotwise and digit-exchange steps
// between random digit frames (in place and not, elements of 1 to 16
// bytes, grids with clusters of 1 to 16 PEs, some too small for the
// layouts); and the general planner with and without the digit prices:
// the same plan, the same prices of every candidate, the same `why`.
//
//===----------------------------------------------------------------------===//
#include "passes/FramePrice.h"
#include "DigitTile.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace mapc;
using mapc::test::compact;
using mapc::test::digitTile;
using mapc::test::oneStepPlan;
using mapc::test::randomPlaces;
using mapc::test::tradeAndShuffle;
using rt::GeneralStepKind;

namespace {

/// A random pair of frames over the same digits: a memory, processor or
/// combined permutation (the digits keep their sides), or any placement.
void randomFrames(std::mt19937_64 &rng, KTile &from, KTile &to) {
  const unsigned n = 2 + unsigned(rng() % 4);
  std::vector<int64_t> bases(n);
  for (int64_t &b : bases)
    b = 1 + int64_t(rng() % 6);
  std::vector<unsigned> mem, pe;
  randomPlaces(rng, n, mem, pe);
  from = digitTile(bases, mem, pe);
  if (rng() % 2) {
    std::vector<unsigned> mem2 = mem, pe2 = pe;
    if (rng() % 2)
      std::shuffle(mem2.begin(), mem2.end(), rng);
    if (rng() % 2)
      std::shuffle(pe2.begin(), pe2.end(), rng);
    to = digitTile(bases, mem2, pe2);
  } else {
    randomPlaces(rng, n, mem, pe);
    to = digitTile(bases, mem, pe);
  }
}

TEST(FramePrice, EqualsThePriceRunOnTheTable) {
  std::mt19937_64 rng(20261126);
  const unsigned sizes[] = {1, 2, 4, 8, 16};
  int compared[3] = {0, 0, 0}, priced[3] = {0, 0, 0};
  for (int trial = 0; trial < 3000; ++trial) {
    KTile from, to;
    randomFrames(rng, from, to);
    ASSERT_TRUE(heldFramesOverOneFactorisation(from, to));
    const unsigned width = 1 + unsigned(rng() % 8),
                   height = 1 + unsigned(rng() % 8);
    const rt::MachineShape shape{width, height, 1u << (rng() % 5)};
    const unsigned elemBytes = sizes[rng() % 5];
    const GeneralStepKind kinds[] = {GeneralStepKind::Local,
                                     GeneralStepKind::Slotwise,
                                     GeneralStepKind::DigitExchange};
    for (int k = 0; k < 3; ++k)
      for (bool inPlace : {false, true}) {
        const rt::CostModel cost;
        const std::optional<int64_t> byDigits =
            frameStepTicks(kinds[k], inPlace, from, to, elemBytes, shape, cost);
        if (!byDigits)
          continue;
        const int64_t onTable = rt::predictGeneralStep(
            oneStepPlan(from, to, kinds[k], inPlace, elemBytes), 0, shape,
            cost);
        ASSERT_EQ(*byDigits, onTable)
            << "trial " << trial << " kind " << k << " in place " << inPlace;
        ++compared[k];
        priced[k] += onTable >= 0;
      }
  }
  // Every kind compared often, and priced (not only refused) often.
  for (int k = 0; k < 3; ++k)
    EXPECT_GT(compared[k], 1000) << k;
  EXPECT_GT(priced[0], 300);
  EXPECT_GT(priced[1], 1000);
  EXPECT_GT(priced[2], 50); // digit exchanges found and priced
}

// Digits reversed on one side only (003 6.1: a permutation of a digit's
// values, u to b - 1 - u): local and slotwise steps priced off the digits,
// counting those digits down, against the pricing machine on the table of
// sources. A third of the pairs keep every place, so that only the
// reversed digits move (6.2.2's memory or processor permutation of a
// reversal).
TEST(FramePrice, ReversedDigitsEqualThePriceRunOnTheTable) {
  std::mt19937_64 rng(20261128);
  const unsigned sizes[] = {1, 2, 4, 8, 16};
  int compared[2] = {0, 0}, priced[2] = {0, 0}, inPlace = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    KTile from, to;
    randomFrames(rng, from, to);
    if (rng() % 3 == 0)
      to = from;
    bool differs = false;
    for (size_t l = 0; l < from.kdims.size(); ++l) {
      if (rng() % 2)
        from.kdims[l].sense = rt::Sense::Minus;
      if (rng() % 2)
        to.kdims[l].sense = rt::Sense::Minus;
      differs |=
          from.kdims[l].tk > 1 && from.kdims[l].sense != to.kdims[l].sense;
    }
    if (!differs)
      continue;
    ASSERT_FALSE(heldFramesOverOneFactorisation(from, to));
    ASSERT_TRUE(heldFramesOverOneFactorisationEitherSense(from, to));
    const rt::MachineShape shape{1 + unsigned(rng() % 8),
                                 1 + unsigned(rng() % 8), 1u << (rng() % 5)};
    const unsigned elemBytes = sizes[rng() % 5];
    const GeneralStepKind kinds[] = {GeneralStepKind::Local,
                                     GeneralStepKind::Slotwise};
    const rt::CostModel cost;
    for (int k = 0; k < 2; ++k)
      for (bool in : {false, true}) {
        const std::optional<int64_t> byDigits =
            frameStepTicks(kinds[k], in, from, to, elemBytes, shape, cost);
        ASSERT_TRUE(byDigits) << "trial " << trial;
        const int64_t onTable = rt::predictGeneralStep(
            oneStepPlan(from, to, kinds[k], in, elemBytes), 0, shape, cost);
        ASSERT_EQ(*byDigits, onTable)
            << "trial " << trial << " kind " << k << " in place " << in;
        ++compared[k];
        priced[k] += onTable >= 0;
        inPlace += in && onTable >= 0;
      }
    // No digit exchange is read off reversed digits (FrameExchange.h); -1
    // when the layouts do not fit the machine.
    const std::optional<int64_t> exchange =
        frameStepTicks(GeneralStepKind::DigitExchange, false, from, to,
                       elemBytes, shape, cost);
    EXPECT_TRUE(!exchange || *exchange < 0);
  }
  for (int k = 0; k < 2; ++k)
    EXPECT_GT(compared[k], 5000) << k;
  EXPECT_GT(priced[0], 500);  // reversed memory digits: memory permutations
  EXPECT_GT(priced[1], 1500); // and processor permutations per slot
  EXPECT_GT(inPlace, 300);
}

/// The planner's choice and its list of prices, without and with the
/// digit prices.
void expectSamePlans(const GeneralPlanRequest &base, const std::string &what) {
  GeneralPlanRequest onTables = base, byDigits = base;
  onTables.priceFramesByDigits = false;
  byDigits.priceFramesByDigits = true;
  auto a = planGeneralRemap(onTables), b = planGeneralRemap(byDigits);
  ASSERT_EQ(a.index(), b.index()) << what;
  if (!std::holds_alternative<rt::GeneralPlan>(a))
    return;
  const rt::GeneralPlan &pa = std::get<rt::GeneralPlan>(a),
                        &pb = std::get<rt::GeneralPlan>(b);
  EXPECT_EQ(pa.predictedTicks, pb.predictedTicks) << what;
  EXPECT_EQ(pa.lowerBound, pb.lowerBound) << what;
  ASSERT_EQ(pa.steps.size(), pb.steps.size()) << what;
  for (size_t i = 0; i < pa.steps.size(); ++i) {
    EXPECT_EQ(pa.steps[i].kind, pb.steps[i].kind) << what;
    EXPECT_EQ(pa.steps[i].inPlace, pb.steps[i].inPlace) << what;
    EXPECT_EQ(pa.steps[i].predictedTicks, pb.steps[i].predictedTicks) << what;
    EXPECT_TRUE(pa.steps[i].to == pb.steps[i].to) << what;
    EXPECT_EQ(pa.steps[i].why, pb.steps[i].why) << what;
  }
}

/// Plans of random aligned digit permutations, `trials` of them, with and
/// without the digit prices (expectSamePlans); with `reversed`, each digit
/// of either map reversed with odds 1 in 2. Returns {plans, plans of
/// several steps}.
std::pair<int, int> comparePlans(uint64_t seed, int trials, bool reversed) {
  std::mt19937_64 rng(seed);
  int plans = 0, multiStep = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const unsigned n = 2 + unsigned(rng() % 5);
    std::vector<int64_t> bases(n);
    for (int64_t &b : bases)
      b = 2 + int64_t(rng() % 5);
    std::vector<unsigned> mem, pe;
    randomPlaces(rng, n, mem, pe);
    std::vector<unsigned> mem2 = mem, pe2 = pe;
    tradeAndShuffle(rng, bases, mem2, pe2);
    KTile a = digitTile(bases, mem, pe), b = digitTile(bases, mem2, pe2);
    // Compact forms: the planner aligns them (fig. 6.1) before it reads
    // the move off their digits.
    if (rng() % 2)
      a = compact(a);
    if (rng() % 2)
      b = compact(b);
    for (size_t l = 0; reversed && l < a.kdims.size(); ++l)
      if (rng() % 2)
        a.kdims[l].sense = rt::Sense::Minus;
    for (size_t l = 0; reversed && l < b.kdims.size(); ++l)
      if (rng() % 2)
        b.kdims[l].sense = rt::Sense::Minus;
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 256 || rt::slotsOf(a) > 256)
      continue;
    const unsigned width = 1 + unsigned(rng() % 16);
    const unsigned height = unsigned((pes + width - 1) / width);
    GeneralPlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = 1u << (rng() % 5);
    req.copy = rng() % 4 == 0;
    req.shape = {width, height, 1u << (rng() % 5)};
    expectSamePlans(req, "trial " + std::to_string(trial));
    if (::testing::Test::HasFailure())
      return {plans, multiStep};
    ++plans;
    auto planned = planGeneralRemap(req);
    multiStep += std::get<rt::GeneralPlan>(planned).steps.size() > 1;
  }
  return {plans, multiStep};
}

// Random aligned digit permutations (some digits trading sides, as 003
// 6.2.2's candidates need; either side in compact form) on MasPar grids,
// copies and in place, 1- to 16-byte elements: with the digit prices the
// planner lists the same prices for every candidate and picks the same
// plan as with every step run on its table.
TEST(FramePrice, PlannerChoosesTheSamePlans) {
  const auto [plans, multiStep] = comparePlans(7, 400, false);
  EXPECT_GT(plans, 300);
  EXPECT_GT(multiStep, 15);
}

// The same with digits reversed (003 6.1): the one-step candidates and
// 6.2.2's steps that reverse a digit priced off the digits.
TEST(FramePrice, PlannerChoosesTheSamePlansWithReversedDigits) {
  const auto [plans, multiStep] = comparePlans(8, 400, true);
  EXPECT_GT(plans, 300);
  EXPECT_GT(multiStep, 15);
}

} // namespace
