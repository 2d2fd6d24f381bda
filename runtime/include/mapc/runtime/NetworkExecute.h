//===- NetworkExecute.h - running plans on the simulated cube or mesh -----===//
//
// Plans for network machines have two step kinds (Plan.h): Exchange steps,
// routed by 001's schedules (ExchangeSchedule.h), and Route steps, every
// element sent to its destination node by dimension-order routing. Both
// become one list of element transfers that NetworkMachine::run moves and
// times: element transfers in sequence, link contention counted (001 sec. 2).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_NETWORKEXECUTE_H
#define MAPC_RUNTIME_NETWORKEXECUTE_H

#include "mapc/runtime/Execute.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/Network.h"

#include <array>
#include <memory>
#include <optional>
#include <utility>

namespace mapc::rt {

/// The transfers of one step, reading at `readBase` and writing at
/// `writeBase` (they differ in the first step of a copy). `before` is the
/// layout the step starts from: only addresses holding data move.
std::vector<Transfer>
networkStepTransfers(const NetworkShape &shape, const Step &step,
                     const AffineLayout &before, unsigned elemBytes,
                     uint64_t readBase, uint64_t writeBase);

/// The cycles a step takes: the same transfers, timed on an empty machine.
int64_t simulateNetworkStep(const NetworkShape &shape, const Step &step,
                            const AffineLayout &before, unsigned elemBytes);

/// Called after each step with the step's number (from 1).
using NetworkStepObserver = std::function<void(unsigned step)>;

/// Carries out `plan` (Exchange and Route steps only). In-place plans work
/// in `dst`; copy plans read `src` in the first step.
bool executeNetworkPlan(NetworkMachine &machine, const Plan &plan,
                        Regions regions,
                        const NetworkStepObserver &observer = {},
                        std::string *why = nullptr);

//===----------------------------------------------------------------------===//
// General plans on a network (003 ch. 6; NetworkGeneral.cpp)
//===----------------------------------------------------------------------===//
//
// A layout that is not a radix-2 bit map (an HPF distribution on 3 x 5
// nodes, a digit map, a k-Tile with templates and offsets), or a mesh whose
// sides are not powers of two, takes a general plan (General.h) of Route
// steps. A node is a PE: a layout's PE dims flatten, first fastest, to the
// node number, as the mesh numbers its nodes. A Route step takes every held
// cell of its `to` layout from the cell of the layout before that holds its
// element (the nearest copy when the source is replicated), by
// dimension-order routing; every source is read before any destination is
// written, so a Route step runs in place. Its time is NetworkMachine::run's
// on the same transfers, so prediction and simulation agree.

/// The transfers of a route from `from` to `to`: one per held cell of `to`
/// whose element comes from another node or cell, reading at `readBase` and
/// writing at `writeBase`. `sources` is sourcesOf(from, to); `routeOrder`
/// is GeneralStep::routeOrder (dims ascending or descending; at a contended
/// link the first transfer, or the one with the longest path, first).
std::vector<Transfer>
generalRouteTransfers(const NetworkShape &shape, const TileMap &from,
                      const TileMap &to, const std::vector<uint32_t> &sources,
                      unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
                      unsigned routeOrder = 0);

/// An element of a Route step that changes node.
struct RouteMove {
  uint32_t from, to;
};

/// The moves of generalRouteTransfers' transfers that change node, in their
/// order (the nearest copy of a replicated source found once, for every
/// route order).
std::vector<RouteMove> generalRouteMoves(const NetworkShape &shape,
                                         const TileMap &from, const TileMap &to,
                                         const std::vector<uint32_t> &sources);

/// generalRouteMoves(shape, from, to, sourcesOf(from, to)) read off the
/// layouts' runs and periods (MoveCounts.h) without the table of sources:
/// each family of elements has one source node and its destination cells
/// follow from its slots. Nothing when a layout replicates or is not of
/// that kind, or when its families are too many for the elements.
std::optional<std::vector<RouteMove>>
generalRouteMovesByRuns(const TileMap &from, const TileMap &to);

/// The cells of `to` that take their element from another cell (another
/// PE or slot) and the held ones, analyseMove(from, to, sourcesOf(from,
/// to))'s moved and held, read off the runs as generalRouteMovesByRuns
/// reads the moves (any two layouts, on any machine): nothing where it
/// gives nothing.
std::optional<std::pair<int64_t, int64_t>>
moveFiguresByRuns(const TileMap &from, const TileMap &to);

/// The cycles NetworkMachine::run takes on generalRouteTransfers' transfers
/// in `routeOrder`, by the reservation walk of NetworkTiming.h on paths
/// built one at a time (no transfer list); -1 past the walk's memory cap.
/// The walk stops once the elements done take `stopAt` cycles or more, and
/// returns what they take: a time the whole route cannot beat.
int64_t timeRoute(const NetworkShape &shape,
                  const std::vector<RouteMove> &moves, unsigned routeOrder,
                  int64_t stopAt = INT64_MAX);

/// timeRoute's walk, resumable: the planner races the route orders,
/// advancing the one with the least time so far and dropping those that
/// reach the best, so each walk goes on from where it stopped.
class RouteWalk {
public:
  /// `farthestFirst`, when given for a farthest-first order, is
  /// routeFarthestFirstKeys(shape, moves), kept alive by the caller: the
  /// walks of every farthest-first order share it.
  RouteWalk(const NetworkShape &shape, const std::vector<RouteMove> &moves,
            unsigned routeOrder,
            const std::vector<uint32_t> *farthestFirst = nullptr);
  RouteWalk(RouteWalk &&) noexcept;
  RouteWalk &operator=(RouteWalk &&) noexcept;
  ~RouteWalk();

