//===- NetworkRouteOrderTest.cpp - bound and skip among route orders ------===//
//
// planNetworkGeneralRemap races the route orders' walks from the lowest
// rt::routeOrderBound up and drops those whose bound or time so far cannot
// beat the best in hand. These tests check that it chooses exactly what
// timing every order in full would (the fastest, the first of equals),
// with the same ticks, that every figure its `why` gives is true and
// enough to lose, and that no order's bound is above its time: random HPF
// redistributions, digit maps and k-Tile formats on random meshes of any
// sides and on cubes. A race stops and resumes walks (rt::RouteWalk):
// walked in pieces, a walk gives what one walk to the same stop gives.
//
//===----------------------------------------------------------------------===//
#include "DigitTile.h"
#include "RandomHpf.h"
#include "RandomTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/NetworkExecute.h"
#include "passes/Lowering.h"
#include "passes/NetworkGeneralPlanner.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

using namespace mapc;

namespace {

rt::NetworkShape randomNetwork(std::mt19937 &rng, int64_t pes) {
  if (rng() % 3 == 0) {
    unsigned n = 0;
    while ((int64_t(1) << n) < pes)
      ++n;
    return rt::NetworkShape::booleanCube(n + unsigned(rng() % 2));
  }
  // A mesh of one to three sides of 1 to 9, widened until it holds `pes`
  // nodes.
  std::vector<unsigned> dims(1 + rng() % 3);
  for (unsigned &d : dims)
    d = 1 + unsigned(rng() % 9);
  for (;;) {
    int64_t nodes = 1;
    for (unsigned d : dims)
      nodes *= d;
    if (nodes >= pes)
      return rt::NetworkShape::mesh(dims);
    ++dims[rng() % dims.size()];
  }
}

/// Two digit maps over the same bases: the digits shuffled and split
/// between memory and PEs (the same PE count on both sides).
std::pair<KTile, KTile> randomDigitPair(std::mt19937 &rng) {
  std::vector<int64_t> bases(2 + rng() % 3);
  for (int64_t &b : bases)
    b = 2 + int64_t(rng() % 5);
  std::vector<unsigned> digits(bases.size());
  std::iota(digits.begin(), digits.end(), 0u);
  std::shuffle(digits.begin(), digits.end(), rng);
  const size_t peDigits = 1 + rng() % (bases.size() - 1);
  std::vector<unsigned> pe(digits.begin(), digits.begin() + peDigits),
      mem(digits.begin() + peDigits, digits.end());
  // The other side: the PE digits permuted among themselves, the memory
  // digits too, or one PE digit traded with a memory digit of its base.
  std::vector<unsigned> pe2 = pe, mem2 = mem;
  std::shuffle(pe2.begin(), pe2.end(), rng);
  std::shuffle(mem2.begin(), mem2.end(), rng);
  for (unsigned &p : pe2)
    for (unsigned &m : mem2)
      if (bases[p] == bases[m] && rng() % 2)
        std::swap(p, m);
  return {test::digitTile(bases, mem, pe), test::digitTile(bases, mem2, pe2)};
}

/// Two random HPF distributions of one array over the PE grid `procs`,
/// each side p + (0 .. extra - 1) elements long.
std::pair<KTile, KTile> blockCyclicPair(std::mt19937 &rng,
                                        const std::vector<int64_t> &procs,
                                        int64_t extra) {
  std::vector<int64_t> shape;
  for (int64_t p : procs)
    shape.push_back(p + int64_t(rng() % extra));
  KTile x = test::randomBlockCyclic(rng, shape, procs);
  KTile y = test::randomBlockCyclic(rng, shape, procs);
  return {x, y};
}

/// Two random k-Tiles of one array of 1-3 dims of 1-9 elements.
std::pair<KTile, KTile> randomTilePair(std::mt19937 &rng) {
  std::vector<int64_t> shape(1 + rng() % 3);
  for (int64_t &s : shape)
    s = 1 + int64_t(rng() % 9);
  test::RandomTileSpec spec;
  KTile x = test::randomTileFor(rng, shape, spec);
  KTile y = test::randomTileFor(rng, shape, spec);
  return {x, y};
}

/// The route orders the planner considers on `net`, and their names.
std::vector<unsigned> routeOrdersOn(const rt::NetworkShape &net) {
  std::vector<unsigned> orders;
  for (unsigned order = 0; order < 8; ++order)
    if (!(order & (rt::kRouteDimsDown | rt::kRouteRotated)) ||
        net.dims.size() >= 2)
      orders.push_back(order);
  return orders;
}
std::string orderName(unsigned order) {
  return std::string(order & rt::kRouteDimsDown ? "dims down" : "dims up") +
         (order & rt::kRouteRotated ? ", rotated" : "") +
         (order & rt::kRouteFarthestFirst ? ", farthest first" : "");
}

/// Checks the `why`'s list of orders and prices after "is fastest: "
/// against every order's full time: an exact time must be the order's
/// time; "at least N" must be at most it, and enough to lose to the chosen
/// order (N >= its time, or its time + 1 for an order before it in the
/// list, which would win a tie) or, with `rounds` (the replicated rounds'
/// time, which no order beat), to them (N > rounds: the route wins ties);
/// "its bound" must be the order's bound. Every order is listed once, in
/// the list's order.
void expectTruePrices(const std::string &prices, const int64_t *times,
                      const int64_t *bounds,
                      const std::vector<unsigned> &orders, unsigned best,
                      const std::string &what, int64_t rounds = -1) {
  size_t at = 0;
  for (unsigned order : orders) {
    const std::string head = (at == 0 ? "" : ", ") + orderName(order) + " ";
    ASSERT_EQ(prices.compare(at, head.size(), head), 0)
        << what << ": " << prices << " at " << at;
    at += head.size();
    const bool atLeast = prices.compare(at, 9, "at least ") == 0;
    if (atLeast)
      at += 9;
    size_t digits = 0;
    const int64_t n = std::stoll(prices.substr(at), &digits);
    at += digits;
    const std::string ofOrder = what + ", order " + std::to_string(order);
    if (!atLeast) {
      EXPECT_EQ(n, times[order]) << ofOrder;
      continue;
    }
    EXPECT_LE(n, times[order]) << ofOrder;
    EXPECT_GE(n, rounds >= 0 ? rounds + 1 : times[best] + (order < best))
        << ofOrder;
    const std::string bound = " (its bound; not run)",
                      stopped = " (not run to the end)";
    if (prices.compare(at, bound.size(), bound) == 0) {
      EXPECT_EQ(n, bounds[order]) << ofOrder;
      at += bound.size();
    } else {
      ASSERT_EQ(prices.compare(at, stopped.size(), stopped), 0)
          << what << ": " << prices << " at " << at;
      at += stopped.size();
    }
  }
  EXPECT_EQ(at, prices.size()) << what << ": " << prices;
}

/// What timing every order in full chooses: the fastest, the first of
/// equals; every order's bound at most its time; and the `why` lists the
/// orders' prices as the reference above.
void expectSameChoice(const rt::TileMap &a, const rt::TileMap &b,
                      const rt::NetworkShape &net, const std::string &what,
                      unsigned &skipped) {
  NetworkGeneralPlanRequest req{a, b, 4, false, net};
  auto planned = planNetworkGeneralRemap(req);
  ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned))
      << what << ": " << std::get<std::string>(planned);
  const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
  if (plan.steps.empty())
    return;
  const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
  const std::vector<rt::RouteMove> moves =
      rt::generalRouteMoves(net, a, b, sources);
  const std::vector<rt::RouteFlow> flows = rt::routeFlows(net, moves);
  const std::vector<unsigned> orders = routeOrdersOn(net);
  int64_t best = -1, times[8] = {}, bounds[8] = {};
  unsigned bestOrder = 0;
  for (unsigned order : orders) {
    const int64_t t = rt::timeRoute(net, moves, order);
    times[order] = t;
    bounds[order] =
        std::max(plan.lowerBound, rt::routeOrderBound(net, flows, order));
    EXPECT_LE(bounds[order], t) << what << ", order " << order;
    if (best < 0 || t < best) {
      best = t;
      bestOrder = order;
    }
  }
  // A replicated destination filled in rounds beats the route
  // (NetworkReplicationTest); the route's prices follow "; the one route".
  // The rounds are priced first, and an order that cannot beat them is
  // dropped: the route then takes at least the least of its orders' prices.
  std::string why = plan.steps[0].why;
  int64_t rounds = -1;
  if (plan.steps[0].routeOrder & rt::kRouteDoubling) {
    rounds = plan.predictedTicks;
    EXPECT_LT(rounds, best) << what;
    const std::string beats = "beats the one route's at least ";
    const size_t at = why.find(beats);
    ASSERT_NE(at, std::string::npos) << what << ": " << why;
    const int64_t atLeast = std::stoll(why.substr(at + beats.size()));
    EXPECT_GT(atLeast, rounds) << what;
    EXPECT_LE(atLeast, best) << what;
    const std::string one = "; the one route: ";
    why = "the route; " + why.substr(why.find(one) + one.size());
    const std::string every =
        "every order takes at least " + std::to_string(atLeast) + ": ";
    ASSERT_EQ(why.compare(11, every.size(), every), 0) << what << ": " << why;
    expectTruePrices(why.substr(11 + every.size()), times, bounds, orders,
                     bestOrder, what, rounds);
  } else {
    EXPECT_EQ(plan.predictedTicks, best) << what;
    EXPECT_EQ(plan.steps[0].routeOrder, bestOrder) << what;
    why = why.substr(0, why.find("; replicating in rounds"));
  }
  EXPECT_LE(plan.lowerBound, best) << what;
  if (!moves.empty() && rounds < 0) {
    const std::string fastest = orderName(bestOrder) + " is fastest: ";
    const size_t at = why.find("; ");
    ASSERT_EQ(why.compare(at + 2, fastest.size(), fastest), 0)
        << what << ": " << why;
    expectTruePrices(why.substr(at + 2 + fastest.size()), times, bounds, orders,
                     bestOrder, what);
  }
  skipped += why.find("not run") != std::string::npos;
}

} // namespace

