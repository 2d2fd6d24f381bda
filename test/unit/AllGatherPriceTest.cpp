//===- AllGatherPriceTest.cpp - all-gathers priced by their shape ---------===//
//
// The pricing machine prices a large all-gather's built rounds from its
// source PEs (runtime/lib/AllGatherPrice.h) instead of building them; here
// the ticks are checked against the rounds exchangeSchedule builds, priced
// one by one as GeneralStepRunner::runExchange prices them, on random
// all-gathers and machines, and a planned all-gather against its run on
// the simulator. And the waves' floor that lets exchangeSchedule skip
// colouring recursive doubling's waves is checked on random small all-
// gathers: the closed form against the waves themselves, and the schedule
// exchangeSchedule keeps against the rounds the waves would take.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/lib/AllGatherPrice.h"
#include "../../runtime/lib/ReplicationRounds.h"
#include "DigitTile.h"
#include "PlainDevice.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/MasPar.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <random>

using namespace mapc;
using mapc::test::deviceOf;

namespace {

/// A random all-gather: n elements on distinct random PEs in random slots of
/// `fromSlots`, every PE holding all of them in random cells of `toSlots`,
/// element 0 a second time when `twice` (toSlots > n).
std::vector<uint32_t> randomAllGather(std::mt19937 &rng, unsigned n,
                                      unsigned pes, int64_t fromSlots,
                                      int64_t toSlots, bool twice) {
  std::vector<uint32_t> pe(pes);
  for (uint32_t q = 0; q < pes; ++q)
    pe[q] = q;
  std::shuffle(pe.begin(), pe.end(), rng);
  std::vector<uint32_t> element(n);
  for (unsigned i = 0; i < n; ++i)
    element[i] = uint32_t(pe[i] * fromSlots + rng() % uint64_t(fromSlots));
  std::vector<uint32_t> sources(size_t(pes * toSlots), rt::kNoSource);
  std::vector<uint32_t> cells(static_cast<size_t>(toSlots));
  for (unsigned q = 0; q < pes; ++q) {
    for (uint32_t t = 0; t < cells.size(); ++t)
      cells[t] = t;
    std::shuffle(cells.begin(), cells.end(), rng);
    for (unsigned i = 0; i < n; ++i)
      sources[q * toSlots + cells[i]] = element[i];
    if (twice)
      sources[q * toSlots + cells[n]] = element[0];
  }
  return sources;
}

/// A random all-gather of n elements over `pes` PEs: 1-3 source slots,
/// n to n + 2 destination slots, element 0 held twice now and then.
struct DrawnGather {
  int64_t fromSlots = 0, toSlots = 0;
  std::vector<uint32_t> sources;
  rt::TileMap from, to; // plain devices of those slots
};

DrawnGather drawGather(std::mt19937 &rng, unsigned n, unsigned pes) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  DrawnGather g;
  g.fromSlots = pick(1, 3);
  g.toSlots = n + pick(0, 2);
  const bool twice = g.toSlots > n && pick(0, 1);
  g.sources = randomAllGather(rng, n, pes, g.fromSlots, g.toSlots, twice);
  g.from = deviceOf(g.fromSlots, pes);
  g.to = deviceOf(g.toSlots, pes);
  return g;
}

/// The deliveries of `sources` grouped as exchangeSchedule groups them: by
/// source cell in the order the cells first appear, a copy within a PE
/// left out.
std::vector<std::vector<rt::ExchangeSend>>
groupedDeliveries(const std::vector<uint32_t> &sources, int64_t fromSlots,
                  int64_t toSlots, unsigned pes) {
  std::vector<std::vector<rt::ExchangeSend>> lists;
  std::vector<int64_t> listOf(size_t(pes * fromSlots), -1);
  for (uint32_t q = 0; q < pes; ++q)
    for (uint32_t t = 0; t < uint32_t(toSlots); ++t) {
      const uint32_t a = sources[q * toSlots + t];
      if (a == rt::kNoSource || a / fromSlots == q)
        continue;
      int64_t &l = listOf[a];
      if (l < 0) {
        l = int64_t(lists.size());
        lists.emplace_back();
      }
      if (!lists[size_t(l)].empty() && lists[size_t(l)].back().dstPe == q)
        continue; // a copy within q
      lists[size_t(l)].push_back(
          {uint32_t(a / fromSlots), q, uint32_t(a % fromSlots), t});
    }
  return lists;
}

