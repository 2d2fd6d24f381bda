//===- SeparableCountsTest.cpp - a separable move read off its factors ----===//
//
// A 2-d HPF redistribution on a 2-d PE grid moves each data dim within its
// own PE dim, so countMoveByRuns keeps its (source PE, destination PE)
// pairs as two factors (MoveCounts.h, PairFactors) instead of listing
// them, and the planner reads everything it needs off the factors: the
// totals per PE, the kept pairs, the lower bound, the move's shape, the
// digit exchange's refusal, the product rounds and their price. On random
// block/cyclic(k) moves on random grids (1 x n, n x 1, primes, 31 x 33)
// each of these must equal what the same counts give with their pairs
// listed, and the pairs must be those of the table of sources.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/lib/ExchangePrice.h"
#include "../../runtime/lib/ProductRounds.h"
#include "RandomHpf.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/MoveCounts.h"

#include "gtest/gtest.h"

#include <random>

using namespace mapc;

namespace {

/// The same counts with their pairs listed rather than factored.
rt::MoveCounts listedCopy(const rt::MoveCounts &c) {
  rt::MoveCounts l = c;
  l.listed = c.pairs();
  l.factors.reset();
  return l;
}

void expectSameRounds(const std::vector<rt::FactorRound> &x,
                      const std::vector<rt::FactorRound> &y,
                      const std::string &what) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].from, y[i].from) << what << ", round " << i;
    EXPECT_EQ(x[i].to, y[i].to) << what << ", round " << i;
    EXPECT_EQ(x[i].times, y[i].times) << what << ", round " << i;
    EXPECT_EQ(x[i].stay, y[i].stay) << what << ", round " << i;
  }
}

/// Checks every reading of the factored `f` against the listed `l`, on a
/// MasPar of `w` x `h` PEs; true when the product rounds applied.
bool checkReadings(const rt::MoveCounts &f, const rt::MoveCounts &l,
                   const rt::TileMap &a, const rt::TileMap &b, unsigned w,
                   unsigned h, const std::string &what) {
  EXPECT_EQ(f.pairCount(), l.pairCount()) << what;
  EXPECT_EQ(f.pairsBetweenPes(), l.pairsBetweenPes()) << what;
  EXPECT_EQ(f.sendsBetweenPes(), l.sendsBetweenPes()) << what;
  EXPECT_EQ(f.localMoves(), l.localMoves()) << what;
  EXPECT_TRUE(f.keptPairs() == l.keptPairs()) << what;
  const rt::PeTotals tf = f.peTotals(), tl = l.peTotals();
  EXPECT_EQ(tf.sent, tl.sent) << what;
  EXPECT_EQ(tf.received, tl.received) << what;
  EXPECT_EQ(tf.kept, tl.kept) << what;
  for (int64_t slots : {rt::slotsOf(b), int64_t(2) * rt::slotsOf(b)})
    EXPECT_EQ(rt::digitExchangeRefusal(f, slots, rt::pesOf(b)),
              rt::digitExchangeRefusal(l, slots, rt::pesOf(b)))
        << what;
  const rt::MoveShape sf = rt::analyseMove(f, rt::pesOf(a)),
                      sl = rt::analyseMove(l, rt::pesOf(a));
  EXPECT_EQ(sf.identity, sl.identity) << what;
  EXPECT_EQ(sf.local, sl.local) << what;
  EXPECT_EQ(sf.slotUniformTo, sl.slotUniformTo) << what;
  EXPECT_EQ(sf.slotUniformFrom, sl.slotUniformFrom) << what;
  EXPECT_EQ(sf.keepsSlots, sl.keepsSlots) << what;
  EXPECT_EQ(sf.moved, sl.moved) << what;
  EXPECT_EQ(sf.held, sl.held) << what;
  EXPECT_EQ(sf.busiestSource, sl.busiestSource) << what;
  EXPECT_EQ(sf.leaving, sl.leaving) << what;
  rt::CostModel cost;
  for (unsigned cluster : {1u, 4u, 16u})
    for (unsigned bytes : {1u, 4u, 16u})
      for (bool copy : {false, true}) {
        const rt::MachineShape m{w, h, cluster};
        EXPECT_EQ(rt::generalLowerBound(f, bytes, copy, m, cost),
                  rt::generalLowerBound(l, bytes, copy, m, cost))
            << what << ", cluster " << cluster << ", " << bytes << " bytes";
      }
  // The product rounds, from any number of pairs.
  const std::vector<int64_t> grid = rt::sharedPeGrid(a, b);
  const std::optional<rt::ProductRounds> pf =
      rt::productRounds(*f.factors, grid, 0);
  const std::optional<rt::ProductRounds> pl =
      rt::productRounds(l.listed, grid, 0);
  EXPECT_EQ(pf.has_value(), pl.has_value()) << what;
  if (pf && pl) {
    EXPECT_EQ(pf->inner, pl->inner) << what;
    EXPECT_EQ(pf->outer, pl->outer) << what;
    EXPECT_EQ(pf->scale, pl->scale) << what;
    expectSameRounds(pf->innerRounds, pl->innerRounds, what + ", inner");
    expectSameRounds(pf->outerRounds, pl->outerRounds, what + ", outer");
  }
  // The exchange's price, as the planner charges it.
  bool charged = false;
  for (unsigned bytes : {4u, 16u}) {
    rt::MasPar mf = rt::MasPar::pricing(w, h, 16),
               ml = rt::MasPar::pricing(w, h, 16);
    const bool byF = rt::chargeExchangeByFactors(
        mf, a, b, f, f.sendsBetweenPes(), f.pairsBetweenPes(), bytes);
    const bool byL = rt::chargeExchangeByFactors(
        ml, a, b, l, l.sendsBetweenPes(), l.pairsBetweenPes(), bytes);
    EXPECT_EQ(byF, byL) << what;
    EXPECT_EQ(mf.ledger().total(), ml.ledger().total()) << what;
    EXPECT_EQ(mf.ledger().routerSends, ml.ledger().routerSends) << what;
    charged |= byF;
  }
  return charged;
}