TEST(NetworkGeneral, SkippedOrdersChooseAsTimingAll) {
  std::mt19937 rng(1126);
  unsigned skipped = 0, hpf = 0, digits = 0, tiles = 0;
  for (unsigned run = 0; run < 1500; ++run) {
    rt::TileMap a, b;
    int64_t pes = 0;
    switch (run % 3) {
    case 0: { // an HPF redistribution of up to a few thousand elements
      std::vector<int64_t> procs = {1 + int64_t(rng() % 7)};
      if (rng() % 2)
        procs.push_back(1 + int64_t(rng() % 5));
      auto [x, y] = blockCyclicPair(rng, procs, 40 / int64_t(procs.size()));
      a = x;
      b = y;
      ++hpf;
      break;
    }
    case 1: {
      auto [x, y] = randomDigitPair(rng);
      a = x;
      b = y;
      ++digits;
      break;
    }
    default: {
      auto [x, y] = randomTilePair(rng);
      a = x;
      b = y;
      ++tiles;
      break;
    }
    }
    pes = std::max(rt::pesOf(a), rt::pesOf(b));
    rt::NetworkShape net = randomNetwork(rng, pes);
    expectSameChoice(a, b, net, "run " + std::to_string(run), skipped);
    if (HasFailure())
      return;
  }
  // The skipping is exercised, on every kind of remap.
  EXPECT_GT(skipped, 300u);
  EXPECT_EQ(hpf, 500u);
  EXPECT_EQ(digits, 500u);
  EXPECT_EQ(tiles, 500u);
}

