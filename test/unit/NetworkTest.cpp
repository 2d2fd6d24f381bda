//===- NetworkTest.cpp - the simulated network and 001's schedules --------===//

#include "mapc/runtime/Network.h"
#include "mapc/runtime/ExchangeSchedule.h"

#include <gtest/gtest.h>

using namespace mapc::rt;

namespace {

uint32_t gray(uint32_t i) { return i ^ (i >> 1); }

Transfer transfer(uint32_t from, uint32_t to, const std::vector<Hop> &path,
                  uint32_t phase = 0) {
  Transfer t;
  t.node = from;
  t.destNode = to;
  t.path = path;
  t.phase = phase;
  return t;
}

/// Fills slot s of node p with the device address it stands for.
void fillWithAddresses(NetworkMachine &m, unsigned mBits) {
  for (uint32_t p = 0; p < m.shape().nodeCount(); ++p)
    for (uint64_t s = 0; s < (uint64_t(1) << mBits); ++s)
      m.write(p, s * 4, 4, s | uint64_t(p) << mBits);
}

} // namespace

TEST(NetworkPaths, DimensionOrderOnCube) {
  NetworkShape cube = NetworkShape::booleanCube(4);
  std::vector<Hop> path = dimensionOrderPath(cube, 0b0101, 0b1100);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].dim, 0);
  EXPECT_EQ(path[1].dim, 3);
  uint32_t end = 0;
  ASSERT_TRUE(walkPath(cube, 0b0101, path, end));
  EXPECT_EQ(end, 0b1100u);
}

TEST(NetworkPaths, DimensionOrderOnMesh) {
  NetworkShape mesh = NetworkShape::mesh({4, 8});
  uint32_t from = 3 + 4 * 1, to = 1 + 4 * 5;
  std::vector<Hop> path = dimensionOrderPath(mesh, from, to);
  // One run per dim: 2 steps down dim 0, then 4 up dim 1.
  ASSERT_EQ(path.size(), 2u);
  EXPECT_TRUE(path[0].dim == 0 && path[0].dir == -1 && path[0].count == 2);
  EXPECT_TRUE(path[1].dim == 1 && path[1].dir == 1 && path[1].count == 4);
  EXPECT_EQ(pathLength(path), 6u);
  EXPECT_EQ(mesh.distance(from, to), 6u);
  uint32_t end = 0;
  ASSERT_TRUE(walkPath(mesh, from, path, end));
  EXPECT_EQ(end, to);
  // No wrap-around: stepping off the edge is refused.
  EXPECT_FALSE(walkPath(mesh, 0, {Hop{0, -1, 0}}, end));
}

TEST(NetworkMachine, RejectsBadPaths) {
  NetworkMachine m(NetworkShape::mesh({4}), 16);
  std::string why;
  EXPECT_EQ(m.run({transfer(0, 2, {Hop{0, 1, 0}})}, 4, &why), -1);
  EXPECT_NE(why.find("destination"), std::string::npos);
  EXPECT_EQ(m.run({transfer(0, 0, {Hop{0, -1, 0}, Hop{0, 1, 0}})}, 4, &why),
            -1);
  Transfer tooFar = transfer(0, 1, {Hop{0, 1, 0}});
  tooFar.byteAddr = 4;
  EXPECT_EQ(m.run({tooFar}, 16, &why), -1);
  EXPECT_NE(why.find("memory"), std::string::npos);
}

TEST(NetworkMachine, LinkContention) {
  NetworkShape cube = NetworkShape::booleanCube(1);
  NetworkMachine m(cube, 16);
  // Two elements over one directed link go one after the other...
  Transfer a = transfer(0, 1, {Hop{0, 1, 0}}), b = a;
  b.byteAddr = b.destByteAddr = 4;
  EXPECT_EQ(m.run({a, b}, 4), 2);
  EXPECT_EQ(m.ledger().maxLinkLoad, 2u);
  // ...but the two directions of a link are independent.
  Transfer c = transfer(1, 0, {Hop{0, 1, 0}});
  c.byteAddr = c.destByteAddr = 8;
  EXPECT_EQ(m.run({a, c}, 4), 1);
  // Local transfers are free.
  EXPECT_EQ(m.run({transfer(1, 1, {})}, 4), 0);
}

TEST(NetworkMachine, StoreAndForwardPipelines) {
  // Four elements along a 3-hop line: 3 + (4 - 1) cycles.
  NetworkShape mesh = NetworkShape::mesh({4});
  NetworkMachine m(mesh, 16);
  std::vector<Transfer> ts;
  for (unsigned i = 0; i < 4; ++i) {
    ts.push_back(transfer(0, 3, dimensionOrderPath(mesh, 0, 3)));
    ts.back().byteAddr = ts.back().destByteAddr = 4 * i;
  }
  EXPECT_EQ(m.run(ts, 4), 6);
  EXPECT_EQ(m.ledger().linkTransfers, 12u);
}

