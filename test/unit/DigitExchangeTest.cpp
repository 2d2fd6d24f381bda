//===- DigitExchangeTest.cpp - the digit exchange with folded permutations ===//
//
// 003 function 6.1's P/M digit exchange (runtime/lib/DigitExchange.cpp)
// with memory permutations folded into its per-PE offsets and chunks of any
// number of elements up to 64 bits: the step alone on random exchanges
// (every element checked, prediction equal to simulation), and 003 6.2.2's
// plans on random aligned digit permutations, where the folded form must
// be chosen often.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/DigitExchange.h"
#include "DigitTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/MoveCounts.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <random>

using namespace mapc;
using mapc::test::addConstant;
using mapc::test::digitTile;
using mapc::test::oneStepPlan;

namespace {

/// Runs `plan` on a width x height MasPar, checks every element of `dst`,
/// and returns the ticks it took.
int64_t runChecked(const rt::GeneralPlan &plan, unsigned width, unsigned height,
                   unsigned cluster, const std::string &what,
                   const rt::CostModel &cost = {}) {
  int64_t slots = std::max(rt::slotsOf(plan.source), rt::slotsOf(plan.dest));
  for (const rt::GeneralStep &s : plan.steps)
    slots = std::max(slots, rt::slotsOf(s.to));
  const uint64_t region = uint64_t(slots) * plan.elemBytes;
  rt::MasPar m(width, height, 3 * region, cluster, cost);
  rt::Regions regions{{plan.copy ? 0 : region}, {region}, {2 * region}};
  auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
  auto readOf = [&](unsigned pe) -> const uint8_t * { return m.memoryOf(pe); };
  rt::storePattern(memoryOf, plan.source, plan.elemBytes, regions.src.base, 5);
  std::string why;
  EXPECT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why))
      << what << ": " << why;
  EXPECT_EQ(rt::countMismatches(readOf, plan.dest, plan.elemBytes,
                                regions.dst.base, 5),
            0u)
      << what;
  return m.ledger().total();
}

/// One random P/M digit exchange with a memory permutation folded in:
/// identity chunk digits at the bottom of memory, high digits shuffled
/// between the two layouts, the exchanged memory digit at any place among
/// them (the same place on arrival when `samePlace`).
struct FoldedCase {
  KTile from, to;
};

FoldedCase randomFolded(std::mt19937 &rng, bool samePlace, int maxBase = 9) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int64_t> bases;
  auto digit = [&](int64_t base) {
    bases.push_back(base);
    return unsigned(bases.size() - 1);
  };
  const int64_t b = pick(2, maxBase);
  const unsigned e = digit(b), f = digit(b); // memory e <-> PE f
  std::vector<unsigned> chunk, high, rest;
  for (int i = pick(0, 2); i > 0; --i)
    chunk.push_back(digit(pick(2, 5)));
  for (int i = pick(1, 3); i > 0; --i)
    high.push_back(digit(pick(2, 4)));
  for (int i = pick(0, 2); i > 0; --i)
    rest.push_back(digit(pick(2, 3)));
  std::vector<unsigned> memFrom = chunk, memTo = chunk, highTo = high;
  std::shuffle(highTo.begin(), highTo.end(), rng);
  const size_t at = size_t(pick(0, int(high.size())));
  const size_t atTo = samePlace ? at : size_t(pick(0, int(high.size())));
  std::vector<unsigned> h1 = high, h2 = highTo;
  h1.insert(h1.begin() + long(at), e);
  h2.insert(h2.begin() + long(atTo), f);
  memFrom.insert(memFrom.end(), h1.begin(), h1.end());
  memTo.insert(memTo.end(), h2.begin(), h2.end());
  // The other PE digits permuted too, half of the time (a processor
  // permutation folded into the destinations).
  std::vector<unsigned> peFrom = rest, peTo = rest;
  const bool permutePes = rng() % 2;
  if (permutePes)
    std::shuffle(peTo.begin(), peTo.end(), rng);
  const size_t pAt = size_t(pick(0, int(rest.size())));
  const size_t pAtTo = permutePes ? size_t(pick(0, int(rest.size()))) : pAt;
  peFrom.insert(peFrom.begin() + long(pAt), f);
  peTo.insert(peTo.begin() + long(pAtTo), e);
  return {digitTile(bases, memFrom, peFrom), digitTile(bases, memTo, peTo)};
}

} // namespace

// Chunks hold as many elements as fit in 64 bits, not only powers of two.
TEST(DigitExchange, Chunks) {
  auto widths = [](int64_t chunk, unsigned eb) {
    std::vector<unsigned> out;
    for (const rt::DigitExchangeChunk &c : rt::digitExchangeChunks(chunk, eb))
      out.push_back(c.bytes);
    return out;
  };
  EXPECT_EQ(widths(6, 1), (std::vector<unsigned>{6}));
  EXPECT_EQ(widths(12, 1), (std::vector<unsigned>{8, 4}));
  EXPECT_EQ(widths(3, 2), (std::vector<unsigned>{6}));
  EXPECT_EQ(widths(5, 4), (std::vector<unsigned>{8, 8, 4}));
  EXPECT_EQ(widths(2, 16), (std::vector<unsigned>{8, 8, 8, 8}));
}

