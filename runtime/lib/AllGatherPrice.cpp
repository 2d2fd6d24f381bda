//===- AllGatherPrice.cpp - an all-gather priced by its shape -------------===//
//
// exchangeSchedule (ExchangeRounds.cpp) groups an all-gather's deliveries
// by source cell, sorts each element's receivers by their shift from its
// source, lays out recursive doubling's waves, runs the joint search
// (gatherTogether) and builds the all-gather's rounds (ReplicationRounds.h)
// before it picks the built ones; the pricing machine then prices each
// round's router send over the whole PE array. For 200 elements over 1000
// PEs that is 200,000 deliveries and 202 rounds of 1000 PEs, most of the
// planning time.
//
// Here the same choice and the same ticks come from the elements' source
// PEs: the degree is pes - 1 (each source sends to every other PE), the
// waves' floor is two runs of PEs per element and wave, the joint search's
// quick refusal is arithmetic, and a round's router price needs only how
// many of each cluster's PEs send and receive and how many go between each
// pair of clusters (MasPar.cpp's routerTicks), counted from the grid of
// positions without the rounds' slots.
//
//===----------------------------------------------------------------------===//
#include "AllGatherPrice.h"

#include "ExchangeRounds.h"
#include "ReplicationRounds.h"

#include <algorithm>

using namespace mapc::rt;

namespace {
/// `move` with the deliveries of each of its lists, if allGatherRounds
/// accepts it: 2 .. pes elements on distinct PEs, each bound for every
/// other PE.
std::optional<AllGatherMove>
allGatherOf(AllGatherMove move, const std::vector<uint32_t> &deliveries) {
  const size_t n = move.sourcePe.size();
  const unsigned pes = move.pes;
  if (n < 2 || n > pes)
    return std::nullopt;
  std::vector<uint8_t> isSource(pes, 0);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t s = move.sourcePe[i];
    if (deliveries[i] != pes - 1u || s >= pes || isSource[s]++)
      return std::nullopt;
  }
  return move;
}
} // namespace

std::optional<AllGatherMove>
mapc::rt::readAllGather(const TileMap &from, const TileMap &to,
                        const std::vector<uint32_t> &sources, unsigned pes) {
  const int64_t toPes = pesOf(to), fromSlots = slotsOf(from),
                toSlots = slotsOf(to), fromCells = from.deviceSize();
  // exchangeSchedule sorts by the shift modulo the destination's PEs, and
  // sends every delivery from its source (no doubling) when an element has
  // fewer than 3 receivers.
  if (toPes != int64_t(pes) || pes < 4 || fromSlots <= 0 || toSlots <= 0 ||
      fromCells <= 0 || fromCells > int64_t(UINT32_MAX) ||
      sources.size() != size_t(toPes * toSlots))
    return std::nullopt;
  // exchangeSchedule's grouping (forEachGroupedDelivery): the fan-out
  // kept, the deliveries only counted per list.
  std::vector<uint32_t> deliveries;
  AllGatherMove move;
  move.pes = pes;
  if (!forEachGroupedDelivery(
          sources, toPes, toSlots, fromSlots, uint64_t(fromCells),
          [&](const ExchangeSend &copy) { move.fanOut.push_back(copy); },
          [&](uint32_t list, const ExchangeSend &e) {
            if (list == move.sourcePe.size()) {
              move.sourcePe.push_back(e.srcPe);
              deliveries.push_back(0);
            }
            ++deliveries[list];
          }))
    return std::nullopt;
  return allGatherOf(std::move(move), deliveries);
}