// On two dims the planner takes rotated dims down as rotated dims up (the
// bound, and the walk's time where the walk shows it): both start in dim
// (node mod 2) and take the other dim next. On 1,000 random k-Tile pairs
// and HPF redistributions on meshes of two sides and on 2-cubes: the same
// links for every pair of nodes, the same bound, and the same time at
// every stopping time, with and without farthest first.
TEST(NetworkGeneral, RotatedTwinsOnTwoDims) {
  std::mt19937 rng(1127);
  unsigned runs = 0, moving = 0;
  while (runs < 1000) {
    rt::TileMap a, b;
    std::vector<int64_t> procs = {1 + int64_t(rng() % 7),
                                  1 + int64_t(rng() % 5)};
    std::tie(a, b) =
        runs % 2 ? blockCyclicPair(rng, procs, 20) : randomTilePair(rng);
    const rt::NetworkShape net =
        rng() % 4 == 0 ? rt::NetworkShape::booleanCube(2)
                       : rt::NetworkShape::mesh({1 + unsigned(rng() % 9),
                                                 1 + unsigned(rng() % 9)});
    if (uint64_t(std::max(rt::pesOf(a), rt::pesOf(b))) > net.nodeCount())
      continue;
    for (uint32_t x = 0; x < net.nodeCount(); ++x)
      for (uint32_t y = 0; y < net.nodeCount(); ++y)
        ASSERT_EQ(
            rt::routeLinks(net, x, y, rt::kRouteRotated),
            rt::routeLinks(net, x, y, rt::kRouteRotated | rt::kRouteDimsDown))
            << "run " << runs << ": " << x << " -> " << y;
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, a, b, sources);
    const std::vector<rt::RouteFlow> flows = rt::routeFlows(net, moves);
    const unsigned up = rt::kRouteRotated,
                   down = rt::kRouteRotated | rt::kRouteDimsDown;
    ASSERT_EQ(rt::routeOrderBound(net, flows, up),
              rt::routeOrderBound(net, flows, down))
        << "run " << runs;
    for (unsigned ff : {0u, rt::kRouteFarthestFirst}) {
      const int64_t full = rt::timeRoute(net, moves, up | ff);
      ASSERT_EQ(rt::timeRoute(net, moves, down | ff), full) << "run " << runs;
      for (int64_t stop : {int64_t(1), full / 2, full - 1, full, full + 1})
        ASSERT_EQ(rt::timeRoute(net, moves, down | ff, stop),
                  rt::timeRoute(net, moves, up | ff, stop))
            << "run " << runs << " stop " << stop;
    }
    moving += !moves.empty();
    ++runs;
  }
  EXPECT_GT(moving, 500u);
}

