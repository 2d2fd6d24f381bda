//===- NetworkReplication.cpp - replicated copies by recursive doubling ---===//
//
// The doubling route of NetworkReplication.h: each element's tree of sends
// is built once per (source nodes, destination nodes) pair, which HPF
// layouts share between many elements, and the rounds are timed by the
// route's reservation walk.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkReplication.h"

#include "NodeCoords.h"
#include "mapc/runtime/NetworkExecute.h"

#include <algorithm>
#include <map>

using namespace mapc::rt;

namespace {

/// One element's sends between nodes: round 0's seeds (a source node to a
/// destination node, the same node when it holds a source copy) and the
/// doubling's sends, rounds from 1. `fromAt` and `toAt` are the nodes'
/// places in the tree's key (the source nodes for round 0's sender, else
/// the destination nodes), the same for every element of the key, so its
/// cells are found without a search.
struct Tree {
  struct Send {
    uint32_t round, from, to, fromAt, toAt;
  };
  std::vector<Send> sends;
};

/// Builds the trees: nodes' coordinates from a NodeCoords (no division per
/// coordinate) and the trees met so far.
class TreeBuilder {
public:
  explicit TreeBuilder(const NetworkShape &shape)
      : dims(unsigned(shape.dims.size())), table(shape) {}

  /// The tree of an element held on `sourceNodes` (distinct, ascending)
  /// and bound for `nodes` (distinct, ascending). When `scatter`, the
  /// elements of one (sources, nodes) pair take turns at its carrier node.
  const Tree &tree(const std::vector<uint32_t> &sourceNodes,
                   const std::vector<uint32_t> &nodes, bool scatter) {
    key.assign(sourceNodes.begin(), sourceNodes.end());
    key.push_back(~uint32_t(0));
    key.insert(key.end(), nodes.begin(), nodes.end());
    uint32_t carrier = 0;
    if (scatter) {
      carrier = uint32_t(uses[key]++ % nodes.size());
      key.push_back(~uint32_t(0));
      key.push_back(carrier);
    }
    auto [it, added] = trees.try_emplace(key);
    if (added && scatter)
      buildScatter(sourceNodes, nodes, carrier, it->second);
    else if (added)
      build(sourceNodes, nodes, it->second);
    return it->second;
  }

private:
  struct Member {
    uint32_t node, at; ///< at: its place in the destination nodes
    bool holder;
  };

  uint32_t coord(uint32_t node, unsigned dim) const {
    return table.coord(node, dim);
  }
  unsigned distance(uint32_t a, uint32_t b) const {
    return table.distance(a, b);
  }

  /// Round 0: every source copy seeds the destination node nearest it
  /// (the first of the nearest), fed by the nearest of the copies that
  /// pick it, so a replicated source seeds as many nodes as the one route
  /// would feed from distinct copies, and a destination node holding a
  /// copy takes it locally. Then the doubling from the seeds.
  void build(const std::vector<uint32_t> &sourceNodes,
             const std::vector<uint32_t> &nodes, Tree &tree) {
    members.clear();
    for (size_t k = 0; k < nodes.size(); ++k)
      members.push_back({nodes[k], uint32_t(k), false});
    seed(sourceNodes, nodes);
    for (size_t k = 0; k < nodes.size(); ++k)
      if (seededBy[k].first != ~0u) {
        tree.sends.push_back({0, sourceNodes[seededBy[k].second], nodes[k],
                              seededBy[k].second, uint32_t(k)});
        members[k].holder = true;
      }
    grow(members.data(), members.data() + members.size(), 1, tree);
  }

  /// Scatter and gather (a broadcast as a scatter and an all-gather): a
  /// single seed goes to the carrier node nodes[carrier] instead, so that
  /// the elements of one source spread over their nodes, and in round 1
  /// every other node takes it from there by the one route. Several seeds
  /// stay, and the other nodes take the element from the nearest of them.
  void buildScatter(const std::vector<uint32_t> &sourceNodes,
                    const std::vector<uint32_t> &nodes, uint32_t carrier,
                    Tree &tree) {
    seed(sourceNodes, nodes);
    std::vector<uint32_t> holders; // places in `nodes`
    if (std::count_if(seededBy.begin(), seededBy.end(),
                      [](const auto &p) { return p.first != ~0u; }) == 1) {
      const auto it =
          std::find_if(seededBy.begin(), seededBy.end(),
                       [](const auto &p) { return p.first != ~0u; });
      seededBy[carrier] = {0, it->second};
      if (size_t(it - seededBy.begin()) != carrier)
        it->first = ~0u;
    }
    for (size_t k = 0; k < nodes.size(); ++k)
      if (seededBy[k].first != ~0u) {
        tree.sends.push_back({0, sourceNodes[seededBy[k].second], nodes[k],
                              seededBy[k].second, uint32_t(k)});
        holders.push_back(uint32_t(k));
      }
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (seededBy[k].first != ~0u)
        continue;
      uint32_t from = holders[0];
      for (uint32_t h : holders)
        if (distance(nodes[h], nodes[k]) < distance(nodes[from], nodes[k]))
          from = h;
      tree.sends.push_back({1, nodes[from], nodes[k], from, uint32_t(k)});
    }
  }

