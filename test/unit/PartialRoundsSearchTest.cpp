//===- PartialRoundsSearchTest.cpp - the partial-round search's rewrite ---===//
//
// searchDigitExchangePartialRounds was rewritten to weigh again only the
// cluster pairs that sent and to count a candidate round's router price
// from its pairs (docs/cost-model.md, "A faster search for partial
// rounds"). The plan prices the rounds it finds, and the runtime and the
// emitted C++ search them again from the step, so the rewrite must find
// the very same rounds as the search before it (PartialRoundsReference.h).
//
//===----------------------------------------------------------------------===//
#include "DigitTile.h"
#include "PartialRoundsReference.h"
#include "mapc/runtime/General.h"

#include "gtest/gtest.h"

#include <numeric>
#include <optional>
#include <random>

using namespace mapc;
using mapc::test::digitTile;

namespace {

/// A random P/M digit exchange of base 2-20 over up to `maxPes` PEs: a PE
/// digit trades places with a memory digit of its base, the other digits
/// of each side shuffled half of the time (folded permutations).
bool randomExchange(std::mt19937_64 &rng, rt::DigitExchangeShape &d,
                    int64_t maxPes = 256) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int64_t> bases;
  auto digit = [&](int64_t base) {
    bases.push_back(base);
    return unsigned(bases.size() - 1);
  };
  const int64_t b = pick(0, 2) ? pick(8, 20) : pick(2, 7);
  const unsigned e = digit(b), f = digit(b);
  std::vector<unsigned> mem = {e}, pe = {f};
  int64_t pes = b, slots = b;
  for (int i = pick(0, 4); i > 0; --i) {
    const int64_t base = pick(2, 6);
    if (pes * base <= maxPes) {
      pe.insert(pe.begin() + pick(0, int(pe.size())), digit(base));
      pes *= base;
    }
  }
  for (int i = pick(0, 2); i > 0; --i) {
    const int64_t base = pick(2, 5);
    if (slots * base <= 64) {
      mem.insert(mem.begin() + pick(0, int(mem.size())), digit(base));
      slots *= base;
    }
  }
  std::vector<unsigned> mem2 = mem, pe2 = pe;
  std::replace(mem2.begin(), mem2.end(), e, f);
  std::replace(pe2.begin(), pe2.end(), f, e);
  if (rng() % 2)
    std::shuffle(mem2.begin(), mem2.end(), rng);
  if (rng() % 2)
    std::shuffle(pe2.begin(), pe2.end(), rng);
  const KTile from = digitTile(bases, mem, pe),
              to = digitTile(bases, mem2, pe2);
  return rt::findDigitExchange(from, to, rt::sourcesOf(from, to), d, nullptr);
}

/// Expects `got` to be `want`, send by send.
/// A random exchange of 2 PEs or more (randomExchange) on a random pricing
/// machine (clusters of 1-16 PEs, 1-32 wide), a random send width and a
/// few values in hand more or less than its base.
struct Draw {
  rt::DigitExchangeShape d;
  rt::MasPar m;
  unsigned bytes;
  int64_t live;
};
std::optional<Draw> randomDraw(std::mt19937_64 &rng) {
  rt::DigitExchangeShape d;
  if (!randomExchange(rng, d) || d.pes < 2)
    return std::nullopt;
  const unsigned cluster = 1u << (rng() % 5);
  const unsigned width = 1 + unsigned(rng() % 32);
  const unsigned height = unsigned((d.pes + width - 1) / width);
  const rt::MasPar m = rt::MasPar::pricing(width, height, cluster);
  const unsigned bytes = 1u << (rng() % 4);
  const int64_t live = d.base + int64_t(rng() % 12) - 1;
  return Draw{std::move(d), m, bytes, live};
}

