//===- MpiScheduleTest.cpp - 004's schedules deliver every block once -----===//
#include "mapc/mpi/Distribution.h"
#include "mapc/mpi/Schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace mapc::mpi;

namespace {

struct Variant {
  Algorithm a;
  unsigned radix;
};

std::vector<Variant> variantsFor(int ranks) {
  std::vector<Variant> v = {{Algorithm::Pairwise, 0},
                            {Algorithm::Mpich, 0},
                            {Algorithm::GeneralizedButterfly, 0}};
  if ((ranks & (ranks - 1)) == 0)
    v.push_back({Algorithm::Butterfly, 0});
  for (int r = 2; r <= ranks; ++r)
    v.push_back({Algorithm::Bruck, unsigned(r)});
  return v;
}

/// Runs rank `ranks`' schedules step by step as the executor does: a rank
/// sends only blocks it holds, each message is received by its peer with
/// the same blocks in the same order, and at the end every block (o, d) is
/// held by d alone. Returns "" or what went wrong.
std::string simulate(Algorithm a, unsigned radix, const TrafficMatrix &t) {
  int n = t.ranks;
  std::vector<std::vector<Step>> all(n);
  for (int i = 0; i < n; ++i) {
    all[i] = schedule(a, radix, n, i);
    pruneEmpty(all[i], t);
  }
  std::vector<std::set<int64_t>> held(n);
  for (int o = 0; o < n; ++o)
    for (int d = 0; d < n; ++d)
      if (o != d && t.at(o, d))
        held[o].insert(int64_t(o) * n + d);
  // Steps are matched by their index (the message tag).
  std::map<unsigned, std::vector<std::pair<int, const Step *>>> byIndex;
  for (int i = 0; i < n; ++i)
    for (const Step &s : all[i])
      byIndex[s.index].push_back({i, &s});
  for (auto &[index, steps] : byIndex) {
    // Every send must meet a receive from the same peer with equal blocks.
    std::map<std::pair<int, int>, std::vector<int64_t>> sent, received;
    for (auto [i, s] : steps) {
      for (const Message &m : s->sends) {
        for (int64_t id : m.blocks)
          if (!held[i].count(id))
            return "rank " + std::to_string(i) + " sends block " +
                   std::to_string(id) + " it does not hold in step " +
                   std::to_string(index);
        sent[{i, m.peer}] = m.blocks;
      }
      for (const Message &m : s->recvs)
        received[{m.peer, i}] = m.blocks;
    }
    if (sent != received)
      return "sends and receives disagree in step " + std::to_string(index);
    for (auto &[pair, blocks] : sent)
      for (int64_t id : blocks) {
        held[pair.first].erase(id);
        held[pair.second].insert(id);
      }
  }
  for (int i = 0; i < n; ++i)
    for (int64_t id : held[i])
      if (id % n != i)
        return "block " + std::to_string(id) + " ends on rank " +
               std::to_string(i);
  for (int o = 0; o < n; ++o)
    for (int d = 0; d < n; ++d)
      if (o != d && t.at(o, d) && !held[d].count(int64_t(o) * n + d))
        return "block (" + std::to_string(o) + ", " + std::to_string(d) +
               ") never arrives";
  return "";
}

TrafficMatrix uniform(int ranks, int64_t count) {
  TrafficMatrix t;
  t.ranks = ranks;
  t.elementBytes = 8;
  t.counts.assign(size_t(ranks) * ranks, count);
  return t;
}

} // namespace

TEST(MpiSchedule, EveryAlgorithmDeliversEveryBlockOnce) {
  std::mt19937 rng(14);
  for (int ranks = 1; ranks <= 12; ++ranks)
    for (int trial = 0; trial < 20; ++trial) {
      // Dense, sparse (some ranks keep their data) and pair-only traffic.
      TrafficMatrix t = uniform(ranks, 0);
      for (int64_t &c : t.counts)
        c = trial % 3 == 0 ? 1 + int64_t(rng() % 5)
                           : (rng() % 4 == 0 ? int64_t(rng() % 7) : 0);
      for (Variant v : variantsFor(ranks)) {
        std::string why = simulate(v.a, v.radix, t);
        EXPECT_EQ(why, "") << algorithmName(v.a) << " radix " << v.radix
                           << " on " << ranks << " ranks, trial " << trial;
      }
    }
}

