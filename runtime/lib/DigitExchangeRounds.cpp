//===- DigitExchangeRounds.cpp - partial rounds of a P/M digit exchange ---===//
//
// Rounds in which only some PEs send (docs/cost-model.md, "Random #5 in
// partial rounds"): a round of 6.1's exchange keeps every PE busy, so its
// clustered price (003 5.6.4: partners x (ropen + group x rsend)) is set by
// the clusters whose values spread widest. With half the PEs idle a
// cluster chooses which send, and rounds of a few partner clusters, each
// carrying a full group, send more values a tick. The search below is the
// study's greedy (bench/studies/random5_rounds.py, `partial`), pricing its
// candidates with the machine's own router prices.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/DigitExchange.h"

#include "RadixSort.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <iterator>
#include <string>

using namespace mapc::rt;

std::string
mapc::rt::checkDigitExchangePartialRounds(const DigitExchangeShape &s,
                                          const DigitExchangePartialRounds &r,
                                          int64_t live) {
  const int64_t b = s.base;
  std::vector<uint8_t> sent(size_t(s.pes * b), 0);
  std::vector<int64_t> held(size_t(s.pes), b), busyOut(size_t(s.pes), -1),
      busyIn(size_t(s.pes), -1);
  for (size_t k = 0; k < r.rounds.size(); ++k) {
    for (const DigitExchangePartialSend &e : r.rounds[k]) {
      if (e.pe >= s.pes || e.slot >= b)
        return "a send out of range";
      const int64_t q = s.destOf(e.pe, e.slot);
      if (q == e.pe)
        return "a value sent to its own PE";
      if (sent[e.pe * b + e.slot]++)
        return "a value sent twice";
      if (busyOut[e.pe] == int64_t(k) || busyIn[size_t(q)] == int64_t(k))
        return "a PE sends or receives twice in a round";
      busyOut[e.pe] = busyIn[size_t(q)] = int64_t(k);
      --held[e.pe];
    }
    for (const DigitExchangePartialSend &e : r.rounds[k])
      if (++held[size_t(s.destOf(e.pe, e.slot))] > live)
        return "a PE holds more values than its registers";
  }
  for (int64_t p = 0; p < s.pes; ++p)
    for (int64_t y = 0; y < b; ++y)
      if (!sent[size_t(p * b + y)] && s.destOf(p, y) != p)
        return "a value never sent";
  return "";
}

namespace {

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

uint64_t weightBelow(int64_t d) {
  if (d >= int64_t(1) << std::size(kExp))
    return 0;
  uint64_t w = uint64_t(1) << kWeightBits;
  for (size_t i = 0; i < std::size(kExp); ++i)
    if (d >> i & 1)
      w = uint64_t((unsigned __int128)w * kExp[i] >> kWeightBits);
  return w;
}

/// The search's state: the values still to send, by cluster pair. Per
/// round only the pairs that sent are weighed again, and a candidate's
/// router price is counted from its pairs (as routerTicks counts it from
/// its PEs), so a round costs its sends, not the machine's PEs.
class Search {
public:
  Search(const MasPar &m, const DigitExchangeShape &s, unsigned bytes,
         int64_t live)
      : m(m), s(s), live(live), clusters(m.clusterCount()),
        open(m.cost().ropen), send(m.cost().rsend[widthIndex(bytes)]) {}

  /// The rounds, and into `ticks` (when given) each one's router ticks.
  DigitExchangePartialRounds run(std::vector<int64_t> *ticks);

private:
  struct Pair {
    unsigned from, to;
    /// Values p * base + y still to send, in the order build tries them
    /// once weighed (reweigh).
    std::vector<uint32_t> edges;
    int64_t mostFrom = 0, mostTo = 0;
    /// Its openings at groups of 2, 3 and 4, as counted in out and in.
    int64_t opens[3] = {0, 0, 0};
    bool queued = true; ///< in `dirty`
  };
  /// A round built for one shape: its values, ticks and weight.
  struct Candidate {
    std::vector<uint32_t> values;
    int64_t ticks = 0;
    unsigned __int128 weight = 0;
  };
  const MasPar &m;
  const DigitExchangeShape &s;
  const int64_t live;
  const unsigned clusters;
  const int64_t open, send;
  std::vector<Pair> pairs;
  std::vector<int64_t> held, score;
  std::vector<uint64_t> wOut, wIn;
  /// Per cluster and group size of 2-4 the connections its pairs still need.
  std::vector<int64_t> out[3], in[3];
  /// The pairs that sent since they were last weighed.
  std::vector<uint32_t> dirty;
  /// The pairs with values left, by index (the sort's order of ties), and
  /// per pair its clusters and openings at groups of 2 and 4 side by side:
  /// build reads them for every pair, twice a round, and a Pair is many
  /// cache lines apart from the next.
  std::vector<uint32_t> alive;
  struct PairKey {
    uint32_t from, to;
    int64_t opens2, opens4;
  };
  std::vector<PairKey> keyOf;
  /// Scratch of weigh and build, kept zero between calls.
  std::vector<int64_t> fromCount, toCount, outs, ins, sent, got, taken;
  std::vector<int64_t> floorOut, floorIn;
  std::vector<uint8_t> sends, gets;
  std::vector<uint32_t> openedPairs, ready;
  std::vector<std::pair<uint64_t, uint32_t>> order, orderScratch;
  std::vector<uint64_t> es;