TEST(NetworkMachine, PhaseBarrier) {
  NetworkShape cube = NetworkShape::booleanCube(2);
  NetworkMachine m(cube, 16);
  // Disjoint links: without a barrier both go in cycle 1.
  Transfer a = transfer(0, 3, {Hop{0, 1, 0}, Hop{1, 1, 0}});
  Transfer b = transfer(2, 3, {Hop{0, 1, 0}});
  b.byteAddr = b.destByteAddr = 4;
  EXPECT_EQ(m.run({a, b}, 4), 2);
  // Phase 1 waits until a has arrived (end of cycle 2).
  b.phase = 1;
  EXPECT_EQ(m.run({a, b}, 4), 3);
  // A later leg of a's own path may be a later phase, too.
  Transfer c = transfer(2, 0, {Hop{1, 1, 0}});
  c.byteAddr = c.destByteAddr = 8;
  a.path[1].phase = 1;
  EXPECT_EQ(m.run({a, c}, 4), 2);
  c.phase = 1;
  EXPECT_EQ(m.run({a, c}, 4), 2) << "c shares phase 1 with a's second leg";
  c.phase = 2;
  EXPECT_EQ(m.run({a, c}, 4), 3);
}

TEST(NetworkMachine, PermutesMemory) {
  NetworkShape cube = NetworkShape::booleanCube(3);
  NetworkMachine m(cube, 8);
  for (uint32_t p = 0; p < 8; ++p)
    m.write(p, 0, 8, 100 + p);
  std::vector<Transfer> ts; // a cyclic shift: reads see the state before
  for (uint32_t p = 0; p < 8; ++p)
    ts.push_back(
        transfer(p, (p + 1) % 8, dimensionOrderPath(cube, p, (p + 1) % 8)));
  ASSERT_GE(m.run(ts, 8), 1);
  for (uint32_t p = 0; p < 8; ++p)
    EXPECT_EQ(m.read((p + 1) % 8, 0, 8), 100 + p);
}

// 001 fig. 4: Gray code to binary code on a 4-cube, K = 1, exchanging in
// dims 2, 1, 0 where bit d + 1 is set.
TEST(NetworkSchedules, GrayToBinaryFigure4) {
  NetworkShape cube = NetworkShape::booleanCube(4);
  ExchangeGroup g;
  g.mBits = 0;
  g.pBits = 4;
  g.orders = {
      {Exchange{2, 1u << 3}, Exchange{1, 1u << 2}, Exchange{0, 1u << 1}}};
  NetworkMachine m(cube, 4);
  for (uint32_t i = 0; i < 16; ++i)
    m.write(gray(i), 0, 4, i);
  auto ts = buildExchangeTransfers(cube, g, ExchangeSchedule::Sequential, 4, 0,
                                   [](uint64_t) { return true; });
  EXPECT_EQ(m.run(ts, 4), 3);
  for (uint32_t p = 0; p < 16; ++p)
    EXPECT_EQ(m.read(p, 0, 4), p) << "node " << p;
}

// A Gray coded axis of n node bits split at the given dims (001 lemma 2):
// node bit m - 1 is exchanged where b_m = g_(n-1) ^ ... ^ g_m of the
// original address is 1. With several splits the conditions are rewritten
// into the current address after the exchanges before (Affine.h's moves).
struct GraySplit {
  unsigned mBits, pBits;
  std::vector<unsigned> splits; // the m of each split, exchange at m - 1
  AffineMove target;

