//===- NetworkRouteOrderTest.cpp - bound and skip among route orders ------===//
//
// planNetworkGeneralRemap times the route orders from the lowest
// rt::routeOrderBound up, skips those whose bound cannot beat the best in
// hand and stops walks that already take as long. These tests check that
// it chooses exactly what timing every order in full would (the fastest,
// the first of equals), with the same ticks, and that no order's bound is
// above its time: random HPF redistributions, digit maps and k-Tile
// formats on random meshes of any sides and on cubes.
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
#include <numeric>
#include <random>

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

/// What timing every order in full chooses: the fastest, the first of
/// equals; every order's bound at most its time.
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
  int64_t best = -1;
  unsigned bestOrder = 0;
  for (unsigned order = 0; order < 8; ++order) {
    if ((order & (rt::kRouteDimsDown | rt::kRouteRotated)) &&
        net.dims.size() < 2)
      continue;
    const int64_t t = rt::timeRoute(net, moves, order);
    EXPECT_LE(rt::routeOrderBound(net, flows, order), t)
        << what << ", order " << order;
    if (best < 0 || t < best) {
      best = t;
      bestOrder = order;
    }
  }
  EXPECT_EQ(plan.predictedTicks, best) << what;
  EXPECT_EQ(plan.steps[0].routeOrder, bestOrder) << what;
  EXPECT_LE(plan.lowerBound, best) << what;
  const std::string &why = plan.steps[0].why;
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
      std::vector<int64_t> shape;
      for (int64_t p : procs)
        shape.push_back(p + int64_t(rng() % (40 / procs.size())));
      KTile x = test::randomBlockCyclic(rng, shape, procs),
            y = test::randomBlockCyclic(rng, shape, procs);
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
      std::vector<int64_t> shape(1 + rng() % 3);
      for (int64_t &s : shape)
        s = 1 + int64_t(rng() % 9);
      test::RandomTileSpec spec;
      a = test::randomTileFor(rng, shape, spec);
      b = test::randomTileFor(rng, shape, spec);
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