// 6 u8 elements below the exchanged digit go in one 64-bit send per
// transfer instead of two (4 + 2): fig. 6.3's exchange over rows of 6.
TEST(DigitExchange, SixElementRowsInOneSend) {
  std::vector<int64_t> bases = {6, 6, 6};
  KTile from = digitTile(bases, {0, 1}, {2}),
        to = digitTile(bases, {0, 2}, {1});
  rt::GeneralPlan plan = oneStepPlan(
      from, to, rt::GeneralStepKind::DigitExchange, /*inPlace=*/true);
  rt::MasPar m(6, 1, 3 * 36, 16);
  rt::Regions regions{{36}, {36}, {72}};
  std::string why;
  ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
  // Rounds 1+5, 2+4: two sends each; round 3: one.
  EXPECT_EQ(m.ledger().routerSends, 5);
}

// The finder reads a folded permutation off the move: here the exchanged
// digit arrives one place higher and the two high digits trade places.
TEST(DigitExchange, FindsFoldedPermutation) {
  // Digits: e = 0 (base 3, memory), f = 1 (base 3, PE), c = 2 (base 2,
  // chunk), h = 3 (base 2), g = 4 (base 5).
  std::vector<int64_t> bases = {3, 3, 2, 2, 5};
  KTile from = digitTile(bases, {2, 0, 3, 4}, {1});
  KTile to = digitTile(bases, {2, 4, 3, 1}, {0});
  rt::DigitExchangeShape d;
  std::string why;
  ASSERT_TRUE(rt::findDigitExchange(from, to, rt::sourcesOf(from, to), d, &why))
      << why;
  EXPECT_EQ(d.base, 3);
  EXPECT_EQ(d.chunk, 2);
  EXPECT_EQ(d.slotWeight, 2);
  EXPECT_EQ(d.destSlotWeight, 20);
  EXPECT_TRUE(d.foldsPermutation());
  EXPECT_FALSE(d.canRunInPlace());
  // Not in place: the step refuses rather than overwrite what it reads.
  rt::GeneralPlan plan = oneStepPlan(
      from, to, rt::GeneralStepKind::DigitExchange, /*inPlace=*/true);
  EXPECT_LT(rt::predictGeneralStep(plan, 0, {3, 1, 16}, {}), 0);
  plan.steps[0].inPlace = false;
  EXPECT_GT(rt::predictGeneralStep(plan, 0, {3, 1, 16}, {}), 0);
}

namespace {

/// What the random step tests saw.
struct StepCounts {
  int inPlace = 0, folded = 0, pesMoved = 0, direct = 0, reloads = 0,
      wholeInPlace = 0;
};

/// The step alone on `runs` random exchanges of bases 2 to `maxBase` (see
/// RandomFoldedSteps), counting what it saw into `seen`.
void randomSteps(unsigned seed, int runs, int maxBase, int64_t maxPes,
                 StepCounts &seen) {
  std::mt19937 rng(seed);
  int &inPlace = seen.inPlace, &folded = seen.folded, &pesMoved = seen.pesMoved,
      &direct = seen.direct;
  rt::CostModel flat;
  std::copy(flat.loadIndirect, flat.loadIndirect + 4, flat.load);
  for (int run = 0; run < runs; ++run) {
    const bool samePlace = rng() % 2;
    FoldedCase c = randomFolded(rng, samePlace, maxBase);
    const int64_t pes = rt::pesOf(c.from);
    if (pes > maxPes || rt::slotsOf(c.from) > 400) {
      --run;
      continue;
    }
    const std::vector<uint32_t> sources = rt::sourcesOf(c.from, c.to);
    rt::DigitExchangeShape d;
    std::string why;
    ASSERT_TRUE(rt::findDigitExchange(c.from, c.to, sources, d, &why))
        << "run " << run << ": " << why;
    // The planner's refusal from the move's counts never refuses it.
    EXPECT_EQ(
        rt::digitExchangeRefusal(rt::countMoveByElements(c.from, c.to, sources),
                                 rt::slotsOf(c.to), rt::pesOf(c.to)),
        nullptr)
        << "run " << run;
    folded += d.foldsPermutation();
    pesMoved += d.foldsPePermutation();
    const unsigned width =
        unsigned(std::uniform_int_distribution<int>(1, 8)(rng));
    const unsigned height = unsigned((pes + width - 1) / width);
    const unsigned cluster = 1u << (rng() % 5);
    const unsigned eb = 1u << (rng() % 5);
    for (bool place : {false, true}) {
      // In place: function 6.1's walk, or direct with every transfer
      // writing what it read (never at the flat prices: never direct).
      const bool whole = place && !d.canRunInPlace() &&
                         rt::digitExchangeRunsInPlace(d, eb, rt::CostModel());
      EXPECT_EQ(rt::digitExchangeRunsInPlace(d, eb, flat), d.canRunInPlace());
      if (place && !d.canRunInPlace() && !whole)
        continue;
      inPlace += place;
      seen.wholeInPlace += whole;
      rt::GeneralPlan plan;
      plan.source = c.from;
      plan.dest = c.to;
      plan.elemBytes = eb;
      plan.copy = !place; // out of place: from the source to the destination
      rt::GeneralStep s;
      s.kind = rt::GeneralStepKind::DigitExchange;
      s.to = c.to;
      s.inPlace = place;
      plan.steps = {s};
      const rt::MachineShape shape{width, height, cluster};
      const bool walk = place && !whole;
      const rt::DigitExchangeLoads loads = rt::digitExchangeLoads(
          d, rt::digitExchangeSequences(d, eb, walk), eb, walk, {});
      direct += loads.direct;
      seen.reloads += loads.reloadsEntries;
      EXPECT_FALSE(rt::digitExchangeLoadsDirect(
          d, rt::digitExchangeSequences(d, eb, walk), eb, walk, flat));
      for (const rt::CostModel &cost : {rt::CostModel(), flat}) {
        if (whole && cost.load[3] == flat.load[3])
          continue; // indirect at flat prices: not in place
        const int64_t predicted =
            rt::predictGeneralStep(plan, 0, shape, cost, &sources);
        ASSERT_GE(predicted, 0) << "run " << run;
        const std::string what = "run " + std::to_string(run) +
                                 (place ? " in place" : " out of place");
        EXPECT_EQ(runChecked(plan, width, height, cluster, what, cost),
                  predicted)
            << what;
      }
      if (::testing::Test::HasFailure())
        return;
    }
  }
}

} // namespace