// rt::RouteWalk resumed at rising stops gives, at every stop, what one
// timeRoute to that stop gives (the same time so far), and walked to its
// end the route's time; on random k-Tile pairs and HPF redistributions in
// every route order on meshes and cubes.
TEST(NetworkGeneral, ResumedWalksEqualOneWalk) {
  std::mt19937 rng(1128);
  unsigned runs = 0, resumed = 0;
  while (runs < 600) {
    rt::TileMap a, b;
    if (runs % 2) {
      std::vector<int64_t> procs = {1 + int64_t(rng() % 7),
                                    1 + int64_t(rng() % 5)};
      std::tie(a, b) = blockCyclicPair(rng, procs, 30);
    } else {
      std::tie(a, b) = randomTilePair(rng);
    }
    const rt::NetworkShape net =
        randomNetwork(rng, std::max(rt::pesOf(a), rt::pesOf(b)));
    const std::vector<rt::RouteMove> moves =
        rt::generalRouteMoves(net, a, b, rt::sourcesOf(a, b));
    for (unsigned order : routeOrdersOn(net)) {
      const int64_t full = rt::timeRoute(net, moves, order);
      rt::RouteWalk walk(net, moves, order);
      for (int64_t stop = 1 + int64_t(rng() % 4); !walk.finished();
           stop += 1 + int64_t(rng() % 4)) {
        const int64_t t = walk.advance(stop);
        ASSERT_EQ(t, rt::timeRoute(net, moves, order, stop))
            << "run " << runs << " order " << order << " stop " << stop;
        ASSERT_EQ(t, walk.timeSoFar());
        ASSERT_LE(t, full);
        ASSERT_TRUE(walk.finished() || t >= stop);
        resumed += !walk.finished() && walk.walked() > 0;
      }
      ASSERT_EQ(walk.timeSoFar(), full) << "run " << runs << " order " << order;
      ASSERT_EQ(walk.walked(), moves.size());
    }
    ++runs;
  }
  EXPECT_GT(resumed, 1000u);
}