  /// Walks on, in key order, until every move is walked or the moves
  /// walked take `stopAt` cycles or more; returns the cycles they take
  /// (a time the whole route cannot beat), or -1 past the walk's memory
  /// cap.
  int64_t advance(int64_t stopAt = INT64_MAX);
  /// Every move walked: the time so far is the route's.
  bool finished() const;
  /// The cycles the moves walked so far take.
  int64_t timeSoFar() const;
  /// The moves walked so far.
  size_t walked() const;

private:
  struct State;
  std::unique_ptr<State> state;
};

/// The moves' indices in the key order of kRouteFarthestFirst (the
/// longest paths first, index order within a length), which is the same
/// in every dimension order: paths as long as the distance.
std::vector<uint32_t>
routeFarthestFirstKeys(const NetworkShape &shape,
                       const std::vector<RouteMove> &moves);

/// The directed links (node x linksPerNode + slot, NetworkTiming.h) that
/// an element from node `from` to node `to` crosses in `routeOrder`, in
/// order: generalRouteTransfers' path, as timeRoute and routeOrderBound
/// walk it without building it.
std::vector<size_t> routeLinks(const NetworkShape &shape, uint32_t from,
                               uint32_t to, unsigned routeOrder);

/// The elements of a route that share a source and a destination node.
struct RouteFlow {
  uint32_t from, to, count;
};
/// The flows of `moves`, by source node and each source's by destination.
std::vector<RouteFlow> routeFlows(const NetworkShape &shape,
                                  const std::vector<RouteMove> &moves);

/// routeFlows(shape, generalRouteMoves(shape, from, to, sources)) without
/// the moves kept: counted as they come, by destination.
std::vector<RouteFlow> generalRouteFlows(const NetworkShape &shape,
                                         const TileMap &from, const TileMap &to,
                                         const std::vector<uint32_t> &sources);

/// A lower bound on timeRoute for `routeOrder`, from its paths alone: for
/// every directed link, the fewest hops an element crossing it makes
/// before it, the elements crossing it (one a cycle), and the fewest hops
/// one of them makes after it. Work in flows times path length.
int64_t routeOrderBound(const NetworkShape &shape,
                        const std::vector<RouteFlow> &flows,
                        unsigned routeOrder);

/// routeOrderBound of every order on a cube of two dims or more, indexed
/// by the order (farthest first shares its order's bound), in one pass
/// over the flows: each flow's differing bits are taken once, and every
/// order's link and hops before it follow from a bit's rank. With
/// `lowerBound`, networkGeneralLowerBound(shape, flows) into it from the
/// same pass: the cuts are dims up's link loads.
std::array<int64_t, 8>
routeOrderBoundsOnCube(const NetworkShape &shape,
                       const std::vector<RouteFlow> &flows,
                       int64_t *lowerBound = nullptr);

/// The cycles step i of `plan` takes on `shape` (it must be a Route step),
/// or -1 with `why` when it cannot run there.
int64_t predictNetworkGeneralStep(
    const NetworkShape &shape, const GeneralPlan &plan, size_t i,
    const std::vector<uint32_t> *sources = nullptr, std::string *why = nullptr);

/// The least cycles any schedule of element transfers can take (001's
/// model): the longest distance an element must travel to its nearest copy;
/// for every node the distinct elements it must receive (and, when the
/// source has one copy of each element, send) over its links, one per link
/// and cycle; and, when neither layout replicates, for every cut of a dim
/// the elements crossing it each way over its nodes / P_i links.
/// With `cells` (replicaCells(dst, sources), NetworkReplication.h) when the
/// destination replicates, the same bound from them: no data index per cell.
int64_t networkGeneralLowerBound(
    const NetworkShape &shape, const TileMap &src, const TileMap &dst,
    const std::vector<uint32_t> *sources = nullptr,
    const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr);
/// The same bound when neither layout replicates, from the flows of the
/// route's moves (routeFlows): work in flows, not in elements.
int64_t networkGeneralLowerBound(const NetworkShape &shape,
                                 const std::vector<RouteFlow> &flows);

/// Carries out a general plan of Route steps on the network, calling
/// `observer` after each (step number from 1, the layout now held). The
/// same call as the MasPar's, so emitted code runs on either machine.
bool executeGeneralPlan(
    NetworkMachine &machine, const GeneralPlan &plan, const Regions &regions,
    const std::function<void(unsigned, const TileMap &)> &observer = {},
    std::string *why = nullptr);

} // namespace mapc::rt

#endif
