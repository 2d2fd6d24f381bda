//===- GeneralLowerBound.cpp - a bound for remaps between any layouts -----===//
//
// The model of General.h moves elements in transfers of up to 64 bits
// (wider elements take several; narrower ones may share one as a chunk,
// 003 5.6.3). No plan under it can do better than this:
//
//   memory  every element that changes cell (all of them for a copy) is
//           read once by its PE (once for all its copies when the
//           destination replicates it) and written once into every cell
//           that takes it; a SIMD load or store serves every PE at once, so
//           the busiest PE's count times the direct price bounds each (per
//           byte at the cheapest width when elements can share a chunk);
//   router  every element that changes PE (once per PE it must reach, a
//           destination replicated in one PE's memory needing one copy
//           there) leaves through its cluster's one
//           connection and enters through its new cluster's (the same one
//           when both PEs share a cluster), at least one rsend each in
//           either router mode (003 5.6.4), at the cheapest price per byte
//           when elements can share a chunk, and a cluster opens at least
//           one connection per partner cluster.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/General.h"

#include "mapc/runtime/MasPar.h"

#include <algorithm>
#include <set>

using namespace mapc::rt;

namespace {
/// The bound from the busiest PE's reads and writes, the busiest cluster's
/// sends and receipts and its partner clusters (file comment).
int64_t boundOf(const std::vector<int64_t> &reads,
                const std::vector<int64_t> &writes,
                const std::vector<int64_t> &leave,
                const std::vector<int64_t> &enter,
                const std::vector<int64_t> &sendsToCount,
                const std::vector<int64_t> &hearsFromCount, unsigned elemBytes,
                const CostModel &cost) {
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
  int64_t memory =
      cheapest(*std::max_element(reads.begin(), reads.end()), cost.load) +
      cheapest(*std::max_element(writes.begin(), writes.end()),
               cost.load); // stores cost what loads cost (fig. 5.2)
  int64_t busiest = 0, opens = 0;
  for (size_t c = 0; c < leave.size(); ++c) {
    busiest = std::max({busiest, leave[c], enter[c]});
    opens = std::max({opens, sendsToCount[c], hearsFromCount[c]});
  }
  return memory + cheapest(busiest, cost.rsend) + opens * cost.ropen;
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
  const unsigned pes = shape.peCount();
  std::vector<int64_t> reads(pes, 0), writes(pes, 0);
  const bool replicating = dst.replicates();
  // Only a replicated destination reads a source cell for several cells.
  std::vector<uint8_t> read(replicating ? size_t(src.deviceSize()) : 0, 0);
  // The last PE each source cell was sent to: the cells are walked PE by
  // PE, so a (source cell, PE) pair already sent was sent within this PE's
  // cells, and no other PE came between.
  std::vector<uint32_t> lastSentTo(replicating ? size_t(src.deviceSize()) : 0,
                                   UINT32_MAX);
  // Clusters come from a pricing-only machine: the same blocks as --run's.
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  std::vector<int64_t> leave(grid.clusterCount(), 0),
      enter(grid.clusterCount(), 0);
  // Partners a cluster sends to and receives from: the two ends of its
  // connection work at once, so the larger set counts (MasPar.h). A flag
  // per cluster pair counts them when the pairs are few (a set per
  // element would cost more than the rest of the walk).
  const size_t clusters = grid.clusterCount();
  const bool flat = uint64_t(clusters) * clusters <= (uint64_t(1) << 22);
  std::vector<uint8_t> talks(flat ? clusters * clusters : 0, 0);
  std::vector<int64_t> sendsToCount(clusters, 0), hearsFromCount(clusters, 0);
  std::vector<std::set<uint32_t>> sendsTo(flat ? 0 : clusters),
      hearsFrom(flat ? 0 : clusters);
  for (size_t b = 0; b < sources.size(); ++b) {
    if (sources[b] == kNoSource)
      continue;
    const int64_t a = sources[b];
    const int64_t ap = a / srcSlots, bp = int64_t(b) / dstSlots;
    const bool moves = ap != bp || a % srcSlots != int64_t(b) % dstSlots;
    if (!moves && !copy)
      continue;
    // A source element that feeds several cells (a replicated
    // destination) is read once.
    if (!replicating) {
      ++reads[size_t(ap)];
    } else if (!read[size_t(a)]) {
      read[size_t(a)] = 1;
      ++reads[size_t(ap)];
    }
    ++writes[size_t(bp)];
    if (ap == bp)
      continue;
    // An element bound for several cells of one PE need travel only once.
    if (replicating) {
      if (lastSentTo[size_t(a)] == uint32_t(bp))
        continue;
      lastSentTo[size_t(a)] = uint32_t(bp);
    }
    // Every send goes through the cluster's connection, even to a PE of
    // the same cluster (MasPar.h's router model).
    const unsigned ca = grid.clusterOfPe(unsigned(ap));
    const unsigned cb = grid.clusterOfPe(unsigned(bp));
    ++leave[ca];
    ++enter[cb];
    if (flat) {
      uint8_t &t = talks[size_t(ca) * clusters + cb];
      if (!t) {
        t = 1;
        ++sendsToCount[ca];
        ++hearsFromCount[cb];
      }
    } else {
      sendsTo[ca].insert(cb);
      hearsFrom[cb].insert(ca);
    }
  }
  if (!flat)
    for (size_t c = 0; c < clusters; ++c) {
      sendsToCount[c] = int64_t(sendsTo[c].size());
      hearsFromCount[c] = int64_t(hearsFrom[c].size());
    }
  return boundOf(reads, writes, leave, enter, sendsToCount, hearsFromCount,
                 elemBytes, cost);
}

// Without a table: every count above is a sum over the (source PE,
// destination PE) pairs, less the elements that keep their cell.
int64_t mapc::rt::generalLowerBound(const MoveCounts &counts,
                                    unsigned elemBytes, bool copy,
                                    const MachineShape &shape,
                                    const CostModel &cost) {
  const unsigned pes = shape.peCount();
  std::vector<int64_t> reads(pes, 0), writes(pes, 0);
  MasPar grid =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  const size_t clusters = grid.clusterCount();
  std::vector<int64_t> leave(clusters, 0), enter(clusters, 0);
  std::vector<int64_t> sendsToCount(clusters, 0), hearsFromCount(clusters, 0);
  std::set<std::pair<unsigned, unsigned>> talks;
  for (const PePairCount &p : counts.pairs) {
    reads[p.from] += p.count;
    writes[p.to] += p.count;
    if (p.from == p.to)
      continue;
    const unsigned ca = grid.clusterOfPe(p.from), cb = grid.clusterOfPe(p.to);
    leave[ca] += p.count;
    enter[cb] += p.count;
    if (talks.insert({ca, cb}).second) {
      ++sendsToCount[ca];
      ++hearsFromCount[cb];
    }
  }
  if (!copy)
    for (size_t p = 0; p < counts.stay.size() && p < pes; ++p) {
      reads[p] -= counts.stay[p];
      writes[p] -= counts.stay[p];
    }
  return boundOf(reads, writes, leave, enter, sendsToCount, hearsFromCount,
                 elemBytes, cost);
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