/// The waves' floor as exchangeSchedule computes it, from the deliveries:
/// each element's receivers sorted by their shift from its source, wave w
/// sending from the source and the first 2^w - 1 receivers to the next as
/// many, each wave's busiest PE summed.
uint64_t wavesFloorOf(std::vector<std::vector<rt::ExchangeSend>> lists,
                      unsigned pes) {
  for (auto &list : lists)
    std::stable_sort(list.begin(), list.end(),
                     [&](const rt::ExchangeSend &x, const rt::ExchangeSend &y) {
                       return (x.dstPe + pes - x.srcPe) % pes <
                              (y.dstPe + pes - y.srcPe) % pes;
                     });
  uint64_t floor = 0;
  for (size_t held = 0;; held = 2 * held + 1) {
    std::vector<uint32_t> sends(pes, 0), receives(pes, 0);
    uint32_t busiest = 0;
    for (const auto &list : lists)
      for (size_t h = 0; h <= held && held + h < list.size(); ++h) {
        const uint32_t from = h == 0 ? list[0].srcPe : list[h - 1].dstPe;
        busiest = std::max(
            {busiest, ++sends[from], ++receives[list[held + h].dstPe]});
      }
    if (busiest == 0)
      return floor;
    floor += busiest;
  }
}

bool sameRounds(const rt::ExchangeRoundList &a,
                const rt::ExchangeRoundList &b) {
  return a == b; // every send's fields, round by round
}

/// What runExchange charges for `rounds` out of place, round by round.
void chargeRounds(rt::MasPar &m, const rt::ExchangeRoundList &rounds,
                  unsigned xferBytes, unsigned xfers) {
  const unsigned pes = m.peCount();
  rt::Mask active(pes, 0), received(pes, 0);
  rt::Plural dest(pes, 0), none(pes, 0);
  for (const auto &round : rounds) {
    for (const rt::ExchangeSend &e : round) {
      active[e.srcPe] = 1;
      dest[e.srcPe] = e.dstPe;
    }
    m.tableLoad(8, active);
    for (unsigned x = 0; x < xfers; ++x)
      m.loadIndirect(xferBytes, none, active);
    for (unsigned x = 0; x < xfers; ++x) {
      rt::Plural got =
          m.routerSendCheaper(xferBytes, none, dest, active, received);
      m.storeIndirect(xferBytes, none, got, received);
    }
    for (const rt::ExchangeSend &e : round)
      active[e.srcPe] = 0;
  }
}

} // namespace

// Random large all-gathers (150 to 300 elements over up to 1300 PEs, odd
// sizes, random source PEs and slots, some copies within a PE), on grids
// of one or more rows with clusters of 1 to 32 PEs and 1- to 16-byte
// elements: exchangeSchedule keeps the built rounds, and the ticks from
// the source PEs equal those rounds priced one by one.
TEST(AllGatherPrice, StructureEqualsRounds) {
  std::mt19937 rng(4242);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int tested = 0;
  for (int iter = 0; iter < 400 && tested < 16; ++iter) {
    const unsigned n = unsigned(pick(150, 300));
    const unsigned height = unsigned(pick(1, 3));
    const unsigned width =
        unsigned(pick(int((2 * n + height - 1) / height), int(1300 / height)));
    const unsigned pes = width * height;
    const DrawnGather g = drawGather(rng, n, pes);
    const int64_t fromSlots = g.fromSlots, toSlots = g.toSlots;
    const std::vector<uint32_t> &sources = g.sources;
    const rt::TileMap &from = g.from, &to = g.to;
    const std::string what = std::to_string(n) + " over " +
                             std::to_string(width) + " x " +
                             std::to_string(height);
    const std::optional<rt::AllGatherMove> gather =
        rt::readAllGather(from, to, sources, pes);
    ASSERT_TRUE(gather) << what;
    // Only where the joint search refuses at once (n large against the
    // PEs) is the choice the shape's.
    if (rt::builtAllGatherChosen(*gather) != std::optional<bool>(true))
      continue;
    ++tested;
    rt::ExchangeRoundList rounds, built;
    std::vector<rt::ExchangeSend> fanOut;
    ASSERT_TRUE(
        rt::exchangeSchedule(from, to, sources, pes, rounds, fanOut, true));
    const auto lists = groupedDeliveries(sources, fromSlots, toSlots, pes);
    std::vector<const std::vector<rt::ExchangeSend> *> listed;
    for (const auto &list : lists)
      listed.push_back(&list);
    ASSERT_TRUE(rt::allGatherRounds(listed, pes, built)) << what;
    EXPECT_TRUE(sameRounds(rounds, built)) << what;
    EXPECT_EQ(rounds.size(), rt::allGatherRoundCount(n, pes)) << what;
    EXPECT_TRUE(fanOut == gather->fanOut) << what;
    const unsigned cluster = 1u << pick(0, 5), elemBytes = 1u << pick(0, 4);
    const unsigned xferBytes = std::min(elemBytes, 8u);
    rt::MasPar byShape = rt::MasPar::pricing(width, height, cluster),
               byRound = rt::MasPar::pricing(width, height, cluster);
    rt::chargeBuiltAllGather(byShape, *gather, xferBytes,
                             elemBytes / xferBytes);
    chargeRounds(byRound, rounds, xferBytes, elemBytes / xferBytes);
    const std::string on = what + ", cluster " + std::to_string(cluster) +
                           ", " + std::to_string(elemBytes) + " bytes";
    EXPECT_EQ(byShape.ledger().router, byRound.ledger().router) << on;
    EXPECT_EQ(byShape.ledger().memory, byRound.ledger().memory) << on;
    EXPECT_EQ(byShape.ledger().routerSends, byRound.ledger().routerSends) << on;
    EXPECT_GT(byShape.ledger().router, 0) << on;
  }
  EXPECT_EQ(tested, 16);
}

