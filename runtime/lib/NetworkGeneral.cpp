//===- NetworkGeneral.cpp - general plans on the hypercube or mesh --------===//
//
// Route steps (NetworkExecute.h): the element move between two rt::TileMap
// layouts of any shape, as store-and-forward transfers that
// NetworkMachine::run carries and times (001's model).
//
//===----------------------------------------------------------------------===//
#include "CountingSort.h"
#include "MoveRuns.h"
#include "NodeCoords.h"
#include "mapc/runtime/FastDivide.h"
#include "mapc/runtime/MoveCounts.h"
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/NetworkReplication.h"
#include "mapc/runtime/NetworkTiming.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace mapc::rt;

namespace {

/// The copy of data element `d` in `from` nearest to `node` (the first of
/// the nearest when several are), as a device cell.
int64_t nearestCopy(const NetworkShape &shape, const TileMap &from, int64_t d,
                    uint32_t node, std::vector<int64_t> &scratch) {
  scratch.clear();
  from.addressesOf(d, scratch);
  const int64_t slots = slotsOf(from);
  int64_t best = scratch[0];
  unsigned bestDist = ~0u;
  for (int64_t a : scratch) {
    unsigned dist = shape.distance(uint32_t(a / slots), node);
    if (dist < bestDist) {
      bestDist = dist;
      best = a;
    }
  }
  return best;
}

/// The paths of a route order (generalRouteTransfers), built from a table
/// of node coordinates on a mesh and the differing bits on a cube, without
/// a division per coordinate: the planner builds one per element and order.
class RoutePaths {
public:
  explicit RoutePaths(const NetworkShape &shape)
      : shape(shape), dims(unsigned(shape.dims.size())),
        diameter(shape.diameter()), nodes(shape) {}

  unsigned coord(uint32_t node, unsigned dim) const {
    return nodes.coord(node, dim);
  }
  /// A mesh node's coordinates (dims of them).
  const uint32_t *coordsOf(uint32_t node) const { return nodes.coordsOf(node); }
  /// NetworkShape::distance without its divisions.
  unsigned distance(uint32_t a, uint32_t b) const {
    return nodes.distance(a, b);
  }

  /// The path from `from` to `to` in `routeOrder` (replaces `path`):
  /// dimension order (dimensionOrderPath), the dims reversed when
  /// kRouteDimsDown, started at dim (from mod dims) when kRouteRotated, and
  /// every hop ranked by the path's length when kRouteFarthestFirst.
  void build(uint32_t from, uint32_t to, unsigned routeOrder,
             std::vector<Hop> &path) const {
    path.clear();
    if (shape.cube) {
      for (uint32_t diff = from ^ to; diff; diff &= diff - 1) {
        const unsigned i = unsigned(__builtin_ctz(diff));
        Hop h{uint8_t(i), int8_t((to >> i) & 1 ? 1 : -1), 0};
        path.push_back(h);
      }
    } else {
      const uint32_t *at = nodes.coordsOf(from), *end = nodes.coordsOf(to);
      for (unsigned i = 0; i < dims; ++i) {
        const int x = int(at[i]);
        const int y = int(end[i]);
        if (x == y)
          continue;
        Hop h{uint8_t(i), int8_t(y > x ? 1 : -1), 0};
        h.count = uint32_t(y > x ? y - x : x - y);
        path.push_back(h);
      }
    }
    if (routeOrder & kRouteDimsDown)
      std::reverse(path.begin(), path.end());
    if ((routeOrder & kRouteRotated) && !path.empty()) {
      // Start in the first run at or after dim (node mod dims), in the
      // path's own direction, so that sources spread over the dims.
      const unsigned first = from % dims;
      const bool down = routeOrder & kRouteDimsDown;
      auto it = std::find_if(path.begin(), path.end(), [&](const Hop &h) {
        return down ? h.dim <= first : h.dim >= first;
      });
      std::rotate(path.begin(), it, path.end());
    }
    if (routeOrder & kRouteFarthestFirst) {
      const uint32_t rank = uint32_t(diameter - pathLength(path));
      for (Hop &h : path)
        h.priority = rank;
    }
  }

private:
  const NetworkShape &shape;
  unsigned dims, diameter;
  NodeCoords nodes;
};

/// The shape and order flags that pick a path's links, fixed at compile
/// time: the hot loops (the walks, the order bounds) dispatch once
/// (RouteLinks::dispatch), not on the flags at every hop.
template <bool Cube, bool Down, bool Rotated> struct PathKind {
  static constexpr bool cube = Cube, down = Down, rotated = Rotated;
};

/// The directed links (node x linksPerNode + slot) of RoutePaths::build's
/// path, visited in order without building it: the timing walks and the
/// order bounds take every element's or flow's path, so a path costs no
/// vector, no reverse or rotate, and a link costs no Hop.
class RouteLinks {
public:
  explicit RouteLinks(const NetworkShape &shape)
      : shape(shape), dims(unsigned(shape.dims.size())),
        perNode(linksPerNode(shape)), strides(nodeStrides(shape)),
        byDims(std::max(1u, dims)), paths(shape) {}

  const RoutePaths &table() const { return paths; }

  /// Calls body(PathKind<...>{}) for the shape and `routeOrder`
  /// (kRouteFarthestFirst ignored: it ranks, it does not route).
  template <class Body>
  decltype(auto) dispatch(unsigned routeOrder, Body &&body) const {
    const bool down = routeOrder & kRouteDimsDown,
               rotated = routeOrder & kRouteRotated;
    if (shape.cube) {
      if (down)
        return rotated ? body(PathKind<true, true, true>{})
                       : body(PathKind<true, true, false>{});
      return rotated ? body(PathKind<true, false, true>{})
                     : body(PathKind<true, false, false>{});
    }
    if (down)
      return rotated ? body(PathKind<false, true, true>{})
                     : body(PathKind<false, true, false>{});
    return rotated ? body(PathKind<false, false, true>{})
                   : body(PathKind<false, false, false>{});
  }

  /// Calls visit(link) for every link from `from` to `to` in `routeOrder`
  /// (kRouteFarthestFirst ignored: it ranks, it does not route), until
  /// visit returns false; returns whether every link was visited.
  template <class Visit>
  bool forEach(uint32_t from, uint32_t to, unsigned routeOrder,
               Visit &&visit) const {
    return dispatch(routeOrder, [&](auto kind) {
      return forEachIn<decltype(kind)>(from, to, visit);
    });
  }

  /// forEach for the order of `Kind`.
  template <class Kind, class Visit>
  [[gnu::always_inline]] bool forEachIn(uint32_t from, uint32_t to,
                                        Visit &&visit) const {
    if (from == to || dims == 0)
      return true;
    // Rotated: from dim (from mod dims) on, wrapping around, which is
    // build's rotation to the first run at or after that dim.
    const unsigned first = Kind::rotated ? byDims.remainder(from) : 0;
    uint32_t node = from;
    if constexpr (Kind::cube) {
      // The differing bits, ascending (descending when down), those at or
      // after `first` first when rotated.
      const uint64_t diff = from ^ to;
      uint64_t parts[2] = {diff, 0};
      if constexpr (Kind::rotated) {
        // Up: bits >= first, then below; down: bits <= first, then above.
        const uint64_t low = Kind::down ? (uint64_t(2) << first) - 1
                                        : (uint64_t(1) << first) - 1;
        parts[0] = Kind::down ? diff & low : diff & ~low;
        parts[1] = Kind::down ? diff & ~low : diff & low;
      }
      for (unsigned p = 0; p < (Kind::rotated ? 2u : 1u); ++p)
        for (uint64_t m = parts[p]; m;) {
          const unsigned i = Kind::down ? 63u - unsigned(__builtin_clzll(m))
                                        : unsigned(__builtin_ctzll(m));
          m = Kind::down ? m ^ (uint64_t(1) << i) : m & (m - 1);
          if (!visit(size_t(node) * perNode + i))
            return false;
          node ^= uint32_t(1) << i;
        }
      return true;
    } else {
      const uint32_t *at = paths.coordsOf(from), *end = paths.coordsOf(to);
      unsigned i = Kind::rotated ? first : Kind::down ? dims - 1 : 0;
      for (unsigned k = 0; k < dims;
           ++k, i = Kind::down ? (i ? i - 1 : dims - 1)
                               : (i + 1 < dims ? i + 1 : 0)) {
        const unsigned x = at[i], y = end[i];
        if (x == y)
          continue;
        const unsigned slot = 2 * i + (y < x);
        const int32_t step = y > x ? strides[i] : -strides[i];
        // Along the run the link moves by a constant: no multiply a hop.
        const ptrdiff_t linkStep = ptrdiff_t(step) * ptrdiff_t(perNode);
        const unsigned run = y > x ? y - x : x - y;
        size_t link = size_t(node) * perNode + slot;
        for (unsigned s = run; s > 0; --s, link += size_t(linkStep))
          if (!visit(link))
            return false;
        node = uint32_t(int32_t(node) + int32_t(run) * step);
      }
      return true;
    }
  }