// The table's walk (forEachGroupedDelivery) over a row: on PE q a source
// cell a is skipped when q is its PE, delivered at the first slot t0(a)
// holding it and copied from t0(a) to its later slots. So its list counts
// the PEs other than its own, and the lists appear in the row's order of
// first slots, those of PE 0 (skipped on PE 0) after the others.
std::optional<AllGatherMove> mapc::rt::readAllGather(const TileMap &from,
                                                     const TileMap &to,
                                                     const SourceRow &row,
                                                     unsigned pes) {
  const int64_t toPes = pesOf(to), fromSlots = slotsOf(from),
                toSlots = slotsOf(to), fromCells = from.deviceSize();
  if (toPes != int64_t(pes) || pes < 4 || fromSlots <= 0 || toSlots <= 0 ||
      fromCells <= 0 || fromCells > int64_t(UINT32_MAX) ||
      row.cells.size() != size_t(toSlots))
    return std::nullopt;
  constexpr uint32_t kNone = ~uint32_t(0);
  struct Copy {
    uint32_t t, first, pe;
  };
  std::vector<uint32_t> firstSlot(size_t(fromCells), kNone), ofPe0;
  std::vector<uint32_t> deliveries;
  std::vector<Copy> copies;
  AllGatherMove move;
  move.pes = pes;
  for (uint32_t t = 0; t < uint32_t(toSlots); ++t) {
    const uint32_t a = row.cells[t];
    if (a == kNoSource)
      continue;
    if (a >= uint64_t(fromCells))
      return std::nullopt;
    const uint32_t pe = uint32_t(a / uint64_t(fromSlots));
    if (firstSlot[a] != kNone) {
      copies.push_back({t, firstSlot[a], pe});
      continue;
    }
    firstSlot[a] = t;
    (pe == 0 ? ofPe0 : move.sourcePe).push_back(pe);
  }
  move.sourcePe.insert(move.sourcePe.end(), ofPe0.begin(), ofPe0.end());
  for (uint32_t pe : move.sourcePe)
    deliveries.push_back(uint32_t(toPes) - (pe < toPes ? 1 : 0));
  for (uint32_t q = 0; q < uint32_t(toPes); ++q)
    for (const Copy &c : copies)
      if (c.pe != q)
        move.fanOut.push_back({q, q, c.first, c.t});
  return allGatherOf(std::move(move), deliveries);
}

uint64_t mapc::rt::allGatherWavesFloor(const std::vector<uint32_t> &sourcePe,
                                       unsigned pes) {
  // Wave w (held = 2^w - 1 receivers already have the element): the
  // source and its first held receivers, PEs s .. s + last, send to PEs
  // s + held + 1 .. s + held + 1 + last, last = min(held, pes - 2 - held)
  // (each list has pes - 1 receivers). Runs counted by difference arrays.
  uint64_t floor = 0;
  std::vector<int64_t> sends(size_t(pes) + 1), receives(size_t(pes) + 1);
  auto addRun = [&](std::vector<int64_t> &diff, uint64_t start,
                    uint64_t length) {
    start %= pes;
    ++diff[size_t(start)];
    if (start + length <= pes) {
      --diff[size_t(start + length)];
    } else {
      --diff[pes];
      ++diff[0];
      --diff[size_t(start + length - pes)];
    }
  };
  for (uint64_t held = 0; held + 1 < pes; held = 2 * held + 1) {
    const uint64_t length = std::min(held, pes - 2 - held) + 1;
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(receives.begin(), receives.end(), 0);
    for (uint32_t s : sourcePe) {
      addRun(sends, s, length);
      addRun(receives, s + held + 1, length);
    }
    int64_t sending = 0, receiving = 0, busiest = 0;
    for (unsigned p = 0; p < pes; ++p) {
      sending += sends[p];
      receiving += receives[p];
      busiest = std::max({busiest, sending, receiving});
    }
    floor += uint64_t(busiest);
  }
  return floor;
}

std::optional<bool> mapc::rt::builtAllGatherChosen(const AllGatherMove &move) {
  const uint64_t n = move.sourcePe.size(), pes = move.pes;
  // exchangeSchedule's `degree`: every source sends to the pes - 1 others,
  // and a PE receives at most n <= pes elements, n - 1 if it is a source.
  const uint64_t degree = pes - 1;
  const uint64_t built = allGatherRoundCount(uint32_t(n), uint32_t(pes));
  if (built >= degree)
    return false; // the direct colouring takes no more
  if (built >= allGatherWavesFloor(move.sourcePe, move.pes))
    return std::nullopt; // the waves are coloured and may be chosen
  // gatherTogether refuses at once past its budget: receiver q of w_q
  // elements costs w_q (w_q + 1) / 2 steps; otherwise it searches.
  const uint64_t budget = 64 * n * (pes - 1) + (uint64_t(1) << 20);
  const uint64_t steps = (pes - n) * (n * (n + 1) / 2) + n * (n * (n - 1) / 2);
  if (steps > budget)
    return true;
  return std::nullopt;
}

namespace {

/// One router send's ticks (MasPar.cpp's routerTicks, the cheaper mode)
/// from its (sender, receiver) pairs, counted per cluster and per pair of
/// clusters: plain, the busiest cluster's senders or receivers each open a
/// connection; clustered, as many connections as the most partner
/// clusters any cluster has, each drained by the largest group of one
/// cluster's PEs bound for one other.
class ClusterCounts {
public:
  explicit ClusterCounts(unsigned clusters)
      : clusters(clusters), pair(size_t(clusters) * clusters, 0),
        senders(clusters, 0), receivers(clusters, 0), partnersOut(clusters, 0),
        partnersIn(clusters, 0) {}