// rt::routeOrderBound keeps per link its load and the fewest hops before
// and after it in a record as narrow as the network allows (16-bit hops
// below a diameter of 65535). It equals the bound counted from each flow's
// links (rt::routeLinks) on random flows on random meshes and cubes, and
// neither a path longer than 65535 hops nor a link loaded past 65535
// elements wraps around. On meshes of sides up to 256 (and 65536 nodes)
// the bound is counted a run of a path at a time (orderBoundByLegs): a
// quarter of the draws take long sides (a line of up to 300 nodes, past
// that limit, or two sides up to 60), 3,000 draws in all.
// routeOrderBoundsOnCube's one pass (each order's link and hops before it
// from a bit's rank, the fewest hops before and after as the lowest bits
// of a mask) against routeOrderBound order by order on 3,000 random flow
// lists on cubes of 2 to 12 dims, every source's rotation among them,
// loads past 65535 on some, a quarter from four sources only (many flows
// a link, as on the bench's cube), and on three of 17 dims (a 64-bit mask).
TEST(NetworkGeneral, CubeOrderBoundsAreEachOrdersBound) {
  std::mt19937 rng(20261128);
  for (unsigned run = 0; run < 3003; ++run) {
    const rt::NetworkShape net = rt::NetworkShape::booleanCube(
        run >= 3000 ? 17 : 2 + unsigned(rng() % 11));
    const uint32_t nodes = net.nodeCount();
    uint32_t sources[4];
    for (uint32_t &s : sources)
      s = uint32_t(rng() % nodes);
    std::vector<rt::RouteFlow> flows(rng() % (run % 3 ? 60 : 600));
    for (rt::RouteFlow &f : flows) {
      const uint32_t from =
          run % 4 == 0 ? sources[rng() % 4] : uint32_t(rng() % nodes);
      f = {from, uint32_t(rng() % nodes),
           1 + uint32_t(rng() % (run % 2 ? 5 : 70000))};
    }
    const std::array<int64_t, 8> bounds =
        rt::routeOrderBoundsOnCube(net, flows);
    for (unsigned order = 0; order < 8; ++order)
      ASSERT_EQ(bounds[order], rt::routeOrderBound(net, flows, order))
          << "run " << run << " " << orderName(order) << " on "
          << net.dims.size() << " dims";
  }
}

// routeOrderBoundsOnCube's lower bound, counted in its pass (the cuts from
// dims up's link loads), against networkGeneralLowerBound over the flows
// on 3,000 random flow lists on cubes of 2 to 12 dims: flows between a
// node and itself among them, a quarter from four sources only or to four
// destinations only (a port or a cut binding), and on three of 17 dims.
TEST(NetworkGeneral, CubeOrderBoundsCountTheFlowBound) {
  std::mt19937 rng(20261128 + 2);
  for (unsigned run = 0; run < 3003; ++run) {
    const rt::NetworkShape net = rt::NetworkShape::booleanCube(
        run >= 3000 ? 17 : 2 + unsigned(rng() % 11));
    const uint32_t nodes = net.nodeCount();
    uint32_t few[4];
    for (uint32_t &s : few)
      s = uint32_t(rng() % nodes);
    std::vector<rt::RouteFlow> flows(rng() % (run % 3 ? 60 : 600));
    for (rt::RouteFlow &f : flows) {
      f = {run % 4 == 0 ? few[rng() % 4] : uint32_t(rng() % nodes),
           run % 4 == 1 ? few[rng() % 4] : uint32_t(rng() % nodes),
           1 + uint32_t(rng() % (run % 2 ? 5 : 70000))};
      if (run % 7 == 0 && rng() % 3 == 0)
        f.to = f.from;
    }
    int64_t lowerBound = -1;
    const std::array<int64_t, 8> bounds =
        rt::routeOrderBoundsOnCube(net, flows, &lowerBound);
    ASSERT_EQ(lowerBound, rt::networkGeneralLowerBound(net, flows))
        << "run " << run << " on " << net.dims.size() << " dims";
    ASSERT_EQ(bounds, rt::routeOrderBoundsOnCube(net, flows)) << "run " << run;
  }
}

