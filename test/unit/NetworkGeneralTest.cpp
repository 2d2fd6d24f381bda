//===- NetworkGeneralTest.cpp - general remaps on hypercubes and meshes ---===//
//
// The property test of Route steps (runtime/NetworkExecute.h): random pairs
// of k-Tile formats (templates, offsets, senses, Gray dims, empty and
// replicated dims) on random meshes of any sides and on hypercubes, planned
// by planNetworkGeneralRemap, run on the store-and-forward simulator and
// checked element by element; every prediction equals its simulation and
// no plan beats the lower bound.
//
//===----------------------------------------------------------------------===//
#include "RandomHpf.h"
#include "RandomTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/NetworkTiming.h"
#include "passes/NetworkGeneralPlanner.h"

#include "RandomNetwork.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <random>

using namespace mapc;

namespace {

/// How often each route order won, so the random test can show that the
/// orders other than the plain one are exercised.
unsigned ordersSeen[8];

/// Plans `src -> dst` on `shape`, runs it, and checks every element, the
/// prediction and the bound. Returns the plan's ticks.
int64_t runAndCheck(const rt::TileMap &src, const rt::TileMap &dst,
                    const rt::NetworkShape &shape, unsigned elemBytes,
                    bool copy, const std::string &what) {
  NetworkGeneralPlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = elemBytes;
  req.copy = copy;
  req.shape = shape;
  auto planned = planNetworkGeneralRemap(req);
  if (!std::holds_alternative<rt::GeneralPlan>(planned)) {
    ADD_FAILURE() << what << ": " << std::get<std::string>(planned);
    return -1;
  }
  const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
  if (!plan.steps.empty())
    ++ordersSeen[plan.steps[0].routeOrder & 7];
  const uint64_t region =
      uint64_t(std::max(rt::slotsOf(src), rt::slotsOf(dst))) * elemBytes;
  rt::NetworkMachine m(shape, 2 * region);
  rt::Regions regions{{copy ? 0 : region}, {region}, {0}};
  auto memoryOf = [&](unsigned node) { return m.memory(node); };
  auto readOf = [&](unsigned node) -> const uint8_t * {
    return m.memory(node);
  };
  rt::storePattern(memoryOf, src, elemBytes, regions.src.base, 11);
  std::string why;
  if (!rt::executeGeneralPlan(m, plan, regions, {}, &why)) {
    ADD_FAILURE() << what << ": " << why;
    return -1;
  }
  EXPECT_EQ(rt::countMismatches(readOf, dst, elemBytes, regions.dst.base, 11),
            0u)
      << what;
  EXPECT_EQ(m.ledger().cycles, plan.predictedTicks) << what;
  EXPECT_LE(plan.lowerBound, m.ledger().cycles) << what;
  return m.ledger().cycles;
}

std::vector<int64_t> randomShape(std::mt19937 &rng) {
  std::vector<int64_t> shape(std::uniform_int_distribution<int>(1, 3)(rng));
  for (int64_t &s : shape)
    s = std::uniform_int_distribution<int>(1, 9)(rng);
  return shape;
}

constexpr test::NetworkDraw kGeneralNetworks = {4, 0, 4, 7};

/// Whether both layouts' PEs are nodes of `net`.
bool fitsNodes(const rt::TileMap &a, const rt::TileMap &b,
               const rt::NetworkShape &net) {
  return uint64_t(rt::pesOf(a)) <= net.nodeCount() &&
         uint64_t(rt::pesOf(b)) <= net.nodeCount();
}

/// A 1-d layout of `n` elements, `perNode` per node, in order or reversed.
rt::TileMap line(int64_t n, int64_t perNode, bool reversed) {
  KTile t;
  t.kdims = {KDim::plain(perNode), KDim::plain(n / perNode)};
  if (reversed)
    t.kdims[1].sense = Sense::Minus;
  t.groups = {2};
  t.data = {SpaceDim::plain(n)};
  t.m = {{0}, {1}};
  t.device = {SpaceDim::plain(perNode), SpaceDim::plain(n / perNode)};
  EXPECT_TRUE(t.verify().empty());
  return t;
}

/// The moves' transfers on rt::routeLinks' paths in `order` (a hop a
/// link), ranked by path length when farthest first: what timeRoute walks,
/// for timeCycleByCycle.
std::vector<rt::Transfer> transfersOf(const rt::NetworkShape &net,
                                      const std::vector<rt::RouteMove> &moves,
                                      unsigned order) {
  const unsigned perNode = rt::linksPerNode(net);
  std::vector<rt::Transfer> ts;
  for (const rt::RouteMove &m : moves) {
    rt::Transfer t;
    t.node = m.from;
    t.destNode = m.to;
    const std::vector<size_t> links = rt::routeLinks(net, m.from, m.to, order);
    for (size_t link : links) {
      const uint32_t node = uint32_t(link / perNode), slot = link % perNode;
      rt::Hop h;
      h.dim = uint8_t(net.cube ? slot : slot / 2);
      h.dir = int8_t(net.cube   ? ((node >> slot) & 1 ? -1 : 1)
                     : slot % 2 ? -1
                                : 1);
      h.priority = order & rt::kRouteFarthestFirst
                       ? uint32_t(net.diameter() - links.size())
                       : 0;
      t.path.push_back(h);
    }
    ts.push_back(t);
  }
  return ts;
}

/// `count` moves to random nodes below `targets`, each from another node.
std::vector<rt::RouteMove> randomMoves(std::mt19937 &rng, uint32_t nodes,
                                       size_t count, uint32_t targets) {
  std::vector<rt::RouteMove> moves(count);
  for (rt::RouteMove &m : moves) {
    m.to = uint32_t(rng() % targets);
    m.from = uint32_t((m.to + 1 + rng() % (nodes - 1)) % nodes);
  }
  return moves;
}

/// The plain walk of `moves` in `order`: the moves in key order, each
/// link's taken cycles in a vector<bool>; after[k] is the time of the
/// first k + 1 moves.
std::vector<int64_t> plainWalk(const rt::NetworkShape &net,
                               const std::vector<rt::RouteMove> &moves,
                               unsigned order) {
  const size_t count = moves.size();
  std::vector<size_t> keys(count);
  std::iota(keys.begin(), keys.end(), size_t(0));
  std::vector<std::vector<size_t>> paths(count);
  for (size_t i = 0; i < count; ++i)
    paths[i] = rt::routeLinks(net, moves[i].from, moves[i].to, order);
  if (order & rt::kRouteFarthestFirst)
    std::stable_sort(keys.begin(), keys.end(), [&](size_t a, size_t b) {
      return paths[a].size() > paths[b].size();
    });
  std::vector<std::vector<bool>> taken(size_t(net.nodeCount()) *
                                       rt::linksPerNode(net));
  std::vector<int64_t> after(count);
  int64_t end = 0;
  for (size_t k = 0; k < count; ++k) {
    uint32_t cycle = 0;
    for (size_t link : paths[keys[k]]) {
      std::vector<bool> &t = taken[link];
      ++cycle;
      while (cycle < t.size() && t[cycle])
        ++cycle;
      if (cycle >= t.size())
        t.resize(cycle + 1, false);
      t[cycle] = true;
    }
    after[k] = end = std::max<int64_t>(end, cycle);
  }
  return after;
}

/// rt::RouteWalk resumed at random stops (1 to `spread` cycles apart)
/// stops after the move the plain walk (`after`) stops after, with its
/// time, and ends with its time; counts the stops before the end.
testing::AssertionResult
stopsAsPlainWalk(const rt::NetworkShape &net,
                 const std::vector<rt::RouteMove> &moves, unsigned order,
                 const std::vector<int64_t> &after, std::mt19937 &rng,
                 unsigned spread, unsigned &stopped,
                 const std::vector<uint32_t> *farthestFirst = nullptr) {
  const size_t count = moves.size();
  const int64_t end = after.empty() ? 0 : after.back();
  rt::RouteWalk walk(net, moves, order, farthestFirst);
  for (int64_t stop = 1 + int64_t(rng() % 8); !walk.finished();
       stop += 1 + int64_t(rng() % spread)) {
    const int64_t t = walk.advance(stop);
    // The plain walk stops after the first move that takes it to `stop` or
    // past it.
    const size_t k = size_t(std::lower_bound(after.begin(), after.end(), stop) -
                            after.begin());
    if (walk.walked() != std::min(k + 1, count) ||
        t != (k < count ? after[k] : end))
      return testing::AssertionFailure()
             << "stop " << stop << ": walked " << walk.walked() << " in " << t
             << ", the plain walk " << std::min(k + 1, count) << " in "
             << (k < count ? after[k] : end);
    stopped += !walk.finished();
  }
  if (walk.timeSoFar() != end)
    return testing::AssertionFailure()
           << "ends in " << walk.timeSoFar() << ", the plain walk in " << end;
  return testing::AssertionSuccess();
}

/// The walk tests' random move list on `net` (2 nodes or more): up to
/// 800 moves, fewer than its node pairs, and for every fourth `run` all
/// to a few nodes, never more than the nodes (2 on a line of 2).
std::vector<rt::RouteMove>
walkMoves(std::mt19937 &rng, const rt::NetworkShape &net, unsigned run) {
  const uint32_t nodes = net.nodeCount();
  const size_t count = rng() % std::min<size_t>(size_t(nodes) * nodes, 800);
  const uint32_t targets =
      run % 4 == 0 ? std::min(nodes, 1 + uint32_t(rng() % 3)) : nodes;
  return randomMoves(rng, nodes, count, targets);
}

/// Draw `run` of the runs tests: three in four an HPF redistribution of
/// 1-3 dims, each layout on a PE grid of its own (sizes that do and do not
/// divide; every third draw long enough that a layout's runs pass the
/// listing limit, countingListLimit, and are taken period by period), else
/// a random k-Tile pair. `resized` says whether the grids differ.
std::pair<rt::TileMap, rt::TileMap> runsPair(std::mt19937 &rng, unsigned run,
                                             bool &resized) {
  resized = false;
  if (run % 4 == 0) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    rt::TileMap a = test::randomTileFor(rng, shape, spec);
    return {std::move(a), test::randomTileFor(rng, shape, spec)};
  }
  const size_t dims = 1 + rng() % 3;
  std::vector<int64_t> shape, pa, pb;
  const bool longer = run % 3 == 0 && dims < 3;
  for (size_t d = 0; d < dims; ++d) {
    pa.push_back(1 + int64_t(rng() % (dims == 1 ? 9 : 5)));
    pb.push_back(rng() % 3 ? pa.back() : 1 + int64_t(rng() % 5));
    shape.push_back(std::max(pa.back(), pb.back()) +
                    int64_t(rng() % (longer      ? (dims == 1 ? 20000 : 300)
                                     : dims == 3 ? 12
                                                 : 40)));
  }
  resized = pa != pb;
  rt::TileMap a = test::randomBlockCyclic(rng, shape, pa);
  return {std::move(a), test::randomBlockCyclic(rng, shape, pb)};
}

} // namespace

