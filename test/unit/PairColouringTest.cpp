//===- PairColouringTest.cpp - exchange rounds from pair counts -----------===//
//
// colourPairs on random bipartite multigraphs (every round a matching, as
// many rounds as the largest degree, every pair used as often as it
// counts), and the exchange schedule it gives large general remaps: random
// HPF redistributions of thousands of elements on grids that are not
// powers of two, scheduled from pair counts (003 6.2.1's diagonals first),
// planned, run on the simulator and checked element by element. The
// colouring must also equal, round for round, the one made before its
// rewrite on flat arrays (PairColouringReference.h): exchange steps are
// priced and run from these rounds.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/PairColouring.h"
#include "PairColouringReference.h"
#include "RandomHpf.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "passes/GeneralPlanner.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <map>
#include <random>
#include <set>

using namespace mapc;

namespace {

/// Checks `rounds` against `pairs`: matchings, the degree, every count.
void checkColouring(const std::vector<rt::PairCount> &pairs,
                    const std::vector<rt::PairRound> &rounds, unsigned l,
                    unsigned r, const std::string &what) {
  std::vector<uint64_t> degL(l, 0), degR(r, 0), used(pairs.size(), 0);
  for (const rt::PairCount &p : pairs) {
    degL[p.left] += p.count;
    degR[p.right] += p.count;
  }
  uint64_t degree = 0;
  for (uint64_t d : degL)
    degree = std::max(degree, d);
  for (uint64_t d : degR)
    degree = std::max(degree, d);
  uint64_t total = 0;
  for (const rt::PairRound &round : rounds) {
    ASSERT_GT(round.times, 0u) << what;
    ASSERT_FALSE(round.pairs.empty()) << what;
    std::vector<uint8_t> seenL(l, 0), seenR(r, 0);
    for (uint32_t k : round.pairs) {
      ASSERT_LT(k, pairs.size()) << what;
      ASSERT_FALSE(seenL[pairs[k].left]++) << what << ": left vertex twice";
      ASSERT_FALSE(seenR[pairs[k].right]++) << what << ": right vertex twice";
      used[k] += round.times;
    }
    total += round.times;
  }
  EXPECT_EQ(total, degree) << what;
  for (size_t k = 0; k < pairs.size(); ++k)
    EXPECT_EQ(used[k], pairs[k].count) << what << ": pair " << k;
}

} // namespace

TEST(PairColouring, RandomMultigraphs) {
  std::mt19937 rng(611);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (int run = 0; run < 3000; ++run) {
    unsigned l = unsigned(pick(1, 40)), r = unsigned(pick(1, 40));
    std::vector<rt::PairCount> pairs(pick(0, 300));
    const uint64_t most = run % 3 == 0 ? 1 : run % 3 == 1 ? 5 : 100000;
    for (rt::PairCount &p : pairs)
      p = {uint32_t(pick(0, l - 1)), uint32_t(pick(0, r - 1)),
           pick(run % 7 == 0 ? 0 : 1, most)};
    checkColouring(pairs, rt::colourPairs(pairs, l, r), l, r,
                   "run " + std::to_string(run));
    if (HasFailure())
      return;
  }
}

namespace {

/// Checks that colourPairs gives exactly the reference's rounds (the same
/// matchings, in the same order, each with its pairs in the same order, used
/// as often), and that they colour `pairs`.
void checkSameAsReference(const std::vector<rt::PairCount> &pairs, unsigned l,
                          unsigned r, const std::string &what) {
  const std::vector<rt::PairRound> now = rt::colourPairs(pairs, l, r),
                                   before = rt::reference::referenceColourPairs(
                                       pairs, l, r);
  ASSERT_EQ(now.size(), before.size()) << what;
  for (size_t i = 0; i < now.size(); ++i) {
    ASSERT_EQ(now[i].times, before[i].times) << what << ": round " << i;
    ASSERT_EQ(now[i].pairs, before[i].pairs) << what << ": round " << i;
  }
  checkColouring(pairs, now, l, r, what);
}

} // namespace

// Small random multigraphs of every kind: dense and sparse, multiplicities
// of 1, a few, or many (Birkhoff's branch), empty pairs.
TEST(PairColouring, SameRoundsAsBeforeSmall) {
  std::mt19937 rng(1126);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (int run = 0; run < 3000; ++run) {
    unsigned l = unsigned(pick(1, 40)), r = unsigned(pick(1, 40));
    std::vector<rt::PairCount> pairs(pick(0, 300));
    const uint64_t most = run % 4 == 0   ? 1
                          : run % 4 == 1 ? 3
                          : run % 4 == 2 ? 40
                                         : 100000;
    for (rt::PairCount &p : pairs)
      p = {uint32_t(pick(0, l - 1)), uint32_t(pick(0, r - 1)),
           pick(run % 7 == 0 ? 0 : 1, most)};
    checkSameAsReference(pairs, l, r, "run " + std::to_string(run));
    if (HasFailure())
      return;
  }
}

// Larger graphs shaped like the exchange steps of HPF moves on hundreds of
// PEs: many distinct pairs of 1-3 elements, each PE's partners near a few
// shifts, and degrees in the hundreds (many levels of halving, a matching
// at every odd degree, padding).
TEST(PairColouring, SameRoundsAsBeforeLarge) {
  std::mt19937 rng(3133);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (int run = 0; run < 40; ++run) {
    const unsigned n = unsigned(pick(50, 400));
    const unsigned perPe = unsigned(pick(20, 200));
    std::vector<rt::PairCount> pairs;
    std::vector<uint8_t> taken(size_t(n) * n, 0);
    for (unsigned p = 0; p < n; ++p)
      for (unsigned k = 0; k < perPe; ++k) {
        const unsigned q = run % 2 ? unsigned(pick(0, n - 1))
                                   : (p + k * 7 + unsigned(pick(0, 3))) % n;
        if (taken[size_t(p) * n + q]++)
          continue;
        pairs.push_back({p, q, pick(1, 3)});
      }
    checkSameAsReference(pairs, n, n, "run " + std::to_string(run));
    if (HasFailure())
      return;
  }
}