  /// On a mesh, calls leg(i, x, y, node) for every dim i the path from
  /// `from` to `to` in the order of `Kind` runs along, in order: from
  /// coordinate x to y, starting at `node` (forEachIn's links, a run at a
  /// time).
  template <class Kind, class Leg>
  void forEachLegIn(uint32_t from, uint32_t to, Leg &&leg) const {
    static_assert(!Kind::cube, "a cube's runs are single hops");
    if (from == to || dims == 0)
      return;
    const uint32_t *at = paths.coordsOf(from), *end = paths.coordsOf(to);
    unsigned i = Kind::rotated ? byDims.remainder(from)
                 : Kind::down  ? dims - 1
                               : 0;
    uint32_t node = from;
    for (unsigned k = 0; k < dims; ++k, i = Kind::down
                                                ? (i ? i - 1 : dims - 1)
                                                : (i + 1 < dims ? i + 1 : 0)) {
      const unsigned x = at[i], y = end[i];
      if (x == y)
        continue;
      leg(i, x, y, node);
      node = uint32_t(int64_t(node) + (int64_t(y) - int64_t(x)) * strides[i]);
    }
  }

private:
  const NetworkShape &shape;
  unsigned dims, perNode;
  std::vector<int32_t> strides;
  Divider32 byDims; ///< a node's first dim when rotated, without a division
  RoutePaths paths;
};

/// The cell destination cell `b` takes its element from in a route: its
/// source, or the nearest copy of a replicated one.
int64_t routeSource(const NetworkShape &shape, const TileMap &from,
                    const TileMap &to, const std::vector<uint32_t> &sources,
                    bool replicated, int64_t b, std::vector<int64_t> &scratch) {
  if (!replicated)
    return sources[size_t(b)];
  return nearestCopy(shape, from, to.dataAt(b), uint32_t(b / slotsOf(to)),
                     scratch);
}

/// What networkGeneralLowerBound counts, and the bound they give: the
/// farthest an element travels, per node the elements in and out, and per
/// dim the crossings of each cut as differences (+1 where an element's
/// span starts, -1 where it ends) each way.
struct BoundCounts {
  unsigned farthest = 0;
  std::vector<uint64_t> in, out;
  std::vector<std::vector<int64_t>> up, down;

  explicit BoundCounts(const NetworkShape &shape)
      : in(shape.nodeCount(), 0), out(shape.nodeCount(), 0),
        up(shape.dims.size()), down(shape.dims.size()) {
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      up[i].assign(shape.dims[i] + 1, 0);
      down[i].assign(shape.dims[i] + 1, 0);
    }
  }

  /// `count` elements from `from` to `to` cross every cut between them:
  /// only the dims they cross count (+1 and -1 at one place otherwise), on
  /// a cube the differing bits.
  void cross(const NetworkShape &shape, const RoutePaths &paths, uint32_t from,
             uint32_t to, int64_t count) {
    auto span = [&](size_t i, unsigned x, unsigned y) {
      auto &d = x < y ? up[i] : down[i];
      d[std::min(x, y)] += count;
      d[std::max(x, y)] -= count;
    };
    if (shape.cube) {
      // span(i, 0, 1) where `to` has the bit, span(i, 1, 0) where `from`
      // has it: the cut of dim i each way.
      for (uint32_t m = ~from & to; m; m &= m - 1) {
        std::vector<int64_t> &d = up[size_t(__builtin_ctz(m))];
        d[0] += count;
        d[1] -= count;
      }
      for (uint32_t m = from & ~to; m; m &= m - 1) {
        std::vector<int64_t> &d = down[size_t(__builtin_ctz(m))];
        d[0] += count;
        d[1] -= count;
      }
      return;
    }
    const uint32_t *x = paths.coordsOf(from), *y = paths.coordsOf(to);
    for (size_t i = 0; i < shape.dims.size(); ++i)
      if (x[i] != y[i])
        span(i, x[i], y[i]);
  }

  /// The largest of the distance, the cuts (the links of dim i between
  /// coordinates c and c + 1 carry nodes / P_i elements each way per
  /// cycle) and the ports (one element per link and cycle in and out).
  int64_t bound(const NetworkShape &shape) const {
    const uint32_t nodes = shape.nodeCount();
    uint64_t bound = farthest;
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      const uint64_t perCut = std::max<uint64_t>(1, nodes / shape.dims[i]);
      int64_t u = 0, w = 0;
      for (unsigned c = 0; c + 1 < shape.dims[i]; ++c) {
        u += up[i][c];
        w += down[i][c];
        bound = std::max({bound, (uint64_t(u) + perCut - 1) / perCut,
                          (uint64_t(w) + perCut - 1) / perCut});
      }
    }
    for (uint32_t n = 0; n < nodes; ++n) {
      uint64_t links = std::max(1u, shape.degree(n));
      bound = std::max(
          {bound, (in[n] + links - 1) / links, (out[n] + links - 1) / links});
    }
    return int64_t(bound);
  }
};

} // namespace

std::vector<Transfer> mapc::rt::generalRouteTransfers(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned elemBytes, uint64_t readBase,
    uint64_t writeBase, unsigned routeOrder) {
  const int64_t fromSlots = slotsOf(from), toSlots = slotsOf(to);
  const bool replicated = from.replicates() && !(from == to);
  const RoutePaths paths(shape);
  std::vector<int64_t> scratch;
  std::vector<Transfer> out;
  for (int64_t b = 0; b < int64_t(sources.size()); ++b) {
    if (sources[size_t(b)] == kNoSource)
      continue;
    const int64_t a =
        routeSource(shape, from, to, sources, replicated, b, scratch);
    Transfer t;
    t.node = uint32_t(a / fromSlots);
    t.byteAddr = readBase + uint64_t(a % fromSlots) * elemBytes;
    t.destNode = uint32_t(b / toSlots);
    t.destByteAddr = writeBase + uint64_t(b % toSlots) * elemBytes;
    if (t.node == t.destNode && t.byteAddr == t.destByteAddr)
      continue; // the element is already in its cell
    paths.build(t.node, t.destNode, routeOrder, t.path);
    out.push_back(std::move(t));
  }
  return out;
}

/// generalRouteMoves' moves, each given to `take(from, to)` in its order.
template <class Take>
static void forEachGeneralRouteMove(const NetworkShape &shape,
                                    const TileMap &from, const TileMap &to,
                                    const std::vector<uint32_t> &sources,
                                    Take &&take) {
  const int64_t fromSlots = slotsOf(from), toSlots = slotsOf(to);
  const bool replicated = from.replicates() && !(from == to);
  // Sources index the cells of `from` in 32 bits: its slots fit too.
  const Divider32 nodeOf{uint64_t(fromSlots)};
  std::vector<int64_t> scratch;
  // Destination cells node by node, so that a cell's node costs no
  // division, and a source cell's by a multiply.
  const int64_t cells = int64_t(sources.size());
  uint32_t dest = 0;
  for (int64_t first = 0; first < cells; first += toSlots, ++dest) {
    const int64_t last = std::min(cells, first + toSlots);
    for (int64_t b = first; b < last; ++b) {
      if (sources[size_t(b)] == kNoSource)
        continue;
      const uint32_t node = replicated
                                ? uint32_t(routeSource(shape, from, to, sources,
                                                       true, b, scratch) /
                                           fromSlots)
                                : nodeOf.quotient(sources[size_t(b)]);
      if (node != dest)
        take(node, dest);
    }
  }
}