// Mixed-radix coordinates: node = x0 + 3 * x1 on a 3 x 5 mesh, and the bit
// fields of a power-of-two mesh are unchanged.
TEST(NetworkGeneral, MixedRadixCoordinates) {
  rt::NetworkShape mesh = rt::NetworkShape::mesh({3, 5});
  EXPECT_TRUE(mesh.valid());
  EXPECT_FALSE(mesh.powerOfTwo());
  EXPECT_EQ(mesh.nodeCount(), 15u);
  EXPECT_EQ(mesh.diameter(), 6u);
  for (uint32_t n = 0; n < 15; ++n) {
    EXPECT_EQ(mesh.coord(n, 0), n % 3);
    EXPECT_EQ(mesh.coord(n, 1), n / 3);
    EXPECT_EQ(mesh.withCoord(n, 1, 4), n % 3 + 12);
    EXPECT_EQ(mesh.withCoord(n, 0, 2), n - n % 3 + 2);
  }
  EXPECT_EQ(mesh.distance(0, 14), 6u);
  rt::NetworkShape pow2 = rt::NetworkShape::mesh({4, 8});
  EXPECT_TRUE(pow2.powerOfTwo());
  for (uint32_t n = 0; n < 32; ++n) {
    EXPECT_EQ(pow2.coord(n, 1), n >> 2);
    EXPECT_EQ(pow2.withCoord(n, 1, 5), (n & 3) | (5u << 2));
  }
}

