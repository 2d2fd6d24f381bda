//===- PartialRoundsReference.h - the partial-round search before 2026-11-28
//===//
//
// searchDigitExchangePartialRounds as it was before its rewrite with
// incremental weights and round prices from the chosen pairs (branch
// r5cold), kept verbatim so that PartialRoundsSearchTest can check that the
// rewrite finds the very same rounds: the plan prices them and the runtime
// and emitted C++ search them again from the step.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TEST_UNIT_PARTIALROUNDSREFERENCE_H
#define MAPC_TEST_UNIT_PARTIALROUNDSREFERENCE_H

#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/MasPar.h"

#include <algorithm>
#include <iterator>

namespace mapc::rt::reference {

/// The shapes a round tries: P partner clusters of groups of at most G.
/// The study tried six, two builds each (one jittered); 4 of 2 and 2 of 4
/// carry random #5 (docs/cost-model.md), and one build each keeps its
/// search near 60 M instructions, 0.5 of its bound all the same.
constexpr int64_t kShapes[][2] = {{4, 2}, {2, 4}};

/// A cluster's weight exp(-d / 100) for d ticks below the busiest floor,
/// in units of 2^-40 and built from kExp[i] = exp(-2^i / 100) with integer
/// products only, so every platform's search finds the same rounds.
constexpr unsigned kWeightBits = 40;
constexpr uint64_t kExp[] = {0xfd73e7e95dull, 0xfaee4cdd6full, 0xf5f64bf380ull,
                             0xec515a5622ull, 0xda26186919ull, 0xb9e4e73e41ull,
                             0x86fca2e4b2ull, 0x472d73d884ull, 0x13ca3e5408ull,
                             0x187a506e5ull,  0x2572985ull,    0x57aull};

inline uint64_t weightBelow(int64_t d) {
  if (d >= int64_t(1) << std::size(kExp))
    return 0;
  uint64_t w = uint64_t(1) << kWeightBits;
  for (size_t i = 0; i < std::size(kExp); ++i)
    if (d >> i & 1)
      w = uint64_t((unsigned __int128)w * kExp[i] >> kWeightBits);
  return w;
}

/// The search's state: the values still to send, by cluster pair.
class Search {
public:
  Search(const MasPar &m, const DigitExchangeShape &s, unsigned bytes,
         int64_t live)
      : m(m), s(s), live(live), clusters(m.clusterCount()),
        open(m.cost().ropen), send(m.cost().rsend[widthIndex(bytes)]),
        bytes(bytes) {}

  DigitExchangePartialRounds run();

private:
  struct Pair {
    unsigned from, to;
    std::vector<uint32_t> edges; ///< values p * base + y still to send
    int64_t mostFrom = 0, mostTo = 0;
  };
  const MasPar &m;
  const DigitExchangeShape &s;
  const int64_t live;
  const unsigned clusters;
  const int64_t open, send;
  const unsigned bytes;
  std::vector<Pair> pairs;
  std::vector<int64_t> held, score;
  std::vector<uint64_t> wOut, wIn;