// The step alone on 3,000 random exchanges with folded memory permutations
// (bases 2-9, 1- to 16-byte elements, in place when the exchanged digit
// keeps its place or every transfer writes what it read, out of place
// always): found by the finder, every element checked, the prediction equal
// to the simulation; with fig. 5.2's prices (direct loads where the
// registers hold the values) and with direct loads as dear as indirect ones
// (function 6.1's indirect loads always).
TEST(DigitExchange, RandomFoldedSteps) {
  StepCounts seen;
  randomSteps(20261126, 3000, 9, 96, seen);
  const int folded = seen.folded, pesMoved = seen.pesMoved,
            inPlace = seen.inPlace, direct = seen.direct;
  std::printf("folded %d of 3000, PEs permuted in %d, %d in place (%d of "
              "them whole transfers), %d with direct loads (%d reloading "
              "schedule entries)\n",
              folded, pesMoved, inPlace, seen.wholeInPlace, direct,
              seen.reloads);
  EXPECT_GT(seen.wholeInPlace, 200);
  EXPECT_GT(direct, 1000);
  EXPECT_GT(folded, 1200);
  EXPECT_GT(pesMoved, 600);
  EXPECT_GT(inPlace, 1000);
}

// Bases 10 to 20 (a PE holds up to 20 slot digits of a transfer): values
// packed byte after byte into registers, schedule entries loaded per
// transfer when they do not fit beside them; 400 random steps checked as
// above.
TEST(DigitExchange, RandomWideBaseSteps) {
  StepCounts seen;
  randomSteps(181126, 400, 20, 240, seen);
  std::printf("wide bases: %d in place (%d of them whole transfers), %d with "
              "direct loads (%d reloading schedule entries)\n",
              seen.inPlace, seen.wholeInPlace, seen.direct, seen.reloads);
  EXPECT_GT(seen.direct, 300);
  EXPECT_GT(seen.reloads, 20);
  EXPECT_GT(seen.wholeInPlace, 20);
}

// The registers of one transfer's values: whole registers per value, or
// packed byte after byte plus a pair to assemble the value sent.
TEST(DigitExchange, ValueRegisters) {
  EXPECT_EQ(rt::digitExchangeValueRegisters(5, 6, 1), 10);
  EXPECT_EQ(rt::digitExchangeValueRegisters(16, 8, 1), 32);
  EXPECT_EQ(rt::digitExchangeValueRegisters(18, 5, 1), 25); // not 36
  EXPECT_EQ(rt::digitExchangeValueRegisters(9, 3, 2), 16);  // not 18
  EXPECT_EQ(rt::digitExchangeValueRegisters(2, 1, 1), 2);
}