// Reversing 3 nodes of one element on a line: the ends trade places over
// two links each, in 2 cycles, which is the bound (the distance).
TEST(NetworkGeneral, ReversedLine) {
  rt::TileMap a = line(3, 1, false), b = line(3, 1, true);
  rt::NetworkShape shape = rt::NetworkShape::mesh({3});
  EXPECT_EQ(runAndCheck(a, b, shape, 4, false, "reverse"), 2);
  NetworkGeneralPlanRequest req{a, b, 4, false, shape};
  auto plan = std::get<rt::GeneralPlan>(planNetworkGeneralRemap(req));
  EXPECT_EQ(plan.lowerBound, 2);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].kind, rt::GeneralStepKind::Route);
  EXPECT_TRUE(plan.steps[0].inPlace);
  // A remap that moves nothing in place has no steps; a copy has one.
  req.dst = a;
  EXPECT_TRUE(
      std::get<rt::GeneralPlan>(planNetworkGeneralRemap(req)).steps.empty());
  req.copy = true;
  EXPECT_EQ(runAndCheck(a, a, shape, 4, true, "copy"), 0);
}

// The MasPar refuses a Route step and the network refuses MasPar methods.
TEST(NetworkGeneral, MachinesRefuseForeignSteps) {
  rt::TileMap a = line(6, 2, false), b = line(6, 2, true);
  rt::GeneralPlan plan;
  plan.source = a;
  plan.dest = b;
  plan.elemBytes = 1;
  rt::GeneralStep s;
  s.kind = rt::GeneralStepKind::Route;
  s.to = b;
  s.inPlace = true;
  plan.steps = {s};
  rt::MasPar maspar(3, 1, 16, 1);
  rt::Regions regions{{0}, {0}, {8}};
  std::string why;
  EXPECT_FALSE(rt::executeGeneralPlan(maspar, plan, regions, {}, &why));
  EXPECT_NE(why.find("hypercube or mesh"), std::string::npos) << why;
  plan.steps[0].kind = rt::GeneralStepKind::Exchange;
  rt::NetworkMachine net(rt::NetworkShape::mesh({3}), 16);
  EXPECT_FALSE(rt::executeGeneralPlan(net, plan, regions, {}, &why));
  EXPECT_NE(why.find("maspar"), std::string::npos) << why;
}