  /// Each value's sender and receiver, by value p * base + y.
  std::vector<uint32_t> senderOf, receiverOf;
  int64_t destOf(uint32_t e) const { return receiverOf[e]; }
  /// Connections a pair still needs with groups of at most g.
  int64_t openings(const Pair &p, int64_t g) const {
    return std::max(
        {(int64_t(p.edges.size()) + g - 1) / g, p.mostFrom, p.mostTo});
  }
  void weigh();
  std::vector<uint32_t> build(int64_t most, int64_t group);
};

/// Per pair its busiest sender and receiver and per value its pair's count
/// of both ends; per cluster a weight exp((floor - busiest floor) / tau),
/// the floor the least ticks of its remaining connections at one group size.
inline void Search::weigh() {
  std::vector<int64_t> from(s.pes, 0), to(m.peCount(), 0);
  std::vector<int64_t> out[3], in[3];
  for (int g = 0; g < 3; ++g) {
    out[g].assign(clusters, 0);
    in[g].assign(clusters, 0);
  }
  score.assign(size_t(s.pes * s.base), 0);
  for (Pair &p : pairs) {
    if (p.edges.empty())
      continue;
    for (uint32_t e : p.edges) {
      ++from[senderOf[e]];
      ++to[size_t(destOf(e))];
    }
    p.mostFrom = p.mostTo = 0;
    for (uint32_t e : p.edges) {
      const int64_t f = from[senderOf[e]], t = to[size_t(destOf(e))];
      p.mostFrom = std::max(p.mostFrom, f);
      p.mostTo = std::max(p.mostTo, t);
      score[e] = f + t;
    }
    for (uint32_t e : p.edges)
      from[senderOf[e]] = to[size_t(destOf(e))] = 0;
    for (int g = 0; g < 3; ++g) {
      out[g][p.from] += openings(p, g + 2);
      in[g][p.to] += openings(p, g + 2);
    }
  }
  std::vector<int64_t> floorOut(clusters, -1), floorIn(clusters, -1);
  int64_t top = 0;
  for (unsigned c = 0; c < clusters; ++c)
    for (int g = 0; g < 3; ++g) {
      const int64_t price = open + (g + 2) * send;
      if (out[g][c] && (floorOut[c] < 0 || out[g][c] * price < floorOut[c]))
        floorOut[c] = out[g][c] * price;
      if (in[g][c] && (floorIn[c] < 0 || in[g][c] * price < floorIn[c]))
        floorIn[c] = in[g][c] * price;
      top = std::max({top, floorOut[c], floorIn[c]});
    }
  wOut.assign(clusters, 0);
  wIn.assign(clusters, 0);
  for (unsigned c = 0; c < clusters; ++c) {
    if (floorOut[c] >= 0)
      wOut[c] = weightBelow(top - floorOut[c]);
    if (floorIn[c] >= 0)
      wIn[c] = weightBelow(top - floorIn[c]);
  }
}

/// One candidate round: pairs in order of their clusters' weights plus a
/// hundredth of the connections they still need, full groups first, then
/// what is left; in a pair, the values whose sender and receiver have the
/// most left between the two go first, ties by value.
inline std::vector<uint32_t> Search::build(int64_t most, int64_t group) {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    const Pair &p = pairs[k];
    if (p.edges.empty())
      continue;
    // Highest first: the sort is ascending, so the key is the complement.
    // Weights are below 2^41 and a pair's openings below 2^20 (its values).
    const uint64_t key =
        100 * (wOut[p.from] + wIn[p.to]) +
        (uint64_t(openings(p, std::min<int64_t>(group, 4))) << kWeightBits);
    order.push_back({~key, k});
  }
  std::sort(order.begin(), order.end());
  std::vector<uint8_t> sends(s.pes, 0), gets(m.peCount(), 0),
      opened(pairs.size(), 0);
  std::vector<int64_t> outs(clusters, 0), ins(clusters, 0);
  std::vector<uint32_t> chosen;
  std::vector<std::pair<uint64_t, uint32_t>> es;
  for (bool full : {true, false})
    for (const auto &[key, k] : order) {
      const Pair &p = pairs[k];
      if (opened[k] || outs[p.from] >= most || ins[p.to] >= most)
        continue;
      es.clear();
      for (uint32_t e : p.edges) {
        const int64_t from = senderOf[e], to = destOf(e);
        // A receiver's values in hand stay within its registers.
        if (sends[from] || gets[to] ||
            held[to] + 1 - (to < s.pes && sends[to]) > live)
          continue;
        es.push_back({(uint64_t(1000000) - uint64_t(score[e])) << 32 | e, e});
      }
      if (es.empty())
        continue;
      std::sort(es.begin(), es.end());
      const size_t first = chosen.size();
      for (const auto &[order_, e] : es) {
        const int64_t from = senderOf[e], to = destOf(e);
        if (sends[from] || gets[to])
          continue;
        sends[from] = gets[to] = 1;
        chosen.push_back(e);
        if (int64_t(chosen.size() - first) == group)
          break;
      }
      const int64_t got = int64_t(chosen.size() - first);
      if (full && got < std::min<int64_t>(group, p.edges.size())) {
        for (size_t i = first; i < chosen.size(); ++i)
          sends[chosen[i] / s.base] = gets[destOf(chosen[i])] = 0;
        chosen.resize(first);
        continue;
      }
      opened[k] = 1;
      ++outs[p.from];
      ++ins[p.to];
    }
  return chosen;
}

