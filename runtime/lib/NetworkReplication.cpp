//===- NetworkReplication.cpp - replicated copies by recursive doubling ---===//
//
// The doubling route of NetworkReplication.h: each element's tree of sends
// is built once per (source nodes, destination nodes) pair, which HPF
// layouts share between many elements, and the rounds are timed by the
// route's reservation walk.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkReplication.h"

#include "CountingSort.h"
#include "NodeCoords.h"
#include "RadixSort.h"
#include "mapc/runtime/NetworkExecute.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>

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
  std::vector<Send> sends; ///< round 0's first
  uint32_t elements = 0;   ///< how many elements take it
};

/// Builds the trees: nodes' coordinates from a NodeCoords (no division per
/// coordinate) and the trees met so far.
class TreeBuilder {
public:
  explicit TreeBuilder(const NetworkShape &shape)
      : dims(unsigned(shape.dims.size())), cube(shape.cube), sides(shape.dims),
        table(shape), nodeCount(shape.nodeCount()) {
    uint32_t stride = 1;
    for (unsigned side : sides) {
      strides.push_back(stride);
      stride *= cube ? 2 : side;
    }
  }

  /// The tree of an element held on `sourceNodes` (distinct, ascending)
  /// and bound for `nodes` (distinct, ascending). With kRouteScatter in
  /// `mode`, the elements of one (sources, nodes) pair take turns at its
  /// carrier node; with kRouteChain they share the pair's chains, and
  /// `shift` is the element's place among the pair's elements: its sends
  /// after round 0 come that many rounds after the tree's.
  const Tree &tree(const std::vector<uint32_t> &sourceNodes,
                   const std::vector<uint32_t> &nodes, unsigned mode,
                   uint32_t &shift) {
    const bool spread = mode & kRouteSpread;
    const bool scatter = !spread && (mode & kRouteScatter),
               chain = !spread && (mode & kRouteChain);
    // The elements of one pair come one after another (HPF layouts): the
    // pair is looked up once for them, not once an element.
    if (!pair || sourceNodes != lastSources || nodes != lastNodes) {
      lastSources = sourceNodes;
      lastNodes = nodes;
      key.assign(sourceNodes.begin(), sourceNodes.end());
      key.push_back(~uint32_t(0));
      key.insert(key.end(), nodes.begin(), nodes.end());
      pair = &pairs[key];
      if (pair->byCarrier.empty()) {
        if (spread) {
          pair->spread = spreadOf(sourceNodes, nodes);
          pair->carrierUses.assign(nodes.size(), 0);
        }
        pair->byCarrier.assign(spread    ? nodes.size() * pair->spread.rotations
                               : scatter ? nodes.size()
                                         : 1,
                               nullptr);
      }
    }
    shift = chain ? pair->uses : 0;
    uint32_t slot = scatter ? uint32_t(pair->uses % nodes.size()) : 0;
    if (spread) {
      // The next carrier of the balanced list, in the next of its own
      // rotations.
      const Spread &s = pair->spread;
      const uint32_t carrier =
          s.scatter ? uint32_t(pair->uses % nodes.size()) : 0;
      slot = carrier * s.rotations +
             (carrier + pair->carrierUses[carrier]++) % s.rotations;
    }
    ++pair->uses;
    Tree *&t = pair->byCarrier[slot];
    if (!t) {
      t = &trees.emplace_back();
      t->sends.reserve(nodes.size()); // a send into each node at most
      if (spread)
        buildSpread(sourceNodes, nodes, pair->spread, slot, *t);
      else if (scatter)
        buildScatter(sourceNodes, nodes, slot, *t);
      else if (chain)
        buildChain(sourceNodes, nodes, *t);
      else
        build(sourceNodes, nodes, *t);
    }
    ++t->elements;
    return *t;
  }

  /// Every tree built, each with the elements that took it.
  const std::deque<Tree> &built() const { return trees; }

  /// Every pair met, with how many elements took it.
  std::vector<ReplicaPairs::Pair> pairList() const {
    std::vector<ReplicaPairs::Pair> out;
    for (const auto &[k, p] : pairs) {
      const auto mid = std::find(k.begin(), k.end(), ~uint32_t(0));
      out.push_back({{k.begin(), mid}, {mid + 1, k.end()}, p.uses});
    }
    return out;
  }

  /// The trees `elements` elements of one pair take in `mode`, built at
  /// once as tree() builds them an element at a time: one tree, or with
  /// kRouteScatter one per carrier in use, the elements taking turns.
  void addPair(const ReplicaPairs::Pair &p, unsigned mode) {
    const size_t n = p.nodes.size();
    if (mode & kRouteSpread) {
      // tree()'s turns counted: of E elements over n carriers in turn,
      // carrier c takes E / n, one more when c < E mod n, and its k-th
      // takes rotation (c + k) mod rotations.
      const Spread s = spreadOf(p.sourceNodes, p.nodes);
      const size_t len = s.scatter ? n : 1;
      std::vector<uint64_t> uses(n, 0);
      for (size_t i = 0; i < len; ++i)
        uses[i] = p.elements / len + (i < p.elements % len);
      uint32_t shift = 0;
      std::vector<const Tree *> *alike = translates(p, shift);
      for (uint32_t c = 0; c < n; ++c)
        for (uint32_t r = 0; r < s.rotations; ++r) {
          const uint64_t k = (r + s.rotations - c % s.rotations) % s.rotations;
          if (k >= uses[c])
            continue; // carrier c's k-th element takes rotation r: none
          const uint32_t slot = c * s.rotations + r;
          Tree &t = trees.emplace_back();
          const Tree *seen = alike ? (*alike)[slot] : nullptr;
          if (seen) {
            t.sends = seen->sends;
            for (Tree::Send &e : t.sends) {
              e.from ^= shift;
              e.to ^= shift;
            }
          } else {
            t.sends.reserve(n);
            buildSpread(p.sourceNodes, p.nodes, s, slot, t);
            if (alike && !shift)
              (*alike)[slot] = &t;
          }
          t.elements =
              uint32_t(uses[c] / s.rotations + (k < uses[c] % s.rotations));
        }
      return;
    }
    const bool scatter = mode & kRouteScatter;
    const size_t carriers = scatter ? std::min<size_t>(p.elements, n) : 1;
    for (size_t c = 0; c < carriers; ++c) {
      Tree &t = trees.emplace_back();
      t.sends.reserve(n); // a send into each node at most: no regrowth
      if (scatter)
        buildScatter(p.sourceNodes, p.nodes, uint32_t(c), t);
      else if (mode & kRouteChain)
        buildChain(p.sourceNodes, p.nodes, t);
      else
        build(p.sourceNodes, p.nodes, t);
      t.elements = scatter ? uint32_t(p.elements / n + (c < p.elements % n))
                           : p.elements;
    }
  }

private:
  /// A pair's spread (kRouteSpread): the rotations of its dims each
  /// carrier's elements take in turn (the carriers, its nodes, take the
  /// elements in turn); with several seeds, no scatter: one carrier.
  struct Spread {
    uint32_t rotations = 1;
    std::vector<unsigned> varying; ///< the dims the pair's nodes span
    bool scatter = false;          ///< one seed, sent to the carrier
  };

