//===- FrameExchangeTest.cpp - digit exchanges read off their frames ------===//
//
// frameDigitExchange (passes/FrameExchange.h) against rt::findDigitExchange
// on the table of sources, on random pairs of digit frames over one
// factorisation: the same answer (found or not) and, when found, the same
// shape field by field; and the digit-exchange step priced from the digits
// (frameStepTicks) against rt::predictGeneralStep on the table, to the
// tick, in place and not, elements of 1 to 16 bytes, grids with clusters
// of 1 to 16 PEs.
//
//===----------------------------------------------------------------------===//
#include "passes/FrameExchange.h"
#include "DigitTile.h"
#include "TestSeed.h"
#include "passes/FramePrice.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace mapc;
using mapc::test::digitTile;
using mapc::test::oneStepPlan;
using mapc::test::randomPlaces;
using mapc::test::tradeAndShuffle;
using rt::GeneralStepKind;

namespace {

/// `ds` with the digits of `run` (neighbours in it) replaced by `by`.
std::vector<unsigned> replaced(const std::vector<unsigned> &ds,
                               const std::vector<unsigned> &run,
                               const std::vector<unsigned> &by) {
  std::vector<unsigned> out;
  for (unsigned l : ds) {
    if (l == run.front())
      out.insert(out.end(), by.begin(), by.end());
    if (std::find(run.begin(), run.end(), l) == run.end())
      out.push_back(l);
  }
  return out;
}

/// A compound exchange: a run of one to two memory digits trades places
/// with PE digits of the same product (one digit, or two factors), each
/// group in any order on arrival; the other digits of each side shuffled
/// sometimes (which may break the exchange: the finder then refuses it).
void compoundExchange(std::mt19937_64 &rng, KTile &from, KTile &to) {
  std::vector<int64_t> bases;
  const unsigned runLen = 1 + unsigned(rng() % 2);
  int64_t product = 1;
  for (unsigned i = 0; i < runLen; ++i) {
    bases.push_back(2 + int64_t(rng() % 3));
    product *= bases.back();
  }
  std::vector<unsigned> memRun(runLen), peRun;
  for (unsigned i = 0; i < runLen; ++i)
    memRun[i] = i;
  // The PE group: the product as one digit, or as two factors.
  int64_t f = 2;
  while (f < product && product % f != 0)
    ++f;
  if (f < product && rng() % 2) {
    bases.push_back(f);
    bases.push_back(product / f);
    peRun = {runLen, runLen + 1};
  } else {
    bases.push_back(product);
    peRun = {runLen};
  }
  const unsigned others = unsigned(rng() % 4);
  for (unsigned i = 0; i < others; ++i)
    bases.push_back(1 + int64_t(rng() % 5));
  // The other digits on either side, the runs put in at random places.
  std::vector<unsigned> mem, pe;
  for (unsigned l = unsigned(runLen + peRun.size()); l < bases.size(); ++l)
    (rng() % 2 ? mem : pe).push_back(l);
  std::shuffle(mem.begin(), mem.end(), rng);
  std::shuffle(pe.begin(), pe.end(), rng);
  mem.insert(mem.begin() + long(rng() % (mem.size() + 1)), memRun.begin(),
             memRun.end());
  pe.insert(pe.begin() + long(rng() % (pe.size() + 1)), peRun.begin(),
            peRun.end());
  from = digitTile(bases, mem, pe);
  std::vector<unsigned> toPeRun = memRun, toMemRun = peRun;
  if (rng() % 2)
    std::shuffle(toPeRun.begin(), toPeRun.end(), rng);
  if (rng() % 2)
    std::shuffle(toMemRun.begin(), toMemRun.end(), rng);
  std::vector<unsigned> mem2 = replaced(mem, memRun, toMemRun),
                        pe2 = replaced(pe, peRun, toPeRun);
  if (rng() % 4 == 0)
    std::shuffle(mem2.begin(), mem2.end(), rng);
  if (rng() % 4 == 0)
    std::shuffle(pe2.begin(), pe2.end(), rng);
  to = digitTile(bases, mem2, pe2);
}

/// A random pair of frames over the same digits: any placement, single
/// digits of equal base traded, or a compound exchange.
void randomPair(std::mt19937_64 &rng, KTile &from, KTile &to) {
  const int kind = int(rng() % 3);
  if (kind == 2) {
    compoundExchange(rng, from, to);
    return;
  }
  const unsigned n = 2 + unsigned(rng() % 5);
  std::vector<int64_t> bases(n);
  for (int64_t &b : bases)
    b = (kind == 0 ? 1 : 2) + int64_t(rng() % 5);
  std::vector<unsigned> mem, pe;
  randomPlaces(rng, n, mem, pe);
  from = digitTile(bases, mem, pe);
  if (kind == 0)
    randomPlaces(rng, n, mem, pe);
  else
    tradeAndShuffle(rng, bases, mem, pe);
  to = digitTile(bases, mem, pe);
}

void expectSameShape(const rt::DigitExchangeShape &a,
                     const rt::DigitExchangeShape &b, const std::string &what) {
  EXPECT_EQ(a.base, b.base) << what;
  EXPECT_EQ(a.peWeight, b.peWeight) << what;
  EXPECT_EQ(a.slotWeight, b.slotWeight) << what;
  EXPECT_EQ(a.pes, b.pes) << what;
  EXPECT_EQ(a.slots, b.slots) << what;
  EXPECT_EQ(a.chunk, b.chunk) << what;
  EXPECT_EQ(a.destSlotWeight, b.destSlotWeight) << what;
  // The high parts' places: a table (the finder) or digits (the frames).
  ASSERT_EQ(a.highs(), b.highs()) << what;
  EXPECT_EQ(a.foldsPermutation(), b.foldsPermutation()) << what;
  EXPECT_EQ(a.highsKept(), b.highsKept()) << what;
  for (int64_t h = 0; h < a.highs(); ++h)
    ASSERT_EQ(a.dstHigh(h), b.dstHigh(h)) << what << " high part " << h;
  EXPECT_EQ(a.sendDigit, b.sendDigit) << what;
  EXPECT_EQ(a.recvDigit, b.recvDigit) << what;
  EXPECT_EQ(a.destPe, b.destPe) << what;
  EXPECT_EQ(a.keepsPeDigit, b.keepsPeDigit) << what;
}

TEST(FrameExchange, ReadsTheShapeTheTableGives) {
  std::mt19937_64 rng(20261126);
  int pairs = 0, found = 0, chunked = 0, folded = 0, peFolded = 0, regular = 0,
      otherDigit = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    KTile from, to;
    randomPair(rng, from, to);
    ASSERT_TRUE(heldFramesOverOneFactorisation(from, to));
    const std::string what = "trial " + std::to_string(trial);
    rt::DigitExchangeShape onTable;
    std::string why;
    const bool fromTable =
        rt::findDigitExchange(from, to, rt::sourcesOf(from, to), onTable, &why);
    const std::optional<rt::DigitExchangeShape> byDigits =
        frameDigitExchange(from, to);
    ASSERT_EQ(fromTable, byDigits.has_value()) << what << ": " << why;
    ++pairs;
    if (!fromTable)
      continue;
    expectSameShape(onTable, *byDigits, what);
    if (HasFailure())
      return;
    ++found;
    chunked += onTable.chunk > 1;
    folded += onTable.foldsPermutation();
    peFolded += onTable.foldsPePermutation();
    regular += !onTable.foldsPePermutation();
    otherDigit += !onTable.keepsPeDigit;
  }
  EXPECT_EQ(pairs, 4000);
  // Exchanges found often, of every kind the shape tells apart.
  EXPECT_GT(found, 1500);
  EXPECT_GT(chunked, 300);
  EXPECT_GT(folded, 150);
  EXPECT_GT(peFolded, 400);
  EXPECT_GT(regular, 1000);
  EXPECT_GT(otherDigit, 400);
}