// Random #5 of the mixed-radix benchmark (648 x 90 u8): a base-18 exchange
// with a processor permutation folded in, the exchanged digit arriving at
// weight 1 (from 5): one transfer of 5 bytes per slot digit (5 high parts of
// one element). Its values take 25 registers packed (36 whole) and its 10
// round pairs' entries 20 more, so the entries are loaded as the pairs run
// (once: there is one transfer). Loaded directly, memory is 18 x 5 x 2 x 20
// = 3600 ticks against 18 x 5 x 2 x 55 = 9900 indirect; and as the one
// transfer holds every element of a PE, it runs in place (no copy back).
TEST(DigitExchange, BaseEighteenDirectInPlace) {
  const std::vector<int64_t> bases = {5, 3, 6, 3, 3, 2, 6, 6};
  const KTile from = digitTile(bases, {0, 1, 2}, {3, 4, 5, 6, 7});
  const KTile to = digitTile(bases, {6, 4, 0}, {5, 2, 3, 7, 1});
  const std::vector<uint32_t> sources = rt::sourcesOf(from, to);
  rt::DigitExchangeShape d;
  std::string why;
  ASSERT_TRUE(rt::findDigitExchange(from, to, sources, d, &why)) << why;
  EXPECT_EQ(d.base, 18);
  EXPECT_TRUE(d.foldsPePermutation());
  EXPECT_FALSE(d.canRunInPlace());
  const rt::DigitExchangeSequences seqs =
      rt::digitExchangeSequences(d, 1, false);
  ASSERT_EQ(seqs.rounds.size(), 1u);
  ASSERT_EQ(seqs.rounds[0].size(), 1u);
  EXPECT_EQ(seqs.rounds[0][0].bytes, 5u);
  const rt::DigitExchangeLoads loads =
      rt::digitExchangeLoads(d, seqs, 1, false, {});
  EXPECT_TRUE(loads.direct);
  EXPECT_TRUE(loads.reloadsEntries);
  EXPECT_TRUE(rt::digitExchangeRunsInPlace(d, 1, {}));
  rt::GeneralPlan plan =
      oneStepPlan(from, to, rt::GeneralStepKind::DigitExchange, true);
  rt::MasPar m = rt::MasPar::pricing(32, 32, 16);
  rt::Regions regions{{0}, {0}, {0}};
  ASSERT_TRUE(rt::runGeneralStep(m, plan, 0, regions));
  // The loads and stores, the PE's digits and, run in 46 partial rounds
  // (ClusterTraffic.RandomFivePartialRoundsWin), their 12 entries of 4
  // rounds each (10 round pairs' entries in 6.1's rounds).
  EXPECT_EQ(m.ledger().memory, 18 * 5 * 2 * 20 + 146 + 12 * 146);
  EXPECT_EQ(runChecked(plan, 32, 32, 16, "random #5"), m.ledger().total());
}

// Constant digits on top of a device dim in both layouts (003 3.2.5) leave
// cells empty: of value 0 the cells above the held ones, and the finder
// reads the exchange off the held cells' extent; of another value the
// cells below too: PEs, which idle, or slots, a base address offset. The
// shape is the one without the constant, from the first held PE and slot
// on. On 1,000 random exchanges with such a constant in memory, in the PE
// number or both: found, and the step, in place where it can be and out of
// place, runs with every element checked in the ticks predicted; without a
// constant of another value than 0 in the PE number, the same ticks as
// without the constants.
TEST(DigitExchange, ConstantTopDigitsKeepTheShape) {
  std::mt19937 rng(3325);
  int runs = 0, inMemory = 0, onPes = 0, inPlace = 0, shifted = 0, offset = 0;
  while (runs < 1000) {
    const FoldedCase plain = randomFolded(rng, rng() % 2, 6);
    FoldedCase c = plain;
    const int64_t base = 2 + int64_t(rng() % 2);
    const unsigned where = unsigned(rng() % 3); // memory, PEs, both
    const int64_t value = rng() % 2 ? 0 : int64_t(rng() % uint64_t(base));
    const int64_t inMemoryValue =
        where != 1 && rng() % 2 ? int64_t(rng() % uint64_t(base)) : 0;
    for (KTile *t : {&c.from, &c.to}) {
      if (where != 1)
        addConstant(*t, base, inMemoryValue, 0, 99);
      if (where != 0)
        addConstant(*t, base, value, 1, 99);
    }
    const bool up = where != 0 && value != 0; // on PEs other than PE 0 up
    const int64_t pes = rt::pesOf(c.from);
    if (pes > 64 || rt::slotsOf(c.from) > 400)
      continue;
    rt::DigitExchangeShape d, p;
    std::string why;
    ASSERT_TRUE(rt::findDigitExchange(c.from, c.to, rt::sourcesOf(c.from, c.to),
                                      d, &why))
        << "run " << runs << ": " << why;
    ASSERT_TRUE(rt::findDigitExchange(
        plain.from, plain.to, rt::sourcesOf(plain.from, plain.to), p, nullptr));
    EXPECT_EQ(d.base, p.base);
    EXPECT_EQ(d.pes, p.pes);
    EXPECT_EQ(d.firstPe, up ? p.pes * value : 0);
    EXPECT_EQ(d.firstSlot, p.slots * inMemoryValue);
    EXPECT_EQ(d.slots, p.slots);
    EXPECT_EQ(d.chunk, p.chunk);
    EXPECT_EQ(d.slotWeight, p.slotWeight);
    EXPECT_EQ(d.destSlotWeight, p.destSlotWeight);
    EXPECT_EQ(d.destHigh, p.destHigh);
    EXPECT_EQ(d.peWeight, p.peWeight);
    EXPECT_EQ(d.destPe, p.destPe);
    const unsigned width =
        unsigned(std::uniform_int_distribution<int>(1, 8)(rng));
    const rt::MachineShape shape{width, unsigned((pes + width - 1) / width),
                                 1u << (rng() % 5)};
    const unsigned eb = 1u << (rng() % 4);
    for (bool place : {false, true}) {
      if (place && !rt::digitExchangeRunsInPlace(d, eb, rt::CostModel()))
        continue;
      const std::string what = "run " + std::to_string(runs) +
                               (place ? " in place" : " out of place");
      rt::GeneralPlan plan = oneStepPlan(
          c.from, c.to, rt::GeneralStepKind::DigitExchange, place, eb);
      plan.copy = !place;
      rt::GeneralPlan without = plan;
      without.source = plain.from;
      without.dest = without.steps[0].to = plain.to;
      const std::vector<uint32_t> sources = rt::sourcesOf(c.from, c.to),
                                  fewer = rt::sourcesOf(plain.from, plain.to);
      const int64_t predicted =
          rt::predictGeneralStep(plan, 0, shape, {}, &sources);
      ASSERT_GE(predicted, 0) << what;
      if (!up) {
        EXPECT_EQ(predicted,
                  rt::predictGeneralStep(without, 0, shape, {}, &fewer))
            << what;
      }
      EXPECT_EQ(
          runChecked(plan, shape.width, shape.height, shape.clusterSize, what),
          predicted)
          << what;
      inPlace += place;
    }
    if (HasFailure())
      return;
    inMemory += where != 1;
    onPes += where != 0;
    shifted += up;
    offset += inMemoryValue != 0;
    ++runs;
  }
  EXPECT_GT(shifted, 150);
  EXPECT_GT(offset, 150);
  EXPECT_GT(inMemory, 500);
  EXPECT_GT(onPes, 500);
  EXPECT_GT(inPlace, 300);
}