  /// A (source nodes, destination nodes) pair's trees, by carrier (one
  /// without scatter; with kRouteSpread by carrier and rotation), and the
  /// elements that took one so far.
  struct Pair {
    std::vector<Tree *> byCarrier;
    uint32_t uses = 0;
    Spread spread;
    std::vector<uint32_t> carrierUses; ///< kRouteSpread's, per carrier
  };

  struct Member {
    uint32_t node, at; ///< at: its place in the destination nodes
    bool holder;
  };

  /// On a cube, the spread trees kept for a pair's translates: pairs whose
  /// sources and destinations are another's XOR one node number t, t
  /// flipping only bits that every source shares and every destination
  /// shares. Such a flip keeps both lists' order, every distance and
  /// every spanned dim, so each tree of the pair is the other's with its
  /// nodes XOR t (node places alike): built once, copied for the rest
  /// (a k-d grid's rows on a cube of its sides rounded up: 32 rows of 32
  /// on a 10-cube share 160 trees instead of building 5120). Returns the
  /// kept trees by slot of the pair's translate class, null entries where
  /// none is built yet, and into `shift` what to XOR the kept trees'
  /// nodes with; null off a cube. The kept trees are the class's
  /// representative's own (shift 0 builds them).
  std::vector<const Tree *> *translates(const ReplicaPairs::Pair &p,
                                        uint32_t &shift) {
    if (!cube || p.nodes.empty())
      return nullptr;
    uint32_t same = ~0u;
    for (uint32_t v : p.nodes)
      same &= ~(v ^ p.nodes[0]);
    for (uint32_t v : p.sourceNodes)
      same &= ~(v ^ p.sourceNodes[0]);
    shift = p.nodes[0] & same;
    key.clear();
    for (uint32_t v : p.sourceNodes)
      key.push_back(v ^ shift);
    key.push_back(~uint32_t(0));
    for (uint32_t v : p.nodes)
      key.push_back(v ^ shift);
    auto [it, fresh] = translated.try_emplace(key);
    if (fresh) {
      // The class's first pair is its representative: shift 0 for it.
      it->second.first = shift;
      it->second.second.assign(p.nodes.size() * std::max<size_t>(dims, 1),
                               nullptr);
    }
    shift ^= it->second.first;
    return &it->second.second;
  }

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

  /// A pair's spread (kRouteSpread): the dims its nodes span (a rotation
  /// starting at each), and whether it has one seed to scatter.
  Spread spreadOf(const std::vector<uint32_t> &sourceNodes,
                  const std::vector<uint32_t> &nodes) {
    Spread out;
    const size_t n = nodes.size();
    for (unsigned i = 0; i < dims; ++i)
      for (size_t k = 1; k < n; ++k)
        if (coord(nodes[k], i) != coord(nodes[0], i)) {
          out.varying.push_back(i);
          break;
        }
    // A tree is built only for a (carrier, rotation) some element takes,
    // and has a send into each node at most: the trees' sends are at most
    // the destination's cells, however many rotations.
    out.rotations = uint32_t(std::max<size_t>(out.varying.size(), 1));
    seed(sourceNodes, nodes);
    out.scatter =
        std::count_if(seededBy.begin(), seededBy.end(),
                      [](const auto &p) { return p.first != ~0u; }) == 1;
    return out;
  }

  /// The member of [first, last) nearest `node`, which lies across the
  /// split in `dim`: on a cube its neighbour across `dim` when a member
  /// (no member is nearer), on a mesh the node at the range's nearest
  /// coordinate in `dim` when a member, else the nearest by a scan.
  /// markRange must have marked the range.
  Member *nearestIn(Member *first, Member *last, uint32_t node, unsigned dim) {
    uint32_t guess;
    if (cube) {
      guess = node ^ (uint32_t(1) << dim);
    } else {
      const uint32_t c = coord(node, dim);
      const uint32_t to = coord(first->node, dim) > c
                              ? coord(first->node, dim)
                              : coord((last - 1)->node, dim);
      guess = node + (to - c) * strides[dim]; // unsigned wrap: a step down
    }
    if (guess < stampOf.size() && stampOf[guess] == stamp)
      return &members[memberOf[guess]];
    Member *best = first;
    for (Member *m = first + 1; m != last; ++m)
      if (distance(m->node, node) < distance(best->node, node))
        best = m;
    return best;
  }

  /// Marks [first, last) for nearestIn.
  void markRange(Member *first, Member *last) {
    ++stamp;
    for (Member *m = first; m != last; ++m) {
      stampOf[m->node] = stamp;
      memberOf[m->node] = uint32_t(m - members.data());
    }
  }

  /// A spread's tree (kRouteSpread, 003 6.2.1's replication as van de
  /// Geijn's scatter and all-gather, their rounds in rotated dims as in
  /// Johnsson and Ho's rotated trees). With one seed: the element goes to
  /// the carrier of `slot` (carrier * rotations + rotation) by recursive
  /// halving, one round a split (split() from the rotation's first dim):
  /// where the half holding the carrier lacks the element, its member
  /// nearest the holder takes it; then by recursive doubling back up, the
  /// deepest split first, each node of the other half that lacks it
  /// taking it from its nearest node of the carrier's half. A carrier's
  /// elements take the rotations in turn and the carriers the elements in
  /// turn, so each round's sends spread over the nodes and the dims, and
  /// a source sends each element once. With several seeds: the doubling
  /// from them in the rotation's dims.
  void buildSpread(const std::vector<uint32_t> &sourceNodes,
                   const std::vector<uint32_t> &nodes, const Spread &s,
                   uint32_t slot, Tree &tree) {
    seed(sourceNodes, nodes);
    const uint32_t carrier = slot / s.rotations, rotation = slot % s.rotations;
    const unsigned start = s.varying.empty() ? 0 : s.varying[rotation];
    const size_t n = nodes.size();
    members.clear();
    uint32_t holder = 0;
    for (size_t k = 0; k < n; ++k) {
      const bool held = seededBy[k].first != ~0u;
      if (held) {
        tree.sends.push_back({0, sourceNodes[seededBy[k].second], nodes[k],
                              seededBy[k].second, uint32_t(k)});
        holder = uint32_t(k);
      }
      members.push_back({nodes[k], uint32_t(k), held});
    }
    if (!s.scatter) {
      grow(members.data(), members.data() + n, 1, tree, start);
      return;
    }
    if (stampOf.empty()) {
      stampOf.assign(nodeCount, 0);
      memberOf.resize(nodeCount);
    }
    // Down to the carrier: each level's carrier half [lo, hi) and the
    // other half.
    levels.clear();
    Member *first = members.data(), *last = first + n;
    while (last - first > 1) {
      unsigned dim;
      Member *mid = split(first, last, start, dim);
      const bool low = std::any_of(
          first, mid, [&](const Member &m) { return m.at == carrier; });
      Member *f = low ? first : mid, *l = low ? mid : last;
      Member *of = low ? mid : first, *ol = low ? last : mid;
      levels.push_back({f, l, of, ol, dim});
      if (!std::any_of(f, l, [&](const Member &m) { return m.at == holder; })) {
        markRange(f, l);
        Member *r = nearestIn(f, l, nodes[holder], dim);
        tree.sends.push_back(
            {uint32_t(levels.size()), nodes[holder], r->node, holder, r->at});
        r->holder = true;
        holder = r->at;
      }
      first = f;
      last = l;
    }
    // Back up: level j's round mirrors its scatter round about the tree's
    // depth.
    const uint32_t depth = uint32_t(levels.size());
    for (uint32_t j = depth; j-- > 0;) {
      const Level &lv = levels[j];
      markRange(lv.first, lv.last);
      for (Member *b = lv.otherFirst; b != lv.otherLast; ++b)
        if (!b->holder) {
          Member *from = nearestIn(lv.first, lv.last, b->node, lv.dim);
          tree.sends.push_back(
              {2 * depth - j, from->node, b->node, from->at, b->at});
          b->holder = true;
        }
    }
  }

