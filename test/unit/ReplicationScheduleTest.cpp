//===- ReplicationScheduleTest.cpp - replicated exchange rounds, checked --===//
//
// Random replicated destinations (003 6.2.1, "Data replication") scheduled
// by exchangeSchedule: every round lets each PE send and receive at most
// one element, a forwarded copy is read only where it arrived in an earlier
// round, every destination cell gets its element, and no schedule beats
// the receive bound (the most elements one PE must receive).
//
//===----------------------------------------------------------------------===//
#include "PlainDevice.h"
#include "RandomTile.h"
#include "mapc/runtime/General.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

using namespace mapc;
using mapc::test::deviceOf;

namespace {

/// A layout of `slots` memory cells on each of `pes` PEs (exchangeSchedule
/// reads only the device shape; the cells' sources come separately).
/// Checks the rounds and copies of `sources` (destination cell -> source
/// cell) element by element; returns the receive bound.
size_t checkSchedule(int64_t fromSlots, int64_t toSlots, unsigned pes,
                     const std::vector<uint32_t> &sources,
                     const rt::ExchangeRoundList &rounds,
                     const std::vector<rt::ExchangeSend> &fanOut,
                     const std::string &what) {
  constexpr uint32_t kNone = ~uint32_t(0);
  // What each destination cell holds, and the round it arrived in.
  std::vector<uint32_t> got(sources.size(), kNone), when(sources.size(), 0);
  for (uint32_t r = 0; r < rounds.size(); ++r) {
    std::set<uint32_t> senders, receivers;
    for (const rt::ExchangeSend &e : rounds[r]) {
      EXPECT_TRUE(senders.insert(e.srcPe).second) << what << " round " << r;
      EXPECT_TRUE(receivers.insert(e.dstPe).second) << what << " round " << r;
      uint32_t element;
      if (e.forwarded) {
        size_t cell = size_t(e.srcPe) * toSlots + e.srcSlot;
        element = got[cell];
        EXPECT_NE(element, kNone) << what << ": forwards an empty cell";
        EXPECT_LT(when[cell], r) << what << ": forwards before arrival";
      } else {
        element = uint32_t(e.srcPe * fromSlots + e.srcSlot);
      }
      size_t cell = size_t(e.dstPe) * toSlots + e.dstSlot;
      EXPECT_EQ(got[cell], kNone) << what << ": cell written twice";
      got[cell] = element;
      when[cell] = r;
    }
  }
  for (const rt::ExchangeSend &c : fanOut)
    got[size_t(c.dstPe) * toSlots + c.dstSlot] =
        got[size_t(c.srcPe) * toSlots + c.srcSlot];
  std::vector<std::set<uint32_t>> needs(pes);
  for (size_t b = 0; b < sources.size(); ++b) {
    uint32_t a = sources[b];
    if (a == rt::kNoSource || int64_t(a) / fromSlots == int64_t(b) / toSlots)
      continue;
    EXPECT_EQ(got[b], a) << what << ": cell " << b;
    needs[b / toSlots].insert(a);
  }
  size_t bound = 0;
  for (const auto &n : needs)
    bound = std::max(bound, n.size());
  EXPECT_GE(rounds.size(), bound) << what;
  return bound;
}

} // namespace

// An 8-element vector, one element on each of PEs 0-7, replicated over all
// 30 PEs (each PE holds the whole vector): before the copies of all
// elements were scheduled together it took 23 rounds (recursive doubling,
// one element's waves after another's); the receive bound is 8, and 9 is
// the least possible: only the 8 sources can send in round 1 and 16
// holders in round 2, leaving 232 - 24 receives for 30 PEs (7 rounds more).
TEST(ReplicationSchedule, EightOverThirty) {
  const unsigned pes = 30;
  std::vector<uint32_t> sources(size_t(pes) * 8);
  for (unsigned q = 0; q < pes; ++q)
    for (uint32_t t = 0; t < 8; ++t)
      sources[q * 8 + t] = t; // element t: PE t, slot 0
  rt::ExchangeRoundList rounds;
  std::vector<rt::ExchangeSend> fanOut;
  ASSERT_TRUE(rt::exchangeSchedule(deviceOf(1, pes), deviceOf(8, pes), sources,
                                   pes, rounds, fanOut));
  size_t bound = checkSchedule(1, 8, pes, sources, rounds, fanOut, "8 x 30");
  EXPECT_EQ(bound, 8u);
  EXPECT_EQ(rounds.size(), 9u);
}