std::string describe(const std::vector<int64_t> &shape, unsigned w,
                     unsigned h) {
  return std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " on " +
         std::to_string(w) + " x " + std::to_string(h);
}

} // namespace

// Small random moves: the factored pairs equal the table's, and every
// reading of the factors equals the listed pairs'.
TEST(SeparableCounts, FactorsReadAsListed) {
  std::mt19937 rng(22501126);
  const std::vector<std::pair<unsigned, unsigned>> grids = {
      {1, 7}, {7, 1},   {1, 13},  {13, 1}, {2, 3},  {3, 2},   {5, 7},
      {7, 5}, {11, 13}, {13, 11}, {4, 6},  {17, 3}, {31, 33}, {16, 16}};
  unsigned factored = 0, products = 0;
  const unsigned runs = 1500;
  for (unsigned run = 0; run < runs; ++run) {
    const auto [w, h] = grids[run % grids.size()];
    const std::vector<int64_t> shape = {
        std::uniform_int_distribution<int64_t>(1, 4 * w + 40)(rng),
        std::uniform_int_distribution<int64_t>(1, 4 * h + 40)(rng)};
    const std::vector<int64_t> procs = {w, h};
    KTile a = test::randomBlockCyclic(rng, shape, procs),
          b = test::randomBlockCyclic(rng, shape, procs);
    if (HasFailure())
      return;
    const std::string what = describe(shape, w, h);
    const std::optional<rt::MoveCounts> runs_ = rt::countMoveByRuns(a, b);
    if (!runs_ || !runs_->factors)
      continue;
    ++factored;
    EXPECT_TRUE(runs_->listed.empty()) << what;
    const rt::MoveCounts table =
        rt::countMoveByElements(a, b, rt::sourcesOf(a, b));
    EXPECT_TRUE(runs_->pairs() == table.pairs()) << what;
    EXPECT_EQ(runs_->elements, table.elements) << what;
    EXPECT_EQ(runs_->stay, table.stay) << what;
    const rt::MoveCounts listed = listedCopy(*runs_);
    checkReadings(*runs_, listed, a, b, w, h, what);
    products += rt::productRounds(*runs_->factors, rt::sharedPeGrid(a, b), 0)
                    .has_value();
    if (HasFailure())
      return;
  }
  EXPECT_GT(factored, runs * 9 / 10);
  EXPECT_GT(products, runs / 40);
  std::printf("[ factored %u of %u moves, %u of them product rounds ]\n",
              factored, runs, products);
}

// Moves large enough for the planner's product rounds (4096 pairs and more,
// over 1024 sends): the exchange priced from the factors costs what it
// costs from the pairs listed, the benchmark's 31 x 33 rows among them.
TEST(SeparableCounts, LargeMovesPriceAsListed) {
  std::mt19937 rng(3133);
  struct Case {
    std::vector<int64_t> shape;
    unsigned w, h;
  };
  std::vector<Case> cases = {{{1000, 1000}, 31, 33}, {{520, 520}, 16, 16}};
  for (int i = 0; i < 8; ++i) {
    const unsigned w = unsigned(std::uniform_int_distribution<int>(8, 33)(rng)),
                   h = unsigned(std::uniform_int_distribution<int>(8, 33)(rng));
    cases.push_back({{std::uniform_int_distribution<int64_t>(200, 700)(rng),
                      std::uniform_int_distribution<int64_t>(200, 700)(rng)},
                     w,
                     h});
  }
  DistFormatSpec block, cyclic, cyclic2;
  block.kind = DistFormatSpec::Block;
  cyclic.kind = cyclic2.kind = DistFormatSpec::Cyclic;
  cyclic2.arg = 2;
  unsigned charged = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    const std::vector<int64_t> procs = {c.w, c.h};
    auto lower = [&](const std::vector<DistFormatSpec> &f) {
      auto r = lowerDistribute(c.shape, f, procs);
      EXPECT_TRUE(std::holds_alternative<KTile>(r));
      return std::get<KTile>(r);
    };
    // Block to cyclic(k) in both dims: the moves whose product rounds take
    // the degree.
    auto cyclicK = [&] {
      DistFormatSpec f = cyclic;
      f.arg = std::uniform_int_distribution<int64_t>(1, 3)(rng);
      return f;
    };
    const KTile bb = lower({block, block}),
                cc = i == 0   ? lower({cyclic2, cyclic})
                     : i == 1 ? lower({cyclic, cyclic})
                              : lower({cyclicK(), cyclicK()});
    if (HasFailure())
      return;
    for (int way = 0; way < 2; ++way) {
      const KTile &a = way ? cc : bb, &b = way ? bb : cc;
      const std::string what =
          describe(c.shape, c.w, c.h) + (way ? ", back" : ", there");
      const std::optional<rt::MoveCounts> counts = rt::countMoveByRuns(a, b);
      ASSERT_TRUE(counts && counts->factors) << what;
      const bool byFactors =
          checkReadings(*counts, listedCopy(*counts), a, b, c.w, c.h, what);
      charged += byFactors;
      if (i == 0) {
        EXPECT_TRUE(byFactors) << what;
        EXPECT_EQ(counts->pairsBetweenPes(), 514008u) << what;
      }
    }
  }
  EXPECT_GE(charged, 4u);
  std::printf("[ %u of %zu priced by factors ]\n", charged, 2 * cases.size());
}