/// The machine's price of `rounds` of `d` in sends of `bytes`.
int64_t roundsTicks(const rt::MasPar &m, const rt::DigitExchangeShape &d,
                    const rt::DigitExchangePartialRounds &rounds,
                    unsigned bytes) {
  int64_t ticks = 0;
  rt::Plural dest(m.peCount(), 0);
  for (const auto &round : rounds.rounds) {
    rt::Mask on(m.peCount(), 0);
    for (const rt::DigitExchangePartialSend &e : round) {
      on[e.pe] = 1;
      dest[e.pe] = uint64_t(d.destOf(e.pe, e.slot));
    }
    ticks += m.cheaperRouterCost(bytes, dest, on);
  }
  return ticks;
}

void expectSameRounds(const rt::DigitExchangePartialRounds &got,
                      const rt::DigitExchangePartialRounds &want, int trial) {
  ASSERT_EQ(got.rounds.size(), want.rounds.size()) << "trial " << trial;
  for (size_t k = 0; k < want.rounds.size(); ++k) {
    ASSERT_EQ(got.rounds[k].size(), want.rounds[k].size())
        << "trial " << trial << " round " << k;
    for (size_t i = 0; i < want.rounds[k].size(); ++i) {
      ASSERT_EQ(got.rounds[k][i].pe, want.rounds[k][i].pe)
          << "trial " << trial << " round " << k;
      ASSERT_EQ(got.rounds[k][i].slot, want.rounds[k][i].slot)
          << "trial " << trial << " round " << k;
    }
  }
}

} // namespace

// 2000 random exchanges on random machines (clusters of 1-16 PEs, sends of
// 1-8 bytes, a few values in hand more or less): the rewritten search finds
// exactly the reference's rounds, and the ticks it gives for each round are
// MasPar::cheaperRouterCost's (its pricing uses them). Sabotaged (a candidate's
// clustered price counted one partner short, or a pair not weighed again after
// it sent), it fails.
TEST(PartialRoundsSearch, SameRoundsAsTheReference) {
  std::mt19937_64 rng(20261128);
  int draws = 0, searched = 0, found = 0;
  for (int trial = 0; draws < 2000 && trial < 30000; ++trial) {
    const std::optional<Draw> draw = randomDraw(rng);
    if (!draw)
      continue;
    ++draws;
    const auto &[d, m, bytes, live] = *draw;
    const rt::DigitExchangePartialRounds want =
        rt::reference::searchPartialRounds(m, d, bytes, live);
    std::vector<int64_t> ticks;
    const rt::DigitExchangePartialRounds got =
        rt::searchDigitExchangePartialRounds(m, d, bytes, live, &ticks);
    ++searched;
    found += !want.rounds.empty();
    expectSameRounds(got, want, trial);
    if (HasFatalFailure())
      return;
    // Each round's ticks as the search counted them, the machine's price.
    ASSERT_EQ(ticks.size(), got.rounds.size()) << "trial " << trial;
    rt::Plural dest(m.peCount(), 0);
    for (size_t k = 0; k < got.rounds.size(); ++k) {
      rt::Mask on(m.peCount(), 0);
      for (const rt::DigitExchangePartialSend &e : got.rounds[k]) {
        on[e.pe] = 1;
        dest[e.pe] = uint64_t(d.destOf(e.pe, e.slot));
      }
      ASSERT_EQ(ticks[k], m.cheaperRouterCost(bytes, dest, on))
          << "trial " << trial << " round " << k;
    }
  }
  std::printf("partial-round search: %d exchanges, %d with rounds found\n",
              searched, found);
  EXPECT_EQ(draws, 2000);
  EXPECT_GT(found, 1000);
}