  /// Pipelined chains (003 6.2.1's broadcast under store and forward):
  /// round 0 seeds as build() does, then the nodes join a tree grown
  /// breadth first from the seeds, each taking a neighbour in the tree as
  /// its parent (when none is left, the node nearest the tree joins it),
  /// so a mesh line fed from an end is one chain and from inside two. A
  /// send's round is its receiver's depth: the pair's element e reaches a
  /// node at depth d in round d + e, from its parent, which took it in the
  /// round before, and each edge carries one element a round.
  void buildChain(const std::vector<uint32_t> &sourceNodes,
                  const std::vector<uint32_t> &nodes, Tree &tree) {
    seed(sourceNodes, nodes);
    const size_t n = nodes.size();
    depth.assign(n, ~0u);
    queue.clear();
    for (size_t k = 0; k < n; ++k)
      if (seededBy[k].first != ~0u) {
        tree.sends.push_back({0, sourceNodes[seededBy[k].second], nodes[k],
                              seededBy[k].second, uint32_t(k)});
        depth[k] = 0;
        queue.push_back(uint32_t(k));
      }
    auto join = [&](uint32_t parent, uint32_t k) {
      depth[k] = depth[parent] + 1;
      tree.sends.push_back({depth[k], nodes[parent], nodes[k], parent, k});
      queue.push_back(k);
    };
    for (size_t head = 0; queue.size() < n;) {
      if (head == queue.size()) {
        // No neighbour of the tree left: the nearest node joins it, from
        // its shallowest nearest member.
        std::pair<unsigned, unsigned> best{~0u, ~0u};
        uint32_t parent = 0, at = 0;
        for (uint32_t k = 0; k < n; ++k)
          if (depth[k] == ~0u)
            for (uint32_t q : queue)
              if (std::pair<unsigned, unsigned> d{distance(nodes[q], nodes[k]),
                                                  depth[q]};
                  d < best) {
                best = d;
                parent = q;
                at = k;
              }
        join(parent, at);
        continue;
      }
      const uint32_t q = queue[head++], node = nodes[q];
      for (unsigned i = 0; i < dims; ++i) {
        const uint32_t c = coord(node, i);
        const uint32_t side = cube ? 2 : sides[i];
        if (c > 0)
          joinIfMember(q, node - strides[i], nodes, join);
        if (c + 1 < side)
          joinIfMember(q, node + strides[i], nodes, join);
      }
    }
  }

  /// Joins `neighbour` to the tree from `parent` when it is one of
  /// `nodes` (ascending) not yet in it.
  template <class Join>
  void joinIfMember(uint32_t parent, uint32_t neighbour,
                    const std::vector<uint32_t> &nodes, Join &join) {
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), neighbour);
    if (it != nodes.end() && *it == neighbour &&
        depth[size_t(it - nodes.begin())] == ~0u)
      join(parent, uint32_t(it - nodes.begin()));
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

  /// Splits [first, last) (two nodes or more) in two as the doubling
  /// does: at the coordinate nearest the middle of its widest dim (of dims
  /// equally wide, the first from `startDim` on, wrapping), sorted so the
  /// lower half comes first; returns where the upper half starts.
  Member *split(Member *first, Member *last, unsigned startDim, unsigned &dim) {
    const size_t n = size_t(last - first);
    if (cube) {
      // Every dim spans 0 or 1: the first spanned from startDim on, and
      // the range (ascending, as every range split() gives) kept in order
      // within each half, as the sort below would leave it.
      uint32_t spanned = 0;
      for (const Member *m = first; m != last; ++m)
        spanned |= m->node ^ first->node;
      const uint32_t from = spanned >> startDim;
      dim = from ? startDim + unsigned(__builtin_ctz(from))
                 : unsigned(__builtin_ctz(spanned));
      return std::stable_partition(
          first, last, [&](const Member &m) { return !((m.node >> dim) & 1); });
    }
    dim = 0;
    uint32_t widest = 0;
    for (unsigned j = 0; j < dims; ++j) {
      const unsigned i = (startDim + j) % dims;
      auto [lo, hi] = std::minmax_element(
          first, last, [&](const Member &a, const Member &b) {
            return coord(a.node, i) < coord(b.node, i);
          });
      if (coord(hi->node, i) - coord(lo->node, i) > widest) {
        widest = coord(hi->node, i) - coord(lo->node, i);
        dim = i;
      }
    }
    const unsigned d = dim;
    std::sort(first, last, [&](const Member &a, const Member &b) {
      return std::make_pair(coord(a.node, d), a.node) <
             std::make_pair(coord(b.node, d), b.node);
    });
    // Distinct nodes differ in some dim: the widest has a step.
    size_t at = 0, gap = ~size_t(0);
    for (size_t j = 1; j < n; ++j)
      if (coord(first[j - 1].node, dim) != coord(first[j].node, dim)) {
        const size_t g = 2 * j > n ? 2 * j - n : n - 2 * j;
        if (g < gap) {
          gap = g;
          at = j;
        }
      }
    return first + at;
  }

  /// Fills [first, last) from its holders, sends from `round` on: split
  /// (split()); a half without a copy takes one from the other's nearest
  /// holder, then both go on.
  void grow(Member *first, Member *last, uint32_t round, Tree &tree,
            unsigned startDim = 0) {
    auto held = [](const Member &m) { return m.holder; };
    if (last - first < 2 || std::all_of(first, last, held))
      return;
    unsigned dim;
    Member *mid = split(first, last, startDim, dim);
    const bool low = std::any_of(first, mid, held),
               high = std::any_of(mid, last, held);
    if (low && high) {
      grow(first, mid, round, tree, startDim);
      grow(mid, last, round, tree, startDim);
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
    grow(from, fromEnd, round + 1, tree, startDim);
    grow(to, toEnd, round + 1, tree, startDim);
  }

  unsigned dims;
  bool cube;
  std::vector<unsigned> sides;
  std::vector<uint32_t> strides; ///< a node's step along each dim
  NodeCoords table;
  std::vector<uint32_t> depth, queue; ///< buildChain's
  std::vector<Member> members;
  /// nearestIn's, by node: the stamp of the range it was last marked in,
  /// and its place in `members` then.
  std::vector<uint32_t> stampOf, memberOf;
  uint32_t stamp = 0, nodeCount;
  struct Level {
    Member *first, *last, *otherFirst, *otherLast;
    unsigned dim;
  };
  std::vector<Level> levels; ///< buildSpread's
  std::vector<std::pair<unsigned, uint32_t>> seededBy;
  std::vector<uint32_t> key, lastSources, lastNodes;
  std::deque<Tree> trees;
  std::map<std::vector<uint32_t>, Pair> pairs;
  Pair *pair = nullptr; ///< lastSources and lastNodes' pair
  /// translates': per class (its pairs XOR their shift), the
  /// representative's shift and its trees by slot.
  std::map<std::vector<uint32_t>,
           std::pair<uint32_t, std::vector<const Tree *>>>
      translated;
};