  /// Each value's sender and receiver, by value p * base + y.
  std::vector<uint32_t> senderOf, receiverOf;
  int64_t destOf(uint32_t e) const { return receiverOf[e]; }
  /// Connections a pair still needs with groups of at most g.
  int64_t openings(const Pair &p, int64_t g) const {
    return std::max(
        {(int64_t(p.edges.size()) + g - 1) / g, p.mostFrom, p.mostTo});
  }
  void reweigh(Pair &p);
  void weigh();
  void take(const Pair &p, int64_t group, std::vector<uint32_t> &chosen);
  void build(int64_t most, int64_t group, Candidate &c);
  void price(Candidate &c);
};

/// A pair's busiest sender and receiver and per value the pair's count of
/// both ends, its openings moved in its clusters' counts.
void Search::reweigh(Pair &p) {
  p.queued = false;
  for (int g = 0; g < 3; ++g) {
    out[g][p.from] -= p.opens[g];
    in[g][p.to] -= p.opens[g];
    p.opens[g] = 0;
  }
  if (p.edges.empty())
    return;
  for (uint32_t e : p.edges) {
    ++fromCount[senderOf[e]];
    ++toCount[size_t(destOf(e))];
  }
  p.mostFrom = p.mostTo = 0;
  for (uint32_t e : p.edges) {
    const int64_t f = fromCount[senderOf[e]], t = toCount[size_t(destOf(e))];
    p.mostFrom = std::max(p.mostFrom, f);
    p.mostTo = std::max(p.mostTo, t);
    score[e] = f + t;
  }
  for (uint32_t e : p.edges)
    fromCount[senderOf[e]] = toCount[size_t(destOf(e))] = 0;
  // The values in the order build tries them, the most left between their
  // sender and receiver first, ties by value: fixed until the pair sends,
  // so sorted here once and not at each of its tries.
  es.clear();
  for (uint32_t e : p.edges)
    es.push_back((uint64_t(1000000) - uint64_t(score[e])) << 32 | e);
  std::sort(es.begin(), es.end());
  for (size_t i = 0; i < es.size(); ++i)
    p.edges[i] = uint32_t(es[i]); // the value, below its order
  for (int g = 0; g < 3; ++g) {
    p.opens[g] = openings(p, g + 2);
    out[g][p.from] += p.opens[g];
    in[g][p.to] += p.opens[g];
  }
  const size_t k = size_t(&p - pairs.data());
  keyOf[k].opens2 = p.opens[0];
  keyOf[k].opens4 = p.opens[2];
}

/// Per cluster a weight exp((floor - busiest floor) / tau), the floor the
/// least ticks of its remaining connections at one group size.
void Search::weigh() {
  for (uint32_t k : dirty)
    reweigh(pairs[k]);
  dirty.clear();
  std::fill(floorOut.begin(), floorOut.end(), -1);
  std::fill(floorIn.begin(), floorIn.end(), -1);
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
  for (unsigned c = 0; c < clusters; ++c) {
    wOut[c] = floorOut[c] >= 0 ? weightBelow(top - floorOut[c]) : 0;
    wIn[c] = floorIn[c] >= 0 ? weightBelow(top - floorIn[c]) : 0;
  }
}

/// Appends to `chosen` up to `group` of pair `p`'s values, in its edges'
/// order (reweigh), that were free at the pair's start (sender idle,
/// receiver idle and within its registers) and are still free of its own
/// picks. Between two clusters a pick frees no receiver's registers (its
/// receivers never send in the pair), so one pass stops at the group; in
/// one cluster the values free at the start are listed first.
void Search::take(const Pair &p, int64_t group, std::vector<uint32_t> &chosen) {
  auto idle = [&](uint32_t e) {
    const int64_t from = senderOf[e], to = destOf(e);
    // A receiver's values in hand stay within its registers.
    return !sends[from] && !gets[to] &&
           held[to] + 1 - (to < s.pes && sends[to]) <= live;
  };
  const size_t first = chosen.size();
  auto pick = [&](uint32_t e) {
    sends[senderOf[e]] = gets[destOf(e)] = 1;
    chosen.push_back(e);
    return int64_t(chosen.size() - first) == group;
  };
  if (p.from != p.to) {
    for (uint32_t e : p.edges)
      if (idle(e) && pick(e))
        return;
    return;
  }
  ready.clear();
  for (uint32_t e : p.edges)
    if (idle(e))
      ready.push_back(e);
  for (uint32_t e : ready)
    if (!sends[senderOf[e]] && !gets[destOf(e)] && pick(e))
      return;
}

/// One candidate round: pairs in order of their clusters' weights plus a
/// hundredth of the connections they still need, full groups first, then
/// what is left; in a pair, the values whose sender and receiver have the
/// most left between the two go first, ties by value.
void Search::build(int64_t most, int64_t group, Candidate &c) {
  order.clear();
  // A pair's openings at the group, as reweigh last counted them (every
  // pair that sent since is weighed again before a build).
  const int opensAt = int(std::min<int64_t>(group, 4)) - 2;
  // Groups of 2 and 4 only (kShapes): their openings are in keyOf.
  assert((opensAt == 0 || opensAt == 2) && "a group of 2 or 4");
  order.resize(alive.size());
  for (size_t i = 0; i < alive.size(); ++i) {
    const uint32_t k = alive[i];
    const PairKey &p = keyOf[k];
    // Highest first: the sort is ascending, so the key is the complement.
    // Weights are below 2^41 and a pair's openings below 2^20 (its values).
    const uint64_t key =
        100 * (wOut[p.from] + wIn[p.to]) +
        (uint64_t(opensAt ? p.opens4 : p.opens2) << kWeightBits);
    order[i] = {~key, k};
  }
  // Keys listed by pair: equal keys stay by pair, as sorting the (key,
  // pair) pairs leaves them.
  radixSortByKey(order, orderScratch);
  std::vector<uint32_t> &chosen = c.values;
  chosen.clear();
  openedPairs.clear();
  for (bool full : {true, false})
    for (const auto &[key, k] : order) {
      const PairKey &ends = keyOf[k];
      if (taken[k] || outs[ends.from] >= most || ins[ends.to] >= most)
        continue;
      const Pair &p = pairs[k];
      const size_t first = chosen.size();
      take(p, group, chosen);
      if (chosen.size() == first)
        continue;
      const int64_t n = int64_t(chosen.size() - first);
      if (full && n < std::min<int64_t>(group, p.edges.size())) {
        for (size_t i = first; i < chosen.size(); ++i)
          sends[chosen[i] / s.base] = gets[destOf(chosen[i])] = 0;
        chosen.resize(first);
        continue;
      }
      taken[k] = n;
      openedPairs.push_back(k);
      ++outs[p.from];
      ++ins[p.to];
    }
  for (uint32_t e : chosen)
    sends[senderOf[e]] = gets[destOf(e)] = 0;
  price(c);
}

/// The candidate's router ticks, MasPar::cheaperRouterCost of its sends
/// counted from its pairs: plain, the most senders or receivers of a
/// cluster; clustered (003 5.6.4), the most partners of a cluster (each
/// opened pair sends) times a connection of the largest group. Its weight,
/// its values' clusters' weights. Clears build's counts.
void Search::price(Candidate &c) {
  int64_t busiest = 0, partners = 0, group = 0;
  c.weight = 0;
  for (uint32_t k : openedPairs) {
    const Pair &p = pairs[k];
    busiest =
        std::max({busiest, sent[p.from] += taken[k], got[p.to] += taken[k]});
    partners = std::max({partners, outs[p.from], ins[p.to]});
    group = std::max(group, taken[k]);
    c.weight += (unsigned __int128)(wOut[p.from] + wIn[p.to]) * taken[k];
  }
  c.ticks = std::min(busiest * (open + send), partners * (open + group * send));
  for (uint32_t k : openedPairs) {
    const Pair &p = pairs[k];
    taken[k] = outs[p.from] = ins[p.to] = sent[p.from] = got[p.to] = 0;
  }
}

DigitExchangePartialRounds Search::run(std::vector<int64_t> *ticks) {
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
        dirty.push_back(uint32_t(k));
      }
      pairs[size_t(k)].edges.push_back(uint32_t(p * s.base + y));
    }
  held.assign(pes, 0);
  std::fill(held.begin(), held.begin() + s.pes, s.base);
  score.assign(size_t(s.pes * s.base), 0);
  for (int g = 0; g < 3; ++g) {
    out[g].assign(clusters, 0);
    in[g].assign(clusters, 0);
  }
  for (auto *v : {&outs, &ins, &sent, &got, &floorOut, &floorIn})
    v->assign(clusters, 0);
  wOut.assign(clusters, 0);
  wIn.assign(clusters, 0);
  fromCount.assign(size_t(s.pes), 0);
  toCount.assign(pes, 0);
  sends.assign(size_t(s.pes), 0);
  gets.assign(pes, 0);
  taken.assign(pairs.size(), 0);
  keyOf.resize(pairs.size());
  alive.clear();
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    keyOf[k] = {pairs[k].from, pairs[k].to, 0, 0};
    alive.push_back(k);
  }
  DigitExchangePartialRounds found;
  size_t left = 0;
  for (const Pair &p : pairs)
    left += p.edges.size();
  Candidate best, next;
  while (left) {
    if (found.rounds.size() > size_t(8 * s.base + 8))
      return {};
    weigh();
    best.values.clear();
    for (const auto &shape : kShapes) {
      build(shape[0], shape[1], next);
      if (next.values.empty())
        continue;
      // Most weight a tick: ticks/bestTicks < w/bestWeight, exactly.
      if (best.values.empty() ||
          (unsigned __int128)next.ticks * best.weight <
              (unsigned __int128)best.ticks * next.weight)
        std::swap(best, next);
    }
    if (best.values.empty())
      return {}; // every receiver left is out of registers
    std::vector<DigitExchangePartialSend> round;
    for (uint32_t e : best.values) {
      const uint32_t p = e / uint32_t(s.base), y = e % uint32_t(s.base);
      round.push_back({p, y});
      --held[p];
      ++held[size_t(destOf(e))];
      const int64_t k = pairOf[size_t(m.clusterOfPe(p)) * clusters +
                               m.clusterOfPe(unsigned(destOf(e)))];
      Pair &pair = pairs[size_t(k)];
      if (!pair.queued)
        dirty.push_back(uint32_t(k));
      pair.queued = true;
      pair.edges.erase(std::find(pair.edges.begin(), pair.edges.end(), e));
      --left;
    }
    alive.erase(
        std::remove_if(alive.begin(), alive.end(),
                       [&](uint32_t k) { return pairs[k].edges.empty(); }),
        alive.end());
    found.rounds.push_back(std::move(round));
    if (ticks)
      ticks->push_back(best.ticks);
  }
  return found;
}

} // namespace

