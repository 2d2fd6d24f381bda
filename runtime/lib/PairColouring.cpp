//===- PairColouring.cpp - Euler-partition edge colouring (see header) ----===//
//
// The work is a few passes over flat arrays per level of halving: the pairs
// of a graph are a buffer of entries (recycled, never value-initialised),
// the closed trails of a split walk slots that name the vertex at their
// other end and their twin slot there (no load of an entry per step), and
// a matching's adjacency carries each edge's right vertex. An HPF move of
// 10^6 elements on 31 x 33 PEs halves some 10^6 entries per level (the
// pairs of 1-3 elements become single edges after two levels).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/PairColouring.h"

#include "CountingSort.h"

#include <algorithm>
#include <cassert>
#include <memory>

using namespace mapc::rt;

namespace {

constexpr uint32_t kNone = ~uint32_t(0);
/// A padding edge of the regular graph: never part of a round's output.
constexpr uint32_t kPadding = ~uint32_t(0);

/// A pair of the graph being coloured. `Count` is 32 bits when the degree
/// allows (16 bytes an entry rather than 24: the halving streams them).
template <typename Count> struct Entry {
  uint32_t left, right; ///< right vertices numbered apart from left ones
  Count count;
  uint32_t pair; ///< index into the caller's pairs, or kPadding
};

/// Entries in a buffer of some capacity, handed back to the colourer's pool
/// when done (a vector would zero what it grows by).
template <typename Count> struct Entries {
  std::unique_ptr<Entry<Count>[]> data;
  size_t size = 0, capacity = 0;
};

/// A d-regular bipartite multigraph still to colour, each of its rounds to
/// be used `times` times.
template <typename Count> struct Work {
  Entries<Count> entries;
  uint64_t degree, times;
};

/// Graphs of at most this many pairs may be decomposed by Birkhoff's
/// method (a matching per emptied pair) rather than halved.
constexpr size_t kBirkhoffPairs = 4096;

/// A slot of a vertex's adjacency in a split: the vertex at the edge's
/// other end and the edge's slot there. Once the edge is walked, `to` also
/// carries kWalked, and kSecond when its extra element goes to the second
/// half (one array to read at the walk's vertex, not two).
struct Link {
  uint32_t to, twin;
};
constexpr uint32_t kWalked = uint32_t(1) << 31, kSecond = uint32_t(1) << 30;

/// An edge of a matching's adjacency: its entry and its right vertex.
struct Arc {
  uint32_t entry, right;
};

template <typename Count> class Colourer {
  using Entry = ::Entry<Count>;
  using Entries = ::Entries<Count>;
  using Work = ::Work<Count>;

public:
  explicit Colourer(unsigned n) : n(n) {}

  /// A buffer of at least `need` entries, from the pool if one is there.
  Entries take(size_t need) {
    for (size_t i = spare.size(); i-- > 0;)
      if (spare[i].capacity >= need) {
        Entries e = std::move(spare[i]);
        spare.erase(spare.begin() + ptrdiff_t(i));
        e.size = 0;
        return e;
      }
    Entries e;
    e.data.reset(new Entry[std::max<size_t>(need, 1)]);
    e.capacity = std::max<size_t>(need, 1);
    return e;
  }

  std::vector<PairRound> run(Entries entries, uint64_t degree) {
    std::vector<Work> stack;
    stack.push_back({std::move(entries), degree, 1});
    while (!stack.empty()) {
      Work w = std::move(stack.back());
      stack.pop_back();
      colour(w, stack);
      if (w.entries.data)
        spare.push_back(std::move(w.entries));
    }
    return std::move(out);
  }

private:
  unsigned n; ///< vertices per side
  std::vector<PairRound> out;
  std::vector<Entries> spare;
  // Scratch for the matching and the split, sized once.
  std::vector<uint32_t> start, it, matchL, matchR, dist, queue, path, pathEdge;
  std::vector<Link> link;
  std::vector<Arc> adj;

  void emit(const Entry *es, const std::vector<uint32_t> &chosen,
            uint64_t times) {
    PairRound r;
    r.times = times;
    for (uint32_t e : chosen)
      if (es[e].pair != kPadding)
        r.pairs.push_back(es[e].pair);
    if (!r.pairs.empty())
      out.push_back(std::move(r));
  }

  void colour(Work &w, std::vector<Work> &stack) {
    Entry *es = w.entries.data.get();
    size_t &m = w.entries.size;
    if (w.degree == 0 || m == 0)
      return;
    // Regular with one pair per vertex: a perfect matching, `degree` times.
    if (m == n) {
      PairRound r;
      r.times = w.degree * w.times;
      for (size_t e = 0; e < m; ++e)
        if (es[e].pair != kPadding)
          r.pairs.push_back(es[e].pair);
      if (!r.pairs.empty())
        out.push_back(std::move(r));
      return;
    }
    // Few pairs carrying many elements each: take whole matchings, each as
    // often as its scarcest pair allows (Birkhoff's decomposition), which
    // empties a pair per matching.
    if (w.degree > m && m <= kBirkhoffPairs) {
      birkhoff(es, m, w.degree, w.times);
      return;
    }
    if (w.degree % 2) {
      perfectMatching(es, m, /*fresh=*/true);
      emit(es, matchL, w.times);
      for (uint32_t e : matchL)
        --es[e].count;
      m = size_t(std::remove_if(es, es + m,
                                [](const Entry &x) { return x.count == 0; }) -
                 es);
      --w.degree;
      if (w.degree == 0)
        return;
      if (m == n) {
        stack.push_back(std::move(w));
        return;
      }
    }
    bool allEven = true;
    for (size_t i = 0; i < m; ++i)
      allEven &= es[i].count % 2 == 0;
    if (allEven) {
      // Both halves are the same graph: colour it once, use it twice.
      for (size_t i = 0; i < m; ++i)
        es[i].count /= 2;
      stack.push_back({std::move(w.entries), w.degree / 2, w.times * 2});
      return;
    }
    Work a{take(m), w.degree / 2, w.times}, b{take(m), w.degree / 2, w.times};
    split(es, m, a.entries, b.entries);
    stack.push_back(std::move(a));
    stack.push_back(std::move(b));
  }

  /// Birkhoff's decomposition of a regular graph: a perfect matching of the
  /// pairs that still carry elements, used as often as its scarcest pair
  /// can, until nothing is left; each matching repairs the last one.
  void birkhoff(Entry *es, size_t m, uint64_t degree, uint64_t times) {
    bool fresh = true;
    while (degree > 0) {
      perfectMatching(es, m, fresh);
      fresh = false;
      uint64_t least = degree;
      for (uint32_t e : matchL)
        least = std::min<uint64_t>(least, es[e].count);
      emit(es, matchL, least * times);
      degree -= least;
      for (unsigned u = 0; u < n; ++u) {
        Entry &e = es[matchL[u]];
        e.count -= Count(least);
        if (e.count == 0) {
          matchR[e.right] = kNone;
          matchL[u] = kNone;
        }
      }
    }
  }

  /// Halves a regular graph of even degree: an even multiplicity splits
  /// evenly; the pairs of odd multiplicity give every vertex an even
  /// number of them, so closed trails through them, alternating, give each
  /// vertex as many extra edges in one half as in the other. The trails
  /// start at each vertex in turn and take each vertex's edges in the
  /// order of the entries.
  void split(const Entry *es, size_t m, Entries &a, Entries &b) {
    const unsigned v2 = 2 * n;
    CountingSort<uint32_t> byVertex(start, v2);
    for (size_t i = 0; i < m; ++i)
      if (es[i].count % 2) {
        byVertex.count(es[i].left);
        byVertex.count(n + es[i].right);
      }
    byVertex.sum();
    link.resize(byVertex.total());
    for (size_t i = 0; i < m; ++i)
      if (es[i].count % 2) {
        const uint32_t l = byVertex.place(es[i].left),
                       r = byVertex.place(n + es[i].right);
        link[l] = {n + es[i].right, r};
        link[r] = {es[i].left, l};
      }
    it.assign(start.begin(), start.begin() + v2);
    for (unsigned s = 0; s < v2; ++s) {
      for (;;) {
        // A closed trail from s: every vertex has even degree in the odd
        // pairs, so the walk can only stop where it began.
        unsigned v = s;
        uint32_t label = kWalked;
        bool moved = false;
        for (;;) {
          uint32_t k = it[v];
          const uint32_t end = start[v + 1];
          while (k < end && (link[k].to & kWalked))
            ++k;
          it[v] = k;
          if (k == end)
            break;
          ++it[v];
          Link &l = link[k];
          const uint32_t to = l.to;
          l.to = to | label;
          link[l.twin].to |= label;
          label ^= kSecond;
          moved = true;
          v = to;
        }
        assert(v == s && "an odd-degree vertex in an even graph");
        if (!moved)
          break;
      }
    }
    // Each odd entry's side, read at its slot of its left vertex.
    it.assign(start.begin(), start.begin() + n);
    Entry *pa = a.data.get(), *pb = b.data.get();
    for (size_t i = 0; i < m; ++i) {
      const Entry &e = es[i];
      const Count half = e.count / 2;
      const uint32_t side = e.count % 2 ? link[it[e.left]++].to : 0;
      const Count second = Count((side & kSecond) != 0);
      const Count ca = half + Count((side & kWalked) != 0) - second,
                  cb = half + second;
      // Written either way, kept when not empty (no branch on the side a
      // single element takes; both buffers hold m entries).
      *pa = {e.left, e.right, ca, e.pair};
      pa += ca != 0;
      *pb = {e.left, e.right, cb, e.pair};
      pb += cb != 0;
    }
    a.size = size_t(pa - a.data.get());
    b.size = size_t(pb - b.data.get());
  }

  /// A perfect matching of the pairs of a regular graph that still carry
  /// elements (one exists, by Hall's theorem) into matchL (the entry at each
  /// left vertex; matchR: the left vertex at each right one): Hopcroft-Karp
  /// from a greedy start, or when not `fresh` from the matching there.
  void perfectMatching(const Entry *es, size_t m, bool fresh) {
    CountingSort<uint32_t> byLeft(start, n);
    for (size_t i = 0; i < m; ++i)
      if (es[i].count)
        byLeft.count(es[i].left);
    byLeft.sum();
    adj.resize(byLeft.total());
    for (size_t i = 0; i < m; ++i)
      if (es[i].count)
        adj[byLeft.place(es[i].left)] = {uint32_t(i), es[i].right};
    unsigned matched = 0;
    if (fresh) {
      matchL.assign(n, kNone);
      matchR.assign(n, kNone);
    }
    for (unsigned u = 0; u < n; ++u) {
      if (matchL[u] != kNone) {
        ++matched;
        continue;
      }
      for (uint32_t k = start[u]; k < start[u + 1]; ++k)
        if (matchR[adj[k].right] == kNone) {
          matchL[u] = adj[k].entry;
          matchR[adj[k].right] = u;
          ++matched;
          break;
        }
    }
    while (matched < n) {
      // Layers from the free left vertices along alternating paths.
      dist.assign(n, kNone);
      queue.clear();
      for (unsigned u = 0; u < n; ++u)
        if (matchL[u] == kNone) {
          dist[u] = 0;
          queue.push_back(u);
        }
      bool found = false;
      for (size_t q = 0; q < queue.size(); ++q) {
        unsigned u = queue[q];
        for (uint32_t k = start[u]; k < start[u + 1]; ++k) {
          uint32_t w = matchR[adj[k].right];
          if (w == kNone)
            found = true;
          else if (dist[w] == kNone) {
            dist[w] = dist[u] + 1;
            queue.push_back(w);
          }
        }
      }
      assert(found && "a regular bipartite graph has a perfect matching");
      if (!found)
        break;
      // Vertex-disjoint augmenting paths along the layers (iterative DFS).
      it.assign(start.begin(), start.begin() + n);
      for (unsigned u0 = 0; u0 < n; ++u0) {
        if (matchL[u0] != kNone)
          continue;
        path.assign(1, u0);
        pathEdge.clear();
        while (!path.empty()) {
          unsigned u = path.back();
          if (it[u] == start[u + 1]) {
            dist[u] = kNone; // a dead end for this phase
            path.pop_back();
            if (!pathEdge.empty())
              pathEdge.pop_back();
            continue;
          }
          const Arc arc = adj[it[u]++];
          uint32_t w = matchR[arc.right];
          if (w == kNone) {
            pathEdge.push_back(arc.entry);
            for (size_t i = 0; i < path.size(); ++i) {
              matchL[path[i]] = pathEdge[i];
              matchR[es[pathEdge[i]].right] = path[i];
            }
            ++matched;
            break;
          }
          if (dist[w] != kNone && dist[w] == dist[u] + 1) {
            pathEdge.push_back(arc.entry);
            path.push_back(w);
          }
        }
      }
    }
  }
};

/// Pads `pairs` (of largest degree `degree`, `degL` and `degR` the
/// vertices' degrees) to a regular graph and colours it.
template <typename Count>
std::vector<PairRound>
colourRegular(const std::vector<PairCount> &pairs, unsigned n, uint64_t degree,
              std::vector<uint64_t> &degL, std::vector<uint64_t> &degR) {
  Colourer<Count> colourer(n);
  // The pairs and at most 2n padding pairs.
  Entries<Count> es = colourer.take(pairs.size() + 2 * size_t(n));
  Entry<Count> *e = es.data.get();
  for (uint32_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].count)
      *e++ = {pairs[i].left, pairs[i].right, Count(pairs[i].count), i};
  // Pad to a regular graph: the left and right deficits add up alike, so
  // pair them off in order.
  unsigned u = 0, v = 0;
  for (;;) {
    while (u < n && degL[u] == degree)
      ++u;
    while (v < n && degR[v] == degree)
      ++v;
    if (u == n || v == n)
      break;
    uint64_t c = std::min(degree - degL[u], degree - degR[v]);
    *e++ = {u, v, Count(c), kPadding};
    degL[u] += c;
    degR[v] += c;
  }
  assert(u == n && v == n && "the padding leaves a deficit");
  es.size = size_t(e - es.data.get());
  return colourer.run(std::move(es), degree);
}

} // namespace

std::vector<PairRound>
mapc::rt::colourPairs(const std::vector<PairCount> &pairs,
                      unsigned leftVertices, unsigned rightVertices) {
  const unsigned n = std::max(leftVertices, rightVertices);
  assert(n <= (1u << 29) && "a split's slots keep two flags above 2n");
  std::vector<uint64_t> degL(n, 0), degR(n, 0);
  for (const PairCount &p : pairs) {
    assert(
        (p.count == 0 || (p.left < leftVertices && p.right < rightVertices)));
    if (p.count == 0)
      continue;
    degL[p.left] += p.count;
    degR[p.right] += p.count;
  }
  uint64_t degree = 0;
  for (unsigned v = 0; v < n; ++v)
    degree = std::max({degree, degL[v], degR[v]});
  if (degree == 0)
    return {};
  // Every count, padding included, is at most the degree.
  return degree <= UINT32_MAX
             ? colourRegular<uint32_t>(pairs, n, degree, degL, degR)
             : colourRegular<uint64_t>(pairs, n, degree, degL, degR);
}
