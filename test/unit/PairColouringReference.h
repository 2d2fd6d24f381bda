//===- PairColouringReference.h - the colouring before its rewrite -------===//
//
// colourPairs as it was before its rewrite on flat arrays (2026-11-26,
// branch colour), kept verbatim so that PairColouringTest can check that
// the rewrite gives the very same rounds, in the same order: every
// exchange step's price and schedule depend on them.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TEST_UNIT_PAIRCOLOURINGREFERENCE_H
#define MAPC_TEST_UNIT_PAIRCOLOURINGREFERENCE_H

#include "mapc/runtime/PairColouring.h"

#include <algorithm>
#include <cassert>

namespace mapc::rt::reference {

inline constexpr uint32_t kNone = ~uint32_t(0);
/// A padding edge of the regular graph: never part of a round's output.
inline constexpr uint32_t kPadding = ~uint32_t(0);

struct Entry {
  uint32_t left, right; ///< right vertices numbered apart from left ones
  uint64_t count;
  uint32_t pair; ///< index into the caller's pairs, or kPadding
};

/// A d-regular bipartite multigraph still to colour, each of its rounds to
/// be used `times` times.
struct Work {
  std::vector<Entry> entries;
  uint64_t degree, times;
};

/// Graphs of at most this many pairs may be decomposed by Birkhoff's
/// method (a matching per emptied pair) rather than halved.
inline constexpr size_t kBirkhoffPairs = 4096;

class Colourer {
public:
  explicit Colourer(unsigned n) : n(n) {}

  std::vector<PairRound> run(std::vector<Entry> entries, uint64_t degree) {
    std::vector<Work> stack;
    stack.push_back({std::move(entries), degree, 1});
    while (!stack.empty()) {
      Work w = std::move(stack.back());
      stack.pop_back();
      colour(w, stack);
    }
    return std::move(out);
  }

private:
  unsigned n; ///< vertices per side
  std::vector<PairRound> out;
  // Scratch for the matching and the split, sized once.
  std::vector<uint32_t> start, adj, matchL, matchR, dist, it, path, pathEdge;

  void emit(const std::vector<Entry> &es, const std::vector<uint32_t> &chosen,
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
    std::vector<Entry> &es = w.entries;
    if (w.degree == 0 || es.empty())
      return;
    // Regular with one pair per vertex: a perfect matching, `degree` times.
    if (es.size() == n) {
      std::vector<uint32_t> all(es.size());
      for (uint32_t e = 0; e < es.size(); ++e)
        all[e] = e;
      emit(es, all, w.degree * w.times);
      return;
    }
    // Few pairs carrying many elements each: take whole matchings, each as
    // often as its scarcest pair allows (Birkhoff's decomposition), which
    // empties a pair per matching.
    if (w.degree > es.size() && es.size() <= kBirkhoffPairs) {
      birkhoff(es, w.degree, w.times);
      return;
    }
    if (w.degree % 2) {
      perfectMatching(es, /*fresh=*/true);
      emit(es, matchL, w.times);
      for (uint32_t e : matchL)
        --es[e].count;
      es.erase(std::remove_if(es.begin(), es.end(),
                              [](const Entry &x) { return x.count == 0; }),
               es.end());
      --w.degree;
      if (w.degree == 0)
        return;
      if (es.size() == n) {
        stack.push_back(std::move(w));
        return;
      }
    }
    bool allEven = true;
    for (const Entry &e : es)
      allEven &= e.count % 2 == 0;
    if (allEven) {
      // Both halves are the same graph: colour it once, use it twice.
      for (Entry &e : es)
        e.count /= 2;
      stack.push_back({std::move(es), w.degree / 2, w.times * 2});
      return;
    }
    Work a{{}, w.degree / 2, w.times}, b{{}, w.degree / 2, w.times};
    split(es, a.entries, b.entries);
    stack.push_back(std::move(a));
    stack.push_back(std::move(b));
  }