// routeFlows against a map of (source, destination) pairs, flows in the
// map's order, on 3,000 random move lists of 1-300 nodes: half sorted by
// destination (generalRouteMoves' order, counted destination by
// destination and the flows bucketed by source), half not, with enough
// nodes for the moves that the nodes x nodes table is not taken on most.
TEST(NetworkGeneral, FlowsAreTheMovesCountedByPair) {
  std::mt19937 rng(20261128 + 1);
  unsigned sorted = 0;
  for (unsigned run = 0; run < 3000; ++run) {
    const rt::NetworkShape net =
        run % 5 == 0 ? rt::NetworkShape::booleanCube(unsigned(rng() % 9))
                     : rt::NetworkShape::mesh({1 + unsigned(rng() % 300)});
    const uint32_t nodes = net.nodeCount();
    // Few distinct sources or destinations on some, so that pairs repeat.
    const uint32_t spread = run % 3 ? nodes : 1 + uint32_t(rng() % 4);
    std::vector<rt::RouteMove> moves(rng() % 400);
    for (rt::RouteMove &m : moves)
      m = {uint32_t(rng() % std::min(nodes, spread)), uint32_t(rng() % nodes)};
    if (run % 2 == 0)
      std::stable_sort(moves.begin(), moves.end(),
                       [](const rt::RouteMove &a, const rt::RouteMove &b) {
                         return a.to < b.to;
                       });
    sorted +=
        std::is_sorted(moves.begin(), moves.end(),
                       [](const rt::RouteMove &a, const rt::RouteMove &b) {
                         return a.to < b.to;
                       }) &&
        uint64_t(nodes) * nodes > 1024;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> counted;
    for (const rt::RouteMove &m : moves)
      ++counted[{m.from, m.to}];
    const std::vector<rt::RouteFlow> flows = rt::routeFlows(net, moves);
    ASSERT_EQ(flows.size(), counted.size()) << "run " << run;
    size_t k = 0;
    for (const auto &[pair, count] : counted) {
      ASSERT_TRUE(flows[k].from == pair.first && flows[k].to == pair.second &&
                  flows[k].count == count)
          << "run " << run << " flow " << k;
      ++k;
    }
  }
  EXPECT_GT(sorted, 1000u);
}