// At least 1,000 random general remaps on random meshes of any sides and
// on hypercubes, each checked element by element.
TEST(NetworkGeneral, RandomTilesOnAnyMesh) {
  std::mt19937 rng(20261125);
  unsigned runs = 0, cubes = 0, odd = 0, moved = 0;
  std::fill(std::begin(ordersSeen), std::end(ordersSeen), 0u);
  while (runs < 2000) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    KTile a = test::randomTileFor(rng, shape, spec);
    KTile b = test::randomTileFor(rng, shape, spec);
    ASSERT_TRUE(a.verify().empty());
    ASSERT_TRUE(b.verify().empty());
    rt::NetworkShape net = test::randomNetwork(rng, kGeneralNetworks);
    if (!fitsNodes(a, b, net))
      continue; // the layouts must fit the machine's nodes
    unsigned elemBytes = 1u
                         << std::uniform_int_distribution<unsigned>(0, 3)(rng);
    bool copy = rng() % 2;
    int64_t t =
        runAndCheck(a, b, net, elemBytes, copy, "run " + std::to_string(runs));
    if (HasFailure())
      return;
    cubes += net.cube;
    odd += !net.powerOfTwo();
    moved += t > 0;
    ++runs;
  }
  // The sample covers what it claims to.
  EXPECT_GT(cubes, 200u);
  EXPECT_GT(odd, 500u);
  EXPECT_GT(moved, 500u);
  for (unsigned order :
       {0u, rt::kRouteDimsDown, rt::kRouteFarthestFirst, rt::kRouteRotated})
    EXPECT_GT(ordersSeen[order], 10u) << "route order " << order;
}

// The planner times every route order by timeRoute on the moves, without
// a transfer list; the executor runs generalRouteTransfers' transfers on
// NetworkMachine::run. On 1,000 random pairs of k-Tile formats on random
// meshes and cubes, every order: timeRoute equals the machine and the
// cycle-by-cycle reference simulation.
TEST(NetworkGeneral, TimeRouteEqualsTheSimulation) {
  std::mt19937 rng(20261126);
  unsigned runs = 0, moving = 0;
  while (runs < 1000) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    KTile a = test::randomTileFor(rng, shape, spec);
    KTile b = test::randomTileFor(rng, shape, spec);
    rt::NetworkShape net = test::randomNetwork(rng, kGeneralNetworks);
    if (!fitsNodes(a, b, net))
      continue;
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, a, b, sources);
    const uint64_t bytes = uint64_t(std::max(rt::slotsOf(a), rt::slotsOf(b)));
    for (unsigned order = 0; order < 8; ++order) {
      std::vector<rt::Transfer> ts =
          rt::generalRouteTransfers(net, a, b, sources, 1, 0, 0, order);
      rt::NetworkMachine m(net, bytes);
      const int64_t ran = m.run(ts, 1);
      uint64_t hops = 0, load = 0;
      ASSERT_EQ(rt::timeRoute(net, moves, order), ran)
          << "run " << runs << " order " << order;
      ASSERT_EQ(rt::timeCycleByCycle(net, ts, hops, load), ran)
          << "run " << runs << " order " << order;
    }
    moving += !moves.empty();
    ++runs;
  }
  EXPECT_GT(moving, 500u);
}

// timeRoute on few nodes for the moves, where each walk lists every node
// pair's links once and a move reads them, against the cycle-by-cycle
// simulation of the same moves' paths (rt::routeLinks as hops, ranked by
// length when farthest first): 400 random move lists on lines, meshes of
// two dims and cubes of up to 64 nodes, most with at least nodes^2 moves
// (the listed pairs), the rest fewer (links found move by move), in every
// order.
TEST(NetworkGeneral, WalksOnListedPairsEqualTheSimulation) {
  std::mt19937 rng(20261128);
  unsigned listed = 0;
  for (unsigned run = 0; run < 400; ++run) {
    rt::NetworkShape net =
        run % 3 == 0   ? rt::NetworkShape::booleanCube(1 + unsigned(rng() % 6))
        : run % 3 == 1 ? rt::NetworkShape::mesh({2 + unsigned(rng() % 20)})
                       : rt::NetworkShape::mesh({1 + unsigned(rng() % 8),
                                                 1 + unsigned(rng() % 8)});
    const uint32_t nodes = net.nodeCount();
    if (nodes < 2)
      continue;
    const size_t pairs = size_t(nodes) * nodes;
    const size_t count =
        run % 5 == 4 ? rng() % pairs : pairs + rng() % (2 * pairs + 200);
    listed += count >= pairs;
    std::vector<rt::RouteMove> moves(count);
    for (rt::RouteMove &m : moves) {
      m.from = uint32_t(rng() % nodes);
      m.to = uint32_t((m.from + 1 + rng() % (nodes - 1)) % nodes);
    }
    for (unsigned order = 0; order < 8; ++order) {
      uint64_t hops = 0, load = 0;
      ASSERT_EQ(
          rt::timeRoute(net, moves, order),
          rt::timeCycleByCycle(net, transfersOf(net, moves, order), hops, load))
          << "run " << run << " order " << order << " moves " << count;
    }
  }
  EXPECT_GT(listed, 250u);
}