/// Each round's flows (routeFlows of its moves that change node): every
/// tree's sends counted once for all the elements that took it, or, for
/// pipelined chains (`chain`), once a round for the elements in flight.
std::vector<std::vector<RouteFlow>> treeFlows(const std::deque<Tree> &trees,
                                              size_t rounds, bool chain) {
  // Per round, (from, to) as one key and the elements: a sort of words.
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> tally(rounds);
  {
    // Each round's sends counted first: no regrowth of the tallies.
    std::vector<size_t> sends(rounds, 0);
    for (const Tree &t : trees)
      for (const Tree::Send &s : t.sends)
        if (s.from != s.to) {
          if (!chain || s.round == 0)
            ++sends[s.round];
          else
            for (uint32_t e = 0; e < t.elements; ++e)
              ++sends[s.round + e];
        }
    for (size_t k = 0; k < rounds; ++k)
      tally[k].reserve(sends[k]);
  }
  for (const Tree &t : trees)
    for (const Tree::Send &s : t.sends) {
      if (s.from == s.to)
        continue;
      const uint64_t key = uint64_t(s.from) << 32 | s.to;
      if (!chain || s.round == 0)
        tally[s.round].push_back({key, t.elements});
      else
        for (uint32_t e = 0; e < t.elements; ++e)
          tally[s.round + e].push_back({key, 1});
    }
  std::vector<std::vector<RouteFlow>> out(rounds);
  std::vector<std::pair<uint64_t, uint32_t>> scratch;
  for (size_t k = 0; k < rounds; ++k) {
    // Equal keys are summed: their order does not matter.
    radixSortByKey(tally[k], scratch);
    size_t distinct = 0;
    for (size_t i = 0; i < tally[k].size(); ++i)
      distinct += i == 0 || tally[k][i - 1].first != tally[k][i].first;
    out[k].reserve(distinct);
    for (size_t i = 0; i < tally[k].size(); ++i) {
      const auto [key, elements] = tally[k][i];
      if (i > 0 && tally[k][i - 1].first == key)
        out[k].back().count += elements;
      else
        out[k].push_back({uint32_t(key >> 32), uint32_t(key), elements});
    }
  }
  return out;
}

/// The moves of round `k` that change node.
void roundMoves(const std::vector<DoublingSend> &round,
                std::vector<RouteMove> &moves) {
  moves.clear();
  for (const DoublingSend &s : round)
    if (s.fromNode != s.toNode)
      moves.push_back({s.fromNode, s.toNode});
}

/// Sorts each round's sends by destination cell (distinct within a
/// round, below `cells`): the sends into each cell are chained, every
/// round's, and the cells read once for all rounds.
void sortByCell(std::vector<std::vector<DoublingSend>> &rounds, size_t cells) {
  // A single round in order already (a broadcast's seeds: none) is left.
  if (rounds.size() == 1 &&
      std::is_sorted(rounds[0].begin(), rounds[0].end(),
                     [](const DoublingSend &a, const DoublingSend &b) {
                       return a.toCell < b.toCell;
                     }))
    return;
  constexpr uint32_t kEmpty = ~uint32_t(0);
  std::vector<uint32_t> head(cells, kEmpty), start(rounds.size() + 1, 0);
  for (size_t k = 0; k < rounds.size(); ++k)
    start[k + 1] = start[k] + uint32_t(rounds[k].size());
  // Send g is rounds[k][g - start[k]]; next[g] the send into its cell
  // of an earlier round.
  std::vector<uint32_t> next(start.back()), roundOf(start.back());
  for (uint32_t k = 0; k < rounds.size(); ++k)
    for (uint32_t g = start[k]; g < start[k + 1]; ++g) {
      uint32_t &h = head[size_t(rounds[k][g - start[k]].toCell)];
      next[g] = h;
      roundOf[g] = k;
      h = g;
    }
  std::vector<std::vector<DoublingSend>> sorted(rounds.size());
  for (size_t k = 0; k < rounds.size(); ++k)
    sorted[k].reserve(rounds[k].size());
  for (uint32_t h : head)
    for (uint32_t g = h; g != kEmpty; g = next[g])
      sorted[roundOf[g]].push_back(rounds[roundOf[g]][g - start[roundOf[g]]]);
  rounds.swap(sorted);
}

} // namespace

namespace {

/// What one pass over the elements gives: the sends of the rounds below
/// the pass's `writeUpTo` (not yet in cell order), the local copies when
/// written, and whether there are any.
struct ElementPass {
  std::vector<std::vector<DoublingSend>> rounds{1};
  std::vector<DoublingSend> local;
  bool anyLocal = false; ///< a node holds an element in two cells