// Function 6.1 on a range of PEs that starts above PE 0 (DigitExchangeShape::
// firstPe): 2,000 random exchanges (folded memory and processor
// permutations among them) found on a table of sources moved up to PEs
// first, first + 1, ... of a larger machine, idle PEs below and above. The
// finder gives the shape found without the move, from `first`; the step,
// out of place and in place where it can be, on a machine whose memory is
// all random: every cell of the exchange's PEs holds the element its
// source cell held, every other byte is as it was, and the pricing
// machine charges what the run does.
/// Tallies of runShiftedExchange's draws.
struct ShiftedTally {
  int notMultiple = 0, tables = 0, inPlace = 0;
};

/// The exchange of `c` moved up to a random first PE among idle ones
/// (constant PE digits), found, run on random memory in and out of place
/// on a machine of clusters of `cluster` PEs, every byte checked and the
/// pricing machine's total compared with the run's.
void runShiftedExchange(std::mt19937 &rng, const FoldedCase &c,
                        unsigned cluster, int run, ShiftedTally &tally) {
  const int64_t n = rt::pesOf(c.from), slots = rt::slotsOf(c.from);
  const std::vector<uint32_t> plain = rt::sourcesOf(c.from, c.to);
  rt::DigitExchangeShape p, d;
  ASSERT_TRUE(rt::findDigitExchange(c.from, c.to, plain, p, nullptr));
  // n PEs moved up to `first` among `all`, read as layouts of `all` PEs
  // (a constant PE digit: the finder takes the sizes off the layouts).
  const int64_t extra = 1 + int64_t(rng() % 3);
  KTile from = c.from, to = c.to;
  addConstant(from, extra + 1, 0, 1, 99);
  addConstant(to, extra + 1, 0, 1, 99);
  const int64_t all = n * (extra + 1);
  const int64_t first = int64_t(rng() % uint64_t(n * extra + 1));
  std::vector<uint32_t> moved(size_t(all * slots), rt::kNoSource);
  for (int64_t t = 0; t < n * slots; ++t)
    if (plain[size_t(t)] != rt::kNoSource)
      moved[size_t(first * slots + t)] =
          uint32_t(first * slots + int64_t(plain[size_t(t)]));
  std::string why;
  ASSERT_TRUE(rt::findDigitExchange(from, to, moved, d, &why))
      << "run " << run << ": " << why;
  EXPECT_EQ(d.firstPe, first);
  EXPECT_EQ(d.pes, p.pes);
  EXPECT_EQ(d.peWeight, p.peWeight);
  EXPECT_EQ(d.sendDigit, p.sendDigit);
  EXPECT_EQ(d.destPe, p.destPe);
  EXPECT_EQ(d.destHigh, p.destHigh);
  const unsigned width =
      unsigned(std::uniform_int_distribution<int>(1, 8)(rng));
  const unsigned height = unsigned((all + width - 1) / width);
  const unsigned eb = 1u << (rng() % 4);
  const uint64_t region = uint64_t(slots) * eb;
  for (bool place : {false, true}) {
    if (place && !rt::digitExchangeRunsInPlace(d, eb, rt::CostModel()))
      continue;
    const std::string what =
        "run " + std::to_string(run) + (place ? " in place" : " out of place");
    const rt::DigitExchangeRegions where{0, place ? 0 : region, eb, place};
    rt::MasPar m(width, height, 2 * region, cluster);
    std::vector<uint8_t> before;
    for (unsigned pe = 0; pe < m.peCount(); ++pe)
      for (uint64_t i = 0; i < 2 * region; ++i)
        before.push_back(m.memoryOf(pe)[i] = uint8_t(rng()));
    rt::runDigitExchange(m, d, where);
    rt::MasPar priced = rt::MasPar::pricing(width, height, cluster);
    rt::runDigitExchange(priced, d, where);
    EXPECT_EQ(priced.ledger().total(), m.ledger().total()) << what;
    int64_t wrong = 0;
    for (unsigned pe = 0; pe < m.peCount(); ++pe)
      for (uint64_t i = 0; i < 2 * region; ++i) {
        uint8_t want = before[pe * 2 * region + i];
        const int64_t t = int64_t(pe) * slots + int64_t(i % region) / eb;
        if (i >= where.writeBase && i < where.writeBase + region &&
            t < all * slots && moved[size_t(t)] != rt::kNoSource) {
          const int64_t a = moved[size_t(t)];
          want = before[size_t(a / slots) * 2 * region + where.readBase +
                        uint64_t(a % slots) * eb + i % eb];
        }
        wrong += m.memoryOf(pe)[i] != want;
      }
    EXPECT_EQ(wrong, 0) << what;
    tally.inPlace += place;
  }
  tally.notMultiple += first % (d.base * std::max<int64_t>(d.peWeight, 1)) != 0;
  tally.tables += d.foldsPePermutation();
}