std::vector<RouteMove>
mapc::rt::generalRouteMoves(const NetworkShape &shape, const TileMap &from,
                            const TileMap &to,
                            const std::vector<uint32_t> &sources) {
  std::vector<RouteMove> out;
  out.reserve(sources.size());
  forEachGeneralRouteMove(shape, from, to, sources,
                          [&](uint32_t node, uint32_t dest) {
                            out.push_back({node, dest});
                          });
  return out;
}

namespace {

/// A move read off its layouts' runs and periods (MoveCounts.h): its
/// families per data dim, the dim taken family by family (`last`) and the
/// others, taken element by element.
struct FamilyCells {
  MoveByDims mv;
  size_t last = 0;
  std::vector<size_t> outer;
  int64_t total = 0;
};

/// The move's FamilyCells; nothing when a layout replicates or is not of
/// that kind, or when its families are too many for the elements.
std::optional<FamilyCells> familyCells(const TileMap &from, const TileMap &to) {
  if (from.replicates() || to.replicates())
    return std::nullopt;
  std::optional<MoveByDims> mv =
      moveFamilies(from, to, countingListLimit(to.dataSize()));
  if (!mv || mv->dims.empty() || (mv->dims.size() > 1 && !mv->peByDim))
    return std::nullopt;
  // An element is one element of a family in every data dim: its nodes and
  // slots are the sums of theirs. The dims but the last are taken element
  // by element, the last family by family, so the last is the dim with the
  // most elements a family; past one family visit per element the table
  // of sources is the quicker way.
  FamilyCells fc;
  const size_t dims = mv->dims.size();
  std::vector<int64_t> elements(dims, 0);
  size_t last = 0;
  for (size_t j = 0; j < dims; ++j) {
    for (const MoveFamily &f : mv->dims[j])
      elements[j] += f.len * f.reps;
    if (elements[j] * int64_t(mv->dims[last].size()) >
        elements[last] * int64_t(mv->dims[j].size()))
      last = j;
  }
  int64_t total = 1;
  for (int64_t n : elements)
    total *= n;
  if (total == 0 || (total / std::max<int64_t>(1, elements[last])) *
                            int64_t(mv->dims[last].size()) >
                        total)
    return std::nullopt;
  for (size_t j = 0; j < dims; ++j)
    if (j != last)
      fc.outer.push_back(j);
  fc.mv = std::move(*mv);
  fc.last = last;
  fc.total = total;
  return fc;
}

/// Calls visit(b, pe, slot, bSlot) for every element: its destination
/// cell b, the PE and slot it comes from, and its slot in b's PE (sums
/// over the dims, which the caller checks if it reads them). False, part
/// way, when a cell or PE falls outside the layouts.
template <class Visit>
bool forEachFamilyCell(const FamilyCells &fc, const TileMap &from,
                       const TileMap &to, Visit &&visit) {
  const int64_t cells = to.deviceSize(), toSlots = slotsOf(to);
  const int64_t fromPes = pesOf(from);
  const MoveByDims &mv = fc.mv;
  bool inRange = true;
  auto fill = [&](auto &self, size_t k, int64_t peA, int64_t slotA, int64_t peB,
                  int64_t slotB) -> void {
    if (k == fc.outer.size()) {
      for (const MoveFamily &f : mv.dims[fc.last]) {
        const int64_t a = peA + f.peA, base = (peB + f.peB) * toSlots;
        if (a < 0 || a >= fromPes) {
          inRange = false;
          return;
        }
        for (int64_t m = 0; m < f.reps; ++m)
          for (int64_t t = 0; t < f.len; ++t) {
            const int64_t bs = slotB + f.b0 + f.sb * t + f.db * m,
                          b = base + bs;
            const int64_t as = slotA + f.a0 + f.sa * t + f.da * m;
            if (b < 0 || b >= cells) {
              inRange = false;
              return;
            }
            visit(b, a, as, bs);
          }
      }
      return;
    }
    for (const MoveFamily &f : mv.dims[fc.outer[k]])
      for (int64_t m = 0; m < f.reps && inRange; ++m)
        for (int64_t t = 0; t < f.len && inRange; ++t)
          self(self, k + 1, peA + f.peA, slotA + f.a0 + f.sa * t + f.da * m,
               peB + f.peB, slotB + f.b0 + f.sb * t + f.db * m);
  };
  fill(fill, 0, 0, 0, 0, 0);
  return inRange;
}

} // namespace