// rt::RouteWalk on more nodes than the moves' pairs (each move's links
// found as it is walked, the moves a few keys on asked for ahead, the
// calendar's takes without its list of links) against a plain walk in the
// test: the moves in key order, each link's taken cycles in a
// vector<bool>, each move's time the max so far. Resumed at random stops,
// the walk stops after the same move with the same time; walked to the end
// it takes what timeCycleByCycle takes on the same paths (every fourth list
// simulated). 2,000 random move lists on meshes of 1-3 dims of up to 12
// nodes a side and cubes of 3-8 dims, every order, a quarter with every
// move to one of a few nodes (queues hundreds of cycles deep).
TEST(NetworkGeneral, WalksStopWhereAPlainWalkStops) {
  std::mt19937 rng(202611281);
  const test::NetworkDraw draw = {3, 3, 8, 12};
  unsigned runs = 0, stopped = 0;
  while (runs < 2000) {
    const rt::NetworkShape net = test::randomNetwork(rng, draw);
    if (net.nodeCount() < 2)
      continue;
    const std::vector<rt::RouteMove> moves = walkMoves(rng, net, runs);
    for (unsigned order = 0; order < 8; ++order) {
      const std::vector<int64_t> after = plainWalk(net, moves, order);
      const int64_t end = after.empty() ? 0 : after.back();
      // The plain walk is the simulation's (every fourth list checked).
      uint64_t hops = 0, load = 0;
      if (runs % 4 == 0) {
        ASSERT_EQ(end, rt::timeCycleByCycle(net, transfersOf(net, moves, order),
                                            hops, load))
            << "run " << runs << " order " << order;
      }
      ASSERT_TRUE(stopsAsPlainWalk(net, moves, order, after, rng,
                                   runs % 2 ? 8 : 80, stopped))
          << "run " << runs << " order " << order;
    }
    ++runs;
  }
  EXPECT_GT(stopped, 5000u);
}

// rt::RouteWalk on meshes walks a move and the next key's move on the same
// path together (LinkCalendar::takeTwoAfter), giving the second's hops
// back when the walk stops after the first: against the plain walk,
// resumed at stops 1-4 cycles apart (many right after the first of a
// pair), on 1,000 random lists of flows of 1-3 consecutive moves on meshes
// of 1-3 dims up to 12 a side (more pairs than listed pairs take), a
// quarter all to one of a few nodes, every order; every fourth list's
// walk to its end against timeCycleByCycle.
TEST(NetworkGeneral, PairedWalksStopWhereAPlainWalkStops) {
  std::mt19937 rng(202611283);
  const test::NetworkDraw draw = {3, 3, 8, 12};
  unsigned runs = 0, stopped = 0, afterFirst = 0;
  while (runs < 1000) {
    const rt::NetworkShape net = test::randomNetwork(rng, draw);
    const uint32_t nodes = net.nodeCount();
    if (net.cube || nodes < 2)
      continue;
    const size_t most = std::min<size_t>(size_t(nodes) * nodes, 800);
    const uint32_t targets =
        runs % 4 == 0 ? std::min(nodes, 1 + uint32_t(rng() % 3)) : nodes;
    std::vector<rt::RouteMove> moves;
    for (const rt::RouteMove &m :
         randomMoves(rng, nodes, rng() % (most / 2 + 1), targets))
      for (unsigned copies = 1 + rng() % 3;
           copies > 0 && moves.size() + 1 < most; --copies)
        moves.push_back(m);
    for (unsigned order = 0; order < 8; ++order) {
      const std::vector<int64_t> after = plainWalk(net, moves, order);
      uint64_t hops = 0, load = 0;
      if (runs % 4 == 0) {
        ASSERT_EQ(after.empty() ? 0 : after.back(),
                  rt::timeCycleByCycle(net, transfersOf(net, moves, order),
                                       hops, load))
            << "run " << runs << " order " << order;
      }
      ASSERT_TRUE(stopsAsPlainWalk(net, moves, order, after, rng, 4, stopped))
          << "run " << runs << " order " << order;
      // Stops right after the first of a pair (index keys only here).
      if (!(order & rt::kRouteFarthestFirst)) {
        rt::RouteWalk walk(net, moves, order);
        for (int64_t stop = 1; !walk.finished(); ++stop) {
          walk.advance(stop);
          const size_t k = walk.walked();
          afterFirst += k > 0 && k < moves.size() &&
                        moves[k].from == moves[k - 1].from &&
                        moves[k].to == moves[k - 1].to;
        }
      }
    }
    ++runs;
  }
  EXPECT_GT(stopped, 5000u);
  EXPECT_GT(afterFirst, 1000u);
}