// A vector of 170 elements replicated over 900 PEs (30 x 30, clusters of
// 16), planned (its exchange step priced from its shape) and run on the
// simulator (its rounds built): every element arrives and the prediction
// equals the simulation, in place and as a copy of 8-byte elements.
TEST(AllGatherPrice, PlannedEqualsRun) {
  const unsigned n = 170, width = 30, height = 30;
  KTile src, dst;
  test::replicatedVector(n, width * height, src, dst);
  const std::optional<rt::AllGatherMove> gather =
      rt::readAllGather(src, dst, rt::sourcesOf(src, dst), width * height);
  ASSERT_TRUE(gather);
  ASSERT_EQ(rt::builtAllGatherChosen(*gather), std::optional<bool>(true));
  for (bool copy : {false, true}) {
    GeneralPlanRequest req;
    req.src = src;
    req.dst = dst;
    req.elemBytes = 8;
    req.copy = copy;
    req.shape.width = width;
    req.shape.height = height;
    req.shape.clusterSize = 16;
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    ASSERT_FALSE(plan.steps.empty());
    EXPECT_EQ(plan.steps[0].kind, rt::GeneralStepKind::Exchange);
    const uint64_t region = uint64_t(n) * req.elemBytes;
    rt::MasPar m(width, height, 3 * region, 16);
    rt::Regions regions{{copy ? 0 : region}, {region}, {2 * region}};
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, src, req.elemBytes, regions.src.base, 7);
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
    EXPECT_EQ(
        rt::countMismatches(readOf, dst, req.elemBytes, regions.dst.base, 7),
        0u);
    EXPECT_EQ(m.ledger().total(), plan.predictedTicks) << "copy " << copy;
  }
}