inline DigitExchangePartialRounds Search::run() {
  const unsigned pes = m.peCount();
  senderOf.assign(size_t(s.pes * s.base), 0);
  receiverOf.assign(size_t(s.pes * s.base), 0);
  for (int64_t p = 0; p < s.pes; ++p)
    for (int64_t y = 0; y < s.base; ++y) {
      senderOf[size_t(p * s.base + y)] = uint32_t(p);
      receiverOf[size_t(p * s.base + y)] = uint32_t(s.destOf(p, y));
    }
  std::vector<int64_t> pairOf(size_t(clusters) * clusters, -1);
  for (int64_t p = 0; p < s.pes; ++p)
    for (int64_t y = 0; y < s.base; ++y) {
      const int64_t q = s.destOf(p, y);
      if (q == p)
        continue;
      const unsigned a = m.clusterOfPe(unsigned(p)),
                     b = m.clusterOfPe(unsigned(q));
      int64_t &k = pairOf[size_t(a) * clusters + b];
      if (k < 0) {
        k = int64_t(pairs.size());
        pairs.push_back({a, b, {}, 0, 0});
      }
      pairs[size_t(k)].edges.push_back(uint32_t(p * s.base + y));
    }
  held.assign(pes, 0);
  std::fill(held.begin(), held.begin() + s.pes, s.base);
  DigitExchangePartialRounds out;
  Plural dest(pes, 0);
  Mask on(pes, 0);
  size_t left = 0;
  for (const Pair &p : pairs)
    left += p.edges.size();
  while (left) {
    if (out.rounds.size() > size_t(8 * s.base + 8))
      return {};
    weigh();
    std::vector<uint32_t> best;
    int64_t bestTicks = 0;
    unsigned __int128 bestWeight = 0;
    for (const auto &shape : kShapes) {
      std::vector<uint32_t> c = build(shape[0], shape[1]);
      if (c.empty())
        continue;
      unsigned __int128 w = 0;
      for (uint32_t e : c) {
        const int64_t q = destOf(e);
        on[senderOf[e]] = 1;
        dest[senderOf[e]] = uint64_t(q);
        w += wOut[m.clusterOfPe(senderOf[e])] + wIn[m.clusterOfPe(unsigned(q))];
      }
      const int64_t ticks = m.cheaperRouterCost(bytes, dest, on);
      for (uint32_t e : c)
        on[senderOf[e]] = 0;
      // Most weight a tick: ticks/bestTicks < w/bestWeight, exactly.
      if (best.empty() || (unsigned __int128)ticks * bestWeight <
                              (unsigned __int128)bestTicks * w) {
        best = std::move(c);
        bestTicks = ticks;
        bestWeight = w;
      }
    }
    if (best.empty())
      return {}; // every receiver left is out of registers
    std::vector<DigitExchangePartialSend> round;
    for (uint32_t e : best) {
      const uint32_t p = e / uint32_t(s.base), y = e % uint32_t(s.base);
      round.push_back({p, y});
      --held[p];
      ++held[size_t(destOf(e))];
      Pair &pair = pairs[size_t(pairOf[size_t(m.clusterOfPe(p)) * clusters +
                                       m.clusterOfPe(unsigned(destOf(e)))])];
      pair.edges.erase(std::find(pair.edges.begin(), pair.edges.end(), e));
      --left;
    }
    out.rounds.push_back(std::move(round));
  }
  return out;
}

inline DigitExchangePartialRounds
searchPartialRounds(const MasPar &m, const DigitExchangeShape &s,
                    unsigned bytes, int64_t live) {
  return Search(m, s, bytes, live).run();
}

} // namespace mapc::rt::reference

#endif