  void add(uint32_t from, uint32_t to) {
    ++senders[from];
    ++receivers[to];
    const size_t k = size_t(from) * clusters + to;
    if (pair[k]++ == 0) {
      touched.push_back(k);
      ++partnersOut[from];
      ++partnersIn[to];
    }
  }

  /// The ticks of the send counted so far, and a fresh count.
  int64_t take(int64_t ropen, int64_t send) {
    int64_t busiest = 0, partners = 0;
    for (unsigned c = 0; c < clusters; ++c) {
      busiest = std::max<int64_t>({busiest, senders[c], receivers[c]});
      partners = std::max<int64_t>({partners, partnersOut[c], partnersIn[c]});
      senders[c] = receivers[c] = partnersOut[c] = partnersIn[c] = 0;
    }
    int64_t group = 0;
    for (size_t k : touched) {
      group = std::max<int64_t>(group, pair[k]);
      pair[k] = 0;
    }
    touched.clear();
    const int64_t clustered = partners * (ropen + group * send);
    return std::min(clustered, busiest * (ropen + send));
  }

private:
  unsigned clusters;
  std::vector<uint32_t> pair, senders, receivers, partnersOut, partnersIn;
  std::vector<size_t> touched;
};

} // namespace

void mapc::rt::chargeBuiltAllGather(MasPar &m, const AllGatherMove &move,
                                    unsigned xferBytes, unsigned xfers) {
  const uint32_t n = uint32_t(move.sourcePe.size()), pes = move.pes;
  // The grid's positions (ReplicationRounds.cpp): the sources first, the
  // other PEs after them in order; each position's cluster.
  std::vector<uint32_t> clusterAt(pes);
  std::vector<uint8_t> isSource(pes, 0);
  for (uint32_t i = 0; i < n; ++i) {
    clusterAt[i] = m.clusterOfPe(move.sourcePe[i]);
    isSource[move.sourcePe[i]] = 1;
  }
  for (uint32_t q = 0, t = n; q < pes; ++q)
    if (!isSource[q])
      clusterAt[t++] = m.clusterOfPe(q);
  const CostModel &cost = m.cost();
  const unsigned w = widthIndex(xferBytes);
  const int64_t send = cost.rsend[w];
  std::vector<int64_t> router(allGatherRoundCount(n, pes), 0);
  const size_t clusters = m.clusterCount();
  if (clusters * clusters <= (size_t(1) << 22)) {
    ClusterCounts counts{unsigned(clusters)};
    uint32_t current = 0;
    forEachAllGatherSend(
        n, pes, [&](uint32_t round, uint32_t, uint32_t from, uint32_t to) {
          if (round != current) {
            router[current] = counts.take(cost.ropen, send);
            current = round;
          }
          counts.add(clusterAt[from], clusterAt[to]);
        });
    router[current] = counts.take(cost.ropen, send);
  } else {
    // Too many clusters for a table of cluster pairs: the machine's own
    // price, round by round.
    std::vector<uint32_t> peAt(pes);
    for (uint32_t i = 0; i < n; ++i)
      peAt[i] = move.sourcePe[i];
    for (uint32_t q = 0, t = n; q < pes; ++q)
      if (!isSource[q])
        peAt[t++] = q;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rounds(
        router.size());
    forEachAllGatherSend(
        n, pes, [&](uint32_t round, uint32_t, uint32_t from, uint32_t to) {
          rounds[round].push_back({peAt[from], peAt[to]});
        });
    Plural dest(pes, 0);
    Mask active(pes, 0);
    for (size_t r = 0; r < rounds.size(); ++r) {
      for (const auto &[p, q] : rounds[r]) {
        active[p] = 1;
        dest[p] = q;
      }
      router[r] = m.cheaperRouterCost(xferBytes, dest, active);
      for (const auto &pq : rounds[r])
        active[pq.first] = 0;
    }
  }
  Ledger &ledger = m.ledger();
  for (int64_t ticks : router) {
    ledger.memory += cost.load[widthIndex(8)]; // the schedule entry
    for (unsigned x = 0; x < xfers; ++x) {
      ledger.memory += cost.loadIndirect[w] + cost.storeIndirect(w);
      ledger.router += ticks;
      ledger.routerSends += ticks > 0;
    }
  }
}