// networkGeneralLowerBound over flows on a cube (the cuts counted from the
// bits `to` has and `from` lacks, and the reverse) against the bound
// counted from its definition: the farthest flow, per dim the elements
// crossing its cut each way over the nodes / 2 links of the cut, per node
// the elements in and out over its dims links; 3,000 random flow lists on
// cubes of 0-12 dims.
TEST(NetworkGeneral, CubeFlowBoundIsEachCutsBound) {
  std::mt19937 rng(20261128 + 2);
  for (unsigned run = 0; run < 3000; ++run) {
    const unsigned dims = unsigned(rng() % 13);
    const rt::NetworkShape net = rt::NetworkShape::booleanCube(dims);
    const uint32_t nodes = net.nodeCount();
    std::vector<rt::RouteFlow> flows(rng() % (run % 3 ? 60 : 600));
    for (rt::RouteFlow &f : flows) {
      f = {uint32_t(rng() % nodes), uint32_t(rng() % nodes),
           1 + uint32_t(rng() % (run % 2 ? 5 : 70000))};
      if (f.from == f.to) // flows change node
        f.to = f.from ^ 1u;
    }
    if (nodes == 1)
      flows.clear();
    std::vector<uint64_t> up(dims, 0), down(dims, 0), in(nodes, 0),
        out(nodes, 0);
    uint64_t bound = 0;
    for (const rt::RouteFlow &f : flows) {
      bound = std::max<uint64_t>(bound, __builtin_popcount(f.from ^ f.to));
      in[f.to] += f.count;
      out[f.from] += f.count;
      for (unsigned i = 0; i < dims; ++i) {
        const unsigned x = (f.from >> i) & 1, y = (f.to >> i) & 1;
        if (x < y)
          up[i] += f.count;
        else if (x > y)
          down[i] += f.count;
      }
    }
    const uint64_t perCut = std::max<uint32_t>(1, nodes / 2),
                   ports = std::max(1u, dims);
    for (unsigned i = 0; i < dims; ++i)
      bound = std::max({bound, (up[i] + perCut - 1) / perCut,
                        (down[i] + perCut - 1) / perCut});
    for (uint32_t n = 0; n < nodes; ++n)
      bound = std::max(
          {bound, (in[n] + ports - 1) / ports, (out[n] + ports - 1) / ports});
    ASSERT_EQ(rt::networkGeneralLowerBound(net, flows), int64_t(bound))
        << "run " << run << " on " << dims << " dims";
  }
}

TEST(NetworkGeneral, OrderBoundIsEachLinksBound) {
  std::mt19937 rng(20261127);
  for (unsigned run = 0; run < 3000; ++run) {
    rt::NetworkShape net = randomNetwork(rng, 1 + int64_t(rng() % 60));
    if (run % 4 == 3) {
      std::vector<unsigned> sides(1 + rng() % 2);
      for (unsigned &side : sides)
        side = 1 + unsigned(rng() % (sides.size() == 1 ? 300 : 60));
      net = rt::NetworkShape::mesh(sides);
    }
    const uint32_t nodes = net.nodeCount();
    // Many flows on some, so that their hops outweigh the legs' tables and
    // the legs are counted; few hops in all walk the links.
    std::vector<rt::RouteFlow> flows(rng() % (run % 3 ? 60 : 600));
    for (rt::RouteFlow &f : flows)
      f = {uint32_t(rng() % nodes), uint32_t(rng() % nodes),
           1 + uint32_t(rng() % (run % 2 ? 5 : 70000))};
    for (unsigned order : routeOrdersOn(net)) {
      struct Link {
        uint64_t load = 0, before = ~uint64_t(0), after = ~uint64_t(0);
      };
      std::map<size_t, Link> at;
      for (const rt::RouteFlow &f : flows) {
        const std::vector<size_t> path =
            rt::routeLinks(net, f.from, f.to, order);
        for (size_t h = 0; h < path.size(); ++h) {
          Link &l = at[path[h]];
          l.load += f.count;
          l.before = std::min<uint64_t>(l.before, h);
          l.after = std::min<uint64_t>(l.after, path.size() - h - 1);
        }
      }
      uint64_t bound = 0;
      for (const auto &[link, l] : at)
        bound = std::max(bound, l.before + l.load + l.after);
      ASSERT_EQ(rt::routeOrderBound(net, flows, order), int64_t(bound))
          << "run " << run << " order " << order;
    }
  }
  // A line of 140,001 nodes: one flow end to end, 140,000 hops (past
  // twice 65535, so that no link's hops before and after would add up
  // right in 16 bits).
  const rt::NetworkShape line = rt::NetworkShape::mesh({140001});
  EXPECT_EQ(rt::routeOrderBound(line, {{0, 140000, 3}}, 0), 139999 + 3);
  EXPECT_EQ(rt::routeOrderBound(line, {{140000, 1, 2}}, 0), 139998 + 2);
}
