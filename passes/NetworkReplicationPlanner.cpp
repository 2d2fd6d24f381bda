//===- NetworkReplicationPlanner.cpp - doubling against the one route -----===//
#include "passes/NetworkReplicationPlanner.h"

#include "mapc/runtime/NetworkReplication.h"

#include <algorithm>
#include <numeric>
#include <optional>

using namespace mapc;

std::string NetworkRounds::Candidate::name() const {
  return std::string(routeOrder & rt::kRouteSpread    ? "halving and doubling"
                     : routeOrder & rt::kRouteScatter ? "scatter and gather"
                     : routeOrder & rt::kRouteChain   ? "pipelined chain"
                                                      : "doubling") +
         (routeOrder & rt::kRouteFarthestFirst ? ", farthest first" : "");
}

std::string NetworkRounds::Candidate::price() const {
  if (priced == Skipped)
    return name() + " at least " + std::to_string(total) +
           " (its bound; not priced)";
  if (priced == Stopped)
    return name() + " at least " + std::to_string(total) +
           " (not run to the end)";
  // Pipelined chains take a round per element: runs of equal rounds are
  // listed as "N rounds of T".
  const bool runs = routeOrder & rt::kRouteChain;
  std::string s;
  for (size_t k = 0, next = 0; k < rounds.size(); k = next) {
    next = k + 1;
    while (runs && next < rounds.size() && rounds[next] == rounds[k])
      ++next;
    s += (s.empty() ? "" : " + ") +
         (next - k > 1 ? std::to_string(next - k) + " rounds of " : "") +
         std::to_string(rounds[k]);
  }
  return name() + " " + std::to_string(total) + " (" + s + ")";
}

bool mapc::spreadWorthPricing(const rt::NetworkShape &shape,
                              const rt::ReplicaPairs &pairs) {
  if (!shape.cube)
    return false;
  for (const rt::ReplicaPairs::Pair &p : pairs.pairs) {
    uint32_t spanned = 0;
    for (uint32_t node : p.nodes)
      spanned |= node ^ p.nodes[0];
    if (uint64_t(1) << __builtin_popcount(spanned) >
        2 * uint64_t(p.nodes.size()))
      return false;
  }
  return true;
}

NetworkRounds mapc::priceNetworkRounds(
    const NetworkGeneralPlanRequest &req, const std::vector<uint32_t> &sources,
    const std::vector<std::pair<int64_t, int64_t>> &cells) {
  NetworkRounds out;
  if (!req.dst.replicates())
    return out;
  // Each mode's bounds from its flows; a mode's two keys share them, and
  // its rounds are written out only when a candidate of it is timed.
  // The elements are walked once for every mode's trees (their pairs).
  const rt::ReplicaPairs pairs =
      rt::replicaPairs(req.shape, req.src, req.dst, sources, &cells);
  std::vector<std::vector<int64_t>> bounds;
  std::vector<bool> exact;    // per mode: its bounds are its rounds' times
  std::vector<size_t> modeOf; // per candidate
  for (unsigned mode :
       {rt::kRouteDoubling, rt::kRouteDoubling | rt::kRouteScatter}) {
    bounds.push_back(rt::doublingRoundBounds(
        req.shape, rt::doublingRoundFlows(req.shape, pairs, mode)));
    exact.push_back(false);
    for (unsigned key : {0u, rt::kRouteFarthestFirst}) {
      NetworkRounds::Candidate c;
      c.routeOrder = mode | key;
      c.bound = std::accumulate(bounds.back().begin(), bounds.back().end(),
                                int64_t(0));
      out.candidates.push_back(c);
      modeOf.push_back(bounds.size() - 1);
    }
  }
  // A spread and the pipelined chains, in cell order only (their rounds
  // after the seeds are mostly of one hop, where keys do not matter):
  // their rounds' figures from their trees are their times when every send
  // after the seeds goes to a neighbour (then the bound is the time: priced
  // first, and the others stop early), else bounds.
  auto addExact = [&](unsigned routeOrder, std::vector<int64_t> figures,
                      bool isExact) {
    NetworkRounds::Candidate c;
    c.routeOrder = routeOrder;
    if (!figures.empty() && figures[0] < 0) {
      figures.assign(1, 0); // round 0 cannot run: nor can the candidate
      c.priced = NetworkRounds::Candidate::CannotRun;
    }
    c.bound = std::accumulate(figures.begin(), figures.end(), int64_t(0));
    bounds.push_back(std::move(figures));
    exact.push_back(isExact);
    out.candidates.push_back(c);
    modeOf.push_back(bounds.size() - 1);
  };
  if (spreadWorthPricing(req.shape, pairs)) {
    bool isExact = false;
    const unsigned order = rt::kRouteDoubling | rt::kRouteSpread;
    std::vector<int64_t> figures = rt::spreadRounds(
        req.shape, req.src, req.dst, pairs, req.elemBytes, order, isExact);
    addExact(order, std::move(figures), isExact);
  }
  {
    bool isExact = false;
    const unsigned order = rt::kRouteDoubling | rt::kRouteChain;
    std::vector<int64_t> figures = rt::pipelinedChainRounds(
        req.shape, req.src, req.dst, pairs, req.elemBytes, order, isExact);
    addExact(order, std::move(figures), isExact);
  }
  // A mode's rounds as their moves alone (no send's cells written out or
  // sorted by cell), shared by its two keys.
  std::vector<std::optional<std::vector<std::vector<rt::RouteMove>>>> rounds(
      bounds.size());
  // Cheapest bound first, of equal bounds farthest first (the same sends:
  // it wins most often, as in the route's race; on the 10-cube broadcast
  // the scatter in cell order then stops at 441 of its 513), then the
  // listing's order, so the likely winner is timed first and the others
  // stop where they reach it; one listed before the best may tie it and
  // win, so it must reach best + 1.
  std::vector<size_t> byBound(out.candidates.size());
  std::iota(byBound.begin(), byBound.end(), size_t(0));
  std::stable_sort(byBound.begin(), byBound.end(), [&](size_t a, size_t b) {
    const auto rank = [&](size_t i) {
      return std::make_pair(
          out.candidates[i].bound,
          !(out.candidates[i].routeOrder & rt::kRouteFarthestFirst));
    };
    return rank(a) < rank(b);
  });
  for (size_t i : byBound) {
    NetworkRounds::Candidate &c = out.candidates[i];
    if (c.priced == NetworkRounds::Candidate::CannotRun)
      continue;
    const int64_t toBeat = out.best < 0           ? INT64_MAX
                           : i < size_t(out.best) ? out.bestTicks() + 1
                                                  : out.bestTicks();
    const size_t mode = modeOf[i];
    if (c.bound >= toBeat && exact[mode]) {
      c.rounds = bounds[mode]; // losing, but its times are known
      c.total = c.bound;
      continue;
    }
    if (c.bound >= toBeat) {
      c.priced = NetworkRounds::Candidate::Skipped;
      c.total = c.bound;
      continue;
    }
    const size_t roundCount = bounds[mode].size();
    if (exact[mode]) {
      c.rounds = bounds[mode]; // their times
    } else {
      if (!rounds[mode])
        rounds[mode] = rt::doublingRoundMoves(
            req.shape, req.src, req.dst, sources,
            c.routeOrder & ~rt::kRouteFarthestFirst, &cells);
      c.rounds = rt::timeDoublingRoundMoves(
          req.shape, *rounds[mode], req.src, req.dst, sources, &cells,
          req.elemBytes, c.routeOrder, nullptr, toBeat, &bounds[mode]);
    }
    if (!c.rounds.empty() && c.rounds[0] < 0) {
      c.priced = NetworkRounds::Candidate::CannotRun;
      continue;
    }
    c.total = std::accumulate(c.rounds.begin(), c.rounds.end(), int64_t(0));
    if (c.rounds.size() < roundCount || c.total >= toBeat) {
      // Stopped: the rounds timed and the bounds of the rest.
      c.priced = NetworkRounds::Candidate::Stopped;
      c.total = std::accumulate(bounds[mode].begin() + c.rounds.size(),
                                bounds[mode].end(), c.total);
      continue;
    }
    out.best = int(i);
  }
  // Drop those that cannot run, keeping the best's index.
  NetworkRounds kept;
  for (size_t i = 0; i < out.candidates.size(); ++i)
    if (out.candidates[i].priced != NetworkRounds::Candidate::CannotRun) {
      if (int(i) == out.best)
        kept.best = int(kept.candidates.size());
      kept.candidates.push_back(std::move(out.candidates[i]));
    }
  return kept;
}

