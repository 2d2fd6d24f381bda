//===- GeneralLowerBound.cpp - a bound for remaps between any layouts -----===//
//
// The model of General.h moves elements in transfers of up to 64 bits
// (wider elements take several; narrower ones may share one as a chunk,
// 003 5.6.3). Only loads read memory and only stores write it (router
// sends carry registers; a schedule-table load reads no array), and
// general plans cross between PEs only by router sends. No plan under it
// can do better than this (docs/cost-model.md, "The general lower bound",
// proves each term):
//
//   memory  every element that changes cell (all of them for a copy) is
//           read once by its PE (once for all its copies when the
//           destination replicates it) and written once into every cell
//           that takes it. A direct load or store serves every PE at one
//           address, an indirect one each PE at its own: so the reads cost
//           at least the busiest PE's bytes at the cheapest direct price
//           per byte, and at least the sum over byte addresses x of
//           min(direct, indirect n_x / P), n_x the PEs that must read x
//           and P the PEs that read anything; the same for the writes;
//   router  every element that changes PE leaves through its cluster's
//           one connection (once, however many PEs it must reach: they may
//           forward it) and enters through its new cluster's (once per PE
//           it must reach, a destination replicated in one PE's memory
//           needing one copy there; the same connection when both PEs share
//           a cluster), at least one rsend each in either router mode
//           (003 5.6.4), at the cheapest price per byte when elements can
//           share a chunk; and every send that moves anything opens at
//           least one connection, while a PE sends and receives at most 64
//           bits a send: at least one ropen per 8 bytes the busiest PE
//           sends or receives.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/General.h"

#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/SourceRow.h"

#include <algorithm>

using namespace mapc::rt;

namespace {
/// What a remap must do, per PE, per cluster and per slot (file comment).
struct Demand {
  std::vector<int64_t> reads, writes; ///< elements per PE
  std::vector<int64_t> out, in;       ///< elements per PE, to or from others
  std::vector<int64_t> leave, enter;  ///< elements per cluster
  /// Per source (destination) slot, the PEs that must read (write) it;
  /// empty when not known (counted without a table, or a replicated
  /// source, which a plan may read from any of its copies).
  std::vector<int64_t> readersAt, writersAt;