  /// Round 0's seeds into seededBy (per node: distance, the source node's
  /// place in `sourceNodes`; ~0u for none): every source copy picks the
  /// destination node nearest it (the first of the nearest), fed by the
  /// nearest copy that picks it.
  void seed(const std::vector<uint32_t> &sourceNodes,
            const std::vector<uint32_t> &nodes) {
    seededBy.assign(nodes.size(), {~0u, 0});
    for (size_t i = 0; i < sourceNodes.size(); ++i) {
      unsigned best = ~0u;
      size_t at = 0;
      for (size_t k = 0; k < nodes.size(); ++k)
        if (unsigned d = distance(sourceNodes[i], nodes[k]); d < best) {
          best = d;
          at = k;
        }
      if (best < seededBy[at].first)
        seededBy[at] = {best, uint32_t(i)};
    }
  }

  /// Fills [first, last) from its holders, sends from `round` on: split at
  /// the coordinate nearest the middle of the widest dim; a half without a
  /// copy takes one from the other's nearest holder, then both go on.
  void grow(Member *first, Member *last, uint32_t round, Tree &tree) {
    const size_t n = size_t(last - first);
    auto held = [](const Member &m) { return m.holder; };
    if (n < 2 || std::all_of(first, last, held))
      return;
    unsigned dim = 0;
    uint32_t widest = 0;
    for (unsigned i = 0; i < dims; ++i) {
      auto [lo, hi] = std::minmax_element(
          first, last, [&](const Member &a, const Member &b) {
            return coord(a.node, i) < coord(b.node, i);
          });
      if (coord(hi->node, i) - coord(lo->node, i) > widest) {
        widest = coord(hi->node, i) - coord(lo->node, i);
        dim = i;
      }
    }
    std::sort(first, last, [&](const Member &a, const Member &b) {
      return std::make_pair(coord(a.node, dim), a.node) <
             std::make_pair(coord(b.node, dim), b.node);
    });
    // Distinct nodes differ in some dim: the widest has a step.
    size_t split = 0, gap = ~size_t(0);
    for (size_t j = 1; j < n; ++j)
      if (coord(first[j - 1].node, dim) != coord(first[j].node, dim)) {
        const size_t g = 2 * j > n ? 2 * j - n : n - 2 * j;
        if (g < gap) {
          gap = g;
          split = j;
        }
      }
    Member *mid = first + split;
    const bool low = std::any_of(first, mid, held),
               high = std::any_of(mid, last, held);
    if (low && high) {
      grow(first, mid, round, tree);
      grow(mid, last, round, tree);
      return;
    }
    Member *from = low ? first : mid, *fromEnd = low ? mid : last;
    Member *to = low ? mid : first, *toEnd = low ? last : mid;
    unsigned best = ~0u;
    Member *sender = nullptr, *receiver = nullptr;
    for (Member *h = from; h != fromEnd; ++h)
      if (h->holder)
        for (Member *y = to; y != toEnd; ++y)
          if (unsigned d = distance(h->node, y->node); d < best) {
            best = d;
            sender = h;
            receiver = y;
          }
    tree.sends.push_back(
        {round, sender->node, receiver->node, sender->at, receiver->at});
    receiver->holder = true;
    grow(from, fromEnd, round + 1, tree);
    grow(to, toEnd, round + 1, tree);
  }

  unsigned dims;
  NodeCoords table;
  std::vector<Member> members;
  std::vector<std::pair<unsigned, uint32_t>> seededBy;
  std::vector<uint32_t> key;
  std::map<std::vector<uint32_t>, Tree> trees;
  std::map<std::vector<uint32_t>, uint32_t> uses; ///< elements per pair
};

/// Sorts (element, cell) pairs listed by cell: by element, each
/// element's cells ascending, by counting when the elements are few
/// enough (the sort took a quarter of the planning).
void sortByElement(std::vector<std::pair<int64_t, int64_t>> &cells,
                   int64_t elements) {
  if (elements <= 0 || uint64_t(elements) > 4 * cells.size() + 1024) {
    std::sort(cells.begin(), cells.end());
    return;
  }
  std::vector<uint32_t> start(size_t(elements) + 1, 0);
  for (const auto &c : cells)
    ++start[size_t(c.first) + 1];
  for (size_t d = 0; d < size_t(elements); ++d)
    start[d + 1] += start[d];
  std::vector<std::pair<int64_t, int64_t>> sorted(cells.size());
  for (const auto &c : cells)
    sorted[start[size_t(c.first)]++] = c;
  cells.swap(sorted);
}