// Random replicated destinations: a few source cells, each copied to random
// cells of many PEs (several cells of one PE too), on 2 to 40 PEs.
TEST(ReplicationSchedule, RandomReplication) {
  std::mt19937 rng(1111);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  uint64_t roundsTotal = 0, boundTotal = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const unsigned pes = unsigned(pick(2, 40));
    const int64_t fromSlots = pick(1, 4), toSlots = pick(1, 12);
    const int elements = pick(1, int(std::min<int64_t>(12, pes * fromSlots)));
    std::set<uint32_t> cells;
    while (int(cells.size()) < elements)
      cells.insert(uint32_t(pick(0, int(pes * fromSlots) - 1)));
    std::vector<uint32_t> elems(cells.begin(), cells.end());
    const int fill = pick(30, 100); // percent of destination cells used
    std::vector<uint32_t> sources(size_t(pes * toSlots), rt::kNoSource);
    for (uint32_t &s : sources)
      if (pick(1, 100) <= fill)
        s = elems[size_t(pick(0, elements - 1))];
    rt::ExchangeRoundList rounds;
    std::vector<rt::ExchangeSend> fanOut;
    std::string what = "iter " + std::to_string(iter);
    ASSERT_TRUE(rt::exchangeSchedule(deviceOf(fromSlots, pes),
                                     deviceOf(toSlots, pes), sources, pes,
                                     rounds, fanOut))
        << what;
    boundTotal +=
        checkSchedule(fromSlots, toSlots, pes, sources, rounds, fanOut, what);
    roundsTotal += rounds.size();
    // In place nothing is forwarded (the written region is not read).
    ASSERT_TRUE(rt::exchangeSchedule(deviceOf(fromSlots, pes),
                                     deviceOf(toSlots, pes), sources, pes,
                                     rounds, fanOut, /*forward=*/false))
        << what;
    for (const auto &round : rounds)
      for (const rt::ExchangeSend &e : round)
        EXPECT_FALSE(e.forwarded) << what;
    checkSchedule(fromSlots, toSlots, pes, sources, rounds, fanOut,
                  what + " in place");
  }
  std::printf("replication: %llu rounds against a receive bound of %llu\n",
              (unsigned long long)roundsTotal, (unsigned long long)boundTotal);
}

namespace {

/// The fewest rounds of an all-gather of n elements on n distinct PEs over
/// `pes` PEs (ReplicationRounds.cpp): before round u at most n 2^(u-1) PEs
/// hold anything, so while n 2^t < pes some PE still needs all n after
/// round t.
size_t allGatherBound(size_t n, size_t pes) {
  if (n >= pes)
    return n - 1;
  size_t t = 0;
  while ((n << (t + 1)) < pes)
    ++t;
  return n + t;
}

/// An all-gather: element i on PE srcPe[i] (slot srcSlot[i]), every PE
/// holding all of them in a random order of its `toSlots` cells, element 0
/// a second time if `twice` (toSlots > n).
std::vector<uint32_t> allGather(const std::vector<uint32_t> &srcPe,
                                const std::vector<uint32_t> &srcSlot,
                                int64_t fromSlots, int64_t toSlots,
                                unsigned pes, bool twice, std::mt19937 &rng) {
  std::vector<uint32_t> sources(size_t(pes * toSlots), rt::kNoSource);
  std::vector<uint32_t> cells(static_cast<size_t>(toSlots));
  for (unsigned q = 0; q < pes; ++q) {
    for (uint32_t t = 0; t < cells.size(); ++t)
      cells[t] = t;
    std::shuffle(cells.begin(), cells.end(), rng);
    for (size_t i = 0; i < srcPe.size(); ++i)
      sources[q * toSlots + cells[i]] =
          uint32_t(srcPe[i] * fromSlots + srcSlot[i]);
    if (twice)
      sources[q * toSlots + cells[srcPe.size()]] =
          uint32_t(srcPe[0] * fromSlots + srcSlot[0]);
  }
  return sources;
}

} // namespace