  void send(uint32_t round, const DoublingSend &s) {
    if (rounds.size() <= round)
      rounds.resize(round + 1);
    rounds[round].push_back(s);
  }
  void copy(const DoublingSend &s) { local.push_back(s); }
};

/// doublingRounds' walk over the elements, each taking its pair's tree
/// from `builder`; only the sends of rounds below `writeUpTo` go to `out`
/// (its send(round, s), and its copy(s) for the local copies when it is
/// past every round), so that a caller after the flows or round 0 alone
/// does no work per send. Returns whether a node holds an element twice.
template <class Out>
bool passElements(const NetworkShape &shape, const TileMap &from,
                  const TileMap &to, const std::vector<uint32_t> &sources,
                  const std::vector<std::pair<int64_t, int64_t>> &cells,
                  unsigned routeOrder, TreeBuilder &builder, uint32_t writeUpTo,
                  Out &out) {
  const int64_t fromSlots = slotsOf(from), toSlots = slotsOf(to);
  bool anyLocal = false;
  std::vector<uint32_t> nodes, sourceNodes;
  std::vector<int64_t> arrival, copies, sourceCells;
  std::vector<std::pair<uint32_t, int64_t>> byNode;
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
        anyLocal = true;
        if (writeUpTo == ~0u)
          out.copy({arrival.back(), b, n, n});
      }
    }
    // The source copies, the first cell of each node.
    copies.clear();
    if (from.replicates())
      from.addressesOf(d, copies);
    else
      copies.push_back(sources[size_t(cells[first].second)]);
    byNode.clear();
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
    uint32_t shift = 0;
    const Tree &tree = builder.tree(sourceNodes, nodes, routeOrder, shift);
    for (const Tree::Send &s : tree.sends) {
      // Round 0's sends come first: a pass writing no later round is done.
      if (s.round > 0 && writeUpTo <= 1)
        break;
      const uint32_t round = s.round == 0 ? 0 : s.round + shift;
      if (round >= writeUpTo)
        continue;
      const int64_t read =
          round == 0 ? sourceCells[s.fromAt] : arrival[s.fromAt];
      out.send(round, {read, arrival[s.toAt], s.from, s.to});
    }
    first = last;
  }
  return anyLocal;
}

/// passElements into an ElementPass.
ElementPass passElements(const NetworkShape &shape, const TileMap &from,
                         const TileMap &to,
                         const std::vector<uint32_t> &sources,
                         const std::vector<std::pair<int64_t, int64_t>> &cells,
                         unsigned routeOrder, TreeBuilder &builder,
                         uint32_t writeUpTo) {
  ElementPass out;
  out.anyLocal = passElements(shape, from, to, sources, cells, routeOrder,
                              builder, writeUpTo, out);
  return out;
}

/// passElements' sends kept by destination cell, for their moves alone:
/// every send but a local copy enters its element's first cell on its
/// node, and each such cell takes at most one send over all rounds (a
/// tree feeds each of its nodes once), so a table of cells gives every
/// round's moves in cell order (sortByCell's) by one scan, with no send
/// written out or sorted. `fits` is false when a cell is sent twice or a
/// round is past the table's 16 bits: the caller then writes the sends.
struct CellSends {
  std::vector<uint16_t> roundOf;      ///< the send's round + 1, 0: none
  std::unique_ptr<uint32_t[]> fromOf; ///< the sender, where roundOf is set
  uint32_t rounds = 1;                ///< as ElementPass's rounds.size()
  bool fits = true;

  explicit CellSends(size_t cells)
      : roundOf(cells, 0), fromOf(new uint32_t[cells]) {}
  void send(uint32_t round, const DoublingSend &s) {
    uint16_t &r = roundOf[size_t(s.toCell)];
    if (r || round >= 0xffff) {
      fits = false;
      return;
    }
    r = uint16_t(round + 1);
    fromOf[size_t(s.toCell)] = s.fromNode;
    rounds = std::max(rounds, round + 1);
  }
  void copy(const DoublingSend &) {} // within a node: no move
};

/// The rounds of `trees` (pipelined chains' when `chain`), local copies
/// included: what passElements counts element by element.
size_t roundCountOf(const std::deque<Tree> &trees, bool chain, bool anyLocal) {
  uint32_t last = 0;
  for (const Tree &t : trees)
    for (const Tree::Send &s : t.sends)
      last = std::max(last, s.round == 0 || !chain ? s.round
                                                   : s.round + t.elements - 1);
  return size_t(last) + 1 + anyLocal;
}

/// The trees of every pair in `mode`.
void buildTrees(const ReplicaPairs &pairs, unsigned mode,
                TreeBuilder &builder) {
  for (const ReplicaPairs::Pair &p : pairs.pairs)
    builder.addPair(p, mode);
}

/// replicaCells(to, sources) unless given.
const std::vector<std::pair<int64_t, int64_t>> &
cellsOf(const TileMap &to, const std::vector<uint32_t> &sources,
        const std::vector<std::pair<int64_t, int64_t>> *given,
        std::vector<std::pair<int64_t, int64_t>> &owned) {
  if (given)
    return *given;
  owned = replicaCells(to, sources);
  return owned;
}

} // namespace

std::vector<std::vector<DoublingSend>> mapc::rt::doublingRounds(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *given,
    std::vector<std::vector<RouteFlow>> *flows) {
  std::vector<std::pair<int64_t, int64_t>> owned;
  TreeBuilder builder(shape);
  ElementPass pass =
      passElements(shape, from, to, sources, cellsOf(to, sources, given, owned),
                   routeOrder, builder, ~0u);
  std::vector<std::vector<DoublingSend>> &rounds = pass.rounds;
  if (!pass.local.empty())
    rounds.push_back(std::move(pass.local));
  sortByCell(rounds, sources.size());
  if (flows)
    *flows =
        treeFlows(builder.built(), rounds.size(), routeOrder & kRouteChain);
  // Moved out: `rounds` names the pass's, and a copy of every send was a
  // quarter of the 10-cube broadcast's first touches.
  return std::move(pass.rounds);
}

std::vector<std::vector<RouteMove>> mapc::rt::doublingRoundMoves(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *given) {
  std::vector<std::pair<int64_t, int64_t>> owned;
  const std::vector<std::pair<int64_t, int64_t>> &cells =
      cellsOf(to, sources, given, owned);
  TreeBuilder builder(shape);
  CellSends sends(sources.size());
  const bool anyLocal = passElements(shape, from, to, sources, cells,
                                     routeOrder, builder, ~0u, sends);
  std::vector<std::vector<RouteMove>> out;
  if (!sends.fits) {
    for (const std::vector<DoublingSend> &round :
         doublingRounds(shape, from, to, sources, routeOrder, &cells))
      roundMoves(round, out.emplace_back());
    return out;
  }
  // The local copies' round, if any, moves nothing.
  out.resize(sends.rounds + anyLocal);
  // Counted, then written, cell by cell (a node's cells in a run).
  const int64_t toSlots = slotsOf(to), total = int64_t(sources.size());
  std::vector<uint32_t> count(sends.rounds, 0);
  auto scan = [&](auto &&take) {
    uint32_t node = 0;
    for (int64_t first = 0; first < total; first += toSlots, ++node)
      for (int64_t b = first; b < std::min(total, first + toSlots); ++b)
        if (const uint16_t r = sends.roundOf[size_t(b)];
            r && sends.fromOf[size_t(b)] != node)
          take(r - 1u, sends.fromOf[size_t(b)], node);
  };
  scan([&](uint32_t r, uint32_t, uint32_t) { ++count[r]; });
  for (uint32_t r = 0; r < sends.rounds; ++r)
    out[r].reserve(count[r]);
  scan([&](uint32_t r, uint32_t fromNode, uint32_t toNode) {
    out[r].push_back({fromNode, toNode});
  });
  return out;
}

