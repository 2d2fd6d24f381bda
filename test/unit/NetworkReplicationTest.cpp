//===- NetworkReplicationTest.cpp - recursive doubling on cubes and meshes ===//
//
// The doubling route (runtime/NetworkReplication.h) on random replicated
// k-Tile destinations on random meshes of any sides and on hypercubes, in
// place and as copies, in both of its orders: run on the store-and-forward
// simulator round by round and checked element by element; every round's
// timeRoute equals the machine's run and the cycle-by-cycle reference, and
// the planner's choice between it and the one route runs as predicted.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkReplication.h"
#include "RandomTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/NetworkTiming.h"
#include "passes/NetworkGeneralPlanner.h"

#include "RandomNetwork.h"

#include "gtest/gtest.h"

#include <random>

using namespace mapc;

namespace {

constexpr test::NetworkDraw kReplicationNetworks = {3, 1, 5, 7};

/// A random pair of formats of one shape whose second replicates and whose
/// PEs fit `net`.
bool drawReplicated(std::mt19937 &rng, const rt::NetworkShape &net, KTile &a,
                    KTile &b) {
  std::vector<int64_t> shape(std::uniform_int_distribution<int>(1, 2)(rng));
  for (int64_t &s : shape)
    s = std::uniform_int_distribution<int>(1, 9)(rng);
  test::RandomTileSpec spec;
  a = test::randomTileFor(rng, shape, spec);
  b = test::randomTileFor(rng, shape, spec);
  const rt::TileMap ta = a, tb = b;
  return tb.replicates() && uint64_t(rt::pesOf(ta)) <= net.nodeCount() &&
         uint64_t(rt::pesOf(tb)) <= net.nodeCount();
}

/// A vector of `n` elements on one line of a mesh's or cube's dim 0 (a
/// block each), copied to all of its other coordinates: an HPF realign of
/// V(i) with A(i, 1) to V(i) with A(i, *), the broadcast doubling is for.
void broadcast(const rt::NetworkShape &net, int64_t perNode, rt::TileMap &src,
               rt::TileMap &dst) {
  const int64_t along = net.dims[0], across = net.nodeCount() / along,
                n = perNode * along;
  for (int copies : {1, 2}) {
    KTile t;
    t.kdims = {KDim::plain(perNode), KDim::plain(along), KDim::plain(across)};
    t.kdims[2].ok = copies == 1 ? 0 : kReplicated;
    t.groups = {2, 1};
    t.data = {SpaceDim::plain(n)};
    t.m = {{0}, {1}, {2}};
    t.device = {SpaceDim::plain(perNode), SpaceDim::plain(along),
                SpaceDim::plain(across)};
    EXPECT_TRUE(t.verify().empty());
    (copies == 1 ? src : dst) = t;
  }
}

/// Runs the doubling route in `order` and checks every element, that the
/// machine takes timeDoublingRoute's cycles, and each round's timing against
/// the cycle-by-cycle reference. Returns the cycles.
int64_t runDoubling(const rt::TileMap &src, const rt::TileMap &dst,
                    const rt::NetworkShape &net, unsigned elemBytes, bool copy,
                    unsigned order, const std::string &what) {
  const std::vector<uint32_t> sources = rt::sourcesOf(src, dst);
  const uint64_t region =
      uint64_t(std::max(rt::slotsOf(src), rt::slotsOf(dst))) * elemBytes;
  rt::NetworkMachine m(net, 2 * region);
  rt::Regions regions{{copy ? 0 : region}, {region}, {0}};
  rt::storePattern([&](unsigned node) { return m.memory(node); }, src,
                   elemBytes, regions.src.base, 7);
  std::string why;
  EXPECT_TRUE(rt::runDoublingRoute(m, src, dst, sources, elemBytes,
                                   regions.src.base, regions.dst.base, order,
                                   &why))
      << what << ": " << why;
  EXPECT_EQ(
      rt::countMismatches(
          [&](unsigned node) -> const uint8_t * { return m.memory(node); }, dst,
          elemBytes, regions.dst.base, 7),
      0u)
      << what;
  EXPECT_EQ(rt::timeDoublingRoute(net, src, dst, sources, elemBytes, order),
            m.ledger().cycles)
      << what;
  const auto rounds = rt::doublingRounds(net, src, dst, sources, order);
  const std::vector<int64_t> times =
      rt::timeDoublingRounds(net, rounds, src, dst, elemBytes, order);
  EXPECT_EQ(times.size(), rounds.size()) << what;
  for (size_t k = 0; k < rounds.size() && k < times.size(); ++k) {
    uint64_t hops = 0, load = 0;
    EXPECT_EQ(
        rt::timeCycleByCycle(net,
                             rt::doublingTransfers(net, rounds, k, src, dst,
                                                   elemBytes, 0, 0, order),
                             hops, load),
        times[k])
        << what << " round " << k;
  }
  return m.ledger().cycles;
}

} // namespace