TEST(DigitExchange, ShiftedPeRangesRunFunction61) {
  std::mt19937 rng(6121);
  ShiftedTally tally;
  int runs = 0;
  while (runs < 2000) {
    const FoldedCase c = randomFolded(rng, rng() % 2, 6);
    if (rt::pesOf(c.from) > 48 || rt::slotsOf(c.from) > 300)
      continue;
    runShiftedExchange(rng, c, 1u << (rng() % 5), runs, tally);
    if (HasFailure())
      return;
    ++runs;
  }
  std::printf("%d of 2000 start off a multiple of b peWeight, %d with a "
              "table, %d in place\n",
              tally.notMultiple, tally.tables, tally.inPlace);
  EXPECT_GT(tally.notMultiple, 500);
  EXPECT_GT(tally.tables, 400);
  EXPECT_GT(tally.inPlace, 500);
}

// Exchanges of base 8 or more over several clusters, where a first plan
// at PE 0 would search partial rounds (random #5's kind), moved up to a
// later first PE: they keep function 6.1's full rounds (the search numbers
// the PEs from 0 as the router's clusters) and run and price exactly.
TEST(DigitExchange, ShiftedExchangesOfBaseEightRunFullRounds) {
  std::mt19937 rng(8128);
  ShiftedTally tally;
  int runs = 0;
  while (runs < 150) {
    const FoldedCase c = randomFolded(rng, rng() % 2, 12);
    const int64_t n = rt::pesOf(c.from);
    if (n > 160 || rt::slotsOf(c.from) > 300)
      continue;
    rt::DigitExchangeShape d;
    ASSERT_TRUE(rt::findDigitExchange(c.from, c.to, rt::sourcesOf(c.from, c.to),
                                      d, nullptr));
    const unsigned cluster = 4;
    if (d.base < 8 || n <= int64_t(cluster))
      continue;
    runShiftedExchange(rng, c, cluster, runs, tally);
    if (HasFailure())
      return;
    ++runs;
  }
}

// 003 6.2.2's plans on random aligned digit permutations built so that a
// memory permutation surrounds the exchange (bases 2-9, 1- to 16-byte
// elements, in place and copies): every element checked, prediction equal
// to simulation, the bound below the plan, and the folded exchange chosen
// in a good share of the plans.
TEST(DigitExchange, RandomPlansChooseFolded) {
  std::mt19937 rng(6222);
  // Moves that are one folded exchange, and those of them that need no
  // copy back (a copy, or the exchanged digit keeping its place).
  int runs = 0, chosen = 0, foldable = 0, direct = 0;
  while (runs < 400) {
    FoldedCase c = randomFolded(rng, rng() % 2);
    const int64_t pes = rt::pesOf(c.from);
    if (pes > 64 || rt::slotsOf(c.from) > 300)
      continue;
    GeneralPlanRequest req;
    req.src = c.from;
    req.dst = c.to;
    req.elemBytes = 1u << (rng() % 5);
    req.copy = rng() % 4 == 0;
    const unsigned width =
        unsigned(std::uniform_int_distribution<int>(1, 8)(rng));
    req.shape = {width, unsigned((pes + width - 1) / width), 1u << (rng() % 5)};
    // Whether the whole move is one exchange with a permutation folded in.
    {
      rt::DigitExchangeShape d;
      if (rt::findDigitExchange(c.from, c.to, rt::sourcesOf(c.from, c.to), d,
                                nullptr) &&
          (d.foldsPermutation() || d.foldsPePermutation())) {
        ++foldable;
        direct += d.canRunInPlace() || req.copy;
      }
    }
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const rt::GeneralStep &s = plan.steps[i];
      if (s.kind != rt::GeneralStepKind::DigitExchange)
        continue;
      const rt::TileMap &before = plan.layoutAfter(int(i) - 1);
      rt::DigitExchangeShape d;
      if (rt::findDigitExchange(before, s.to, rt::sourcesOf(before, s.to), d,
                                nullptr) &&
          (d.foldsPermutation() || d.foldsPePermutation())) {
        ++chosen;
        break;
      }
    }
    const std::string what = "plan " + std::to_string(runs);
    EXPECT_EQ(runChecked(plan, req.shape.width, req.shape.height,
                         req.shape.clusterSize, what),
              plan.predictedTicks)
        << what;
    EXPECT_LE(plan.lowerBound, plan.predictedTicks) << what;
    if (HasFailure())
      return;
    ++runs;
  }
  std::printf("folded exchange in %d of 400 plans (%d moves are one, %d of "
              "them without a copy back)\n",
              chosen, foldable, direct);
  EXPECT_GT(chosen, direct / 2);
  EXPECT_GT(foldable, 100);
}