ReplicaPairs
mapc::rt::replicaPairs(const NetworkShape &shape, const TileMap &from,
                       const TileMap &to, const std::vector<uint32_t> &sources,
                       const std::vector<std::pair<int64_t, int64_t>> *given) {
  std::vector<std::pair<int64_t, int64_t>> owned;
  TreeBuilder builder(shape);
  // The doubling's round 0 is the chains' (both seed alike).
  ElementPass pass =
      passElements(shape, from, to, sources, cellsOf(to, sources, given, owned),
                   kRouteDoubling, builder, 1);
  pass.rounds.resize(1);
  sortByCell(pass.rounds, sources.size());
  ReplicaPairs out;
  out.pairs = builder.pairList();
  out.seeds = std::move(pass.rounds[0]);
  out.anyLocal = pass.anyLocal;
  return out;
}

std::vector<std::vector<RouteFlow>>
mapc::rt::doublingRoundFlows(const NetworkShape &shape,
                             const ReplicaPairs &pairs, unsigned routeOrder) {
  TreeBuilder builder(shape);
  buildTrees(pairs, routeOrder, builder);
  const bool chain = routeOrder & kRouteChain;
  return treeFlows(builder.built(),
                   roundCountOf(builder.built(), chain, pairs.anyLocal), chain);
}

std::vector<std::vector<RouteFlow>> mapc::rt::doublingRoundFlows(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned routeOrder,
    const std::vector<std::pair<int64_t, int64_t>> *given) {
  return doublingRoundFlows(
      shape, replicaPairs(shape, from, to, sources, given), routeOrder);
}

namespace {

/// The rounds after round 0 of pipelined chains, from the trees: an edge
/// at depth d of a pair of E elements carries one element in each of
/// rounds d to d + E - 1, and the elements of a round between one pair of
/// nodes share their path's first link, so the round takes at least their
/// count plus the path's length less one, the most over the pairs in
/// flight. A sweep over the edges' first and last rounds gives that for
/// every round without the sends. When every edge joins neighbours it is
/// the round's time (the busiest link's count, as oneHopCycles counts);
/// returns whether it is.
bool sweepChains(const NodeCoords &table, const std::deque<Tree> &trees,
                 std::vector<int64_t> &rounds) {
  struct Event {
    uint32_t round;
    int32_t delta;
    uint64_t link; ///< (from, to)
  };
  std::vector<Event> events;
  std::vector<std::pair<uint64_t, uint32_t>> links; // (from, to), distance
  uint32_t last = 0;
  bool neighbours = true;
  for (const Tree &t : trees)
    for (const Tree::Send &s : t.sends) {
      if (s.round == 0)
        continue;
      const uint64_t link = uint64_t(s.from) << 32 | s.to;
      const uint32_t distance = table.distance(s.from, s.to);
      neighbours &= distance == 1;
      events.push_back({s.round, 1, link});
      events.push_back({s.round + t.elements, -1, link});
      links.push_back({link, distance});
      last = std::max(last, s.round + t.elements - 1);
    }
  // Pairs of nodes numbered densely, then each one's figure (its elements
  // in flight plus its distance less one) and how many pairs have each
  // figure, so that the largest is known after every event.
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  std::sort(events.begin(), events.end(),
            [](const Event &a, const Event &b) { return a.round < b.round; });
  std::vector<uint32_t> figure(links.size());
  uint32_t top = 0;
  for (size_t l = 0; l < links.size(); ++l) {
    figure[l] = links[l].second - 1; // none in flight
    top = std::max(top, figure[l]);
  }
  std::vector<uint32_t> withFigure(top + events.size() + 2, 0);
  withFigure[0] = uint32_t(links.size()); // counted as 0 while idle
  uint32_t busiest = 0;
  rounds.assign(size_t(last), 0);
  std::vector<uint32_t> load(links.size(), 0);
  size_t e = 0;
  for (uint32_t r = 1; r <= last; ++r) {
    for (; e < events.size() && events[e].round == r; ++e) {
      const size_t l =
          size_t(std::lower_bound(links.begin(), links.end(),
                                  std::make_pair(events[e].link, uint32_t(0))) -
                 links.begin());
      --withFigure[load[l] ? figure[l] + load[l] : 0];
      load[l] += uint32_t(events[e].delta);
      ++withFigure[load[l] ? figure[l] + load[l] : 0];
      if (load[l])
        busiest = std::max(busiest, figure[l] + load[l]);
      while (busiest > 0 && withFigure[busiest] == 0)
        --busiest;
    }
    rounds[r - 1] = busiest;
  }
  return neighbours;
}

} // namespace

std::vector<int64_t>
mapc::rt::pipelinedChainRounds(const NetworkShape &shape, const TileMap &from,
                               const TileMap &to, const ReplicaPairs &pairs,
                               unsigned elemBytes, unsigned routeOrder,
                               bool &exact, std::string *why) {
  TreeBuilder builder(shape);
  buildTrees(pairs, routeOrder | kRouteChain, builder);
  std::vector<int64_t> later;
  exact = sweepChains(NodeCoords(shape), builder.built(), later);
  // Round 0 as timeDoublingRounds times it, its sends in cell order.
  std::vector<int64_t> out = timeDoublingRounds(shape, {pairs.seeds}, from, to,
                                                elemBytes, routeOrder, why);
  if (out[0] < 0)
    return out;
  out.insert(out.end(), later.begin(), later.end());
  // The local copies' round, if any, takes no cycle.
  out.resize(roundCountOf(builder.built(), true, pairs.anyLocal), 0);
  return out;
}

std::vector<int64_t> mapc::rt::pipelinedChainRounds(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned elemBytes,
    unsigned routeOrder, const std::vector<std::pair<int64_t, int64_t>> *given,
    bool &exact, std::string *why) {
  return pipelinedChainRounds(shape, from, to,
                              replicaPairs(shape, from, to, sources, given),
                              elemBytes, routeOrder, exact, why);
}

namespace {

/// The busiest link of a round, loads added link by link (a link numbered
/// linkOf), kept from round to round: counted in a table of every link
/// when it is not much more than the additions, else by sorting them.
class LinkLoads {
public:
  explicit LinkLoads(const NetworkShape &shape)
      : dims(unsigned(shape.dims.size())),
        linkCount(size_t(shape.nodeCount()) * dims * 2) {}