// Random #5's scale (docs/cost-model.md, "Partial rounds cold: every
// search is printed"): 40 exchanges of base 8-20 over 300-1024 PEs in
// clusters of 16, hundreds of cluster pairs a build (the draws above, up to
// 256 PEs, have at most 16 clusters). The search finds the reference's
// rounds. Sabotaged (a build's pairs ordered by their openings at groups
// of 3, not the build's own), it fails.
TEST(PartialRoundsSearch, SameRoundsAsTheReferenceAtScale) {
  std::mt19937_64 rng(20261201);
  int draws = 0, found = 0;
  for (int trial = 0; draws < 40 && trial < 20000; ++trial) {
    rt::DigitExchangeShape d;
    if (!randomExchange(rng, d, 1024) || d.pes < 300 || d.base < 8)
      continue;
    ++draws;
    const unsigned width = 32;
    const unsigned height = unsigned((d.pes + width - 1) / width);
    const rt::MasPar m = rt::MasPar::pricing(width, height, 16);
    const unsigned bytes = 1u << (rng() % 4);
    const int64_t live = d.base + int64_t(rng() % 8);
    const rt::DigitExchangePartialRounds want =
        rt::reference::searchPartialRounds(m, d, bytes, live);
    found += !want.rounds.empty();
    expectSameRounds(rt::searchDigitExchangePartialRounds(m, d, bytes, live),
                     want, trial);
    if (HasFatalFailure())
      return;
  }
  std::printf("partial-round search at scale: %d exchanges, %d with rounds\n",
              draws, found);
  EXPECT_EQ(draws, 40);
  EXPECT_GT(found, 20);
}

// digitExchangePartialRoundsFloor is a floor under the rounds the search
// finds (the planner prunes a candidate by it without searching): no more
// rounds than found, no more ticks than the found rounds' prices at the
// floor's width (each round priced by MasPar::cheaperRouterCost, at the
// search's width and at another). On 2000 small draws and 40 of random #5's
// scale. Sabotaged (a cluster's partners counted once per value, not once
// per partner cluster), it fails.
TEST(PartialRoundsSearch, FloorIsBelowTheFoundRounds) {
  std::mt19937_64 rng(20261203);
  int draws = 0, found = 0;
  double closest = 0;
  for (int trial = 0; draws < 2040 && trial < 60000; ++trial) {
    const bool scale = draws >= 2000;
    rt::DigitExchangeShape d;
    if (!randomExchange(rng, d, scale ? 1024 : 256) || d.pes < 2 ||
        (scale && (d.pes < 300 || d.base < 8)))
      continue;
    ++draws;
    const unsigned cluster = scale ? 16 : 1u << (rng() % 5);
    const unsigned width = scale ? 32 : 1 + unsigned(rng() % 32);
    const unsigned height = unsigned((d.pes + width - 1) / width);
    const rt::MasPar m = rt::MasPar::pricing(width, height, cluster);
    const unsigned bytes = 1u << (rng() % 4), other = 1u << (rng() % 4);
    const int64_t live = d.base + int64_t(rng() % 12) - 1;
    const rt::DigitExchangePartialRounds got =
        rt::searchDigitExchangePartialRounds(m, d, bytes, live);
    if (got.rounds.empty())
      continue;
    ++found;
    for (unsigned w : {bytes, other}) {
      const int64_t ticks = roundsTicks(m, d, got, w);
      const rt::DigitExchangePartialFloor f =
          rt::digitExchangePartialRoundsFloor(m, d, w);
      ASSERT_LE(f.rounds, int64_t(got.rounds.size())) << "trial " << trial;
      ASSERT_LE(f.ticks, ticks) << "trial " << trial << " width " << w;
      ASSERT_GT(f.ticks, 0) << "trial " << trial;
      closest = std::max(closest, double(f.ticks) / double(ticks));
    }
  }
  std::printf("partial-round floor: %d exchanges, %d with rounds, the "
              "floor at most %.2f of their ticks\n",
              draws, found, closest);
  EXPECT_EQ(draws, 2040);
  EXPECT_GT(found, 1000);
}