// 003 6.2.1's base-5 P/M exchange shape on 5 PEs, 30 u8 a PE: the digit
// below the exchanged memory digit (6) travels as one 6-byte chunk (loaded
// as 4 + 2 bytes). Function 6.1 loads and stores it with per-PE offsets in
// each of the 4 rounds: 4 x 2 x (199 + 103) = 2416 ticks of memory. Loaded
// directly, each of the 5 slot digits is one load at one address in every
// PE: 5 x 2 x (74 + 38) = 1120, the sends unchanged.
TEST(DigitExchange, DirectLoadsEverySlotDigit) {
  const KTile from = digitTile({6, 5, 5}, {0, 1}, {2});
  const KTile to = digitTile({6, 5, 5}, {0, 2}, {1});
  const std::vector<uint32_t> sources = rt::sourcesOf(from, to);
  rt::DigitExchangeShape d;
  ASSERT_TRUE(rt::findDigitExchange(from, to, sources, d, nullptr));
  EXPECT_EQ(d.base, 5);
  EXPECT_EQ(d.chunk, 6);
  const rt::DigitExchangeSequences seqs =
      rt::digitExchangeSequences(d, 1, true);
  EXPECT_TRUE(rt::digitExchangeLoadsDirect(d, seqs, 1, true, {}));
  rt::GeneralPlan plan =
      oneStepPlan(from, to, rt::GeneralStepKind::DigitExchange, true);
  rt::MasPar m = rt::MasPar::pricing(5, 1, 1);
  rt::Regions regions{{0}, {0}, {0}};
  ASSERT_TRUE(rt::runGeneralStep(m, plan, 0, regions));
  EXPECT_EQ(m.ledger().memory, 5 * 2 * (74 + 38));
  rt::CostModel flat;
  std::copy(flat.loadIndirect, flat.loadIndirect + 4, flat.load);
  rt::MasPar f = rt::MasPar::pricing(5, 1, 1, flat);
  ASSERT_TRUE(rt::runGeneralStep(f, plan, 0, regions));
  EXPECT_EQ(f.ledger().memory, 4 * 2 * (199 + 103));
  EXPECT_EQ(f.ledger().router, m.ledger().router);
  EXPECT_EQ(runChecked(plan, 5, 1, 1, "base 5"), m.ledger().total());
}

namespace {

/// Random partial rounds of `d`: its values that leave their PE in a random
/// order, each in the first round where its sender and receiver are free
/// (after a random number of rounds it may not use), so that rounds hold
/// anything from one send to every PE's.
rt::DigitExchangePartialRounds
randomPartialRounds(const rt::DigitExchangeShape &d, std::mt19937 &rng) {
  std::vector<rt::DigitExchangePartialSend> values;
  for (int64_t p = 0; p < d.pes; ++p)
    for (int64_t y = 0; y < d.base; ++y)
      if (d.destOf(p, y) != p)
        values.push_back({uint32_t(p), uint32_t(y)});
  std::shuffle(values.begin(), values.end(), rng);
  rt::DigitExchangePartialRounds r;
  std::vector<std::vector<uint8_t>> sends, gets;
  const unsigned skip = 1 + rng() % 4;
  for (const rt::DigitExchangePartialSend &v : values) {
    const int64_t q = d.destOf(v.pe, v.slot);
    size_t k = rng() % skip == 0 ? r.rounds.size() : 0;
    while (k < r.rounds.size() && (sends[k][v.pe] || gets[k][size_t(q)]))
      ++k;
    if (k == r.rounds.size()) {
      r.rounds.emplace_back();
      sends.emplace_back(size_t(d.pes), 0);
      gets.emplace_back(size_t(d.pes), 0);
    }
    r.rounds[k].push_back(v);
    sends[k][v.pe] = gets[k][size_t(q)] = 1;
  }
  return r;
}

/// Runs `d` in the partial rounds `r` on a width x height MasPar, checks
/// every element and returns the ticks, which must equal the pricing
/// machine's.
int64_t runPartialChecked(const KTile &from, const KTile &to,
                          const rt::DigitExchangeShape &d, unsigned eb,
                          bool inPlace, unsigned width, unsigned height,
                          unsigned cluster,
                          const rt::DigitExchangePartialRounds &r,
                          const std::string &what) {
  const uint64_t region =
      uint64_t(std::max(rt::slotsOf(from), rt::slotsOf(to))) * eb;
  rt::MasPar m(width, height, 2 * region, cluster);
  const rt::DigitExchangeRegions where{0, inPlace ? 0 : region, eb, inPlace};
  auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
  auto readOf = [&](unsigned pe) -> const uint8_t * { return m.memoryOf(pe); };
  rt::storePattern(memoryOf, from, eb, 0, 7);
  rt::runDigitExchangePartial(m, d, where, r);
  EXPECT_EQ(rt::countMismatches(readOf, to, eb, where.writeBase, 7), 0u)
      << what;
  rt::MasPar pricing = rt::MasPar::pricing(width, height, cluster);
  rt::runDigitExchangePartial(pricing, d, where, r);
  EXPECT_EQ(pricing.ledger().total(), m.ledger().total()) << what;
  EXPECT_EQ(pricing.ledger().router, m.ledger().router) << what;
  return m.ledger().total();
}

} // namespace