// rt::RouteWalk on cubes (takes by LinkCalendar::takeNear: the arrival's
// word first) against the plain walk, resumed at random stops: 600
// random move lists on cubes of 2-10 dims, up to 2,000 moves on more nodes
// than listed pairs, a quarter all to one of a few nodes (queues hundreds
// of cycles deep, most takes past the arrival's word), every order.
TEST(NetworkGeneral, CubeWalksStopWhereAPlainWalkStops) {
  std::mt19937 rng(202611282);
  unsigned stopped = 0;
  for (unsigned run = 0; run < 600; ++run) {
    const rt::NetworkShape net =
        rt::NetworkShape::booleanCube(2 + unsigned(rng() % 9));
    const uint32_t nodes = net.nodeCount();
    // Fewer moves than pairs on up to 64 nodes (more are listed pairs).
    const size_t most = nodes <= 64 ? size_t(nodes) * nodes : 2000;
    const size_t count = rng() % most;
    const uint32_t targets = run % 4 == 0 ? 1 + uint32_t(rng() % 3) : nodes;
    const std::vector<rt::RouteMove> moves =
        randomMoves(rng, nodes, count, targets);
    for (unsigned order = 0; order < 8; ++order) {
      const std::vector<int64_t> after = plainWalk(net, moves, order);
      ASSERT_TRUE(stopsAsPlainWalk(net, moves, order, after, rng, 40, stopped))
          << "run " << run << " dims " << net.dims.size() << " order " << order;
      ASSERT_EQ(rt::timeRoute(net, moves, order),
                after.empty() ? 0 : after.back())
          << "run " << run << " order " << order;
    }
  }
  EXPECT_GT(stopped, 10000u);
}

// The planner lists farthest first's keys once (rt::routeFarthestFirstKeys)
// and its walks share them: the list is the plain walk's stable sort by
// path length in every order, and walks given it stop where the plain walk
// stops, resumed at random stops. 600 random move lists on meshes of
// 1-3 dims up to 12 a side and cubes of 3-8 dims, a quarter all to a few
// nodes, the four farthest-first orders on one list.
TEST(NetworkGeneral, SharedFarthestFirstKeysStopWhereAPlainWalkStops) {
  std::mt19937 rng(202612011);
  const test::NetworkDraw draw = {3, 3, 8, 12};
  unsigned runs = 0, stopped = 0;
  while (runs < 600) {
    const rt::NetworkShape net = test::randomNetwork(rng, draw);
    if (net.nodeCount() < 2)
      continue;
    const std::vector<rt::RouteMove> moves = walkMoves(rng, net, runs);
    const size_t count = moves.size();
    const std::vector<uint32_t> keys = rt::routeFarthestFirstKeys(net, moves);
    for (unsigned order = rt::kRouteFarthestFirst; order < 8; ++order) {
      if (!(order & rt::kRouteFarthestFirst))
        continue;
      std::vector<size_t> length(count);
      for (size_t i = 0; i < count; ++i)
        length[i] =
            rt::routeLinks(net, moves[i].from, moves[i].to, order).size();
      std::vector<uint32_t> sorted(count);
      std::iota(sorted.begin(), sorted.end(), uint32_t(0));
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [&](uint32_t a, uint32_t b) { return length[a] > length[b]; });
      ASSERT_EQ(keys, sorted) << "run " << runs << " order " << order;
      const std::vector<int64_t> after = plainWalk(net, moves, order);
      ASSERT_TRUE(stopsAsPlainWalk(net, moves, order, after, rng,
                                   runs % 2 ? 8 : 80, stopped, &keys))
          << "run " << runs << " order " << order;
    }
    ++runs;
  }
  EXPECT_GT(stopped, 1500u);
}