// Random small all-gathers (4 to 90 PEs, any number of elements, odd
// sizes, random source PEs and slots): the closed-form waves' floor that
// the pricing machine decides by equals the floor of the waves themselves
// (exchangeSchedule's, computed here from the grouped deliveries), so it
// is neither too high nor too low; and exchangeSchedule never takes more
// rounds than the floor (a wave is coloured in as many rounds as its
// busiest PE), the built rounds or the direct colouring. Where the shape
// decides (builtAllGatherChosen), the decision is exchangeSchedule's.
TEST(AllGatherPrice, WavesFloorClosedForm) {
  std::mt19937 rng(5151);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int decided = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const unsigned pes = unsigned(pick(4, 90));
    const unsigned n =
        iter % 4 == 0 ? unsigned(pick(2, 4)) : unsigned(pick(2, int(pes)));
    const DrawnGather g = drawGather(rng, n, pes);
    const int64_t fromSlots = g.fromSlots, toSlots = g.toSlots;
    const std::vector<uint32_t> &sources = g.sources;
    const rt::TileMap &from = g.from, &to = g.to;
    const std::string what = std::to_string(n) + " over " +
                             std::to_string(pes) + ", iter " +
                             std::to_string(iter);
    const std::optional<rt::AllGatherMove> gather =
        rt::readAllGather(from, to, sources, pes);
    ASSERT_TRUE(gather) << what;
    const auto lists = groupedDeliveries(sources, fromSlots, toSlots, pes);
    const uint64_t floor = wavesFloorOf(lists, pes);
    ASSERT_EQ(rt::allGatherWavesFloor(gather->sourcePe, pes), floor) << what;

    rt::ExchangeRoundList rounds, built;
    std::vector<rt::ExchangeSend> fanOut;
    ASSERT_TRUE(
        rt::exchangeSchedule(from, to, sources, pes, rounds, fanOut, true));
    std::vector<const std::vector<rt::ExchangeSend> *> listed;
    for (const auto &list : lists)
      listed.push_back(&list);
    ASSERT_TRUE(rt::allGatherRounds(listed, pes, built)) << what;
    EXPECT_LE(rounds.size(), floor) << what;
    EXPECT_LE(rounds.size(), built.size()) << what;
    EXPECT_LE(rounds.size(), size_t(pes - 1)) << what;
    if (const std::optional<bool> chosen = rt::builtAllGatherChosen(*gather)) {
      ++decided;
      EXPECT_EQ(*chosen, sameRounds(rounds, built)) << what;
    }
  }
  EXPECT_GT(decided, 50);
}

// The condition itself: exchangeSchedule keeps the built rounds without
// colouring the waves only when they take fewer rounds than the waves'
// floor. It decides where the joint search refuses at once, large
// all-gathers, and the floor comes near the built rounds when nearly every
// PE is a source: random all-gathers of 190 to 260 elements over 3 or 4
// more PEs, where the two tie now and then (the waves then win: the direct
// colouring's, the waves' and the search's rounds are preferred on a tie).
// A floor too high would keep the built rounds on a tie; one too low keeps
// the same rounds after colouring the waves, which only takes longer.
TEST(AllGatherPrice, BuiltKeptOnlyBelowWavesFloor) {
  std::mt19937 rng(6161);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int kept = 0, ties = 0;
  for (int iter = 0; iter < 150; ++iter) {
    const unsigned n = unsigned(pick(190, 260)), pes = n + unsigned(pick(3, 4));
    const int64_t fromSlots = pick(1, 2), toSlots = n;
    const std::vector<uint32_t> sources =
        randomAllGather(rng, n, pes, fromSlots, toSlots, false);
    const rt::TileMap from = deviceOf(fromSlots, pes),
                      to = deviceOf(toSlots, pes);
    const std::string what = std::to_string(n) + " over " +
                             std::to_string(pes) + ", iter " +
                             std::to_string(iter);
    const auto lists = groupedDeliveries(sources, fromSlots, toSlots, pes);
    const uint64_t floor = wavesFloorOf(lists, pes);
    rt::ExchangeRoundList rounds, built;
    std::vector<rt::ExchangeSend> fanOut;
    ASSERT_TRUE(
        rt::exchangeSchedule(from, to, sources, pes, rounds, fanOut, true));
    std::vector<const std::vector<rt::ExchangeSend> *> listed;
    for (const auto &list : lists)
      listed.push_back(&list);
    ASSERT_TRUE(rt::allGatherRounds(listed, pes, built)) << what;
    ASSERT_LT(built.size(), size_t(pes - 1)) << what;
    const bool keptBuilt = sameRounds(rounds, built);
    EXPECT_EQ(keptBuilt, built.size() < floor) << what << ", floor " << floor;
    kept += keptBuilt;
    ties += built.size() == floor;
    const std::optional<rt::AllGatherMove> gather =
        rt::readAllGather(from, to, sources, pes);
    ASSERT_TRUE(gather) << what;
    if (const std::optional<bool> chosen = rt::builtAllGatherChosen(*gather)) {
      EXPECT_EQ(*chosen, keptBuilt) << what;
    }
  }
  std::printf("near-full all-gathers: %d kept built, %d ties with the "
              "waves' floor\n",
              kept, ties);
  EXPECT_GE(ties, 3);
  EXPECT_GE(kept, 100);
}