// On 2,000 random replicated destinations on random meshes and cubes, in
// place and copies, doubling and scatter and gather, both keys: every element
// arrives, and each round and the whole route take what the machine and the
// reference simulation take.
TEST(NetworkReplication, RandomReplicatedLayoutsRunAsTimed) {
  std::mt19937 rng(20261128);
  unsigned runs = 0, cubes = 0, doubled = 0;
  while (runs < 2000) {
    const rt::NetworkShape net = test::randomNetwork(rng, kReplicationNetworks);
    KTile a, b;
    if (!drawReplicated(rng, net, a, b))
      continue;
    const unsigned elemBytes =
        1u << std::uniform_int_distribution<unsigned>(0, 2)(rng);
    const bool copy = rng() % 2;
    const unsigned order = rt::kRouteDoubling |
                           (rng() % 2 ? rt::kRouteFarthestFirst : 0) |
                           (rng() % 2 ? rt::kRouteScatter : 0);
    runDoubling(a, b, net, elemBytes, copy, order,
                "run " + std::to_string(runs));
    if (HasFailure())
      return;
    cubes += net.cube;
    // A send between nodes after the seed round: doubling or gathering.
    const auto rounds =
        rt::doublingRounds(net, a, b, rt::sourcesOf(a, b), order);
    bool later = false;
    for (size_t k = 1; k < rounds.size(); ++k)
      for (const rt::DoublingSend &send : rounds[k])
        later |= send.fromNode != send.toNode;
    doubled += later;
    ++runs;
  }
  EXPECT_GT(cubes, 400u);
  EXPECT_GT(doubled, 500u);
}

// A broadcast along every line of a mesh or cube: doubling takes
// ceil(log2(lines)) rounds plus the seed round, and the planner picks it or
// the scatter and gather over the one route, which sends every copy out of
// one node; its plan runs as predicted and says the prices.
TEST(NetworkReplication, PlannerPicksDoublingForABroadcast) {
  for (const rt::NetworkShape &net :
       {rt::NetworkShape::mesh({3, 5}), rt::NetworkShape::mesh({4, 9}),
        rt::NetworkShape::booleanCube(4), rt::NetworkShape::booleanCube(6)}) {
    rt::TileMap src, dst;
    broadcast(net, 6, src, dst);
    const std::string what = "on " + std::to_string(net.nodeCount()) +
                             " nodes" + (net.cube ? " (cube)" : "");
    for (bool copy : {false, true}) {
      NetworkGeneralPlanRequest req{src, dst, 4, copy, net};
      auto planned = planNetworkGeneralRemap(req);
      ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned)) << what;
      const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
      ASSERT_EQ(plan.steps.size(), 1u) << what;
      EXPECT_TRUE(plan.steps[0].routeOrder & rt::kRouteDoubling) << what;
      EXPECT_NE(plan.steps[0].why.find(" beats the one route's"),
                std::string::npos)
          << what << ": " << plan.steps[0].why;
      const uint64_t region = uint64_t(rt::slotsOf(dst)) * 4;
      rt::NetworkMachine m(net, 2 * region);
      rt::Regions regions{{copy ? 0 : region}, {region}, {0}};
      rt::storePattern([&](unsigned node) { return m.memory(node); }, src, 4,
                       regions.src.base, 3);
      std::string why;
      ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
      EXPECT_EQ(
          rt::countMismatches(
              [&](unsigned node) -> const uint8_t * { return m.memory(node); },
              dst, 4, regions.dst.base, 3),
          0u)
          << what;
      EXPECT_EQ(m.ledger().cycles, plan.predictedTicks) << what;
      EXPECT_LE(plan.lowerBound, plan.predictedTicks) << what;
      // The rounds of a broadcast over `across` lines: the seed round is
      // local, then ceil(log2 across) doubling rounds.
      unsigned across = net.nodeCount() / net.dims[0], rounds = 0;
      while ((1u << rounds) < across)
        ++rounds;
      EXPECT_EQ(
          rt::doublingRounds(net, src, dst, rt::sourcesOf(src, dst)).size(),
          1 + rounds)
          << what;
    }
  }
}

// Through the planner on random replicated destinations: whichever of the
// doubling and the one route it picks runs as predicted, element by
// element, never below the lower bound, and never slower than the route.
TEST(NetworkReplication, PlannerChoiceRunsAsPredicted) {
  std::mt19937 rng(20261128 + 1);
  unsigned runs = 0, picked = 0;
  while (runs < 1000) {
    const rt::NetworkShape net = test::randomNetwork(rng, kReplicationNetworks);
    KTile a, b;
    if (!drawReplicated(rng, net, a, b))
      continue;
    const bool copy = rng() % 2;
    NetworkGeneralPlanRequest req{a, b, 2, copy, net};
    auto planned = planNetworkGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    const std::string what = "run " + std::to_string(runs);
    if (!plan.steps.empty() &&
        (plan.steps[0].routeOrder & rt::kRouteDoubling)) {
      ++picked;
      // The route it beat, timed alone.
      rt::GeneralPlan route = plan;
      route.steps[0].routeOrder = 0;
      int64_t fastest = INT64_MAX;
      for (unsigned order = 0; order < 8; ++order) {
        route.steps[0].routeOrder = order;
        fastest =
            std::min(fastest, rt::predictNetworkGeneralStep(net, route, 0));
      }
      EXPECT_LT(plan.predictedTicks, fastest) << what;
    }
    const uint64_t region =
        uint64_t(std::max(rt::slotsOf(plan.source), rt::slotsOf(plan.dest))) *
        2;
    rt::NetworkMachine m(net, 2 * region);
    rt::Regions regions{{copy ? 0 : region}, {region}, {0}};
    rt::storePattern([&](unsigned node) { return m.memory(node); }, plan.source,
                     2, regions.src.base, 5);
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why))
        << what << ": " << why;
    EXPECT_EQ(
        rt::countMismatches(
            [&](unsigned node) -> const uint8_t * { return m.memory(node); },
            plan.dest, 2, regions.dst.base, 5),
        0u)
        << what;
    EXPECT_EQ(m.ledger().cycles, plan.predictedTicks) << what;
    EXPECT_LE(plan.lowerBound, m.ledger().cycles) << what;
    if (HasFailure())
      return;
    ++runs;
  }
  EXPECT_GT(picked, 50u);
}