// The floor counts a cluster pair's openings as the most values one PE of
// either end has in it: a PE sends and receives one value a round. Four
// PEs of one cluster each send two values to the next cluster: the pair
// opens at least twice, 2 ropen + 8 rsend, and two full connections reach
// it. Counting each partner cluster once (the floor before), it fails.
TEST(PartialRoundsSearch, FloorOpensAPairOnceForEachValueOfOnePe) {
  const rt::MasPar m = rt::MasPar::pricing(4, 2, 4);
  ASSERT_EQ(m.clusterCount(), 2u);
  const uint32_t *a = m.clusterPes(0), *b = m.clusterPes(1);
  rt::DigitExchangeShape d;
  d.base = 3;
  d.pes = 8;
  d.sendDigit.assign(8, 0);
  d.destPe.resize(24);
  for (int64_t p = 0; p < 8; ++p)
    for (int64_t y = 0; y < 3; ++y)
      d.destPe[size_t(p * 3 + y)] = p; // kept, but for cluster 0's below
  for (unsigned j = 0; j < 4; ++j) {
    d.destPe[size_t(a[j] * 3 + 0)] = b[j];
    d.destPe[size_t(a[j] * 3 + 1)] = b[(j + 1) % 4];
  }
  const rt::CostModel &c = m.cost();
  const rt::DigitExchangePartialFloor f =
      rt::digitExchangePartialRoundsFloor(m, d, 8);
  EXPECT_EQ(f.rounds, 2);
  EXPECT_EQ(f.ticks, 2 * c.ropen + 8 * c.rsend[3]);
  const rt::DigitExchangePartialRounds r =
      rt::searchDigitExchangePartialRounds(m, d, 8, 8);
  ASSERT_EQ(rt::checkDigitExchangePartialRounds(d, r, 8), "");
  EXPECT_GE(roundsTicks(m, d, r, 8), f.ticks);
}

// The search reads where each PE's values go, not which slots hold them:
// the same exchange with every PE's slots shuffled finds the same rounds,
// each send from the slot its value moved to, valid and priced alike. The
// planner shares one search between the exchanges around different memory
// permutations, and the runtime and the emitted C++ search each step again,
// so this is what keeps their rounds the plan's. Searching the slots in
// their own order (the search before), it fails.
TEST(PartialRoundsSearch, SlotOrderDoesNotChangeTheRounds) {
  std::mt19937_64 rng(20261204);
  int draws = 0, found = 0;
  for (int trial = 0; draws < 400 && trial < 20000; ++trial) {
    const std::optional<Draw> draw = randomDraw(rng);
    if (!draw)
      continue;
    ++draws;
    const auto &[d, m, bytes, live] = *draw;
    // Slot y of PE p moves to slot moved[p * base + y].
    rt::DigitExchangeShape e;
    e.base = d.base;
    e.pes = d.pes;
    e.sendDigit.assign(size_t(d.pes), 0);
    e.destPe.resize(size_t(d.pes * d.base));
    std::vector<uint32_t> moved(size_t(d.pes * d.base));
    std::vector<uint32_t> order(size_t(d.base));
    for (int64_t p = 0; p < d.pes; ++p) {
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      for (int64_t y = 0; y < d.base; ++y) {
        moved[size_t(p * d.base + y)] = order[size_t(y)];
        e.destPe[size_t(p * d.base + order[size_t(y)])] = d.destOf(p, y);
      }
    }
    const rt::DigitExchangePartialRounds got =
        rt::searchDigitExchangePartialRounds(m, d, bytes, live);
    rt::DigitExchangePartialRounds want = got;
    for (auto &round : want.rounds)
      for (rt::DigitExchangePartialSend &s : round)
        s.slot = moved[size_t(s.pe * d.base + s.slot)];
    const rt::DigitExchangePartialRounds shuffled =
        rt::searchDigitExchangePartialRounds(m, e, bytes, live);
    expectSameRounds(shuffled, want, trial);
    if (HasFatalFailure())
      return;
    found += !got.rounds.empty();
    if (!got.rounds.empty()) {
      ASSERT_EQ(rt::checkDigitExchangePartialRounds(e, shuffled, live), "")
          << "trial " << trial;
    }
  }
  std::printf("partial rounds, slots shuffled: %d exchanges, %d with rounds\n",
              draws, found);
  EXPECT_EQ(draws, 400);
  EXPECT_GT(found, 200);
}