// The walks' links without paths (rt::routeLinks, what timeRoute and
// routeOrderBound walk) are generalRouteTransfers' paths, link by link, for
// every element of random k-Tile pairs in every route order, on meshes of
// any sides and on cubes; and routeFlows counts what a map of (source,
// destination) pairs counts, in the same order.
TEST(NetworkGeneral, RouteLinksAreTheTransfersPaths) {
  std::mt19937 rng(20261126 + 11);
  unsigned runs = 0, elements = 0;
  while (runs < 1000) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    KTile a = test::randomTileFor(rng, shape, spec);
    KTile b = test::randomTileFor(rng, shape, spec);
    // Cubes of up to 10 dims (rotations start anywhere), meshes of 1-4.
    rt::NetworkShape net = test::randomNetwork(rng, kGeneralNetworks);
    if (runs % 3 == 0)
      net = rt::NetworkShape::booleanCube(unsigned(rng() % 11));
    else if (runs % 3 == 1) {
      std::vector<unsigned> dims(1 + rng() % 4);
      for (unsigned &d : dims)
        d = 1 + unsigned(rng() % 9);
      net = rt::NetworkShape::mesh(dims);
    }
    if (!fitsNodes(a, b, net))
      continue;
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const std::vector<int32_t> strides = rt::nodeStrides(net);
    const unsigned perNode = rt::linksPerNode(net);
    for (unsigned order = 0; order < 8; ++order)
      for (const rt::Transfer &t :
           rt::generalRouteTransfers(net, a, b, sources, 1, 0, 0, order)) {
        std::vector<size_t> expected;
        uint32_t node = t.node;
        for (const rt::Hop &h : t.path)
          for (uint32_t s = 0; s < h.count; ++s) {
            expected.push_back(size_t(node) * perNode + rt::linkSlot(net, h));
            node = net.cube ? node ^ (uint32_t(1) << h.dim)
                            : uint32_t(int64_t(node) + h.dir * strides[h.dim]);
          }
        ASSERT_EQ(node, t.destNode);
        ASSERT_EQ(rt::routeLinks(net, t.node, t.destNode, order), expected)
            << "run " << runs << " order " << order << ": " << t.node << " -> "
            << t.destNode;
        elements += !expected.empty();
      }
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, a, b, sources);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> counted;
    for (const rt::RouteMove &m : moves)
      ++counted[{m.from, m.to}];
    std::vector<rt::RouteFlow> expected;
    for (const auto &[pair, count] : counted)
      expected.push_back({pair.first, pair.second, count});
    const std::vector<rt::RouteFlow> flows = rt::routeFlows(net, moves);
    ASSERT_EQ(flows.size(), expected.size()) << "run " << runs;
    for (size_t k = 0; k < flows.size(); ++k)
      ASSERT_TRUE(flows[k].from == expected[k].from &&
                  flows[k].to == expected[k].to &&
                  flows[k].count == expected[k].count)
          << "run " << runs << " flow " << k;
    ++runs;
  }
  EXPECT_GT(elements, 100000u);
}

// generalRouteMoves walks the destination node by node and finds a source
// cell's node by a multiply: on 1,000 random k-Tile pairs (replicated ones
// among them), its moves are generalRouteTransfers' transfers that change
// node, in order, and there are none exactly when analyseMove finds the
// move local; generalRouteFlows, which keeps no move, counts their
// routeFlows.
TEST(NetworkGeneral, MovesAreTheTransfersThatChangeNode) {
  std::mt19937 rng(20261126 + 13);
  unsigned runs = 0, replicated = 0, identities = 0, locals = 0;
  size_t moved = 0;
  while (runs < 1000) {
    std::vector<int64_t> shape = randomShape(rng);
    test::RandomTileSpec spec;
    KTile a = test::randomTileFor(rng, shape, spec);
    KTile b = test::randomTileFor(rng, shape, spec);
    rt::NetworkShape net = test::randomNetwork(rng, kGeneralNetworks);
    if (!fitsNodes(a, b, net))
      continue;
    const rt::TileMap x = a, y = b;
    const std::vector<uint32_t> sources = rt::sourcesOf(x, y);
    std::vector<rt::RouteMove> expected;
    for (const rt::Transfer &t :
         rt::generalRouteTransfers(net, x, y, sources, 1, 0, 0))
      if (t.node != t.destNode)
        expected.push_back({t.node, t.destNode});
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, x, y, sources);
    ASSERT_EQ(moves.size(), expected.size()) << "run " << runs;
    for (size_t k = 0; k < moves.size(); ++k)
      ASSERT_TRUE(moves[k].from == expected[k].from &&
                  moves[k].to == expected[k].to)
          << "run " << runs << " move " << k;
    // The planner's flows, counted as the moves come without them kept.
    const std::vector<rt::RouteFlow> flows = rt::routeFlows(net, moves),
                                     counted = rt::generalRouteFlows(net, x, y,
                                                                     sources);
    ASSERT_EQ(counted.size(), flows.size()) << "run " << runs;
    for (size_t f = 0; f < flows.size(); ++f)
      ASSERT_TRUE(counted[f].from == flows[f].from &&
                  counted[f].to == flows[f].to &&
                  counted[f].count == flows[f].count)
          << "run " << runs << " flow " << f;
    // The planner reads "no element changes node" off the moves, and
    // plans no step exactly when analyseMove finds the identity.
    const rt::MoveShape moveShape = rt::analyseMove(x, y, sources);
    ASSERT_EQ(moves.empty(), moveShape.local) << "run " << runs;
    auto planned =
        planNetworkGeneralRemap(NetworkGeneralPlanRequest{x, y, 4, false, net});
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    ASSERT_EQ(plan.steps.empty(), moveShape.identity) << "run " << runs;
    if (!plan.steps.empty()) {
      ASSERT_EQ(plan.steps[0].why.rfind("no element changes node", 0) == 0,
                moveShape.local)
          << "run " << runs;
    }
    identities += moveShape.identity;
    locals += moveShape.local;
    replicated += x.replicates();
    moved += moves.size();
    ++runs;
  }
  EXPECT_GT(replicated, 50u);
  EXPECT_GT(moved, 15000u);
  EXPECT_GT(identities, 10u);
  EXPECT_GT(locals, identities + 10);
}