// 200 elements on PEs 0-199 replicated over 1000 PEs, the benchmark's
// largest all-gather: the search ran past its budget and kept recursive
// doubling's 655 rounds; built (doubling down 200 columns of 5 PEs, then
// 199 rotations) it takes 202, the bound (600 PEs hold nothing after two
// rounds, so 200 remain to receive all 200 from round 3).
TEST(ReplicationSchedule, AllGatherTwoHundredOverThousand) {
  const unsigned pes = 1000, n = 200;
  std::vector<uint32_t> sources(size_t(pes) * n);
  for (unsigned q = 0; q < pes; ++q)
    for (uint32_t t = 0; t < n; ++t)
      sources[q * n + t] = t;
  rt::ExchangeRoundList rounds;
  std::vector<rt::ExchangeSend> fanOut;
  ASSERT_TRUE(rt::exchangeSchedule(deviceOf(1, pes), deviceOf(n, pes), sources,
                                   pes, rounds, fanOut));
  checkSchedule(1, n, pes, sources, rounds, fanOut, "200 x 1000");
  EXPECT_EQ(allGatherBound(n, pes), 202u);
  EXPECT_EQ(rounds.size(), 202u);
}

// Random all-gathers (n elements on n distinct PEs in random slots, every
// PE holding all n in random cells, sometimes some twice): every schedule
// is checked element by element and takes at most one round over the
// all-gather bound, none over it when n divides the PEs.
TEST(ReplicationSchedule, RandomAllGather) {
  std::mt19937 rng(2222);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 1500; ++iter) {
    const unsigned pes = unsigned(pick(2, 80));
    const unsigned n = iter % 3 == 0
                           ? unsigned(std::max(1, int(pes) / pick(1, 6)))
                           : unsigned(pick(1, int(pes)));
    const int64_t fromSlots = pick(1, 3), toSlots = n + pick(0, 3);
    std::vector<uint32_t> pe(pes);
    for (uint32_t q = 0; q < pes; ++q)
      pe[q] = q;
    std::shuffle(pe.begin(), pe.end(), rng);
    pe.resize(n);
    std::vector<uint32_t> slot(n);
    for (uint32_t &s : slot)
      s = uint32_t(pick(0, int(fromSlots) - 1));
    const bool twice = toSlots > n && pick(0, 1);
    const std::vector<uint32_t> sources =
        allGather(pe, slot, fromSlots, toSlots, pes, twice, rng);
    rt::ExchangeRoundList rounds;
    std::vector<rt::ExchangeSend> fanOut;
    const std::string what = "all-gather " + std::to_string(n) + " over " +
                             std::to_string(pes) + ", iter " +
                             std::to_string(iter);
    ASSERT_TRUE(rt::exchangeSchedule(deviceOf(fromSlots, pes),
                                     deviceOf(toSlots, pes), sources, pes,
                                     rounds, fanOut))
        << what;
    checkSchedule(fromSlots, toSlots, pes, sources, rounds, fanOut, what);
    const size_t bound = allGatherBound(n, pes);
    EXPECT_GE(rounds.size(), bound) << what;
    EXPECT_LE(rounds.size(), bound + (pes % n != 0)) << what;
  }
}

// The table of sources of a move into a replicated destination, walked
// (the destination's replicated digits held at 0, every copy an offset;
// sourcesOf) against cell by cell (dataAt, firstAddressOf), and of the
// destination to itself (its copy back), on 3,000 random
// pairs of formats, plain ones (where the walk applies) and with
// templates, offsets, senses and Gray digits (where it declines).
TEST(ReplicationSchedule, ReplicatedSourcesWalked) {
  std::mt19937 rng(3333);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int replicated = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<int64_t> shape(size_t(pick(1, 2)));
    for (int64_t &len : shape)
      len = pick(1, 12);
    test::RandomTileSpec spec;
    if (iter % 2) {
      spec.templates = spec.senses = spec.gray = false;
    }
    const KTile from = test::randomTileFor(rng, shape, spec);
    const KTile to = test::randomTileFor(rng, shape, spec);
    if (from.replicates())
      continue;
    replicated += to.replicates();
    std::vector<uint32_t> cells(size_t(to.deviceSize()), rt::kNoSource);
    for (int64_t b = 0; b < to.deviceSize(); ++b) {
      const int64_t d = to.dataAt(b);
      if (d >= 0)
        cells[size_t(b)] = uint32_t(from.firstAddressOf(d));
    }
    ASSERT_EQ(rt::sourcesOf(from, to), cells) << "iter " << iter;
    // Between the destination and itself (a copy back) every held cell,
    // replicated or not, keeps its element.
    std::vector<uint32_t> own(size_t(to.deviceSize()), rt::kNoSource);
    for (int64_t b = 0; b < to.deviceSize(); ++b)
      if (to.dataAt(b) >= 0)
        own[size_t(b)] = uint32_t(b);
    ASSERT_EQ(rt::sourcesOf(to, to), own) << "iter " << iter << ", itself";
  }
  EXPECT_GT(replicated, 300);
}