TEST(FrameExchange, PricedAsOnTheTable) {
  std::mt19937_64 rng(6121);
  const unsigned sizes[] = {1, 2, 4, 8, 16};
  int compared = 0, priced = 0, pricedInPlace = 0, refusedInPlace = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    KTile from, to;
    randomPair(rng, from, to);
    const unsigned width = 1 + unsigned(rng() % 8),
                   height = 1 + unsigned(rng() % 8);
    const rt::MachineShape shape{width, height, 1u << (rng() % 5)};
    const unsigned elemBytes = sizes[rng() % 5];
    const rt::CostModel cost;
    for (bool inPlace : {false, true}) {
      const std::optional<int64_t> byDigits =
          frameStepTicks(GeneralStepKind::DigitExchange, inPlace, from, to,
                         elemBytes, shape, cost);
      ASSERT_TRUE(byDigits.has_value()) << "trial " << trial;
      const int64_t onTable = rt::predictGeneralStep(
          oneStepPlan(from, to, GeneralStepKind::DigitExchange, inPlace,
                      elemBytes),
          0, shape, cost);
      ASSERT_EQ(*byDigits, onTable)
          << "trial " << trial << " in place " << inPlace;
      ++compared;
      priced += onTable >= 0;
      pricedInPlace += inPlace && onTable >= 0;
      refusedInPlace +=
          inPlace && onTable < 0 && frameDigitExchange(from, to).has_value();
    }
  }
  EXPECT_EQ(compared, 6000);
  EXPECT_GT(priced, 1200);
  EXPECT_GT(pricedInPlace, 500);
  EXPECT_GT(refusedInPlace, 400); // found, but it cannot run in place
}

