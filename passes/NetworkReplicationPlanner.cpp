//===- NetworkReplicationPlanner.cpp - doubling against the one route -----===//
#include "passes/NetworkReplicationPlanner.h"

#include "mapc/runtime/NetworkReplication.h"

using namespace mapc;

namespace {

/// A way to fill the replicated copies in rounds, priced.
struct Candidate {
  unsigned routeOrder;
  std::vector<int64_t> rounds; ///< each round's cycles; empty: cannot run
  int64_t total() const {
    int64_t sum = 0;
    for (int64_t t : rounds)
      sum += t;
    return sum;
  }
  std::string name() const {
    return std::string(routeOrder & rt::kRouteScatter ? "scatter and gather"
                                                      : "doubling") +
           (routeOrder & rt::kRouteFarthestFirst ? ", farthest first" : "");
  }
  /// "doubling 32 (0 + 11 + 11 + 10)".
  std::string price() const {
    std::string s;
    for (int64_t t : rounds)
      s += (s.empty() ? "" : " + ") + std::to_string(t);
    return name() + " " + std::to_string(total()) + " (" + s + ")";
  }
};

} // namespace

void mapc::considerNetworkDoubling(const NetworkGeneralPlanRequest &req,
                                   const std::vector<uint32_t> &sources,
                                   rt::GeneralPlan &plan) {
  if (!req.dst.replicates() || plan.steps.size() != 1 ||
      plan.steps[0].kind != rt::GeneralStepKind::Route ||
      plan.steps[0].predictedTicks == 0)
    return; // nothing to replicate, or no element changes node
  rt::GeneralStep &step = plan.steps[0];
  // Doubling, then scatter and gather, each in destination cell order and
  // farthest first; the first of equals wins.
  std::vector<Candidate> candidates;
  const auto cells = rt::replicaCells(req.dst, sources); // both modes'
  for (unsigned mode :
       {rt::kRouteDoubling, rt::kRouteDoubling | rt::kRouteScatter}) {
    const auto rounds =
        rt::doublingRounds(req.shape, req.src, req.dst, sources, mode, &cells);
    for (unsigned key : {0u, rt::kRouteFarthestFirst}) {
      Candidate c{mode | key,
                  rt::timeDoublingRounds(req.shape, rounds, req.src, req.dst,
                                         req.elemBytes, mode | key)};
      if (!c.rounds.empty() && c.rounds[0] >= 0)
        candidates.push_back(std::move(c));
    }
  }
  if (candidates.empty())
    return; // none can run: the route stays
  const Candidate *best = &candidates[0];
  std::string prices;
  for (const Candidate &c : candidates) {
    if (c.total() < best->total())
      best = &c;
    prices += (prices.empty() ? "" : ", ") + c.price();
  }
  if (best->total() >= step.predictedTicks) {
    step.why += "; replicating in rounds (003 6.2.1) takes at least " +
                std::to_string(best->total()) + " (" + prices +
                "): the one route is " +
                (best->total() == step.predictedTicks ? "as fast" : "faster");
    return;
  }
  // The route's own prices follow its method's reason.
  const std::string method = "store and forward (001 sec. 2); ";
  const size_t at = step.why.find(method);
  const std::string routePrices =
      at == std::string::npos ? step.why : step.why.substr(at + method.size());
  step.why =
      std::string(best->routeOrder & rt::kRouteScatter
                      ? "each element from its nearest copy to one of its "
                        "nodes, a source's elements taking turns over them "
                        "(a scatter), then to the others by one "
                        "dimension-order route (an all-gather)"
                      : "each element from its nearest copy to one of its "
                        "nodes, then to the others by recursive doubling "
                        "along the dims (003 6.2.1), each round a "
                        "dimension-order route") +
      ", store and forward (001 sec. 2); " + best->name() + " beats the one " +
      "route's " + std::to_string(step.predictedTicks) + " ticks: " + prices +
      "; the one route: " + routePrices;
  step.routeOrder = best->routeOrder;
  step.predictedTicks = best->total();
  plan.predictedTicks = best->total();
}