  GraySplit(unsigned mBits, unsigned pBits, std::vector<unsigned> splits)
      : mBits(mBits), pBits(pBits), splits(std::move(splits)) {
    target = AffineMove::identity(mBits + pBits);
    for (unsigned s : this->splits)
      target.row[mBits + s - 1] ^= originalCondition(s);
  }
  uint64_t originalCondition(unsigned s) const {
    return ((uint64_t(1) << pBits) - (uint64_t(1) << s)) << mBits;
  }
  /// The exchanges for the splits in the order given.
  std::vector<Exchange> order(const std::vector<unsigned> &splitOrder) const {
    std::vector<Exchange> out;
    AffineMove done = AffineMove::identity(mBits + pBits);
    for (unsigned s : splitOrder) {
      // parity(orig & C) with orig = done^-1(cur) is parity(cur & C').
      AffineMove undo = done.inverse();
      uint64_t c = 0, orig = originalCondition(s);
      for (unsigned i = 0; i < mBits + pBits; ++i)
        if (orig >> i & 1)
          c ^= undo.row[i];
      out.push_back(Exchange{mBits + s - 1, c});
      done = done.then(AffineMove::fromExchange(mBits + pBits, out.back()));
    }
    return out;
  }
  /// 001 thm 2: set k starts at split k and goes round.
  ExchangeGroup rotated() const {
    ExchangeGroup g{mBits, pBits, {}};
    for (size_t k = 0; k < splits.size(); ++k) {
      std::vector<unsigned> o;
      for (size_t t = 0; t < splits.size(); ++t)
        o.push_back(splits[(k + t) % splits.size()]);
      g.orders.push_back(order(o));
    }
    return g;
  }
};

TEST(NetworkSchedules, GraySplitOrdersRealiseOneMap) {
  GraySplit gs(2, 6, {1, 3, 5});
  ExchangeGroup g = gs.rotated();
  for (const auto &o : g.orders) {
    AffineMove done = AffineMove::identity(8);
    for (const Exchange &e : o) {
      EXPECT_EQ(e.condition >> e.bit & 1, 0u);
      done = done.then(AffineMove::fromExchange(8, e));
    }
    EXPECT_EQ(done, gs.target);
  }
}

namespace {

struct Outcome {
  int64_t cycles;
  bool correct;
};

Outcome runSchedule(const GraySplit &gs, ExchangeSchedule s) {
  NetworkShape cube = NetworkShape::booleanCube(gs.pBits);
  ExchangeGroup g = gs.rotated();
  NetworkMachine m(cube, 4 << gs.mBits);
  fillWithAddresses(m, gs.mBits);
  auto ts =
      buildExchangeTransfers(cube, g, s, 4, 0, [](uint64_t) { return true; });
  int64_t cycles = m.run(ts, 4);
  bool correct = true;
  for (uint64_t a = 0; a < (uint64_t(1) << (gs.mBits + gs.pBits)); ++a) {
    uint64_t b = gs.target.apply(a);
    uint64_t mMask = (uint64_t(1) << gs.mBits) - 1;
    correct &= m.read(uint32_t(b >> gs.mBits), (b & mMask) * 4, 4) == a;
  }
  return {cycles, correct};
}

} // namespace

// 001 thm 1-4 on reshapes with delta = 1, 2, 3 non-adjacent split dims.
TEST(NetworkSchedules, TheoremBounds) {
  struct Case {
    unsigned mBits, pBits;
    std::vector<unsigned> splits;
  };
  std::vector<Case> cases = {
      {3, 5, {2}},    {4, 5, {2}},       {3, 6, {1, 3}},    {4, 6, {2, 4}},
      {4, 6, {1, 3}}, {3, 6, {1, 3, 5}}, {4, 6, {1, 3, 5}}, {2, 5, {2}}};
  for (const Case &c : cases) {
    GraySplit gs(c.mBits, c.pBits, c.splits);
    uint64_t K = uint64_t(1) << c.mBits;
    unsigned delta = unsigned(c.splits.size());
    NetworkShape cube = NetworkShape::booleanCube(c.pBits);
    ExchangeGroup g = gs.rotated();
    int64_t lower = networkLowerBound(
        cube, c.mBits, [&](uint64_t a) { return gs.target.apply(a); },
        [](uint64_t) { return true; });
    EXPECT_EQ(lower, theorem1Bound(K, delta));
    for (ExchangeSchedule s :
         {ExchangeSchedule::Sequential, ExchangeSchedule::Pipelined,
          ExchangeSchedule::Rotated, ExchangeSchedule::RotatedDetour,
          ExchangeSchedule::PipelinedDetour}) {
      std::string label =
          std::string(exchangeScheduleName(s)) + " K=" + std::to_string(K) +
          " n=" + std::to_string(c.pBits) + " delta=" + std::to_string(delta);
      Outcome o = runSchedule(gs, s);
      EXPECT_TRUE(o.correct) << label;
      EXPECT_GE(o.cycles, lower) << label;
      std::string why;
      bool applies = scheduleApplies(cube, g, s, &why);
      int64_t bound = scheduleBound(s, K, delta);
      if (s == ExchangeSchedule::RotatedDetour && applies) {
        // Every 2-cube step within ceil(K/(2 delta)) + 1 (001 thm 3 proof
        // before the overlap); the overlap that saves delta - 1 of the +1s
        // is not reproduced yet, so only delta = 1 reaches the bound.
        // Uneven sets (delta not dividing K) exceed even this: known gap.
        int64_t perStep = int64_t((K + 2 * delta - 1) / (2 * delta)) + 1;
        if (K % delta == 0) {
          EXPECT_LE(o.cycles, int64_t(delta) * perStep) << label;
        }
        if (delta == 1 && K % (2 * delta) == 0) {
          EXPECT_EQ(o.cycles, bound) << label;
        }
      } else if (s == ExchangeSchedule::Sequential ||
                 s == ExchangeSchedule::Rotated) {
        EXPECT_EQ(o.cycles, bound) << label;
      } else if (applies) {
        EXPECT_LE(o.cycles, bound) << label;
      }
      std::printf("%-18s K=%-3llu n=%u delta=%u: %lld (bound %lld%s)\n",
                  exchangeScheduleName(s), (unsigned long long)K, c.pBits,
                  delta, (long long)o.cycles, (long long)bound,
                  applies ? "" : (", n/a: " + why).c_str());
    }
  }
}