DigitExchangeSendOrder
mapc::rt::digitExchangeSendOrder(const DigitExchangeShape &s) {
  DigitExchangeSendOrder o;
  o.shape.base = s.base;
  o.shape.pes = s.pes;
  // Any PE digits: a shape with a destination table reads only the table.
  o.shape.sendDigit.assign(size_t(s.pes), 0);
  o.shape.destPe.resize(size_t(s.pes * s.base));
  o.slotOfRank.resize(size_t(s.pes * s.base));
  // By destination, then slot (a digit exchange sends one value to each
  // of its PEs' destinations, so the slot only orders a PE's values kept).
  std::vector<std::pair<int64_t, uint32_t>> slots(size_t(s.base));
  for (int64_t p = 0; p < s.pes; ++p) {
    for (int64_t y = 0; y < s.base; ++y)
      slots[size_t(y)] = {s.destOf(p, y), uint32_t(y)};
    std::sort(slots.begin(), slots.end());
    for (int64_t r = 0; r < s.base; ++r) {
      o.shape.destPe[size_t(p * s.base + r)] = slots[size_t(r)].first;
      o.slotOfRank[size_t(p * s.base + r)] = slots[size_t(r)].second;
    }
  }
  return o;
}

void DigitExchangeSendOrder::toSlots(DigitExchangePartialRounds &r) const {
  for (auto &round : r.rounds)
    for (DigitExchangePartialSend &e : round)
      e.slot = slotOfRank[size_t(e.pe * shape.base + e.slot)];
}