/// Sorts each round's sends by destination cell (distinct within a
/// round, below `cells`), by placing each at its cell.
void sortByCell(std::vector<std::vector<DoublingSend>> &rounds, size_t cells) {
  constexpr uint32_t kEmpty = ~uint32_t(0);
  std::vector<uint32_t> at(cells, kEmpty);
  std::vector<DoublingSend> sorted;
  for (std::vector<DoublingSend> &r : rounds) {
    for (size_t i = 0; i < r.size(); ++i)
      at[size_t(r[i].toCell)] = uint32_t(i);
    sorted.clear();
    for (uint32_t &i : at)
      if (i != kEmpty) {
        sorted.push_back(r[i]);
        i = kEmpty;
      }
    r.swap(sorted);
  }
}

} // namespace

std::vector<std::vector<DoublingSend>> mapc::rt::doublingRounds(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *given) {
  const bool scatter = routeOrder & kRouteScatter;
  const int64_t fromSlots = slotsOf(from), toSlots = slotsOf(to);
  std::vector<std::pair<int64_t, int64_t>> owned;
  if (!given)
    owned = replicaCells(to, sources);
  const std::vector<std::pair<int64_t, int64_t>> &cells =
      given ? *given : owned;
  TreeBuilder builder(shape);
  std::vector<std::vector<DoublingSend>> rounds(1);
  std::vector<DoublingSend> local; // the last round
  std::vector<uint32_t> nodes, sourceNodes;
  std::vector<int64_t> arrival, copies, sourceCells;
  for (size_t first = 0; first < cells.size();) {
    const int64_t d = cells[first].first;
    size_t last = first;
    nodes.clear();
    arrival.clear();
    for (; last < cells.size() && cells[last].first == d; ++last) {
      const int64_t b = cells[last].second;
      const uint32_t n = uint32_t(b / toSlots);
      if (nodes.empty() || nodes.back() != n) {
        nodes.push_back(n);
        arrival.push_back(b);
      } else {
        local.push_back({arrival.back(), b, n, n});
      }
    }
    // The source copies, the first cell of each node.
    copies.clear();
    if (from.replicates())
      from.addressesOf(d, copies);
    else
      copies.push_back(sources[size_t(cells[first].second)]);
    std::vector<std::pair<uint32_t, int64_t>> byNode;
    for (int64_t a : copies)
      byNode.push_back({uint32_t(a / fromSlots), a});
    std::sort(byNode.begin(), byNode.end());
    sourceNodes.clear();
    sourceCells.clear();
    for (const auto &[n, a] : byNode)
      if (sourceNodes.empty() || sourceNodes.back() != n) {
        sourceNodes.push_back(n);
        sourceCells.push_back(a);
      }
    for (const Tree::Send &s :
         builder.tree(sourceNodes, nodes, scatter).sends) {
      if (rounds.size() <= s.round)
        rounds.resize(s.round + 1);
      const int64_t read =
          s.round == 0 ? sourceCells[s.fromAt] : arrival[s.fromAt];
      rounds[s.round].push_back({read, arrival[s.toAt], s.from, s.to});
    }
    first = last;
  }
  if (!local.empty())
    rounds.push_back(std::move(local));
  sortByCell(rounds, sources.size());
  return rounds;
}

std::vector<std::pair<int64_t, int64_t>>
mapc::rt::replicaCells(const TileMap &to,
                       const std::vector<uint32_t> &sources) {
  std::vector<std::pair<int64_t, int64_t>> cells;
  for (int64_t b = 0; b < int64_t(sources.size()); ++b)
    if (sources[size_t(b)] != kNoSource)
      cells.push_back({to.dataAt(b), b});
  sortByElement(cells, to.dataSize());
  return cells;
}