void mapc::considerNetworkDoubling(const NetworkRounds &rounds, bool routeExact,
                                   rt::GeneralPlan &plan) {
  if (rounds.best < 0 || plan.steps.size() != 1 ||
      plan.steps[0].kind != rt::GeneralStepKind::Route ||
      plan.steps[0].predictedTicks == 0)
    return; // nothing to replicate, none can run, or no element moves
  rt::GeneralStep &step = plan.steps[0];
  const NetworkRounds::Candidate &best = rounds.candidates[size_t(rounds.best)];
  std::string prices;
  for (const NetworkRounds::Candidate &c : rounds.candidates)
    prices += (prices.empty() ? "" : ", ") + c.price();
  if (routeExact && best.total >= step.predictedTicks) {
    step.why += "; replicating in rounds (003 6.2.1) takes at least " +
                std::to_string(best.total) + " (" + prices +
                "): the one route is " +
                (best.total == step.predictedTicks ? "as fast" : "faster");
    return;
  }
  // The route's own prices follow its method's reason.
  const std::string method = "store and forward (001 sec. 2); ";
  const size_t at = step.why.find(method);
  const std::string routePrices =
      at == std::string::npos ? step.why : step.why.substr(at + method.size());
  step.why =
      std::string(best.routeOrder & rt::kRouteSpread
                      ? "each element from its nearest copy to one of its "
                        "nodes, then by recursive halving to a carrier (the "
                        "carriers taking a source's elements in turn: a "
                        "scatter) and back to the others by recursive "
                        "doubling (an all-gather), along the dims (003 "
                        "6.2.1), a carrier's elements taking the dims in "
                        "rotated orders in turn, each round a "
                        "dimension-order route"
                  : best.routeOrder & rt::kRouteScatter
                      ? "each element from its nearest copy to one of its "
                        "nodes, a source's elements taking turns over them "
                        "(a scatter), then to the others by one "
                        "dimension-order route (an all-gather)"
                  : best.routeOrder & rt::kRouteChain
                      ? "each element from its nearest copy to one of its "
                        "nodes, then down chains through the others (003 "
                        "6.2.1), pipelined: each round a node forwards to "
                        "the next the element it took the round before"
                      : "each element from its nearest copy to one of its "
                        "nodes, then to the others by recursive doubling "
                        "along the dims (003 6.2.1), each round a "
                        "dimension-order route") +
      ", store and forward (001 sec. 2); " + best.name() + " beats the one " +
      "route's " + (routeExact ? "" : "at least ") +
      std::to_string(step.predictedTicks) + " ticks: " + prices +
      "; the one route: " + routePrices;
  step.routeOrder = best.routeOrder;
  step.predictedTicks = best.total;
  plan.predictedTicks = best.total;
}