  Demand(unsigned pes, size_t clusters)
      : reads(pes, 0), writes(pes, 0), out(pes, 0), in(pes, 0),
        leave(clusters, 0), enter(clusters, 0) {}
};

/// A price per byte, num / den.
struct PerByte {
  int64_t num = 0, den = 1;
};
/// The cheapest price per byte of `price` over the four widths.
PerByte cheapestPerByte(const int64_t *price) {
  PerByte best{price[0], 1};
  for (unsigned w = 1; w < 4; ++w)
    if (price[w] * best.den < best.num * (int64_t(1) << w))
      best = {price[w], int64_t(1) << w};
  return best;
}

/// The least ticks of the loads (or stores, at the same prices) that touch
/// every byte of slot s in perSlot[s] of `pes` PEs: a direct access covers
/// a byte address in every PE for at least `direct` a byte, an indirect
/// one a byte in each PE for at least `indirect`. With X_D the addresses
/// some direct access covers, the direct ones cost at least direct |X_D|
/// and the indirect ones at least indirect times the busiest PE's bytes
/// outside X_D, which is at least their average over the PEs: together at
/// least the sum over addresses x of min(direct, indirect n_x / P),
/// whatever X_D is.
int64_t addressBound(const std::vector<int64_t> &perSlot, unsigned elemBytes,
                     const int64_t *direct, const int64_t *indirect,
                     int64_t pes) {
  if (perSlot.empty() || pes == 0)
    return 0;
  const PerByte d = cheapestPerByte(direct), i = cheapestPerByte(indirect);
  // Over the common denominator d.den i.den P. Each term is at most
  // i.num n_s d.den, so the sum stays below i.num d.den times the elements.
  int64_t sum = 0;
  for (int64_t n : perSlot)
    sum += std::min(d.num * i.den * pes, i.num * n * d.den);
  return sum * int64_t(elemBytes) / (d.den * i.den * pes);
}

int64_t largest(const std::vector<int64_t> &v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

int64_t nonZero(const std::vector<int64_t> &v) {
  return int64_t(v.size()) - std::count(v.begin(), v.end(), int64_t(0));
}

/// The bound of the file comment from a remap's demand.
int64_t boundOf(const Demand &need, unsigned elemBytes, const CostModel &cost) {
  const unsigned xferBytes = std::min(elemBytes, 8u);
  const int64_t xfers = elemBytes / xferBytes;
  const unsigned w = widthIndex(xferBytes);
  // `count` elements priced per instruction of any width that can carry
  // them: elements narrower than 64 bits may share a wider chunk (003
  // 5.6.3), so the cheapest price per byte over the widths from the
  // element's up, times the bytes, bounds what they cost.
  auto cheapest = [&](int64_t count, const int64_t *price) {
    int64_t best = xfers * count * price[w];
    for (unsigned wider = w + 1; wider < 4; ++wider)
      best = std::min(best, count * int64_t(xferBytes) * price[wider] /
                                (int64_t(1) << wider));
    return best;
  };
  // Stores cost what loads cost (fig. 5.2), direct and indirect.
  const int64_t reads =
      std::max(cheapest(largest(need.reads), cost.load),
               addressBound(need.readersAt, elemBytes, cost.load,
                            cost.loadIndirect, nonZero(need.reads)));
  const int64_t writes =
      std::max(cheapest(largest(need.writes), cost.load),
               addressBound(need.writersAt, elemBytes, cost.load,
                            cost.loadIndirect, nonZero(need.writes)));
  const int64_t cluster = std::max(largest(need.leave), largest(need.enter));
  const int64_t peBytes =
      std::max(largest(need.out), largest(need.in)) * int64_t(elemBytes);
  const int64_t sends = (peBytes + 7) / 8;
  return reads + writes + cheapest(cluster, cost.rsend) + sends * cost.ropen;
}
} // namespace

int64_t mapc::rt::generalLowerBound(const TileMap &src, const TileMap &dst,
                                    unsigned elemBytes, bool copy,
                                    const MachineShape &shape,
                                    const CostModel &cost,
                                    const std::vector<uint32_t> *given) {
  std::vector<uint32_t> owned;
  if (!given)
    owned = sourcesOf(src, dst);
  const std::vector<uint32_t> &sources = given ? *given : owned;
  const int64_t srcSlots = slotsOf(src), dstSlots = slotsOf(dst);
  // Clusters come from a pricing-only machine: the same blocks as --run's.
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  Demand need(shape.peCount(), grid.clusterCount());
  if (!src.replicates())
    need.readersAt.assign(size_t(srcSlots), 0);
  need.writersAt.assign(size_t(dstSlots), 0);
  const bool replicating = dst.replicates();
  // Only a replicated destination reads a source cell for several cells,
  // and sends it from its PE once however many PEs it reaches (they may
  // forward it, 003 6.2.1's recursive doubling).
  std::vector<uint8_t> read(replicating ? size_t(src.deviceSize()) : 0, 0),
      sent(read.size(), 0);
  // The last PE each source cell was sent to: the cells are walked PE by
  // PE, so a (source cell, PE) pair already sent was sent within this PE's
  // cells, and no other PE came between.
  std::vector<uint32_t> lastSentTo(read.size(), UINT32_MAX);
  for (size_t b = 0; b < sources.size(); ++b) {
    if (sources[b] == kNoSource)
      continue;
    const int64_t a = sources[b];
    const int64_t ap = a / srcSlots, bp = int64_t(b) / dstSlots;
    const bool moves = ap != bp || a % srcSlots != int64_t(b) % dstSlots;
    if (!moves && !copy)
      continue;
    if (!replicating || !read[size_t(a)]) {
      if (replicating)
        read[size_t(a)] = 1;
      ++need.reads[size_t(ap)];
      if (!need.readersAt.empty())
        ++need.readersAt[size_t(a % srcSlots)];
    }
    ++need.writes[size_t(bp)];
    ++need.writersAt[size_t(int64_t(b) % dstSlots)];
    if (ap == bp)
      continue;
    // An element bound for several cells of one PE need travel only once.
    if (replicating) {
      if (lastSentTo[size_t(a)] == uint32_t(bp))
        continue;
      lastSentTo[size_t(a)] = uint32_t(bp);
    }
    // Every send goes through the cluster's connection, even to a PE of
    // the same cluster (MasPar.h's router model). A replicated element
    // leaves its source's cluster once: its other copies may be forwarded
    // from other clusters; each PE it reaches takes it in through its own.
    if (!replicating || !sent[size_t(a)]) {
      if (replicating)
        sent[size_t(a)] = 1;
      ++need.out[size_t(ap)];
      ++need.leave[grid.clusterOfPe(unsigned(ap))];
    }
    ++need.in[size_t(bp)];
    ++need.enter[grid.clusterOfPe(unsigned(bp))];
  }
  return boundOf(need, elemBytes, cost);
}

// The walk above over the move's row, cell (q, t) taking row[t] on every
// PE q of the destination: summed over the PEs, each cell of the row moves
// on all of them but the element's own PE when it keeps its slot there;
// a replicating destination reads each source cell and sends it from its
// PE once if any cell moves it, and each PE receives each distinct source
// cell of another PE once.
int64_t mapc::rt::generalLowerBound(const TileMap &src, const TileMap &dst,
                                    unsigned elemBytes, bool copy,
                                    const MachineShape &shape,
                                    const CostModel &cost,
                                    const SourceRow &row) {
  const int64_t srcSlots = slotsOf(src), dstPes = pesOf(dst);
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  Demand need(shape.peCount(), grid.clusterCount());
  if (!src.replicates())
    need.readersAt.assign(size_t(srcSlots), 0);
  need.writersAt.assign(row.cells.size(), 0);
  const bool replicating = dst.replicates();
  // Per source cell: the cells of the table that move it (or read it, in
  // a copy), and whether the row holds it.
  std::vector<int64_t> moving(size_t(src.deviceSize()), 0);
  std::vector<uint8_t> inRow(moving.size(), 0);
  // Per PE: the row's cells that stay put there, and its distinct source
  // cells (its cells) of that PE.
  std::vector<int64_t> stays(size_t(std::max<int64_t>(0, dstPes)), 0),
      ownCells(stays.size(), 0), ownDistinct(stays.size(), 0);
  int64_t cells = 0, distinct = 0;
  std::vector<uint32_t> order;
  for (size_t t = 0; t < row.cells.size(); ++t) {
    if (row.cells[t] == kNoSource)
      continue;
    const uint32_t a = row.cells[t];
    const int64_t ap = a / srcSlots, as = a % srcSlots;
    const bool home = ap < dstPes;
    const int64_t still = !copy && home && as == int64_t(t) ? 1 : 0;
    moving[a] += dstPes - still;
    need.writersAt[t] += dstPes - still;
    ++cells;
    if (home) {
      stays[size_t(ap)] += still;
      ++ownCells[size_t(ap)];
    }
    if (!inRow[a]) {
      inRow[a] = 1;
      order.push_back(a);
      ++distinct;
      if (home)
        ++ownDistinct[size_t(ap)];
    }
    if (!replicating) {
      need.reads[size_t(ap)] += dstPes - still;
      if (!need.readersAt.empty())
        need.readersAt[size_t(as)] += dstPes - still;
      const int64_t away = dstPes - (home ? 1 : 0);
      need.out[size_t(ap)] += away;
      need.leave[grid.clusterOfPe(unsigned(ap))] += away;
    }
  }
  if (replicating)
    for (uint32_t a : order) {
      const int64_t ap = a / srcSlots, as = a % srcSlots;
      if (moving[a] > 0) {
        ++need.reads[size_t(ap)];
        if (!need.readersAt.empty())
          ++need.readersAt[size_t(as)];
      }
      // Sent once if some destination PE is not its own.
      if (dstPes - (ap < dstPes ? 1 : 0) > 0) {
        ++need.out[size_t(ap)];
        ++need.leave[grid.clusterOfPe(unsigned(ap))];
      }
    }
  for (int64_t q = 0; q < dstPes; ++q) {
    need.writes[size_t(q)] = cells - stays[size_t(q)];
    // Every cell whose element is on another PE is received: once per
    // distinct source cell when the destination replicates.
    const int64_t in = replicating ? distinct - ownDistinct[size_t(q)]
                                   : cells - ownCells[size_t(q)];
    need.in[size_t(q)] = in;
    need.enter[grid.clusterOfPe(unsigned(q))] += in;
  }
  return boundOf(need, elemBytes, cost);
}

// Without a table: every count above is a sum over the (source PE,
// destination PE) pairs, less the elements that keep their cell, so it
// follows from the pairs' totals per PE (MoveCounts::peTotals: a separable
// move's come from its factors, without listing its pairs). The counts say
// nothing per slot, so the per-address terms are left out.
int64_t mapc::rt::generalLowerBound(const MoveCounts &counts,
                                    unsigned elemBytes, bool copy,
                                    const MachineShape &shape,
                                    const CostModel &cost) {
  const unsigned pes = shape.peCount();
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  Demand need(pes, grid.clusterCount());
  const PeTotals t = counts.peTotals();
  for (size_t p = 0; p < t.sent.size() && p < pes; ++p) {
    need.reads[p] = t.sent[p];
    need.writes[p] = t.received[p];
    need.out[p] = t.sent[p] - t.kept[p];
    need.in[p] = t.received[p] - t.kept[p];
    need.leave[grid.clusterOfPe(unsigned(p))] += need.out[p];
    need.enter[grid.clusterOfPe(unsigned(p))] += need.in[p];
  }
  if (!copy)
    for (size_t p = 0; p < counts.stay.size() && p < pes; ++p) {
      need.reads[p] -= counts.stay[p];
      need.writes[p] -= counts.stay[p];
    }
  return boundOf(need, elemBytes, cost);
}

// Round r costs at least ropen + s_r(c) rsend for every cluster c sending
// s_r(c) elements in it: in plain mode the busiest cluster's senders take a
// connection each, in clustered mode c's senders share at most
// partners x group connections' sends. Summed over the rounds, the
// s_r(c) of the busiest cluster add up to all it sends.
int64_t mapc::rt::exchangeStepBound(const std::vector<int64_t> &leaving,
                                    unsigned elemBytes,
                                    const MachineShape &shape,
                                    const CostModel &cost) {
  const unsigned xferBytes = std::min(elemBytes, 8u);
  const int64_t xfers = elemBytes / xferBytes;
  const unsigned w = widthIndex(xferBytes);
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  std::vector<int64_t> fromCluster(grid.clusterCount(), 0);
  int64_t rounds = 0, busiestCluster = 0;
  for (size_t p = 0; p < leaving.size() && p < grid.peCount(); ++p) {
    rounds = std::max(rounds, leaving[p]);
    busiestCluster =
        std::max(busiestCluster,
                 fromCluster[grid.clusterOfPe(unsigned(p))] += leaving[p]);
  }
  return rounds * (cost.load[widthIndex(8)] +
                   xfers * (cost.loadIndirect[w] + cost.storeIndirect(w) +
                            cost.ropen)) +
         xfers * busiestCluster * cost.rsend[w];
}