  /// Birkhoff's decomposition of a regular graph: a perfect matching of the
  /// pairs that still carry elements, used as often as its scarcest pair
  /// can, until nothing is left; each matching repairs the last one.
  void birkhoff(std::vector<Entry> &es, uint64_t degree, uint64_t times) {
    bool fresh = true;
    while (degree > 0) {
      perfectMatching(es, fresh);
      fresh = false;
      uint64_t least = degree;
      for (uint32_t e : matchL)
        least = std::min(least, es[e].count);
      emit(es, matchL, least * times);
      degree -= least;
      for (unsigned u = 0; u < n; ++u) {
        Entry &e = es[matchL[u]];
        e.count -= least;
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
  /// vertex as many extra edges in one half as in the other.
  void split(const std::vector<Entry> &es, std::vector<Entry> &a,
             std::vector<Entry> &b) {
    const unsigned v2 = 2 * n;
    start.assign(v2 + 1, 0);
    for (const Entry &e : es)
      if (e.count % 2) {
        ++start[e.left + 1];
        ++start[n + e.right + 1];
      }
    for (unsigned v = 0; v < v2; ++v)
      start[v + 1] += start[v];
    adj.assign(start[v2], 0);
    it.assign(start.begin(), start.end() - 1);
    for (uint32_t i = 0; i < es.size(); ++i)
      if (es[i].count % 2) {
        adj[it[es[i].left]++] = i;
        adj[it[n + es[i].right]++] = i;
      }
    it.assign(start.begin(), start.end() - 1);
    std::vector<uint8_t> side(es.size(), 2); // 0: extra to a, 1: to b
    for (unsigned s = 0; s < v2; ++s) {
      for (;;) {
        // A closed trail from s: every vertex has even degree in the odd
        // pairs, so the walk can only stop where it began.
        unsigned v = s;
        uint8_t label = 0;
        bool moved = false;
        for (;;) {
          while (it[v] < start[v + 1] && side[adj[it[v]]] != 2)
            ++it[v];
          if (it[v] == start[v + 1])
            break;
          uint32_t e = adj[it[v]++];
          side[e] = label;
          label ^= 1;
          moved = true;
          v = v < n ? n + es[e].right : es[e].left;
        }
        assert(v == s && "an odd-degree vertex in an even graph");
        if (!moved)
          break;
      }
    }
    a.reserve(es.size() / 2 + n);
    b.reserve(es.size() / 2 + n);
    for (uint32_t i = 0; i < es.size(); ++i) {
      const Entry &e = es[i];
      uint64_t half = e.count / 2;
      uint64_t ca = half + (side[i] == 0), cb = half + (side[i] == 1);
      if (ca)
        a.push_back({e.left, e.right, ca, e.pair});
      if (cb)
        b.push_back({e.left, e.right, cb, e.pair});
    }
  }

  /// A perfect matching of the pairs of a regular graph that still carry
  /// elements (one exists, by Hall's theorem) into matchL (the entry at each
  /// left vertex; matchR: the left vertex at each right one): Hopcroft-Karp
  /// from a greedy start, or when not `fresh` from the matching there.
  void perfectMatching(const std::vector<Entry> &es, bool fresh) {
    start.assign(n + 1, 0);
    for (const Entry &e : es)
      if (e.count)
        ++start[e.left + 1];
    for (unsigned v = 0; v < n; ++v)
      start[v + 1] += start[v];
    adj.assign(start[n], 0);
    it.assign(start.begin(), start.end() - 1);
    for (uint32_t i = 0; i < es.size(); ++i)
      if (es[i].count)
        adj[it[es[i].left]++] = i;
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
        if (matchR[es[adj[k]].right] == kNone) {
          matchL[u] = adj[k];
          matchR[es[adj[k]].right] = u;
          ++matched;
          break;
        }
    }
    std::vector<uint32_t> queue;
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
          uint32_t w = matchR[es[adj[k]].right];
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
      it.assign(start.begin(), start.end() - 1);
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
          uint32_t e = adj[it[u]++];
          uint32_t w = matchR[es[e].right];
          if (w == kNone) {
            pathEdge.push_back(e);
            for (size_t i = 0; i < path.size(); ++i) {
              matchL[path[i]] = pathEdge[i];
              matchR[es[pathEdge[i]].right] = path[i];
            }
            ++matched;
            break;
          }
          if (dist[w] != kNone && dist[w] == dist[u] + 1) {
            pathEdge.push_back(e);
            path.push_back(w);
          }
        }
      }
    }
  }
};

/// The colouring as PairColouring.cpp made it before it was rewritten on
/// flat arrays (2026-11-26): the rewrite must give the same rounds.
inline std::vector<PairRound>
referenceColourPairs(const std::vector<PairCount> &pairs, unsigned leftVertices,
                     unsigned rightVertices) {
  const unsigned n = std::max(leftVertices, rightVertices);
  std::vector<uint64_t> degL(n, 0), degR(n, 0);
  std::vector<Entry> es;
  for (uint32_t i = 0; i < pairs.size(); ++i) {
    const PairCount &p = pairs[i];
    if (p.count == 0)
      continue;
    assert(p.left < leftVertices && p.right < rightVertices);
    degL[p.left] += p.count;
    degR[p.right] += p.count;
    es.push_back({p.left, p.right, p.count, i});
  }
  uint64_t degree = 0;
  for (unsigned v = 0; v < n; ++v)
    degree = std::max({degree, degL[v], degR[v]});
  if (degree == 0)
    return {};
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
    es.push_back({u, v, c, kPadding});
    degL[u] += c;
    degR[v] += c;
  }
  assert(u == n && v == n && "the padding leaves a deficit");
  return Colourer(n).run(std::move(es), degree);
}

} // namespace mapc::rt::reference

#endif