  /// The link out of `node` along `dim`, up or down it.
  uint64_t linkOf(uint32_t node, unsigned dim, bool up) const {
    return (uint64_t(node) * dims + dim) * 2 + up;
  }
  void add(uint64_t link, uint32_t load) { added.push_back({link, load}); }
  /// Forgets what was added since the last busiest().
  void drop() { added.clear(); }

  /// The most load on one link of those added since the last call.
  uint64_t busiest() {
    uint64_t most = 0;
    if (linkCount <= 8 * added.size() + 65536 || table.size() >= linkCount) {
      table.resize(std::max(linkCount, table.size()), 0);
      for (const auto &[link, load] : added)
        most = std::max(most, table[link] += load);
      for (const auto &[link, load] : added)
        table[link] = 0;
    } else {
      radixSortByKey(added, scratch);
      for (size_t i = 0, j = 0; i < added.size(); i = j) {
        uint64_t sum = 0;
        for (; j < added.size() && added[j].first == added[i].first; ++j)
          sum += added[j].second;
        most = std::max(most, sum);
      }
    }
    added.clear();
    return most;
  }

private:
  unsigned dims;
  size_t linkCount;
  std::vector<uint64_t> table; ///< zero between calls
  std::vector<std::pair<uint64_t, uint32_t>> added, scratch;
};

} // namespace

std::vector<int64_t>
mapc::rt::spreadRounds(const NetworkShape &shape, const TileMap &from,
                       const TileMap &to, const ReplicaPairs &pairs,
                       unsigned elemBytes, unsigned routeOrder, bool &exact,
                       std::string *why) {
  TreeBuilder builder(shape);
  buildTrees(pairs, routeOrder | kRouteSpread, builder);
  const std::deque<Tree> &trees = builder.built();
  // Round 0 as timeDoublingRounds times it, its sends in cell order.
  std::vector<int64_t> out = timeDoublingRounds(shape, {pairs.seeds}, from, to,
                                                elemBytes, routeOrder, why);
  if (out[0] < 0)
    return out;
  const size_t rounds = roundCountOf(trees, false, pairs.anyLocal);
  out.resize(rounds, 0); // the local copies' round, if any, takes none
  // The sends that change node by round (a counting sort), each with the
  // elements that take its tree.
  struct Hop {
    uint32_t from, to, elements;
  };
  std::vector<size_t> start(rounds + 1, 0);
  for (const Tree &t : trees)
    for (const Tree::Send &s : t.sends)
      if (s.round > 0 && s.from != s.to)
        ++start[s.round + 1];
  for (size_t k = 0; k < rounds; ++k)
    start[k + 1] += start[k];
  std::vector<Hop> hops(start[rounds]);
  {
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (const Tree &t : trees)
      for (const Tree::Send &s : t.sends)
        if (s.round > 0 && s.from != s.to)
          hops[at[s.round]++] = {s.from, s.to, t.elements};
  }
  // Each round's busiest link over the dims-up paths: its time when every
  // send goes to a neighbour (oneHopRouteCycles), else a bound on it.
  const NodeCoords table(shape);
  const unsigned dims = unsigned(shape.dims.size());
  std::vector<uint32_t> strides;
  for (unsigned i = 0, stride = 1; i < dims; ++i) {
    strides.push_back(stride);
    stride *= shape.cube ? 2 : shape.dims[i];
  }
  LinkLoads loads(shape);
  exact = true;
  for (size_t k = 1; k < rounds; ++k) {
    for (size_t h = start[k]; h < start[k + 1]; ++h) {
      if (shape.cube) {
        // Dims up: the differing bits from the lowest, each a step up when
        // the destination has it.
        const uint32_t to = hops[h].to;
        uint32_t node = hops[h].from, diff = node ^ to;
        exact &= __builtin_popcount(diff) == 1;
        for (; diff; diff &= diff - 1) {
          const unsigned i = unsigned(__builtin_ctz(diff));
          loads.add(loads.linkOf(node, i, (to >> i) & 1), hops[h].elements);
          node ^= uint32_t(1) << i;
        }
        continue;
      }
      exact &= table.distance(hops[h].from, hops[h].to) == 1;
      uint32_t node = hops[h].from;
      for (unsigned i = 0; i < dims; ++i)
        for (unsigned a = table.coord(node, i), b = table.coord(hops[h].to, i);
             a != b; a = table.coord(node, i)) {
          loads.add(loads.linkOf(node, i, b > a), hops[h].elements);
          node = b > a ? node + strides[i] : node - strides[i];
        }
    }
    out[k] = int64_t(loads.busiest());
  }
  return out;
}

std::vector<int64_t> mapc::rt::timePipelinedChains(
    const NetworkShape &shape, const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources, unsigned elemBytes,
    unsigned routeOrder, const std::vector<std::pair<int64_t, int64_t>> *given,
    std::string *why) {
  std::vector<std::pair<int64_t, int64_t>> owned;
  const std::vector<std::pair<int64_t, int64_t>> &cells =
      cellsOf(to, sources, given, owned);
  bool exact = false;
  std::vector<int64_t> out = pipelinedChainRounds(
      shape, from, to, sources, elemBytes, routeOrder, &cells, exact, why);
  if (exact || out[0] < 0)
    return out;
  return timeDoublingRounds(shape,
                            doublingRounds(shape, from, to, sources,
                                           routeOrder | kRouteChain, &cells),
                            from, to, elemBytes, routeOrder, why);
}