TEST(NetworkSchedules, Preconditions) {
  NetworkShape cube = NetworkShape::booleanCube(6);
  std::string why;
  // Adjacent split dims 2 and 3 (m = 3, 4): no thm 3.
  ExchangeGroup adjacent = GraySplit(3, 6, {3, 4}).rotated();
  EXPECT_FALSE(
      scheduleApplies(cube, adjacent, ExchangeSchedule::RotatedDetour, &why));
  EXPECT_NE(why.find("adjacent"), std::string::npos);
  EXPECT_TRUE(scheduleApplies(cube, adjacent, ExchangeSchedule::Rotated));
  // K = 2 delta: thm 3 wants more.
  ExchangeGroup small = GraySplit(2, 6, {1, 3}).rotated();
  EXPECT_FALSE(
      scheduleApplies(cube, small, ExchangeSchedule::RotatedDetour, &why));
  EXPECT_TRUE(
      scheduleApplies(cube, small, ExchangeSchedule::PipelinedDetour, &why))
      << why;
  // Gray to binary (splits everywhere): no free dim to detour over.
  ExchangeGroup all = GraySplit(3, 6, {1, 2, 3, 4, 5}).rotated();
  EXPECT_FALSE(
      scheduleApplies(cube, all, ExchangeSchedule::PipelinedDetour, &why));
  EXPECT_FALSE(scheduleApplies(NetworkShape::mesh({64}), small,
                               ExchangeSchedule::PipelinedDetour));
  EXPECT_EQ(parseExchangeSchedule("rotated-detour"),
            ExchangeSchedule::RotatedDetour);
  EXPECT_FALSE(parseExchangeSchedule("nope"));
}

// 002 2.1: sd(0, 2^b) on a line of 16 takes 2^b cycles.
TEST(NetworkSchedules, MeshExchangeDistance) {
  NetworkShape line = NetworkShape::mesh({16});
  for (unsigned b = 0; b < 4; ++b) {
    ExchangeGroup g{0, 4, {{Exchange{b, uint64_t(1) << ((b + 1) % 4)}}}};
    NetworkMachine m(line, 4);
    fillWithAddresses(m, 0);
    auto ts = buildExchangeTransfers(line, g, ExchangeSchedule::Sequential, 4,
                                     0, [](uint64_t) { return true; });
    EXPECT_EQ(m.run(ts, 4), int64_t(1) << b) << "bit " << b;
    for (uint32_t p = 0; p < 16; ++p) {
      uint32_t q = p ^ (((p >> ((b + 1) % 4)) & 1) << b);
      EXPECT_EQ(m.read(q, 0, 4), p);
    }
    EXPECT_EQ(
        networkLowerBound(
            line, 0,
            [&](uint64_t a) { return a ^ (((a >> ((b + 1) % 4)) & 1) << b); },
            [](uint64_t) { return true; }),
        int64_t(1) << b);
  }
}

TEST(NetworkMachine, LargeRunIsQuick) {
  // 2^16 elements, 16 hops each: every node to its complement.
  NetworkShape cube = NetworkShape::booleanCube(16);
  NetworkMachine m(cube, 4);
  std::vector<Transfer> ts;
  for (uint32_t p = 0; p < cube.nodeCount(); ++p)
    ts.push_back(
        transfer(p, p ^ 0xffff, dimensionOrderPath(cube, p, p ^ 0xffff)));
  EXPECT_EQ(m.run(ts, 4), 16);
  EXPECT_EQ(m.ledger().linkTransfers, 16u << 16);
  EXPECT_EQ(m.ledger().maxLinkLoad, 1u);
}
