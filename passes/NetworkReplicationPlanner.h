//===- NetworkReplicationPlanner.h - doubling against the one route -------===//
//
// priceNetworkRounds prices the ways to fill a replicated destination in
// rounds (recursive doubling along the network's dims, a scatter and
// gather, a spread or pipelined chains, runtime/NetworkReplication.h,
// 003 6.2.1)
// before the one dimension-order route's race, whose orders then need only
// beat the best of them; considerNetworkDoubling keeps the cheaper by
// predicted cycles, its `why` giving both.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_NETWORKREPLICATIONPLANNER_H
#define MAPC_PASSES_NETWORKREPLICATIONPLANNER_H

#include "mapc/runtime/NetworkReplication.h"
#include "passes/NetworkGeneralPlanner.h"

namespace mapc {

/// The candidates for filling a replicated destination in rounds, priced.
struct NetworkRounds {
  struct Candidate {
    unsigned routeOrder;
    std::vector<int64_t> rounds; ///< each round's cycles, as far as timed
    int64_t bound = 0;           ///< its rounds' bounds summed
    int64_t total = 0;           ///< its cycles, or what it takes at least
    /// CannotRun: past the simulator's limits; dropped from the listing.
    enum { Exact, Stopped, Skipped, CannotRun } priced = Exact;
    std::string name() const;
    /// "doubling 32 (0 + 11 + 11 + 10)", "pipelined chain 15 (0 + 15
    /// rounds of 1)", or "... at least N (...)".
    std::string price() const;
  };
  std::vector<Candidate> candidates; ///< the listing order; none: no rounds
  int best = -1; ///< the fastest, the first of equals in the listing
  /// The best's cycles; INT64_MAX without one.
  int64_t bestTicks() const {
    return best < 0 ? INT64_MAX : candidates[size_t(best)].total;
  }
};

/// When the destination of `req` replicates: doubling, then scatter and
/// gather, each in destination cell order and farthest first, then a
/// spread when spreadWorthPricing, then pipelined chains (those two in
/// cell order; their bounds from their trees, spreadRounds and
/// pipelinedChainRounds, are their times when every send after the seeds
/// goes to a neighbour),
/// priced from the lowest bound (its rounds' routeOrderBounds summed) up,
/// each timing stopped once it cannot beat the best in hand, and a
/// candidate whose bound cannot beat it not timed at all. The choice is the
/// one timing every candidate in full would make. `sources` is
/// sourcesOf(src, dst), `cells` replicaCells(dst, sources).
NetworkRounds
priceNetworkRounds(const NetworkGeneralPlanRequest &req,
                   const std::vector<uint32_t> &sources,
                   const std::vector<std::pair<int64_t, int64_t>> &cells);

/// Whether priceNetworkRounds prices a spread (kRouteSpread): on a cube,
/// when each pair's nodes fill at least half of the subcube they span, so
/// that its halving and doubling send mostly between neighbours. Where
/// they lie apart (a row of 31 x 33 nodes numbered by columns, 31 apart),
/// each of its sends crosses several links and it loses to the scatter and
/// gather; on a mesh the chains stream a line faster.
bool spreadWorthPricing(const rt::NetworkShape &shape,
                        const rt::ReplicaPairs &pairs);

/// `plan` is planNetworkGeneralRemap's one Route step for `req`, raced
/// against `rounds`: the step takes the best of `rounds` when it is
/// faster (ties go to the route), and its `why` lists both. Without
/// `routeExact`, no route order beat the rounds and the step's time is
/// what the route takes at least.
void considerNetworkDoubling(const NetworkRounds &rounds, bool routeExact,
                             rt::GeneralPlan &plan);

} // namespace mapc

#endif