// The planner reads the moves of HPF-like layouts off their runs and
// periods (generalRouteMovesByRuns); they are the moves from the table of
// sources, move for move and in order, on 3,000 random HPF
// redistributions (1-3 dims, each PE grid of its own, sizes that do and
// do not divide, every third of one or two dims long enough to be taken
// period by period) and random k-Tile pairs, whenever the runs answer.
TEST(NetworkGeneral, MovesByRunsAreTheMovesFromSources) {
  std::mt19937 rng(20261128 + 3);
  unsigned answered = 0, multiDim = 0, resized = 0;
  size_t moved = 0;
  for (unsigned run = 0; run < 3000; ++run) {
    bool resizedDraw = false;
    const auto [a, b] = runsPair(rng, run, resizedDraw);
    resized += resizedDraw;
    const std::optional<std::vector<rt::RouteMove>> byRuns =
        rt::generalRouteMovesByRuns(a, b);
    if (!byRuns)
      continue;
    const rt::NetworkShape net = rt::NetworkShape::mesh(
        {unsigned(std::max(rt::pesOf(a), rt::pesOf(b)))});
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, a, b, rt::sourcesOf(a, b));
    ASSERT_EQ(byRuns->size(), moves.size()) << "run " << run;
    for (size_t k = 0; k < moves.size(); ++k)
      ASSERT_TRUE((*byRuns)[k].from == moves[k].from &&
                  (*byRuns)[k].to == moves[k].to)
          << "run " << run << " move " << k;
    ++answered;
    multiDim += a.data.size() > 1;
    moved += moves.size();
  }
  EXPECT_GT(answered, 1300u);
  EXPECT_GT(multiDim, 600u);
  EXPECT_GT(resized, 300u);
  EXPECT_GT(moved, 200000u);
}

// --emit=plan's moved and held cells of a step whose families are too
// small for the counts (rt::moveFiguresByRuns, read off the runs as the
// route's moves are) are analyseMove's off the table of sources: 3,000
// random HPF redistributions of 1-3 dims (some long enough to be taken
// period by period) and k-Tile pairs.
TEST(NetworkGeneral, MoveFiguresByRunsAreTheFiguresFromSources) {
  std::mt19937 rng(202612012);
  unsigned answered = 0, multiDim = 0, slotsOnly = 0;
  for (unsigned run = 0; run < 3000; ++run) {
    bool resizedDraw = false;
    const auto [a, b] = runsPair(rng, run, resizedDraw);
    const std::optional<std::pair<int64_t, int64_t>> byRuns =
        rt::moveFiguresByRuns(a, b);
    if (!byRuns)
      continue;
    const rt::MoveShape m = rt::analyseMove(a, b, rt::sourcesOf(a, b));
    ASSERT_EQ(byRuns->first, m.moved) << "run " << run;
    ASSERT_EQ(byRuns->second, m.held) << "run " << run;
    ++answered;
    multiDim += a.data.size() > 1;
    // Moved cells that keep their PE: the slots count too.
    slotsOnly += m.local && m.moved > 0;
  }
  EXPECT_GT(answered, 1300u);
  EXPECT_GT(multiDim, 600u);
  EXPECT_GT(slotsOnly, 15u);
}

// Without replication the planner's lower bound counts flows
// (networkGeneralLowerBound over routeFlows); it is the bound counted
// element by element, on 2,000 random k-Tile pairs and HPF
// redistributions on random meshes and cubes.
TEST(NetworkGeneral, FlowBoundEqualsTheElementBound) {
  std::mt19937 rng(20261126 + 17);
  unsigned runs = 0, hpf = 0, moving = 0;
  while (runs < 2000) {
    rt::TileMap a, b;
    if (runs % 2) {
      std::vector<int64_t> procs = {1 + int64_t(rng() % 7)};
      if (rng() % 2)
        procs.push_back(1 + int64_t(rng() % 5));
      std::vector<int64_t> shape;
      for (int64_t p : procs)
        shape.push_back(p + int64_t(rng() % (60 / procs.size())));
      a = test::randomBlockCyclic(rng, shape, procs);
      b = test::randomBlockCyclic(rng, shape, procs);
    } else {
      std::vector<int64_t> shape = randomShape(rng);
      test::RandomTileSpec spec;
      a = test::randomTileFor(rng, shape, spec);
      b = test::randomTileFor(rng, shape, spec);
    }
    if (a.replicates() || b.replicates())
      continue;
    rt::NetworkShape net = test::randomNetwork(rng, kGeneralNetworks);
    if (rng() % 4 == 0)
      net = rt::NetworkShape::booleanCube(unsigned(rng() % 8));
    if (!fitsNodes(a, b, net))
      continue;
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const std::vector<rt::RouteFlow> flows =
        rt::routeFlows(net, rt::generalRouteMoves(net, a, b, sources));
    ASSERT_EQ(rt::networkGeneralLowerBound(net, flows),
              rt::networkGeneralLowerBound(net, a, b, &sources))
        << "run " << runs;
    hpf += runs % 2;
    moving += !flows.empty();
    ++runs;
  }
  EXPECT_EQ(hpf, 1000u);
  EXPECT_GT(moving, 1000u);
}
