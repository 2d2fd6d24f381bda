//===- NetworkGeneralPlanner.cpp - general remaps on a cube or mesh -------===//
#include "passes/NetworkGeneralPlanner.h"

#include "passes/GeneralPlanner.h"
#include "passes/NetworkReplicationPlanner.h"

#include "mapc/runtime/NetworkReplication.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <optional>

using namespace mapc;

std::variant<rt::GeneralPlan, std::string>
mapc::planNetworkGeneralRemap(const NetworkGeneralPlanRequest &req) {
  auto started = startGeneralPlan(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape.nodeCount(), "nodes");
  if (auto *why = std::get_if<std::string>(&started))
    return *why;
  rt::GeneralPlan plan = std::move(std::get<rt::GeneralPlan>(started));
  // The elements that change node, found once for the bound and every
  // order: from the layouts' runs and periods when they allow it (HPF
  // layouts), else from the table of sources, which is then also the
  // replicated bound's and the identity's.
  std::vector<uint32_t> sources;
  std::optional<std::vector<rt::RouteMove>> byRuns =
      rt::generalRouteMovesByRuns(req.src, req.dst);
  if (!byRuns)
    sources = rt::sourcesOf(req.src, req.dst);
  // Without replication in the destination an order is walked whenever
  // anything moves, so the moves are listed now and the flows counted from
  // them. A replicated destination is priced in rounds first and often walks no
  // order (a broadcast never does): then the flows are counted from the table
  // of sources as the moves come, and the moves (as many as the held cells) are
  // listed only for a walk.
  bool listed = byRuns || !req.dst.replicates();
  std::vector<rt::RouteMove> moves =
      byRuns   ? std::move(*byRuns)
      : listed ? rt::generalRouteMoves(req.shape, req.src, req.dst, sources)
               : std::vector<rt::RouteMove>{};
  const std::vector<rt::RouteFlow> flows =
      listed ? rt::routeFlows(req.shape, moves)
             : rt::generalRouteFlows(req.shape, req.src, req.dst, sources);
  // Without replication the bound counts flows, not elements (the same
  // bound: NetworkGeneral.FlowBoundEqualsTheElementBound).
  // A replicated destination's held cells by element, for the bound and
  // the rounds (NetworkReplication.h) alike.
  const std::vector<std::pair<int64_t, int64_t>> cells =
      req.dst.replicates() ? rt::replicaCells(req.dst, sources)
                           : std::vector<std::pair<int64_t, int64_t>>{};
  // On a cube the four orders' bounds come from one pass over the flows
  // (NetworkGeneral.CubeOrderBoundsAreEachOrdersBound), which counts the
  // flows' bound as well (NetworkGeneral.CubeOrderBoundsCountTheFlowBound).
  const bool replicates = req.src.replicates() || req.dst.replicates();
  std::optional<std::array<int64_t, 8>> onCube;
  if (req.shape.cube && req.shape.dims.size() >= 2)
    onCube = rt::routeOrderBoundsOnCube(
        req.shape, flows, replicates ? nullptr : &plan.lowerBound);
  if (replicates)
    plan.lowerBound =
        rt::networkGeneralLowerBound(req.shape, req.src, req.dst, &sources,
                                     req.dst.replicates() ? &cells : nullptr);
  else if (!onCube)
    plan.lowerBound = rt::networkGeneralLowerBound(req.shape, flows);
  // No element changes node exactly when there are no moves: a cell whose
  // node holds a copy of its element takes that copy, in sourcesOf and in
  // the moves alike (NetworkGeneral.MovesAreTheTransfersThatChangeNode).
  // Then every element keeps its cell when each held cell is its own
  // source (with equal slots; otherwise as analyseMove finds).
  const bool local = flows.empty();
  if (local && sources.empty())
    sources = rt::sourcesOf(req.src, req.dst);
  bool identity = local;
  if (local && rt::slotsOf(req.src) != rt::slotsOf(req.dst))
    identity = rt::analyseMove(req.src, req.dst, sources).identity;
  else if (local)
    for (size_t b = 0; b < sources.size() && identity; ++b)
      identity = sources[b] == rt::kNoSource || sources[b] == b;
  if (identity && !req.copy)
    return plan; // every element is already where it belongs

  rt::GeneralStep step;
  step.kind = rt::GeneralStepKind::Route;
  step.to = req.dst;
  // Every source is read before any destination is written
  // (NetworkMachine::run), so the step works in place.
  step.inPlace = !req.copy;
  step.why = local ? "no element changes node: a memory permutation, free in "
                     "001's model"
                   : "every element from its nearest copy to its cell by "
                     "dimension-order routing, store and forward (001 sec. 2)";
  // The orders of the route, each timed by the reservation walk (as the
  // simulation times it); the fastest wins, the first of equals. Reversing
  // or rotating the dims matters only on more than one dim. Bound and race:
  // each order's paths bound its time (rt::routeOrderBound, never below the
  // step's lower bound), the orders' walks are raced from the lowest bound
  // up (below), and an order whose bound or time so far cannot beat the
  // best in hand is dropped. The choice is the one timing every order
  // would make (NetworkGeneral.SkippedOrdersChooseAsTimingAll).
  auto name = [](unsigned order) {
    return std::string(order & rt::kRouteDimsDown ? "dims down" : "dims up") +
           (order & rt::kRouteRotated ? ", rotated" : "") +
           (order & rt::kRouteFarthestFirst ? ", farthest first" : "");
  };
  // On two dims, rotated dims down is rotated dims up: both start in dim
  // (node mod 2) and take the other dim next, so they have the same paths
  // and (farthest first or not) the same keys, bound and walk
  // (NetworkGeneral.RotatedTwinsOnTwoDims). The twin takes the bound of
  // the order it repeats, and its time wherever that walk shows it.
  auto twinOf = [&](unsigned order) {
    return req.shape.dims.size() == 2 && (order & rt::kRouteRotated) &&
                   (order & rt::kRouteDimsDown)
               ? int(order & ~rt::kRouteDimsDown)
               : -1;
  };
  std::vector<unsigned> orders;
  int64_t bounds[8] = {};
  for (unsigned order = 0; order < 8; ++order) {
    if ((order & (rt::kRouteDimsDown | rt::kRouteRotated)) &&
        req.shape.dims.size() < 2)
      continue;
    orders.push_back(order);
    // Farthest first changes the keys, not the paths: the same bound
    // (its order without it comes first).
    bounds[order] =
        order & rt::kRouteFarthestFirst
            ? bounds[order & ~rt::kRouteFarthestFirst]
        : twinOf(order) >= 0
            ? bounds[twinOf(order)]
            : std::max(plan.lowerBound,
                       onCube ? (*onCube)[order]
                              : rt::routeOrderBound(req.shape, flows, order));
  }
  // Of equal bounds, farthest first (the same paths) first: it wins most
  // often, and the orders after it then stop early.
  auto rank = [&](unsigned order) {
    return std::make_pair(bounds[order], !(order & rt::kRouteFarthestFirst));
  };
  std::stable_sort(orders.begin(), orders.end(),
                   [&](unsigned a, unsigned b) { return rank(a) < rank(b); });
  // The race: the order with the least time it is known to take (its
  // bound, or its walk's time so far when larger) walks on until it passes
  // the next, or reaches the best in hand, or ends; an order whose known
  // time reaches the best cannot beat it and is dropped. An order before
  // the best in the list may still tie it and win, so it is dropped only
  // past the best. Walking the orders one after another, the first walked
  // ran to its end whatever it took, and the next ones up to it; raced, a
  // losing order stops about where it passes the winner (on the 31 x 33
  // mesh a quarter to a third fewer elements walked).
  // A replicated destination may fill faster in rounds (003 6.2.1): they
  // are priced first, and an order must take at most their best (the route
  // wins ties) or it is dropped; on a broadcast no order's bound does, and
  // no order is walked.
  const NetworkRounds rounds =
      local ? NetworkRounds{} : priceNetworkRounds(req, sources, cells);
  const int64_t roundsTicks = rounds.bestTicks();
  std::optional<std::vector<uint32_t>> farthestFirst; // outlives the walks
  std::optional<rt::RouteWalk> walks[8];
  int64_t exact[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int64_t best = -1;
  auto toBeat = [&](unsigned order) {
    return best < 0 ? roundsTicks == INT64_MAX ? INT64_MAX : roundsTicks + 1
           : order > step.routeOrder ? best
                                     : best + 1;
  };
  auto known = [&](unsigned order) {
    return walks[order] ? std::max(bounds[order], walks[order]->timeSoFar())
                        : bounds[order];
  };
  std::vector<unsigned> racing; // in the timing order: the first of equals
  for (unsigned order : orders)
    if (twinOf(order) < 0)
      racing.push_back(order);
  for (;;) {
    llvm::erase_if(
        racing, [&](unsigned order) { return known(order) >= toBeat(order); });
    if (racing.empty())
      break;
    auto least = std::min_element(
        racing.begin(), racing.end(),
        [&](unsigned a, unsigned b) { return known(a) < known(b); });
    const unsigned order = *least;
    int64_t next = INT64_MAX;
    for (unsigned other : racing)
      if (other != order)
        next = std::min(next, known(other));
    if (!walks[order]) {
      if (!listed) // before any walk, which keeps a reference to them
        moves = rt::generalRouteMoves(req.shape, req.src, req.dst, sources);
      listed = true;
      // Farthest first's keys are the same in every order: listed once
      // for all its walks.
      if ((order & rt::kRouteFarthestFirst) && !farthestFirst)
        farthestFirst = rt::routeFarthestFirstKeys(req.shape, moves);
      walks[order].emplace(req.shape, moves, order,
                           order & rt::kRouteFarthestFirst ? &*farthestFirst
                                                           : nullptr);
    }
    int64_t t = walks[order]->advance(
        next == INT64_MAX ? toBeat(order) : std::min(toBeat(order), next + 1));
    if (t < 0) { // past the reservation walk's memory: simulate the cycles
      plan.steps = {step};
      plan.steps[0].routeOrder = order;
      std::string why;
      t = rt::predictNetworkGeneralStep(
          req.shape, plan, 0, sources.empty() ? nullptr : &sources, &why);
      if (t < 0)
        return "the route cannot run: " + why;
      exact[order] = t;
    } else if (walks[order]->finished()) {
      exact[order] = t;
    } else {
      continue;
    }
    racing.erase(least);
    if (t < toBeat(order)) {
      best = t;
      step.routeOrder = order;
    }
  }
  // Each order's time, or what it takes at least: its walk's time so far
  // (or its bound, when larger) where the walk stopped, its bound where it
  // was not walked. A twin shows the walk of the order it repeats.
  std::string said[8];
  for (unsigned order : orders) {
    const unsigned walked =
        twinOf(order) >= 0 ? unsigned(twinOf(order)) : order;
    if (exact[walked] >= 0)
      said[order] = std::to_string(exact[walked]);
    else if (walks[walked])
      said[order] =
          "at least " + std::to_string(known(walked)) + " (not run to the end)";
    else
      said[order] =
          "at least " + std::to_string(bounds[order]) + " (its bound; not run)";
  }
  std::string prices;
  for (unsigned order = 0; order < 8; ++order)
    if (!said[order].empty())
      prices += std::string(prices.empty() ? "" : ", ") + name(order) + " " +
                said[order];
  // Without a winner every order takes more than the rounds' best: the
  // least of what they take at least stands for the route.
  int64_t atLeast = INT64_MAX;
  for (unsigned order : orders) {
    const unsigned walked =
        twinOf(order) >= 0 ? unsigned(twinOf(order)) : order;
    atLeast =
        std::min(atLeast, exact[walked] >= 0 ? exact[walked] : known(walked));
  }
  step.predictedTicks = best >= 0 ? best : atLeast;
  step.why += best >= 0
                  ? "; " + name(step.routeOrder) + " is fastest: " + prices
                  : "; every order takes at least " + std::to_string(atLeast) +
                        ": " + prices;
  plan.steps = {step};
  plan.predictedTicks = step.predictedTicks;
  considerNetworkDoubling(rounds, best >= 0, plan);
  return plan;
}