// The pricing machine counts an exchange's transfers and loads from its
// shape (rt::digitExchangeTally), without making its sequences: the same
// counts as the sequences the executor runs, for every shape found above,
// every element size, in place and not. Exchanges and streams longer than
// a period must be common: the fixed seed's 2,000 trials find 898 and 1594;
// 200 other seeds found 825-944 and 1240-1694, so they draw on to the
// targets.
TEST(FrameExchange, TallyCountsTheSequences) {
  std::mt19937_64 rng(test::testSeed(20261127));
  int shapes = 0, periods = 0;
  auto covered = [&] { return shapes > 800 && periods > 1200; };
  unsigned trial = 0;
  for (; test::keepDrawing(trial, 2000, covered()); ++trial) {
    KTile from, to;
    randomPair(rng, from, to);
    const std::optional<rt::DigitExchangeShape> ex =
        frameDigitExchange(from, to);
    if (!ex)
      continue;
    ++shapes;
    for (unsigned eb : {1u, 2u, 3u, 4u, 8u, 12u, 16u})
      for (bool inPlace : {false, true}) {
        const rt::DigitExchangeTally a = rt::digitExchangeTally(
                                         rt::digitExchangeSequences(*ex, eb,
                                                                    inPlace)),
                                     b = rt::digitExchangeTally(*ex, eb,
                                                                inPlace);
        const std::string what = "trial " + std::to_string(trial) + " eb " +
                                 std::to_string(eb) + " in place " +
                                 std::to_string(inPlace);
        ASSERT_EQ(a.transfers, b.transfers) << what;
        ASSERT_EQ(a.widest, b.widest) << what;
        ASSERT_EQ(a.filledSends, b.filledSends) << what;
        for (unsigned w = 0; w < 4; ++w) {
          ASSERT_EQ(a.perSendWidth[w], b.perSendWidth[w]) << what;
          ASSERT_EQ(a.roundParts[w], b.roundParts[w]) << what;
          ASSERT_EQ(a.diagonalParts[w], b.diagonalParts[w]) << what;
        }
        // Streams longer than one period of their cuts.
        periods += eb < 8 && ex->highs() * ex->chunk >
                                 std::lcm(ex->chunk, int64_t(8 / eb));
      }
  }
  EXPECT_TRUE(covered()) << "in " << trial << " trials: " << shapes
                         << " exchanges (above 800 wanted), " << periods
                         << " streams longer than a period (above 1200)";
}

} // namespace
