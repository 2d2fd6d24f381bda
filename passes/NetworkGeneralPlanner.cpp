//===- NetworkGeneralPlanner.cpp - general remaps on a cube or mesh -------===//
#include "passes/NetworkGeneralPlanner.h"

#include "passes/GeneralPlanner.h"

using namespace mapc;

std::variant<rt::GeneralPlan, std::string>
mapc::planNetworkGeneralRemap(const NetworkGeneralPlanRequest &req) {
  auto started = startGeneralPlan(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape.nodeCount(), "nodes");
  if (auto *why = std::get_if<std::string>(&started))
    return *why;
  rt::GeneralPlan plan = std::move(std::get<rt::GeneralPlan>(started));
  const std::vector<uint32_t> sources = rt::sourcesOf(req.src, req.dst);
  plan.lowerBound =
      rt::networkGeneralLowerBound(req.shape, req.src, req.dst, &sources);
  const rt::MoveShape shape = rt::analyseMove(req.src, req.dst, sources);
  if (shape.identity && !req.copy)
    return plan; // every element is already where it belongs

  rt::GeneralStep step;
  step.kind = rt::GeneralStepKind::Route;
  step.to = req.dst;
  // Every source is read before any destination is written
  // (NetworkMachine::run), so the step works in place.
  step.inPlace = !req.copy;
  step.why = shape.local
                 ? "no element changes node: a memory permutation, free in "
                   "001's model"
                 : "every element from its nearest copy to its cell by "
                   "dimension-order routing, store and forward (001 sec. 2)";
  // The orders of the route, each timed by simulation; the fastest wins
  // (the first of equals). Reversing or rotating the dims matters only on
  // more than one dim. An order that meets the lower bound cannot be beaten:
  // the rest are not simulated (as NetworkPlanner prunes schedules).
  auto name = [](unsigned order) {
    return std::string(order & rt::kRouteDimsDown ? "dims down" : "dims up") +
           (order & rt::kRouteRotated ? ", rotated" : "") +
           (order & rt::kRouteFarthestFirst ? ", farthest first" : "");
  };
  // The elements that change node, found once for every order.
  const std::vector<rt::RouteMove> moves =
      rt::generalRouteMoves(req.shape, req.src, req.dst, sources);
  std::string prices;
  int64_t best = -1;
  for (unsigned order = 0; order < 8; ++order) {
    if ((order & (rt::kRouteDimsDown | rt::kRouteRotated)) &&
        req.shape.dims.size() < 2)
      continue;
    plan.steps = {step};
    plan.steps[0].routeOrder = order;
    std::string why;
    int64_t t = rt::timeRoute(req.shape, moves, order);
    if (t < 0) // past the reservation walk's memory: simulate the cycles
      t = rt::predictNetworkGeneralStep(req.shape, plan, 0, &sources, &why);
    if (t < 0)
      return "the route cannot run: " + why;
    prices += std::string(prices.empty() ? "" : ", ") + name(order) + " " +
              std::to_string(t);
    if (best < 0 || t < best) {
      best = t;
      step.routeOrder = order;
    }
    if (best <= plan.lowerBound) {
      if (order + 1 < 8 && req.shape.dims.size() > 1)
        prices += ", the rest pruned (the bound is met)";
      break;
    }
  }
  step.predictedTicks = best;
  step.why += "; " + name(step.routeOrder) + " is fastest: " + prices;
  plan.steps = {step};
  plan.predictedTicks = best;
  return plan;
}