std::vector<Transfer> mapc::rt::doublingTransfers(
    const NetworkShape &shape,
    const std::vector<std::vector<DoublingSend>> &rounds, size_t k,
    const TileMap &from, const TileMap &to, unsigned elemBytes,
    uint64_t readBase, uint64_t writeBase, unsigned routeOrder) {
  const int64_t readSlots = k == 0 ? slotsOf(from) : slotsOf(to),
                toSlots = slotsOf(to);
  const uint64_t base = k == 0 ? readBase : writeBase;
  const unsigned diameter = shape.diameter();
  std::vector<Transfer> out;
  out.reserve(rounds[k].size());
  for (const DoublingSend &s : rounds[k]) {
    Transfer t;
    t.node = s.fromNode;
    t.byteAddr = base + uint64_t(s.fromCell % readSlots) * elemBytes;
    t.destNode = s.toNode;
    t.destByteAddr = writeBase + uint64_t(s.toCell % toSlots) * elemBytes;
    if (t.node == t.destNode && t.byteAddr == t.destByteAddr)
      continue; // already in its cell
    // Dims up, as timeRoute's order 0 (and farthest first) routes.
    t.path = dimensionOrderPath(shape, t.node, t.destNode);
    if (routeOrder & kRouteFarthestFirst)
      for (Hop &h : t.path)
        h.priority = uint32_t(diameter - pathLength(t.path));
    out.push_back(std::move(t));
  }
  return out;
}

/// The moves of round `k` that change node.
static void roundMoves(const std::vector<DoublingSend> &round,
                       std::vector<RouteMove> &moves) {
  moves.clear();
  for (const DoublingSend &s : round)
    if (s.fromNode != s.toNode)
      moves.push_back({s.fromNode, s.toNode});
}

std::vector<int64_t> mapc::rt::timeDoublingRounds(
    const NetworkShape &shape,
    const std::vector<std::vector<DoublingSend>> &rounds, const TileMap &from,
    const TileMap &to, unsigned elemBytes, unsigned routeOrder,
    std::string *why, int64_t stopAt, const std::vector<int64_t> *bounds) {
  // What the rounds after k take at least, and the total so far.
  std::vector<int64_t> after(rounds.size() + 1, 0);
  if (bounds)
    for (size_t k = rounds.size(); k-- > 0;)
      after[k] = after[k + 1] + (*bounds)[k];
  int64_t sum = 0;
  std::vector<int64_t> out;
  std::vector<RouteMove> moves;
  for (size_t k = 0; k < rounds.size(); ++k) {
    roundMoves(rounds[k], moves);
    // Round k stops where it, the rounds before and the bounds of those
    // after reach stopAt.
    const int64_t stop =
        bounds && stopAt != INT64_MAX ? stopAt - sum - after[k + 1] : INT64_MAX;
    int64_t t = timeRoute(shape, moves, routeOrder & kRouteFarthestFirst,
                          std::max<int64_t>(stop, 1));
    if (t < 0) {
      // Past the reservation walk's memory: simulate the cycles.
      NetworkMachine probe(
          shape, uint64_t(std::max(slotsOf(from), slotsOf(to))) * elemBytes);
      t = probe.run(doublingTransfers(shape, rounds, k, from, to, elemBytes, 0,
                                      0, routeOrder),
                    elemBytes, why);
      if (t < 0)
        return {-1};
    }
    out.push_back(t);
    sum += t;
    if (bounds && sum + after[k + 1] >= stopAt)
      break;
  }
  return out;
}

std::vector<int64_t> mapc::rt::doublingRoundBounds(
    const NetworkShape &shape,
    const std::vector<std::vector<DoublingSend>> &rounds) {
  std::vector<int64_t> out;
  std::vector<RouteMove> moves;
  for (const std::vector<DoublingSend> &round : rounds) {
    roundMoves(round, moves);
    out.push_back(moves.empty()
                      ? 0
                      : routeOrderBound(shape, routeFlows(shape, moves), 0));
  }
  return out;
}

int64_t mapc::rt::timeDoublingRoute(const NetworkShape &shape,
                                    const TileMap &from, const TileMap &to,
                                    const std::vector<uint32_t> &sources,
                                    unsigned elemBytes, unsigned routeOrder,
                                    std::string *why) {
  int64_t total = 0;
  for (int64_t t : timeDoublingRounds(
           shape, doublingRounds(shape, from, to, sources, routeOrder), from,
           to, elemBytes, routeOrder, why)) {
    if (t < 0)
      return -1;
    total += t;
  }
  return total;
}

bool mapc::rt::runDoublingRoute(NetworkMachine &machine, const TileMap &from,
                                const TileMap &to,
                                const std::vector<uint32_t> &sources,
                                unsigned elemBytes, uint64_t readBase,
                                uint64_t writeBase, unsigned routeOrder,
                                std::string *why) {
  const auto rounds =
      doublingRounds(machine.shape(), from, to, sources, routeOrder);
  for (size_t k = 0; k < rounds.size(); ++k) {
    std::string reason;
    if (machine.run(doublingTransfers(machine.shape(), rounds, k, from, to,
                                      elemBytes, readBase, writeBase,
                                      routeOrder),
                    elemBytes, &reason) < 0) {
      if (why)
        *why = "doubling round " + std::to_string(k) + ": " + reason;
      return false;
    }
  }
  return true;
}
