//===- NetworkReplication.h - replicated copies by recursive doubling -----===//
//
// A Route step whose routeOrder has kRouteDoubling (General.h) fills a
// replicated destination by recursive doubling (003 6.2.1, "Data
// replication") instead of sending every copy from the source:
//
//   round 0    every source copy of an element to the destination node
//              of the element nearest it (a node holding a copy takes it
//              locally), each node fed once, by its nearest such copy;
//   round 1..  each element's nodes split in two along the dim of their
//              widest span, at the coordinate nearest the middle: a half
//              without a copy takes one from the nearest holder of the
//              other half, and both halves go on in the next round, so
//              the distances halve and a round's sends of one element
//              cross no link twice;
//   last       every node copies the element into its other cells of it.
//
// With kRouteScatter too, a scatter and an all-gather instead of the
// doubling: an element with one seed goes in round 0 to a carrier among
// its nodes, the elements of one (source nodes, destination nodes) pair
// taking turns over them, and in round 1 every other node takes it from
// its nearest holder by the one route (van de Geijn's broadcast: each
// link carries a share of a source's elements, not all of them each
// round).
//
// With kRouteSpread instead, a spread: van de Geijn's scatter and
// all-gather in Johnsson and Ho's rotated dims. An element with one seed
// goes from there to a carrier among its nodes by recursive halving, one
// round a split (the doubling's splits): where the half holding the
// carrier lacks it, that half's node nearest the holder takes it; then
// back up by recursive doubling, the deepest split first, each node of
// the other half taking it from its nearest node of the carrier's half.
// The carriers take a pair's elements in turn, and a carrier's elements
// take in turn the rotations of the dims the nodes span (the splits' dims
// from the rotation's first on), so that on a subcube each round's sends
// are one hop and spread evenly over the links: a broadcast of M elements
// to 2^d nodes takes 2 M / d (1 - 2^-d) cycles, the source sending each
// element once. Several seeds: the doubling from them in rotated dims.
//
// With kRouteChain instead, pipelined chains (store and forward): after
// the seeds, each (source nodes, destination nodes) pair's nodes join a
// tree grown breadth first from its seeds, a node's parent a neighbour
// where one is in the tree (a mesh line fed from an end is one chain, from
// inside two), and the pair's elements stream down it: element e reaches
// a node at depth d in round d + e, forwarded by its parent, which took it
// the round before. Each edge carries one element a round, so M elements
// over a chain of L nodes take about M + L - 2 rounds of one hop each.
//
// An element arrives at a node in its first destination cell there, and
// later rounds read it from that cell, so every round reads only cells
// written before it and the step runs in place. Each round is one
// NetworkMachine::run of dimension-order routes (dims up, in destination
// cell order or farthest first), timed by the reservation walk
// (timeRoute) exactly as the machine times it; the step takes the sum.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_NETWORKREPLICATION_H
#define MAPC_RUNTIME_NETWORKREPLICATION_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/Network.h"
#include "mapc/runtime/NetworkExecute.h"

#include <string>
#include <vector>