DigitExchangePartialRounds mapc::rt::searchDigitExchangePartialRounds(
    const MasPar &m, const DigitExchangeShape &s, unsigned bytes, int64_t live,
    std::vector<int64_t> *ticks) {
  const DigitExchangeSendOrder order = digitExchangeSendOrder(s);
  DigitExchangePartialRounds r =
      searchDigitExchangePartialRoundsInRanks(m, order, bytes, live, ticks);
  order.toSlots(r);
  return r;
}

DigitExchangePartialRounds mapc::rt::searchDigitExchangePartialRoundsInRanks(
    const MasPar &m, const DigitExchangeSendOrder &order, unsigned bytes,
    int64_t live, std::vector<int64_t> *ticks) {
  if (ticks)
    ticks->clear();
  DigitExchangePartialRounds r = Search(m, order.shape, bytes, live).run(ticks);
  if (ticks && r.rounds.empty())
    ticks->clear();
  return r;
}

std::array<DigitExchangePartialFloor, 4>
mapc::rt::digitExchangePartialRoundsFloors(const MasPar &m,
                                           const DigitExchangeShape &s) {
  const unsigned clusters = m.clusterCount();
  const int64_t open = m.cost().ropen;
  // Per cluster its values sent and received; per cluster pair the
  // openings it needs: a PE sends and receives one value a round, so a
  // pair opens at least as often as one PE of either end has values in it.
  std::vector<int64_t> sent(clusters, 0), got(clusters, 0),
      partnersOut(clusters, 0), partnersIn(clusters, 0);
  std::vector<int64_t> opens(size_t(clusters) * clusters, 0);
  std::vector<int64_t> recv(m.peCount(), 0), toPe(m.peCount(), 0),
      toCluster(clusters, 0);
  std::vector<uint32_t> touchedPes, touchedClusters;
  int64_t rounds = 0;
  for (unsigned a = 0; a < clusters; ++a) {
    const uint32_t *pes = m.clusterPes(a);
    int64_t *row = &opens[size_t(a) * clusters];
    for (unsigned j = 0, n = m.clusterPeCount(a); j < n; ++j) {
      const int64_t p = pes[j];
      if (p >= s.pes)
        continue;
      int64_t leaving = 0;
      for (int64_t y = 0; y < s.base; ++y) {
        const int64_t q = s.destOf(p, y);
        if (q == p)
          continue;
        const unsigned b = m.clusterOfPe(unsigned(q));
        ++leaving;
        ++recv[size_t(q)];
        ++sent[a];
        ++got[b];
        if (!toPe[size_t(q)]++)
          touchedPes.push_back(uint32_t(q));
        if (!toCluster[b]++)
          touchedClusters.push_back(b);
      }
      rounds = std::max(rounds, leaving);
      // This PE's values to one cluster each need an opening of their own.
      for (uint32_t b : touchedClusters) {
        row[b] = std::max(row[b], toCluster[b]);
        toCluster[b] = 0;
      }
      touchedClusters.clear();
    }
    // So do one receiver's values from this cluster.
    for (uint32_t q : touchedPes) {
      int64_t &o = row[m.clusterOfPe(q)];
      o = std::max(o, toPe[q]);
      toPe[q] = 0;
    }
    touchedPes.clear();
    for (unsigned b = 0; b < clusters; ++b) {
      partnersOut[a] += row[b];
      partnersIn[b] += row[b];
    }
  }
  for (int64_t n : recv)
    rounds = std::max(rounds, n);
  // The counts are the same at every width; only rsend differs.
  std::array<DigitExchangePartialFloor, 4> out;
  for (unsigned w = 0; w < 4; ++w) {
    const int64_t send = m.cost().rsend[w];
    DigitExchangePartialFloor &f = out[w];
    f.rounds = rounds;
    f.ticks = rounds * (open + send);
    for (unsigned c = 0; c < clusters; ++c)
      f.ticks = std::max({f.ticks, open * partnersOut[c] + send * sent[c],
                          open * partnersIn[c] + send * got[c]});
  }
  return out;
}

DigitExchangePartialFloor mapc::rt::digitExchangePartialRoundsFloor(
    const MasPar &m, const DigitExchangeShape &s, unsigned bytes) {
  return digitExchangePartialRoundsFloors(m, s)[widthIndex(bytes)];
}