TEST(MpiSchedule, StepCountsAreTable1s) {
  // 004 table 1: P - 1 steps for pairwise and Bruck radix P, log2 P for the
  // butterfly, ceil(log2 P) for the generalized butterfly.
  for (int p : {2, 3, 4, 5, 7, 8, 12, 16}) {
    TrafficMatrix t = uniform(p, 1);
    LinkCosts c;
    EXPECT_EQ(predict(Algorithm::Pairwise, 0, t, c).steps, unsigned(p - 1));
    EXPECT_EQ(predict(Algorithm::Bruck, unsigned(p), t, c).steps,
              unsigned(p - 1));
    unsigned lg = 0;
    while ((1 << lg) < p)
      ++lg;
    EXPECT_EQ(predict(Algorithm::GeneralizedButterfly, 0, t, c).steps, lg);
    if ((p & (p - 1)) == 0) {
      EXPECT_EQ(predict(Algorithm::Butterfly, 0, t, c).steps, lg);
    }
  }
}

TEST(MpiSchedule, UniformTrafficMatchesTheClosedForms) {
  // With no copy cost the model is 004's eqs. 1 and 2 on uniform blocks.
  LinkCosts c;
  c.ts = 3e-6;
  c.tw = 2e-10;
  c.tc = 0;
  for (int p : {2, 4, 8, 16}) {
    int64_t perBlock = 1000; // elements of 8 bytes = 004's words
    TrafficMatrix t = uniform(p, perBlock);
    double n = double(perBlock) * p * p;
    EXPECT_NEAR(predict(Algorithm::Pairwise, 0, t, c).seconds,
                paper::pairwise(n, p, c.ts, c.tw * 8), 1e-12);
    EXPECT_NEAR(predict(Algorithm::Butterfly, 0, t, c).seconds,
                paper::butterfly(n, p, c.ts, c.tw * 8), 1e-12);
    // mpich with To = Ts is eq. 1 too.
    LinkCosts same = c;
    same.to = c.ts;
    EXPECT_NEAR(predict(Algorithm::Mpich, 0, t, same).seconds,
                paper::pairwise(n, p, c.ts, c.tw * 8), 1e-12);
    // Radix 2 is the butterfly's price (eq. 12 = eq. 2).
    EXPECT_NEAR(predict(Algorithm::GeneralizedButterfly, 0, t, c).seconds,
                paper::butterfly(n, p, c.ts, c.tw * 8), 1e-12);
  }
}

TEST(MpiSchedule, PairsOnlyTakeOneStep) {
  // Ranks 1 <-> 2 swap everything, 0 and 3 keep theirs.
  TrafficMatrix t = uniform(4, 0);
  t.counts[1 * 4 + 2] = t.counts[2 * 4 + 1] = 100;
  t.counts[0] = t.counts[15] = 100;
  LinkCosts c;
  std::vector<Prediction> all = predictAll(t, c);
  EXPECT_EQ(all.front().algorithm, Algorithm::Pairwise);
  EXPECT_EQ(all.front().steps, 1u);
  EXPECT_EQ(all.front().wireBytes, 1600u);
  EXPECT_EQ(t.activeRanks(), 2);
}

TEST(MpiDistribution, BlocksOfConsecutivePes) {
  for (int64_t pes : {1, 3, 7, 15, 16})
    for (int ranks = 1; ranks <= 20; ++ranks) {
      BlockDistribution d(pes, 5, ranks);
      EXPECT_EQ(d.firstPe(0), 0);
      EXPECT_EQ(d.firstPe(ranks), pes);
      for (int64_t pe = 0; pe < pes; ++pe) {
        int r = d.rankOfPe(pe);
        EXPECT_LE(d.firstPe(r), pe);
        EXPECT_GT(d.firstPe(r + 1), pe);
      }
      for (int r = 0; r < ranks; ++r) {
        int64_t n = d.firstPe(r + 1) - d.firstPe(r);
        EXPECT_GE(n, pes / ranks);
        EXPECT_LE(n, (pes + ranks - 1) / ranks);
      }
    }
}