// A perfect matching repeated: one round of it, used `count` times.
TEST(PairColouring, RepeatedMatchingIsOneRound) {
  std::vector<rt::PairCount> pairs = {{0, 1, 1000}, {1, 2, 1000}, {2, 0, 1000}};
  auto rounds = rt::colourPairs(pairs, 3, 3);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0].times, 1000u);
  checkColouring(pairs, rounds, 3, 3, "matching");
}

// Large exchange steps go by pair counts: their rounds are matchings, as
// many as the busiest PE's sends or receipts, carrying every element that
// changes PE once; planned and run, every element checks and the
// prediction equals the simulation.
TEST(PairColouring, LargeHpfRedistributions) {
  std::mt19937 rng(20261125);
  const std::vector<std::vector<int64_t>> grids = {{7},    {10},   {6},
                                                   {3, 5}, {4, 3}, {5, 7}};
  unsigned exchanges = 0, byPairs = 0;
  for (int run = 0; run < 24; ++run) {
    const std::vector<int64_t> procs = grids[size_t(run) % grids.size()];
    std::vector<int64_t> shape =
        procs.size() == 1 ? std::vector<int64_t>{int64_t(2000 + rng() % 20000)}
                          : std::vector<int64_t>{int64_t(40 + rng() % 100),
                                                 int64_t(40 + rng() % 100)};
    KTile a = test::randomBlockCyclic(rng, shape, procs);
    KTile b = test::randomBlockCyclic(rng, shape, procs);
    const std::string what = "run " + std::to_string(run);
    const unsigned width = unsigned(procs[0]),
                   height = unsigned(procs.size() > 1 ? procs[1] : 1);
    const unsigned pes = width * height;

    // The schedule itself.
    std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    rt::ExchangeRoundList rounds;
    std::vector<rt::ExchangeSend> fanOut;
    ASSERT_TRUE(rt::exchangeSchedule(a, b, sources, pes, rounds, fanOut));
    EXPECT_TRUE(fanOut.empty()) << what;
    const int64_t fromSlots = rt::slotsOf(a), toSlots = rt::slotsOf(b);
    std::vector<uint64_t> out(pes, 0), in(pes, 0);
    std::map<std::pair<uint64_t, uint64_t>, int> moves;
    for (size_t c = 0; c < sources.size(); ++c) {
      if (sources[c] == rt::kNoSource ||
          int64_t(sources[c]) / fromSlots == int64_t(c) / toSlots)
        continue;
      ++out[sources[c] / fromSlots];
      ++in[c / size_t(toSlots)];
      ++moves[{sources[c], c}];
    }
    uint64_t degree = 0, sends = 0;
    for (unsigned p = 0; p < pes; ++p)
      degree = std::max({degree, out[p], in[p]});
    std::set<std::pair<uint64_t, uint64_t>> pairs;
    for (const auto &[move, count] : moves) {
      pairs.insert(
          {move.first / uint64_t(fromSlots), move.second / uint64_t(toSlots)});
      sends += uint64_t(count);
    }
    // PairSchedule.cpp's choice: by pair counts from 1024 sends, at 64 a
    // pair or more.
    byPairs += sends > 1024 && sends >= 64 * pairs.size();
    EXPECT_EQ(rounds.size(), degree) << what;
    for (const auto &round : rounds) {
      std::vector<uint8_t> sends(pes, 0), gets(pes, 0);
      for (const rt::ExchangeSend &e : round) {
        ASSERT_FALSE(sends[e.srcPe]++) << what;
        ASSERT_FALSE(gets[e.dstPe]++) << what;
        --moves[{uint64_t(e.srcPe) * fromSlots + e.srcSlot,
                 uint64_t(e.dstPe) * toSlots + e.dstSlot}];
      }
    }
    for (const auto &[move, left] : moves)
      ASSERT_EQ(left, 0) << what << ": cell " << move.second;

    // The plan, run.
    GeneralPlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = 4;
    req.copy = rng() % 2;
    req.shape.width = width;
    req.shape.height = height;
    req.shape.clusterSize = 1u << (rng() % 5);
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned))
        << what << ": " << std::get<std::string>(planned);
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    for (const rt::GeneralStep &s : plan.steps)
      exchanges += s.kind == rt::GeneralStepKind::Exchange;
    const uint64_t region =
        uint64_t(std::max(rt::slotsOf(a), rt::slotsOf(b))) * req.elemBytes;
    rt::MasPar m(width, height, 3 * region, req.shape.clusterSize);
    rt::Regions regions{{req.copy ? 0 : region}, {region}, {2 * region}};
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, a, req.elemBytes, regions.src.base, 3);
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why))
        << what << ": " << why;
    EXPECT_EQ(
        rt::countMismatches(readOf, b, req.elemBytes, regions.dst.base, 3), 0u)
        << what;
    EXPECT_EQ(m.ledger().total(), plan.predictedTicks) << what;
    EXPECT_LE(plan.lowerBound, plan.predictedTicks) << what;
  }
  EXPECT_GT(exchanges, 8u);
  EXPECT_GT(byPairs, 6u);
}