// Partial rounds (docs/cost-model.md, "Partial rounds for random #5 run"):
// on 1,000 random exchanges that can run them (loaded directly), random
// partial schedules and two built by hand (every value in a round of its
// own; 6.1's rounds split in two, the PEs of even and odd digit apart), run
// with every element checked and the prediction equal to the simulation;
// each schedule passes the check, and the check refuses one with a value
// dropped or sent twice.
TEST(DigitExchange, PartialRoundsRunEveryElement) {
  std::mt19937 rng(112826);
  int runs = 0, spare = 0, tabulated = 0, ran = 0;
  for (int trial = 0; runs < 1000 && trial < 20000; ++trial) {
    FoldedCase c = randomFolded(rng, rng() % 2, 9);
    const int64_t pes = rt::pesOf(c.from);
    if (pes < 2 || pes > 96 || rt::slotsOf(c.from) > 400)
      continue;
    rt::DigitExchangeShape d;
    ASSERT_TRUE(rt::findDigitExchange(c.from, c.to, rt::sourcesOf(c.from, c.to),
                                      d, nullptr));
    const unsigned eb = std::vector<unsigned>{1, 2, 3, 4, 5, 6, 8}[rng() % 7];
    const bool inPlace =
        !d.canRunInPlace() && rt::digitExchangeRunsInPlace(d, eb, {});
    const rt::DigitExchangeTally t = rt::digitExchangeTally(d, eb, inPlace);
    const rt::DigitExchangePartialForm f = rt::digitExchangePartialForm(
        d, t, rt::digitExchangeLoads(d, t, eb, inPlace, {}), inPlace);
    if (!f.usable)
      continue;
    ++runs;
    (f.slotInSpare ? spare : tabulated) += 1;
    const unsigned width = 1 + unsigned(rng() % 8);
    const unsigned height = unsigned((pes + width - 1) / width);
    const unsigned cluster = 1u << (rng() % 4);
    const std::string what = "trial " + std::to_string(trial);
    rt::DigitExchangePartialRounds alone, halves;
    for (int64_t p = 0; p < d.pes; ++p)
      for (int64_t y = 0; y < d.base; ++y)
        if (d.destOf(p, y) != p)
          alone.rounds.push_back({{uint32_t(p), uint32_t(y)}});
    for (int64_t k = 1; k < d.base; ++k)
      for (int64_t odd : {0, 1}) {
        halves.rounds.emplace_back();
        for (int64_t p = 0; p < d.pes; ++p) {
          const int64_t x = d.ownDigit(p), y = (x + k) % d.base;
          if (x % 2 == odd && d.destOf(p, y) != p)
            halves.rounds.back().push_back({uint32_t(p), uint32_t(y)});
        }
      }
    // Round 0 of a permuted exchange: the values that keep their digit.
    halves.rounds.emplace_back();
    for (int64_t p = 0; p < d.pes; ++p)
      if (d.destOf(p, d.ownDigit(p)) != p)
        halves.rounds.back().push_back({uint32_t(p), uint32_t(d.ownDigit(p))});
    for (const rt::DigitExchangePartialRounds *r : {&alone, &halves}) {
      // Valid but for the registers: a PE may receive before it sends.
      const std::string wrong =
          rt::checkDigitExchangePartialRounds(d, *r, f.live);
      ASSERT_TRUE(wrong == "" ||
                  wrong == "a PE holds more values than its registers")
          << what << ": " << wrong;
      if (wrong != "")
        continue;
      ++ran;
      runPartialChecked(c.from, c.to, d, eb, inPlace, width, height, cluster,
                        *r, what);
    }
    rt::DigitExchangePartialRounds r = randomPartialRounds(d, rng);
    if (rt::checkDigitExchangePartialRounds(d, r, f.live) == "") {
      ++ran;
      runPartialChecked(c.from, c.to, d, eb, inPlace, width, height, cluster, r,
                        what);
    }
    if (!alone.rounds.empty()) {
      rt::DigitExchangePartialRounds dropped = alone, twice = alone;
      dropped.rounds.pop_back();
      twice.rounds.push_back(twice.rounds.front());
      const int64_t roomy = int64_t(1) << 40; // registers aside
      EXPECT_EQ(rt::checkDigitExchangePartialRounds(d, dropped, roomy),
                "a value never sent");
      EXPECT_EQ(rt::checkDigitExchangePartialRounds(d, twice, roomy),
                "a value sent twice");
    }
    if (::testing::Test::HasFailure())
      return;
  }
  std::printf("partial rounds: %d exchanges, %d with the slot in spare bytes, "
              "%d tabulated, %d schedules run\n",
              runs, spare, tabulated, ran);
  EXPECT_EQ(runs, 1000);
  EXPECT_GT(ran, 2000);
  EXPECT_GT(spare, 200);
  EXPECT_GT(tabulated, 200);
}