std::optional<std::vector<RouteMove>>
mapc::rt::generalRouteMovesByRuns(const TileMap &from, const TileMap &to) {
  std::optional<FamilyCells> fc = familyCells(from, to);
  if (!fc)
    return std::nullopt;
  // The source node of every destination cell (kNoSource: none).
  const int64_t cells = to.deviceSize(), toSlots = slotsOf(to);
  std::vector<uint32_t> node(size_t(cells), kNoSource);
  if (!forEachFamilyCell(*fc, from, to,
                         [&](int64_t b, int64_t pe, int64_t, int64_t) {
                           node[size_t(b)] = uint32_t(pe);
                         }))
    return std::nullopt;
  const int64_t total = fc->total;
  // In generalRouteMoves' order: destination cell by cell.
  std::vector<RouteMove> out;
  out.reserve(size_t(total));
  uint32_t dest = 0;
  for (int64_t first = 0; first < cells; first += toSlots, ++dest) {
    const int64_t end = std::min(cells, first + toSlots);
    for (int64_t b = first; b < end; ++b)
      if (node[size_t(b)] != kNoSource && node[size_t(b)] != dest)
        out.push_back({node[size_t(b)], dest});
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>>
mapc::rt::moveFiguresByRuns(const TileMap &from, const TileMap &to) {
  std::optional<FamilyCells> fc = familyCells(from, to);
  if (!fc)
    return std::nullopt;
  // Each element has one cell in each layout (no replication): every
  // visit is a held cell, moved when its PE or slot differs.
  const int64_t toSlots = slotsOf(to), fromSlots = slotsOf(from);
  int64_t moved = 0, held = 0;
  bool inRange = true;
  if (!forEachFamilyCell(*fc, from, to,
                         [&](int64_t b, int64_t pe, int64_t slot, int64_t bs) {
                           inRange &= bs >= 0 && bs < toSlots && slot >= 0 &&
                                      slot < fromSlots;
                           ++held;
                           moved += pe != (b - bs) / toSlots || slot != bs;
                         }) ||
      !inRange)
    return std::nullopt;
  return std::make_pair(moved, held);
}

namespace {

/// The moves in farthest first's key order. Keys are (priority, index):
/// farthest first ranks by path length, which dimension order makes the
/// distance in every order, so one list serves all its walks; a
/// counting sort keeps the index order within a rank.
std::vector<uint32_t> farthestFirstKeys(const RoutePaths &paths,
                                        unsigned diameter,
                                        const std::vector<RouteMove> &moves) {
  std::vector<uint32_t> start, order(moves.size());
  std::vector<uint32_t> rank(moves.size());
  CountingSort<uint32_t> byRank(start, diameter + 1);
  for (size_t i = 0; i < moves.size(); ++i) {
    rank[i] = diameter - paths.distance(moves[i].from, moves[i].to);
    byRank.count(rank[i]);
  }
  byRank.sum();
  for (size_t i = 0; i < moves.size(); ++i)
    order[byRank.place(rank[i])] = uint32_t(i);
  return order;
}

} // namespace

/// A walk's state: the paths, the keys' order, the calendar and how far
/// it has gone.
struct mapc::rt::RouteWalk::State {
  const std::vector<RouteMove> &moves;
  unsigned routeOrder;
  RouteLinks links;
  /// The moves in key order (null: their own order): `ownKeys`, or the
  /// caller's farthest-first keys, shared by the walks that rank by them.
  const uint32_t *keys = nullptr;
  std::vector<uint32_t> ownKeys;
  LinkCalendar calendar;
  /// On few nodes (a line, a small mesh) every node pair's links, listed
  /// once: pairLinks[pairStart[from x nodes + to], next start). A move then
  /// reads its links instead of finding them, which on two or three hops
  /// a move cost more than the hops. Empty on more nodes.
  std::vector<uint32_t> pairStart, pairLinks;
  size_t pairNodes = 0;
  size_t next = 0;
  uint32_t end = 0;
  bool failed = false;

  State(const NetworkShape &shape, const std::vector<RouteMove> &moves,
        unsigned routeOrder, const std::vector<uint32_t> *farthestFirst)
      : moves(moves), routeOrder(routeOrder), links(shape),
        // No clear(): the calendar need not list the links it dirties. Its
        // bitmaps start as deep as a link's load would be if every element
        // went the longest way (at most twice the routes' times here), so
        // that they seldom grow: each growth copies them.
        calendar(linkCount(shape),
                 shape.diameter() + moves.size() * shape.diameter() /
                                        std::max<size_t>(1, linkCount(shape)),
                 size_t(1) << 24, /*listTaken=*/false) {
    listPairs(shape);
    secondCycles.resize(shape.diameter() + 1);
    if (!(routeOrder & kRouteFarthestFirst))
      return;
    if (!farthestFirst) {
      ownKeys = farthestFirstKeys(links.table(), shape.diameter(), moves);
      farthestFirst = &ownKeys;
    }
    assert(farthestFirst->size() == moves.size() && "a key per move");
    keys = farthestFirst->empty() ? nullptr : farthestFirst->data();
  }

  /// Walks move m and the next key's move on the same path together: at
  /// each link the first takes its cycle, then the second
  /// (LinkCalendar::takeTwoAfter), which is what walking them one after
  /// the other takes (a path crosses a link once, so the first's later
  /// hops and the second's earlier ones are on other links). When the
  /// first alone reaches `stopAt` the second's hops are given back, as a
  /// walk stops after the first. Returns the moves walked (1 or 2) with
  /// `end` raised, or -1 past the bitmaps' cap.
  template <class Kind>
  int walkPair(const RouteMove &m, uint32_t &end, int64_t stopAt) {
    uint32_t first = 0, second = 0, least = ~uint32_t(0);
    uint32_t *cycles = secondCycles.data();
    unsigned hops = 0;
    if (!links.forEachIn<Kind>(
            m.from, m.to, [&](size_t link) __attribute__((always_inline)) {
              first = calendar.takeTwoNextOrAfter(link, first, second);
              cycles[hops++] = second;
              least = std::min(least, second);
              return first != 0;
            }))
      return -1;
    end = std::max(end, first);
    if (int64_t(end) >= stopAt) {
      // A cycle 0 is no take (past the cap): its bit is never set.
      unsigned h = 0;
      links.forEachIn<Kind>(m.from, m.to, [&](size_t link) {
        calendar.untake(link, cycles[h++]);
        return true;
      });
      return 1;
    }
    if (least == 0)
      return -1; // the second passes the cap as its own walk would
    end = std::max(end, second);
    return 2;
  }
  /// walkPair's second move's cycles, a path's worth.
  std::vector<uint32_t> secondCycles;

  static size_t linkCount(const NetworkShape &shape) {
    return size_t(shape.nodeCount()) * linksPerNode(shape);
  }

  /// The pairs' links when the pairs are few for the moves.
  void listPairs(const NetworkShape &shape) {
    const uint64_t nodes = shape.nodeCount();
    if (nodes * nodes > std::min<uint64_t>(kMaxPairs, moves.size()))
      return;
    pairNodes = nodes;
    pairStart.reserve(nodes * nodes + 1);
    for (uint32_t a = 0; a < nodes; ++a)
      for (uint32_t b = 0; b < nodes; ++b) {
        pairStart.push_back(uint32_t(pairLinks.size()));
        links.forEach(a, b, routeOrder, [&](size_t link) {
          pairLinks.push_back(uint32_t(link));
          return true;
        });
      }
    pairStart.push_back(uint32_t(pairLinks.size()));
  }
  static constexpr uint64_t kMaxPairs = 4096;

  /// RouteWalk::advance on listed pairs: a function of its own, so that
  /// the walks by links do not change how it is compiled.
  [[gnu::noinline]] int64_t advanceByPairs(int64_t stopAt) {
    uint32_t time = end;
    size_t k = next;
    for (; k < moves.size();) {
      const RouteMove &m = moves[keys ? keys[k] : k];
      ++k;
      const size_t pair = size_t(m.from) * pairNodes + m.to;
      uint32_t cycle = 0;
      for (uint32_t l = pairStart[pair]; l < pairStart[pair + 1]; ++l)
        if ((cycle = calendar.takeNextOrAfter(pairLinks[l], cycle)) == 0) {
          failed = true; // past the bitmaps' cap
          return -1;
        }
      time = std::max(time, cycle);
      if (int64_t(time) >= stopAt)
        break;
    }
    next = k;
    end = time;
    return int64_t(time);
  }
};

mapc::rt::RouteWalk::RouteWalk(const NetworkShape &shape,
                               const std::vector<RouteMove> &moves,
                               unsigned routeOrder,
                               const std::vector<uint32_t> *farthestFirst)
    : state(std::make_unique<State>(shape, moves, routeOrder, farthestFirst)) {}

std::vector<uint32_t>
mapc::rt::routeFarthestFirstKeys(const NetworkShape &shape,
                                 const std::vector<RouteMove> &moves) {
  return farthestFirstKeys(RoutePaths(shape), shape.diameter(), moves);
}
mapc::rt::RouteWalk::RouteWalk(RouteWalk &&) noexcept = default;
mapc::rt::RouteWalk &
mapc::rt::RouteWalk::operator=(RouteWalk &&) noexcept = default;
mapc::rt::RouteWalk::~RouteWalk() = default;

bool mapc::rt::RouteWalk::finished() const {
  return state->next == state->moves.size();
}
int64_t mapc::rt::RouteWalk::timeSoFar() const {
  return state->failed ? -1 : int64_t(state->end);
}
size_t mapc::rt::RouteWalk::walked() const { return state->next; }

/// How many keys ahead a walk asks for a move (RouteWalk::advance).
constexpr size_t kMovesAhead = 16;

int64_t mapc::rt::RouteWalk::advance(int64_t stopAt) {
  State &s = *state;
  if (s.failed)
    return -1;
  // Elements finish once and for all in key order: the route takes at
  // least `end` cycles already.
  if (int64_t(s.end) >= stopAt)
    return int64_t(s.end);
  const std::vector<RouteMove> &moves = s.moves;
  const uint32_t *order = s.keys;
  LinkCalendar &calendar = s.calendar;
  uint32_t end = s.end;
  size_t k = s.next;
  if (!s.pairStart.empty())
    return s.advanceByPairs(stopAt);
  const bool fits = s.links.dispatch(s.routeOrder, [&](auto kind) {
    using Kind = decltype(kind);
    while (k < moves.size()) {
      // The moves are read in key order, out of their own: the one a few
      // keys on is asked for now, not waited for then.
      if (order && k + kMovesAhead < moves.size())
        __builtin_prefetch(&moves[order[k + kMovesAhead]]);
      const RouteMove &m = moves[order ? order[k] : k];
      ++k;
      // The keys are ranked above: the hops need no priority.
      uint32_t cycle = 0;
      if constexpr (!Kind::cube) {
        // A flow's elements mostly have consecutive keys (on 31 x 33 nine
        // in ten come in pairs): the next one on the same path is walked
        // with this one, link by link (State::walkPair).
        if (k < moves.size()) {
          const RouteMove &n = moves[order ? order[k] : k];
          if (n.from == m.from && n.to == m.to) {
            const int walked = s.walkPair<Kind>(m, end, stopAt);
            if (walked < 0)
              return false; // past the bitmaps' cap
            k += size_t(walked) - 1;
            if (int64_t(end) >= stopAt)
              break;
            continue;
          }
        }
      }
      // Inlined: the hop loop's one call.
      if (!s.links.forEachIn<Kind>(
              m.from, m.to, [&](size_t link) __attribute__((always_inline)) {
                // A cube's queues are short: its takes look in the
                // arrival's word first.
                cycle = Kind::cube ? calendar.takeNear(link, cycle)
                                   : calendar.takeNextOrAfter(link, cycle);
                return cycle != 0;
              }))
        return false; // past the bitmaps' cap
      end = std::max(end, cycle);
      if (int64_t(end) >= stopAt)
        break;
    }
    return true;
  });
  if (!fits) {
    s.failed = true;
    return -1;
  }
  s.next = k;
  s.end = end;
  return int64_t(end);
}

int64_t mapc::rt::timeRoute(const NetworkShape &shape,
                            const std::vector<RouteMove> &moves,
                            unsigned routeOrder, int64_t stopAt) {
  return RouteWalk(shape, moves, routeOrder).advance(stopAt);
}

std::vector<size_t> mapc::rt::routeLinks(const NetworkShape &shape,
                                         uint32_t from, uint32_t to,
                                         unsigned routeOrder) {
  std::vector<size_t> out;
  RouteLinks(shape).forEach(from, to, routeOrder, [&](size_t link) {
    out.push_back(link);
    return true;
  });
  return out;
}

namespace {

/// routeFlows of moves that come by destination node (generalRouteMoves'
/// order), given one by one: each destination's flows counted with a
/// stamp per source node, then the flows, not the moves, bucketed by
/// source (a stable counting sort), which leaves each source's by
/// destination.
class FlowsByDestination {
public:
  explicit FlowsByDestination(uint32_t nodes)
      : stamp(nodes, kNone), at(nodes, 0), bySource(start, nodes) {}

  void add(uint32_t from, uint32_t to) {
    if (stamp[from] != to) {
      stamp[from] = to;
      at[from] = uint32_t(byTo.size());
      byTo.push_back({from, to, 0});
      bySource.count(from);
    }
    ++byTo[at[from]].count;
  }

  std::vector<RouteFlow> flows() {
    bySource.sum();
    std::vector<RouteFlow> out(byTo.size());
    for (const RouteFlow &f : byTo)
      out[bySource.place(f.from)] = f;
    return out;
  }

private:
  static constexpr uint32_t kNone = ~uint32_t(0);
  std::vector<uint32_t> stamp, at;
  std::vector<RouteFlow> byTo;
  std::vector<uint32_t> start;
  CountingSort<uint32_t> bySource;
};

std::vector<RouteFlow>
flowsOfMovesByDestination(uint32_t nodes, const std::vector<RouteMove> &moves) {
  FlowsByDestination flows(nodes);
  for (const RouteMove &m : moves)
    flows.add(m.from, m.to);
  return flows.flows();
}

} // namespace

std::vector<RouteFlow>
mapc::rt::routeFlows(const NetworkShape &shape,
                     const std::vector<RouteMove> &moves) {
  // The moves bucketed by source node (a counting sort), then each
  // source's destinations counted with a stamp per node: work in moves and
  // nodes, no nodes x nodes table. Flows come by source, each source's by
  // destination.
  const uint32_t nodes = shape.nodeCount();
  if (uint64_t(nodes) * nodes <= std::max<uint64_t>(1024, moves.size() / 4)) {
    // Few nodes for the moves (a line, a small mesh): a nodes x nodes table
    // of counts, one pass over the moves, read source by source.
    std::vector<uint32_t> count(size_t(nodes) * nodes, 0);
    for (const RouteMove &m : moves)
      ++count[size_t(m.from) * nodes + m.to];
    std::vector<RouteFlow> flows;
    for (uint32_t f = 0; f < nodes; ++f)
      for (uint32_t t = 0; t < nodes; ++t)
        if (const uint32_t c = count[size_t(f) * nodes + t])
          flows.push_back({f, t, c});
    return flows;
  }
  if (std::is_sorted(
          moves.begin(), moves.end(),
          [](const RouteMove &a, const RouteMove &b) { return a.to < b.to; }))
    return flowsOfMovesByDestination(nodes, moves);
  std::vector<uint32_t> start, to(moves.size());
  CountingSort<uint32_t> bySource(start, nodes);
  for (const RouteMove &m : moves)
    bySource.count(m.from);
  bySource.sum();
  for (const RouteMove &m : moves)
    to[bySource.place(m.from)] = m.to;
  constexpr uint32_t kNone = ~uint32_t(0);
  std::vector<uint32_t> stamp(nodes, kNone), at(nodes, 0);
  std::vector<RouteFlow> flows;
  for (uint32_t n = 0; n < nodes; ++n) {
    const size_t first = flows.size();
    for (uint32_t k = start[n]; k < start[n + 1]; ++k) {
      if (stamp[to[k]] != n) {
        stamp[to[k]] = n;
        at[to[k]] = uint32_t(flows.size());
        flows.push_back({n, to[k], 0});
      }
      ++flows[at[to[k]]].count;
    }
    std::sort(
        flows.begin() + first, flows.end(),
        [](const RouteFlow &a, const RouteFlow &b) { return a.to < b.to; });
  }
  return flows;
}

std::vector<RouteFlow>
mapc::rt::generalRouteFlows(const NetworkShape &shape, const TileMap &from,
                            const TileMap &to,
                            const std::vector<uint32_t> &sources) {
  // The moves come by destination: counted as they come, none kept.
  FlowsByDestination flows(shape.nodeCount());
  forEachGeneralRouteMove(
      shape, from, to, sources,
      [&](uint32_t node, uint32_t dest) { flows.add(node, dest); });
  return flows.flows();
}

namespace {

/// routeOrderBound over records of `Distance` hops: per directed link the
/// elements crossing it and the fewest hops any of them takes before it
/// and after it, one record per link, so that a hop touches one cache
/// line; the narrower the record, the more links share a line (8 bytes on
/// the bench's cube and meshes, 16 before).
template <class Distance>
int64_t orderBoundBy(const NetworkShape &shape,
                     const std::vector<RouteFlow> &flows, unsigned routeOrder) {
  const RouteLinks walk(shape);
  const size_t links = size_t(shape.nodeCount()) * linksPerNode(shape);
  struct Crossing {
    uint32_t load = 0; ///< a path crosses a link once: at most the moves
    Distance before = std::numeric_limits<Distance>::max(),
             after = std::numeric_limits<Distance>::max();
  };
  std::vector<Crossing> at(links);
  walk.dispatch(routeOrder, [&](auto kind) {
    for (const RouteFlow &f : flows) {
      const Distance length = Distance(walk.table().distance(f.from, f.to));
      Distance done = 0;
      walk.forEachIn<decltype(kind)>(f.from, f.to, [&](size_t link) {
        Crossing &c = at[link];
        c.load += f.count;
        c.before = std::min(c.before, done);
        c.after = std::min(c.after, Distance(length - done - 1));
        ++done;
        return true;
      });
    }
    return true;
  });
  uint64_t bound = 0;
  for (const Crossing &c : at)
    if (c.load)
      bound = std::max(bound, uint64_t(c.before) + c.load + c.after);
  return int64_t(bound);
}

/// The hops of `flows`' paths, each counted once.
template <class Table>
uint64_t hopsOf(const Table &table, const std::vector<RouteFlow> &flows) {
  uint64_t hops = 0;
  for (const RouteFlow &f : flows)
    hops += table.distance(f.from, f.to);
  return hops;
}

/// The levels of orderBoundByLegs' tables: one per power of two up to the
/// longest side.
unsigned legsLevels(const NetworkShape &shape) {
  unsigned levels = 1;
  for (unsigned side : shape.dims)
    while ((2u << (levels - 1)) <= side)
      ++levels;
  return levels;
}

/// What orderBoundByLegs' tables cost on a mesh, in hops of orderBoundBy's
/// walk: two tables of links by levels, pushed down level by level.
uint64_t legsCost(const NetworkShape &shape) {
  return uint64_t(shape.nodeCount()) * linksPerNode(shape) * legsLevels(shape);
}

/// The longest mesh side orderBoundByLegs takes (on at most 65536 nodes,
/// and 4096 more than four per flow): its tables take a level per power of
/// two of the side.
constexpr unsigned kLegsMaxSide = 256;

/// orderBoundBy on a mesh of sides up to kLegsMaxSide, a run (leg) of a
/// path at a time rather than a link: along a leg the hops before a link
/// rise by one a link and the hops after fall by one, so per directed link
/// the fewest before is (the least c1 over the legs covering it) +- its
/// position and the fewest after (the least c2) -+ it. Each leg adds its
/// count over its range as two differences and takes the least c1 and c2
/// over its range on two overlapping power-of-two blocks of a table per
/// level, pushed down once at the end (each link then holds the least over
/// the blocks that cover it). Work in flows times dims, not path length:
/// 20 hops a flow on the 31 x 33 mesh.
template <class Kind>
int64_t orderBoundByLegs(const NetworkShape &shape, const RouteLinks &walk,
                         const std::vector<RouteFlow> &flows) {
  const uint32_t nodes = shape.nodeCount();
  const unsigned perNode = linksPerNode(shape);
  const size_t links = size_t(nodes) * perNode;
  const std::vector<int32_t> strides = nodeStrides(shape);
  const unsigned levels = legsLevels(shape);
  constexpr int32_t kNone = std::numeric_limits<int32_t>::max();
  std::vector<int64_t> load(links, 0);
  // c1 and c2 of a link and level side by side: a leg's two takes at a
  // block touch one line, not two.
  struct Least {
    int32_t c1, c2;
  };
  std::vector<Least> least(size_t(levels) * links, Least{kNone, kNone});
  auto take = [&](unsigned level, size_t link, int32_t c1, int32_t c2) {
    Least &x = least[size_t(level) * links + link];
    x.c1 = std::min(x.c1, c1);
    x.c2 = std::min(x.c2, c2);
  };
  // A link's step along dim i: no multiply a link of a leg.
  std::vector<ptrdiff_t> linkSteps;
  for (int32_t stride : strides)
    linkSteps.push_back(ptrdiff_t(stride) * ptrdiff_t(perNode));
  for (const RouteFlow &f : flows) {
    const int32_t length = int32_t(walk.table().distance(f.from, f.to));
    int32_t done = 0;
    walk.forEachLegIn<Kind>(
        f.from, f.to, [&](unsigned i, unsigned x, unsigned y, uint32_t node) {
          const bool up = y > x;
          const ptrdiff_t step = linkSteps[i];
          // The link at x (a link is its start node's); others by their
          // position's offset from x.
          const ptrdiff_t base =
              ptrdiff_t(node) * ptrdiff_t(perNode) + ptrdiff_t(2 * i + !up);
          const int32_t span = up ? int32_t(y - x) : int32_t(x - y);
          // Up: +count at x, -count at y, summed upwards; down: +count
          // at x, -count at y, summed downwards (y is a node either way).
          load[size_t(base)] += f.count;
          load[size_t(base + (up ? span : -span) * step)] -= f.count;
          const int32_t b = up ? done - int32_t(x) : done + int32_t(x);
          const int32_t a = up ? length - done + int32_t(x) - 1
                               : length - done - int32_t(x) - 1;
          const unsigned level = 31u - unsigned(__builtin_clz(unsigned(span)));
          const int32_t block = int32_t(1) << level;
          // The two blocks of 2^level positions covering the links from
          // lo to hi (up: x to y - 1, down: y + 1 to x), by their lowest.
          const ptrdiff_t first = up ? 0 : 1 - span,
                          second = up ? span - block : 1 - block;
          take(level, size_t(base + first * step), b, a);
          take(level, size_t(base + second * step), b, a);
          done += span;
        });
  }
  // Sums and push-downs per dim: node by node upwards for the up links
  // (the node below is done), downwards for the down links.
  const unsigned dims = unsigned(shape.dims.size());
  for (unsigned i = 0; i < dims; ++i) {
    const int32_t stride = strides[i];
    const unsigned side = shape.dims[i];
    for (uint32_t n = 0; n < nodes; ++n)
      if (walk.table().coord(n, i) > 0)
        load[size_t(n) * perNode + 2 * i] +=
            load[size_t(n - uint32_t(stride)) * perNode + 2 * i];
    for (uint32_t n = nodes; n-- > 0;)
      if (walk.table().coord(n, i) + 1 < side)
        load[size_t(n) * perNode + 2 * i + 1] +=
            load[size_t(n + uint32_t(stride)) * perNode + 2 * i + 1];
    for (unsigned level = levels - 1; level > 0; --level) {
      const unsigned half = 1u << (level - 1);
      for (uint32_t n = 0; n < nodes; ++n)
        for (unsigned slot = 2 * i; slot < 2 * i + 2; ++slot) {
          const size_t l = size_t(n) * perNode + slot;
          const Least v = least[size_t(level) * links + l];
          if (v.c1 == kNone)
            continue;
          take(level - 1, l, v.c1, v.c2);
          if (walk.table().coord(n, i) + half < side)
            take(level - 1, l + size_t(half) * stride * perNode, v.c1, v.c2);
        }
    }
  }
  // The fewest hops before, c1 +- the position, and after, c2 -+ it: the
  // positions cancel.
  int64_t bound = 0;
  for (size_t l = 0; l < links; ++l)
    if (load[l] > 0)
      bound = std::max(bound,
                       int64_t(least[l].c1) + load[l] + int64_t(least[l].c2));
  return bound;
}

} // namespace

int64_t mapc::rt::routeOrderBound(const NetworkShape &shape,
                                  const std::vector<RouteFlow> &flows,
                                  unsigned routeOrder) {
  // Per directed link: the elements crossing it, and the fewest hops any
  // of them takes before it and after it. The link moves one a cycle, the
  // first at the earliest after `before` hops, and the last still has at
  // least `after` to go.
  // The legs' tables cost links x levels whatever the flows: on a large
  // mesh with few flows, or flows of few hops in all (a doubling round's),
  // the link walk is the quicker.
  if (!shape.cube && !shape.dims.empty() &&
      shape.nodeCount() <= std::min<uint64_t>(65536, 4096 + 4 * flows.size()) &&
      *std::max_element(shape.dims.begin(), shape.dims.end()) <= kLegsMaxSide) {
    const RouteLinks walk(shape);
    if (legsCost(shape) < hopsOf(walk.table(), flows))
      return walk.dispatch(routeOrder, [&](auto kind) -> int64_t {
        if constexpr (decltype(kind)::cube)
          return -1; // not reached: a mesh
        else
          return orderBoundByLegs<decltype(kind)>(shape, walk, flows);
      });
  }
  if (shape.diameter() < std::numeric_limits<uint16_t>::max())
    return orderBoundBy<uint16_t>(shape, flows, routeOrder);
  return orderBoundBy<uint32_t>(shape, flows, routeOrder);
}

namespace {

/// routeOrderBoundsOnCube with `Mask` of at least twice dims bits. Per
/// directed link and order a record of the elements crossing it and the
/// hop counts seen: bit h of `seen` when a path crosses it after h hops,
/// bit kAfter + a when with a hops still to go. A path of length hops
/// crossing it after h hops has length - 1 - h to go, so both bits are one
/// OR of (1 << h) | (top >> h), top = 1 << (kAfter + length - 1): no
/// compare a record, where two mins took about half the pass. The fewest
/// before and after are the lowest bits of each half. With `counts`, the
/// flows' lower bound's counts too (routeOrderBoundsOnCube).
template <class Mask>
std::array<int64_t, 8> cubeOrderBounds(const NetworkShape &shape,
                                       const std::vector<RouteFlow> &flows,
                                       BoundCounts *counts) {
  constexpr unsigned kAfter = sizeof(Mask) * 4;
  const unsigned dims = unsigned(shape.dims.size());
  assert(dims <= kAfter && "a hop count per bit of half the mask");
  // Tables by order (up, down, up rotated, down rotated), each by dim,
  // then node: a link's record at (i << dims) | node, no multiply.
  const size_t links = size_t(shape.nodeCount()) * dims;
  struct Crossing {
    uint32_t load = 0; ///< a path crosses a link once: at most the moves
    Mask seen = 0;
  };
  std::vector<Crossing> at(4 * links);
  Crossing *const up = at.data(), *const down = up + links,
                  *const upRot = down + links, *const downRot = upRot + links;
  // seenBits[length][h]: a path's two bits for its hop h, by a load
  // rather than two shifts by a variable count.
  std::array<std::array<Mask, kAfter>, kAfter + 1> seenBits{};
  for (unsigned length = 1; length <= kAfter; ++length)
    for (unsigned h = 0; h < length; ++h)
      seenBits[length][h] =
          (Mask(1) << h) | (Mask(1) << (kAfter + length - 1 - h));
  const Divider32 byDims(dims);
  for (const RouteFlow &f : flows) {
    const uint32_t diff = f.from ^ f.to;
    const unsigned length = popcount(diff);
    if (counts) {
      counts->farthest = std::max(counts->farthest, length);
      counts->in[f.to] += f.count;
      counts->out[f.from] += f.count;
    }
    if (diff == 0)
      continue;
    const Mask *const bits = seenBits[length].data();
    // Rotated orders start at dim r (RouteLinks::forEachIn): up takes the
    // bits >= r, then those below; down the bits <= r, then those above,
    // each part descending. kr and kr1 count the bits below r and up to r.
    const unsigned r = byDims.remainder(f.from);
    const uint32_t belowR = diff & uint32_t((uint64_t(1) << r) - 1),
                   uptoR = diff & uint32_t((uint64_t(2) << r) - 1);
    const unsigned kr = popcount(belowR), kr1 = kr + ((diff >> r) & 1);
    auto cross = [&](Crossing *table, size_t link, unsigned hops) {
      Crossing &c = table[link];
      c.load += f.count;
      c.seen |= bits[hops];
    };
    // For bit i with k differing bits below it (`crossed`, those bits) the
    // link's node is `from` with the bits each order crossed before it
    // flipped: up, those below i; down, those above (`to` with those up
    // to i); up rotated, those in [r, i) when i >= r, else those >= r and
    // below i; down rotated, those in (i, r] when i <= r, else those up to
    // r and above i.
    uint32_t crossed = 0;
    unsigned k = 0;
    for (uint32_t m = diff; m; m &= m - 1, ++k) {
      const unsigned i = unsigned(__builtin_ctz(m));
      const uint32_t bit = m & -m, upto = crossed | bit;
      const size_t base = size_t(i) << dims;
      cross(up, base | (f.from ^ crossed), k);
      cross(down, base | (f.to ^ upto), length - 1 - k);
      cross(upRot,
            base | (f.from ^ crossed ^ (i >= r ? belowR : diff ^ belowR)),
            k - kr + (i < r ? length : 0));
      cross(downRot, base | (f.from ^ upto ^ uptoR ^ (i > r ? diff : 0)),
            kr1 - k - 1 + (i > r ? length : 0));
      crossed = upto;
    }
  }
  std::array<int64_t, 8> bounds{};
  const unsigned orderOf[4] = {0, kRouteDimsDown, kRouteRotated,
                               kRouteRotated | kRouteDimsDown};
  constexpr Mask kBefore = (Mask(1) << kAfter) - 1;
  for (unsigned t = 0; t < 4; ++t) {
    uint64_t bound = 0;
    for (size_t l = t * links; l < (t + 1) * links; ++l)
      if (at[l].load)
        bound = std::max(bound,
                         uint64_t(__builtin_ctzll(at[l].seen & kBefore)) +
                             at[l].load +
                             uint64_t(__builtin_ctzll(at[l].seen >> kAfter)));
    bounds[orderOf[t]] = bounds[orderOf[t] | kRouteFarthestFirst] =
        int64_t(bound);
  }
  // Dims up, a dim i link leaves `from` with the bits below i flipped: its
  // node has from's bit i, so the loads on the links of nodes without bit
  // i are the elements crossing dim i's cut upwards, the others downwards.
  if (counts)
    for (unsigned i = 0; i < dims; ++i) {
      int64_t cut[2] = {0, 0};
      const Crossing *const dim = up + (size_t(i) << dims);
      for (uint32_t node = 0; node < uint32_t(1) << dims; ++node)
        cut[(node >> i) & 1] += dim[node].load;
      counts->up[i][0] += cut[0];
      counts->up[i][1] -= cut[0];
      counts->down[i][0] += cut[1];
      counts->down[i][1] -= cut[1];
    }
  return bounds;
}

} // namespace

std::array<int64_t, 8>
mapc::rt::routeOrderBoundsOnCube(const NetworkShape &shape,
                                 const std::vector<RouteFlow> &flows,
                                 int64_t *lowerBound) {
  assert(shape.cube && shape.dims.size() >= 2 && "a cube of two dims or more");
  std::optional<BoundCounts> counts;
  if (lowerBound)
    counts.emplace(shape);
  BoundCounts *const c = counts ? &*counts : nullptr;
  // A cube's diameter is its dims: on the bench's 10-cube a 32-bit mask.
  const std::array<int64_t, 8> bounds =
      shape.dims.size() <= 16 ? cubeOrderBounds<uint32_t>(shape, flows, c)
                              : cubeOrderBounds<uint64_t>(shape, flows, c);
  if (lowerBound)
    *lowerBound = counts->bound(shape);
  return bounds;
}

int64_t mapc::rt::predictNetworkGeneralStep(
    const NetworkShape &shape, const GeneralPlan &plan, size_t i,
    const std::vector<uint32_t> *sources, std::string *why) {
  const GeneralStep &step = plan.steps[i];
  const TileMap &from = plan.layoutAfter(int(i) - 1);
  if (step.kind != GeneralStepKind::Route) {
    if (why)
      *why = std::string("a ") + generalStepKindName(step.kind) +
             " step needs the maspar machine";
    return -1;
  }
  std::vector<uint32_t> owned;
  if (!sources || sources->size() != size_t(step.to.deviceSize())) {
    owned = sourcesOf(from, step.to);
    sources = &owned;
  }
  if (step.routeOrder & kRouteDoubling) // NetworkReplication.h
    return timeDoublingRoute(shape, from, step.to, *sources, plan.elemBytes,
                             step.routeOrder, why);
  // Only the timing matters: elements that stay on their node cost no
  // cycle, and the others' keys are their order.
  const std::vector<RouteMove> moves =
      generalRouteMoves(shape, from, step.to, *sources);
  int64_t t = timeRoute(shape, moves, step.routeOrder);
  if (t >= 0)
    return t;
  // Past the bitmaps' cap: simulate the transfers cycle by cycle.
  std::vector<Transfer> moving = generalRouteTransfers(
      shape, from, step.to, *sources, plan.elemBytes, 0, 0, step.routeOrder);
  moving.erase(std::remove_if(moving.begin(), moving.end(),
                              [](const Transfer &t) { return t.path.empty(); }),
               moving.end());
  uint64_t bytes =
      uint64_t(std::max(slotsOf(from), slotsOf(step.to))) * plan.elemBytes;
  NetworkMachine probe(shape, bytes);
  return probe.run(moving, plan.elemBytes, why);
}

/// networkGeneralLowerBound's loop when the destination replicates, over
/// its held cells by element (replicaCells): each element's cells on one
/// node come together, so the (node, element) pairs a node must receive
/// are counted without a data index per cell or a sort of the pairs.
static int64_t
fanOutBound(const NetworkShape &shape, const TileMap &src,
            const std::vector<uint32_t> &sources,
            const std::vector<std::pair<int64_t, int64_t>> &cells,
            bool replicated, int64_t fromSlots, int64_t toSlots,
            BoundCounts &counts) {
  std::vector<uint8_t> sent(replicated ? 0 : size_t(src.deviceSize()), 0);
  std::vector<int64_t> scratch;
  const RoutePaths paths(shape);
  int64_t lastElement = -1;
  uint32_t lastNode = ~0u;
  for (const auto &[d, b] : cells) {
    const uint32_t node = uint32_t(b / toSlots);
    const int64_t a = replicated ? nearestCopy(shape, src, d, node, scratch)
                                 : int64_t(sources[size_t(b)]);
    const uint32_t from = uint32_t(a / fromSlots);
    if (from == node)
      continue;
    counts.farthest = std::max(counts.farthest, paths.distance(from, node));
    if (d != lastElement || node != lastNode)
      ++counts.in[node];
    lastElement = d;
    lastNode = node;
    if (!replicated && !sent[size_t(a)]) {
      sent[size_t(a)] = 1;
      ++counts.out[from];
    }
  }
  return counts.bound(shape);
}

int64_t mapc::rt::networkGeneralLowerBound(
    const NetworkShape &shape, const TileMap &src, const TileMap &dst,
    const std::vector<uint32_t> *sources,
    const std::vector<std::pair<int64_t, int64_t>> *cells) {
  std::vector<uint32_t> owned;
  if (!sources || sources->size() != size_t(dst.deviceSize())) {
    owned = sourcesOf(src, dst);
    sources = &owned;
  }
  const int64_t fromSlots = slotsOf(src), toSlots = slotsOf(dst);
  const bool replicated = src.replicates() && !(src == dst);
  BoundCounts counts(shape);
  if (cells && dst.replicates())
    return fanOutBound(shape, src, *sources, *cells, replicated, fromSlots,
                       toSlots, counts);
  // (node, data index) pairs a node must receive when the destination
  // replicates: a copy in one node's memory needs its element once.
  std::vector<std::pair<uint32_t, int64_t>> needs;
  std::vector<uint8_t> sent(replicated ? 0 : size_t(src.deviceSize()), 0);
  std::vector<int64_t> scratch;
  const RoutePaths paths(shape); // its coordinate table
  const bool fanOut = dst.replicates();
  for (int64_t b = 0; b < int64_t(sources->size()); ++b) {
    if ((*sources)[size_t(b)] == kNoSource)
      continue;
    const uint32_t node = uint32_t(b / toSlots);
    int64_t a = (*sources)[size_t(b)];
    if (replicated)
      a = nearestCopy(shape, src, dst.dataAt(b), node, scratch);
    const uint32_t from = uint32_t(a / fromSlots);
    if (from == node)
      continue;
    counts.farthest = std::max(counts.farthest, paths.distance(from, node));
    if (fanOut)
      needs.push_back({node, dst.dataAt(b)});
    else
      ++counts.in[node];
    if (!replicated && !sent[size_t(a)]) {
      sent[size_t(a)] = 1;
      ++counts.out[from];
    }
    // Another copy could cross elsewhere, or one crossing feed several
    // destination copies.
    if (!replicated && !fanOut)
      counts.cross(shape, paths, from, node, 1);
  }
  // Without replication in the destination every cell needs its own
  // element, counted above; with it, each (node, element) pair once.
  std::sort(needs.begin(), needs.end());
  needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
  for (const auto &n : needs)
    ++counts.in[n.first];
  return counts.bound(shape);
}

int64_t
mapc::rt::networkGeneralLowerBound(const NetworkShape &shape,
                                   const std::vector<RouteFlow> &flows) {
  // Neither layout replicates: every moving element leaves its one source
  // cell once and enters its one destination cell, so a flow of `count`
  // elements counts `count` out, in and across each cut it spans.
  BoundCounts counts(shape);
  if (shape.cube) {
    // BoundCounts::cross's cube spans, a dim's cut each way summed in a
    // flat array and added to its two differences once.
    std::vector<int64_t> up(shape.dims.size(), 0), down(shape.dims.size(), 0);
    for (const RouteFlow &f : flows) {
      counts.farthest = std::max(counts.farthest, popcount(f.from ^ f.to));
      counts.in[f.to] += f.count;
      counts.out[f.from] += f.count;
      for (uint32_t m = ~f.from & f.to; m; m &= m - 1)
        up[size_t(__builtin_ctz(m))] += f.count;
      for (uint32_t m = f.from & ~f.to; m; m &= m - 1)
        down[size_t(__builtin_ctz(m))] += f.count;
    }
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      counts.up[i][0] += up[i];
      counts.up[i][1] -= up[i];
      counts.down[i][0] += down[i];
      counts.down[i][1] -= down[i];
    }
    return counts.bound(shape);
  }
  const RoutePaths paths(shape);
  for (const RouteFlow &f : flows) {
    counts.farthest = std::max(counts.farthest, paths.distance(f.from, f.to));
    counts.in[f.to] += f.count;
    counts.out[f.from] += f.count;
    counts.cross(shape, paths, f.from, f.to, f.count);
  }
  return counts.bound(shape);
}

bool mapc::rt::executeGeneralPlan(
    NetworkMachine &machine, const GeneralPlan &plan, const Regions &regions,
    const std::function<void(unsigned, const TileMap &)> &observer,
    std::string *why) {
  auto fail = [&](const std::string &w) {
    if (why)
      *why = w;
    return false;
  };
  if (!checkPlanRegions(plan, regions, why))
    return false;
  const uint32_t nodes = machine.shape().nodeCount();
  for (int i = -1; i < int(plan.steps.size()); ++i) {
    const TileMap &l = plan.layoutAfter(i);
    if (uint64_t(pesOf(l)) > nodes)
      return fail("a layout spans " + std::to_string(pesOf(l)) +
                  " nodes but the machine has " + std::to_string(nodes));
    uint64_t need = uint64_t(slotsOf(l)) * plan.elemBytes;
    if (regions.dst.base + need > machine.memoryBytes() ||
        (plan.copy && regions.src.base + need > machine.memoryBytes()))
      return fail("the array does not fit in node memory");
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const GeneralStep &step = plan.steps[i];
    if (step.kind != GeneralStepKind::Route)
      return fail("step " + std::to_string(i + 1) + ": a " +
                  generalStepKindName(step.kind) +
                  " step needs the maspar machine");
    uint64_t read, write;
    stepRegions(plan, i, regions, read, write);
    if (write != regions.dst.base)
      return fail("step " + std::to_string(i + 1) +
                  ": a route step writes the destination region");
    const TileMap &from = plan.layoutAfter(int(i) - 1);
    std::string reason;
    if (step.routeOrder & kRouteDoubling) {
      if (!runDoublingRoute(machine, from, step.to, sourcesOf(from, step.to),
                            plan.elemBytes, read, write, step.routeOrder,
                            &reason))
        return fail("step " + std::to_string(i + 1) + ": " + reason);
      if (observer)
        observer(unsigned(i + 1), step.to);
      continue;
    }
    std::vector<Transfer> transfers = generalRouteTransfers(
        machine.shape(), from, step.to, sourcesOf(from, step.to),
        plan.elemBytes, read, write, step.routeOrder);
    if (machine.run(transfers, plan.elemBytes, &reason) < 0)
      return fail("step " + std::to_string(i + 1) + ": " + reason);
    if (observer)
      observer(unsigned(i + 1), step.to);
  }
  return true;
}