namespace mapc::rt {

/// With kRouteDoubling in a Route step's order: scatter and gather.
constexpr unsigned kRouteScatter = 16;

/// With kRouteDoubling in a Route step's order: pipelined chains.
constexpr unsigned kRouteChain = 32;

/// With kRouteDoubling in a Route step's order: a spread (a scatter by
/// halving and an all-gather by doubling, in rotated dims).
constexpr unsigned kRouteSpread = 64;

/// One element a doubling round sends, from a device cell (of the step's
/// `from` layout in round 0, of its `to` layout after) to a cell of `to`.
struct DoublingSend {
  int64_t fromCell, toCell;
  uint32_t fromNode, toNode;
};

/// The rounds of the doubling route from `from` to `to` (`sources` is
/// sourcesOf(from, to)): round 0 the seeds, then the doubling rounds (or,
/// with kRouteScatter in `routeOrder`, the gather), then the local copies,
/// each round's sends in destination cell order.
/// `cells`, when given, is replicaCells(to, sources), so that a caller
/// building both modes' rounds reads the elements of `to` once. `flows`,
/// when given, gets each round's routeFlows of its sends that change node,
/// counted per tree of sends rather than per element.
std::vector<std::vector<DoublingSend>>
doublingRounds(const NetworkShape &shape, const TileMap &from,
               const TileMap &to, const std::vector<uint32_t> &sources,
               unsigned routeOrder = kRouteDoubling,
               const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr,
               std::vector<std::vector<RouteFlow>> *flows = nullptr);

/// The moves that change node of each of doublingRounds' rounds (the
/// same arguments), in their order (destination cell), without the sends
/// written out or sorted: what timing the rounds reads.
std::vector<std::vector<RouteMove>> doublingRoundMoves(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder = kRouteDoubling,
    const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr);

/// One pass over a replicated destination's elements, shared by the
/// modes' pricing: each (source nodes, destination nodes) pair with the
/// elements that take it (the trees of every mode follow from these), a
/// node holding an element in two cells, and round 0 of the doubling and
/// the chains (which seed alike), in cell order.
struct ReplicaPairs {
  struct Pair {
    std::vector<uint32_t> sourceNodes, nodes; ///< distinct, ascending
    uint32_t elements;
  };
  std::vector<Pair> pairs;
  std::vector<DoublingSend> seeds;
  bool anyLocal = false;
};

/// The pairs of `to`'s elements (`sources` is sourcesOf(from, to),
/// `cells`, when given, replicaCells(to, sources)).
ReplicaPairs
replicaPairs(const NetworkShape &shape, const TileMap &from, const TileMap &to,
             const std::vector<uint32_t> &sources,
             const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr);

/// doublingRounds' `flows` alone: each round's flows counted per tree,
/// with no send written out.
std::vector<std::vector<RouteFlow>>
doublingRoundFlows(const NetworkShape &shape, const ReplicaPairs &pairs,
                   unsigned routeOrder);
/// The same from the elements.
std::vector<std::vector<RouteFlow>> doublingRoundFlows(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr);

/// Pipelined chains' rounds (`routeOrder` with kRouteChain) from their
/// edges, with no send after round 0 written out: round 0 timed, then for
/// each round the most, over the pairs of nodes an edge joins, of its
/// elements in the round plus its distance less one: the round's time when
/// every edge joins neighbours (`exact`), else a bound on it.
std::vector<int64_t>
pipelinedChainRounds(const NetworkShape &shape, const TileMap &from,
                     const TileMap &to, const ReplicaPairs &pairs,
                     unsigned elemBytes, unsigned routeOrder, bool &exact,
                     std::string *why = nullptr);
/// The same from the elements.
std::vector<int64_t>
pipelinedChainRounds(const NetworkShape &shape, const TileMap &from,
                     const TileMap &to, const std::vector<uint32_t> &sources,
                     unsigned elemBytes, unsigned routeOrder,
                     const std::vector<std::pair<int64_t, int64_t>> *cells,
                     bool &exact, std::string *why = nullptr);

/// A spread's rounds (`routeOrder` with kRouteSpread) from its trees,
/// with no send after round 0 written out: round 0 timed, then each
/// round's busiest link over its sends' dims-up paths (each send counted
/// for the elements of its tree): the round's time when every send goes
/// to a neighbour (`exact`, oneHopRouteCycles), else a bound on it.
std::vector<int64_t> spreadRounds(const NetworkShape &shape,
                                  const TileMap &from, const TileMap &to,
                                  const ReplicaPairs &pairs, unsigned elemBytes,
                                  unsigned routeOrder, bool &exact,
                                  std::string *why = nullptr);

/// timeDoublingRounds of pipelined chains' rounds (`routeOrder` with
/// kRouteChain), without writing them out when every edge of the chains
/// joins neighbours: round 0 timed from its sends, the rounds after from
/// the chains' edges (each edge busy in a run of rounds, a round of one
/// hop taking its busiest link's count); otherwise from the rounds.
std::vector<int64_t> timePipelinedChains(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned elemBytes,
    unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *cells = nullptr,
    std::string *why = nullptr);

/// The held cells of `to` as (element, cell), by element, each element's
/// cells ascending (so by node): what doublingRounds walks.
std::vector<std::pair<int64_t, int64_t>>
replicaCells(const TileMap &to, const std::vector<uint32_t> &sources);

/// The cycles of each round (NetworkMachine::run's on its transfers) in
/// `routeOrder` (its kRouteFarthestFirst: the rounds' keys), or {-1}
/// with `why` when a round cannot run. With `bounds` (doublingRoundBounds),
/// the timing stops once the rounds timed and the bounds of those after
/// take `stopAt` or more: the last round listed then gives what it takes
/// at least (timeRoute's stop), and the rounds after it are not timed.
std::vector<int64_t>
timeDoublingRounds(const NetworkShape &shape,
                   const std::vector<std::vector<DoublingSend>> &rounds,
                   const TileMap &from, const TileMap &to, unsigned elemBytes,
                   unsigned routeOrder, std::string *why = nullptr,
                   int64_t stopAt = INT64_MAX,
                   const std::vector<int64_t> *bounds = nullptr);

/// timeDoublingRounds from doublingRoundMoves' moves: the rounds'
/// sends (doublingRounds of `sources` and `cells` in `routeOrder`) are
/// written only for a round past the reservation walk's memory.
std::vector<int64_t> timeDoublingRoundMoves(
    const NetworkShape &shape, const std::vector<std::vector<RouteMove>> &moves,
    const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources,
    const std::vector<std::pair<int64_t, int64_t>> *cells, unsigned elemBytes,
    unsigned routeOrder, std::string *why = nullptr, int64_t stopAt = INT64_MAX,
    const std::vector<int64_t> *bounds = nullptr);

/// A lower bound on each round's cycles in either key order: the
/// routeOrderBound of its dims-up paths (NetworkExecute.h).
std::vector<int64_t>
doublingRoundBounds(const NetworkShape &shape,
                    const std::vector<std::vector<DoublingSend>> &rounds);
/// The same from each round's flows (doublingRounds' `flows`).
std::vector<int64_t>
doublingRoundBounds(const NetworkShape &shape,
                    const std::vector<std::vector<RouteFlow>> &flows);

/// timeRoute of `moves` when every one goes to a neighbour of its node
/// (one hop, whatever the order: each link takes its moves one a cycle),
/// counted without a walk: the most moves on one link; -1 when a move
/// does not go to a neighbour.
int64_t oneHopRouteCycles(const NetworkShape &shape,
                          const std::vector<RouteMove> &moves);

/// The cycles of the whole doubling route: the sum of its rounds', or -1
/// with `why`.
int64_t timeDoublingRoute(const NetworkShape &shape, const TileMap &from,
                          const TileMap &to,
                          const std::vector<uint32_t> &sources,
                          unsigned elemBytes, unsigned routeOrder,
                          std::string *why = nullptr);

/// The transfers of round `k`: round 0 reads `from` at `readBase`, later
/// rounds read `to` at `writeBase`; every round writes `to` at
/// `writeBase`. A send into the cell it reads is left out.
std::vector<Transfer>
doublingTransfers(const NetworkShape &shape,
                  const std::vector<std::vector<DoublingSend>> &rounds,
                  size_t k, const TileMap &from, const TileMap &to,
                  unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
                  unsigned routeOrder);

/// Runs the doubling route from `from` to `to` on `machine`, round after
/// round; false with `why` when a round cannot run.
bool runDoublingRoute(NetworkMachine &machine, const TileMap &from,
                      const TileMap &to, const std::vector<uint32_t> &sources,
                      unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
                      unsigned routeOrder, std::string *why = nullptr);

} // namespace mapc::rt

#endif