std::vector<std::pair<int64_t, int64_t>>
mapc::rt::replicaCells(const TileMap &to,
                       const std::vector<uint32_t> &sources) {
  // The cells that read one source cell hold its element: counted into
  // order by source cell (each's cells ascending), they need one data
  // index decoded per source cell, not one per held cell. A replicated
  // source may feed an element from several copies: their cells merge.
  uint32_t top = 0;
  for (uint32_t a : sources)
    if (a != kNoSource)
      top = std::max(top, a + 1);
  std::vector<std::pair<int64_t, int64_t>> cells;
  if (top > 4 * sources.size() + 1024 || sources.size() > UINT32_MAX) {
    // Too many source cells to count by (or cells past 32 bits): a data
    // index per held cell.
    for (size_t b = 0; b < sources.size(); ++b)
      if (sources[b] != kNoSource)
        cells.push_back({to.dataAt(int64_t(b)), int64_t(b)});
    std::sort(cells.begin(), cells.end());
    return cells;
  }
  std::vector<uint32_t> start;
  CountingSort<uint32_t> bySource(start, top);
  for (uint32_t a : sources)
    if (a != kNoSource)
      bySource.count(a);
  bySource.sum();
  // Cells in 32 bits: half the table to touch.
  std::vector<uint32_t> byCell(bySource.total());
  for (size_t b = 0; b < sources.size(); ++b)
    if (sources[b] != kNoSource)
      byCell[bySource.place(sources[b])] = uint32_t(b);
  std::vector<std::pair<int64_t, uint32_t>> groups; // element, source cell
  for (uint32_t a = 0; a < top; ++a)
    if (start[a] < start[a + 1])
      groups.push_back({to.dataAt(byCell[start[a]]), a});
  if (!std::is_sorted(groups.begin(), groups.end()))
    std::sort(groups.begin(), groups.end());
  cells.reserve(byCell.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [d, a] = groups[g];
    const size_t first = cells.size();
    for (uint32_t i = start[a]; i < start[a + 1]; ++i)
      cells.push_back({d, byCell[i]});
    if (g > 0 && groups[g - 1].first == d) {
      // Another copy's cells: the element's cells sorted again.
      size_t from = first;
      while (from > 0 && cells[from - 1].first == d)
        --from;
      std::sort(cells.begin() + from, cells.end());
    }
  }
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

/// oneHopRouteCycles with the shape's coordinates at hand.
static int64_t oneHopCycles(const NetworkShape &shape, const NodeCoords &table,
                            const std::vector<RouteMove> &moves,
                            LinkLoads &links) {
  for (const RouteMove &m : moves) {
    if (table.distance(m.from, m.to) != 1) {
      links.drop();
      return -1;
    }
    unsigned dim = 0;
    if (shape.cube)
      dim = unsigned(__builtin_ctz(m.from ^ m.to));
    else
      while (table.coord(m.from, dim) == table.coord(m.to, dim))
        ++dim;
    links.add(links.linkOf(m.from, dim, m.to > m.from), 1);
  }
  // A link takes its moves one a cycle whatever their keys, and moves of
  // one hop wait for nothing else: the busiest link's count.
  return int64_t(links.busiest());
}

int64_t mapc::rt::oneHopRouteCycles(const NetworkShape &shape,
                                    const std::vector<RouteMove> &moves) {
  LinkLoads links(shape);
  return oneHopCycles(shape, NodeCoords(shape), moves, links);
}

/// Round k of `rounds` simulated cycle by cycle on the machine (its
/// cycles, or -1): for a round past the reservation walk's memory.
static int64_t
simulateRound(const NetworkShape &shape,
              const std::vector<std::vector<DoublingSend>> &rounds, size_t k,
              const TileMap &from, const TileMap &to, unsigned elemBytes,
              unsigned routeOrder, std::string *why) {
  NetworkMachine probe(shape, uint64_t(std::max(slotsOf(from), slotsOf(to))) *
                                  elemBytes);
  return probe.run(doublingTransfers(shape, rounds, k, from, to, elemBytes, 0,
                                     0, routeOrder),
                   elemBytes, why);
}

/// timeDoublingRounds over `count` rounds whose moves `movesOf(k)` gives,
/// with `simulate(k)` (the machine's cycles, or -1) for a round past the
/// reservation walk's memory.
template <class MovesOf, class Simulate>
static std::vector<int64_t> timeRounds(const NetworkShape &shape, size_t count,
                                       MovesOf &&movesOf, Simulate &&simulate,
                                       unsigned routeOrder, int64_t stopAt,
                                       const std::vector<int64_t> *bounds) {
  // What the rounds after k take at least, and the total so far.
  std::vector<int64_t> after(count + 1, 0);
  if (bounds)
    for (size_t k = count; k-- > 0;)
      after[k] = after[k + 1] + (*bounds)[k];
  int64_t sum = 0;
  std::vector<int64_t> out;
  LinkLoads links(shape);
  const NodeCoords table(shape);
  for (size_t k = 0; k < count; ++k) {
    const std::vector<RouteMove> &moves = movesOf(k);
    // Round k stops where it, the rounds before and the bounds of those
    // after reach stopAt.
    const int64_t stop =
        bounds && stopAt != INT64_MAX ? stopAt - sum - after[k + 1] : INT64_MAX;
    // Pipelined chains' rounds are mostly of one hop each: counted.
    int64_t t = oneHopCycles(shape, table, moves, links);
    if (t < 0)
      t = timeRoute(shape, moves, routeOrder & kRouteFarthestFirst,
                    std::max<int64_t>(stop, 1));
    if (t < 0) {
      // Past the reservation walk's memory: simulate the cycles.
      t = simulate(k);
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

std::vector<int64_t> mapc::rt::timeDoublingRounds(
    const NetworkShape &shape,
    const std::vector<std::vector<DoublingSend>> &rounds, const TileMap &from,
    const TileMap &to, unsigned elemBytes, unsigned routeOrder,
    std::string *why, int64_t stopAt, const std::vector<int64_t> *bounds) {
  std::vector<RouteMove> moves;
  return timeRounds(
      shape, rounds.size(),
      [&](size_t k) -> const std::vector<RouteMove> & {
        roundMoves(rounds[k], moves);
        return moves;
      },
      [&](size_t k) {
        return simulateRound(shape, rounds, k, from, to, elemBytes, routeOrder,
                             why);
      },
      routeOrder, stopAt, bounds);
}

std::vector<int64_t> mapc::rt::timeDoublingRoundMoves(
    const NetworkShape &shape, const std::vector<std::vector<RouteMove>> &moves,
    const TileMap &from, const TileMap &to,
    const std::vector<uint32_t> &sources,
    const std::vector<std::pair<int64_t, int64_t>> *cells, unsigned elemBytes,
    unsigned routeOrder, std::string *why, int64_t stopAt,
    const std::vector<int64_t> *bounds) {
  // The sends written out only for a round the walk cannot time.
  std::optional<std::vector<std::vector<DoublingSend>>> rounds;
  return timeRounds(
      shape, moves.size(),
      [&](size_t k) -> const std::vector<RouteMove> & { return moves[k]; },
      [&](size_t k) {
        if (!rounds)
          rounds = doublingRounds(shape, from, to, sources, routeOrder, cells);
        return simulateRound(shape, *rounds, k, from, to, elemBytes, routeOrder,
                             why);
      },
      routeOrder, stopAt, bounds);
}

std::vector<int64_t> mapc::rt::doublingRoundBounds(
    const NetworkShape &shape,
    const std::vector<std::vector<DoublingSend>> &rounds) {
  std::vector<std::vector<RouteFlow>> flows;
  std::vector<RouteMove> moves;
  for (const std::vector<DoublingSend> &round : rounds) {
    roundMoves(round, moves);
    flows.push_back(routeFlows(shape, moves));
  }
  return doublingRoundBounds(shape, flows);
}

std::vector<int64_t> mapc::rt::doublingRoundBounds(
    const NetworkShape &shape,
    const std::vector<std::vector<RouteFlow>> &flows) {
  std::vector<int64_t> out;
  for (const std::vector<RouteFlow> &round : flows)
    out.push_back(round.empty() ? 0 : routeOrderBound(shape, round, 0));
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
