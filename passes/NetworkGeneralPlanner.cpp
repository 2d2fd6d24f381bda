//===- NetworkGeneralPlanner.cpp - general remaps on a cube or mesh -------===//
#include "passes/NetworkGeneralPlanner.h"

#include "passes/GeneralPlanner.h"

#include <algorithm>
#include <cstdint>

using namespace mapc;

std::variant<rt::GeneralPlan, std::string>
mapc::planNetworkGeneralRemap(const NetworkGeneralPlanRequest &req) {
  auto started = startGeneralPlan(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape.nodeCount(), "nodes");
  if (auto *why = std::get_if<std::string>(&started))
    return *why;
  rt::GeneralPlan plan = std::move(std::get<rt::GeneralPlan>(started));
  const std::vector<uint32_t> sources = rt::sourcesOf(req.src, req.dst);
  // The elements that change node, found once for the bound and every
  // order.
  const std::vector<rt::RouteMove> moves =
      rt::generalRouteMoves(req.shape, req.src, req.dst, sources);
  const std::vector<rt::RouteFlow> flows = rt::routeFlows(req.shape, moves);
  // Without replication the bound counts flows, not elements (the same
  // bound: NetworkGeneral.FlowBoundEqualsTheElementBound).
  plan.lowerBound =
      req.src.replicates() || req.dst.replicates()
          ? rt::networkGeneralLowerBound(req.shape, req.src, req.dst, &sources)
          : rt::networkGeneralLowerBound(req.shape, flows);
  // No element changes node exactly when there are no moves: a cell whose
  // node holds a copy of its element takes that copy, in sourcesOf and in
  // the moves alike (NetworkGeneral.MovesAreTheTransfersThatChangeNode).
  // Then every element keeps its cell when each held cell is its own
  // source (with equal slots; otherwise as analyseMove finds).
  const bool local = moves.empty();
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
  // or rotating the dims matters only on more than one dim. Bound and skip
  // (as the MasPar planner's candidates): each order's paths bound its time
  // (rt::routeOrderBound, never below the step's lower bound), the orders
  // are timed from the lowest bound up, an order whose bound cannot beat
  // the best in hand is not timed, and a walk stops once its elements
  // already take as long as the best. The choice is the one timing every
  // order would make (NetworkGeneral.SkippedOrdersChooseAsTimingAll).
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
                       rt::routeOrderBound(req.shape, flows, order));
  }
  // Of equal bounds, farthest first (the same paths) first: it wins most
  // often, and the orders after it then stop early.
  auto rank = [&](unsigned order) {
    return std::make_pair(bounds[order], !(order & rt::kRouteFarthestFirst));
  };
  std::stable_sort(orders.begin(), orders.end(),
                   [&](unsigned a, unsigned b) { return rank(a) < rank(b); });
  std::string said[8];
  int64_t best = -1;
  // Each walk's stopping time (INT64_MAX: to the end) and what it gave.
  bool walked[8] = {};
  int64_t walkedTo[8] = {}, walkedTime[8] = {};
  for (unsigned order : orders) {
    // An order after the best must beat it; one before it may tie.
    const int64_t toBeat = best < 0                  ? INT64_MAX
                           : order > step.routeOrder ? best
                                                     : best + 1;
    if (bounds[order] >= toBeat) {
      said[order] =
          "at least " + std::to_string(bounds[order]) + " (its bound; not run)";
      continue;
    }
    // The twin's walk gives this one's time when it stopped at the same
    // time, or ran to its end at a time T <= toBeat: a walk stops at the
    // first element that takes its time to toBeat or more, which is then T
    // itself (the time so far never passes the whole route's).
    const int twin = twinOf(order);
    int64_t t = -1;
    if (twin >= 0 && walked[twin] &&
        (walkedTo[twin] == toBeat ||
         (walkedTime[twin] < walkedTo[twin] && walkedTime[twin] <= toBeat)))
      t = walkedTime[twin];
    else
      t = rt::timeRoute(req.shape, moves, order, toBeat);
    if (t < 0) { // past the reservation walk's memory: simulate the cycles
      plan.steps = {step};
      plan.steps[0].routeOrder = order;
      std::string why;
      t = rt::predictNetworkGeneralStep(req.shape, plan, 0, &sources, &why);
      if (t < 0)
        return "the route cannot run: " + why;
    }
    walked[order] = true;
    walkedTo[order] = toBeat;
    walkedTime[order] = t;
    if (t >= toBeat) {
      said[order] = "at least " + std::to_string(t) + " (not run to the end)";
      continue;
    }
    said[order] = std::to_string(t);
    best = t;
    step.routeOrder = order;
  }
  std::string prices;
  for (unsigned order = 0; order < 8; ++order)
    if (!said[order].empty())
      prices += std::string(prices.empty() ? "" : ", ") + name(order) + " " +
                said[order];
  step.predictedTicks = best;
  step.why += "; " + name(step.routeOrder) + " is fastest: " + prices;
  plan.steps = {step};
  plan.predictedTicks = best;
  return plan;
}
