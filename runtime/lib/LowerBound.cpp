//===- LowerBound.cpp - 003 5.8.1's lower bound, for any radix-2 remap ----===//
//
// Fig. 5.4 bounds each benchmark problem by the memory and router traffic no
// plan can avoid. Generalised to any pair of layouts (docs/cost-model.md):
//
//   memory  every element that changes address is read and written once,
//           in chunks as wide as the identity low m-bits allow (at most 64
//           bits), with indirect addressing for the elements that change
//           PE when a cycle mixes m- and p-bits (the thesis assumes it);
//   router  every element that changes PE is sent once, in transfers as
//           wide as the m-bits that stay in memory allow, one transfer per
//           PE per send; a cluster (a grid block, 003 5.6.4) opens a
//           connection in every send, one per partner cluster, and a
//           connection serves only the cluster's PEs that can reach that
//           partner.
//
// Counts are averages over PEs and clusters, which never exceed the maxima
// a SIMD machine pays for, so the bound stays a bound.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Execute.h"

#include <algorithm>
#include <numeric>

using namespace mapc::rt;

namespace {
/// Union-find with parities: solutions of XOR equations over address bits.
struct ParityUnion {
  std::vector<int> parent;
  std::vector<uint8_t> par; ///< parity to the parent
  bool consistent = true;
  explicit ParityUnion(unsigned n) : parent(n), par(n, 0) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x, uint8_t &p) {
    p = 0;
    while (parent[x] != x) {
      p ^= par[x];
      x = parent[x];
    }
    return x;
  }
  /// a_x xor a_y = v
  void join(int x, int y, uint8_t v) {
    uint8_t px, py;
    int rx = find(x, px), ry = find(y, py);
    if (rx == ry) {
      if ((px ^ py) != v)
        consistent = false;
      return;
    }
    parent[rx] = ry;
    par[rx] = px ^ py ^ v;
  }
  /// log2 of the number of solutions, with node `zero` fixed to 0.
  int freeBits(int zero) {
    if (!consistent)
      return -1;
    int roots = 0;
    uint8_t p;
    int rz = find(zero, p);
    for (int i = 0; i < int(parent.size()); ++i)
      if (find(i, p) == i && i != rz)
        ++roots;
    return roots;
  }
};

static uint64_t bitOf(uint64_t v, unsigned i) { return (v >> i) & 1; }
} // namespace

int64_t mapc::rt::lowerBound(const BitLayout &src, const BitLayout &dst,
                             unsigned elemBytes, bool copy,
                             const MachineShape &shape, const CostModel &cost) {
  BitMove g;
  if (!remapMove(src, dst, g))
    return 0;
  unsigned n = src.bits(), mB = src.mBits, pB = src.pBits;
  int enabled = 0, enabledP = 0;
  for (unsigned i = 0; i < n; ++i)
    if (src.dataBit[i] >= 0) {
      ++enabled;
      enabledP += i >= mB;
    }
  double validTotal = double(uint64_t(1) << enabled);
  double validPEs = double(uint64_t(1) << enabledP);

  // Count valid source addresses satisfying XOR equations on some bits.
  auto countSolutions = [&](bool onlyPeBits) {
    ParityUnion u(n + 1);
    for (unsigned i = 0; i < n; ++i) {
      if (src.dataBit[i] < 0)
        u.join(int(i), int(n), src.value[i]);
      unsigned t = g.to[i];
      if (!onlyPeBits || t >= mB)
        u.join(int(i), int(t), uint8_t(bitOf(g.flip, t)));
    }
    int f = u.freeBits(int(n));
    return f < 0 ? 0.0 : double(uint64_t(1) << f);
  };

  // Memory: elements that change address (all of them for a copy).
  double moved = copy ? validTotal : validTotal - countSolutions(false);
  if (moved <= 0)
    return 0;
  unsigned low = 0;
  while (low < mB && g.to[low] == low && !bitOf(g.flip, low))
    ++low;
  uint64_t chunk =
      std::min<uint64_t>(8, uint64_t(elemBytes) << std::min(low, 8u));
  unsigned wm = widthIndex(unsigned(chunk));
  bool mixes = false;
  for (const std::vector<unsigned> &c : g.cycles()) {
    bool m = false, p = false;
    for (unsigned j : c)
      (j < mB ? m : p) = true;
    mixes |= m && p;
  }
  // Elements that change PE go through the (mp*) machinery, which reads
  // and writes them indirectly when cycles mix m- and p-bits; the others
  // can always be moved with direct addresses.
  double leave = validTotal - countSolutions(true);
  auto chunks = [&](double elements) {
    return elements / validPEs * elemBytes / double(chunk);
  };
  // Averages over PEs, rounded down: the busiest PE pays at least this.
  int64_t memory =
      int64_t(chunks(moved - leave) * double(cost.load[wm] + cost.store(wm)) +
              chunks(leave) *
                  double(mixes ? cost.loadIndirect[wm] + cost.storeIndirect(wm)
                               : cost.load[wm] + cost.store(wm)));

  // Router: elements whose PE changes.
  int64_t router = 0;
  if (leave > 0) {
    unsigned stay = 0;
    for (unsigned i = 0; i < mB; ++i)
      if (src.dataBit[i] >= 0 && g.to[i] < mB)
        ++stay;
    uint64_t wr =
        std::min<uint64_t>(8, uint64_t(elemBytes) << std::min(stay, 8u));
    // Clusters are grid blocks (003 5.6.4, MasPar.h): the intra-cluster
    // p-bits are the low bits of x (p0 ..) and the low bits of y (from
    // p(xBits) on), e.g. p0 p1 p5 p6 on a 32 x 32 grid.
    const uint64_t pes = uint64_t(1) << pB;
    const unsigned gridW = unsigned(std::min<uint64_t>(shape.width, pes));
    const unsigned gridH = unsigned(pes / gridW);
    const ClusterBlock block = clusterBlock(gridW, gridH, shape.clusterSize);
    unsigned xBits = 0, cwBits = 0, chBits = 0;
    while ((1u << xBits) < gridW)
      ++xBits;
    while ((1u << cwBits) < block.width)
      ++cwBits;
    while ((1u << chBits) < block.height)
      ++chBits;
    auto intra = [&](unsigned p) {
      return p < cwBits || (p >= xBits && p < xBits + chBits);
    };
    const unsigned cBits = cwBits + chBits;
    double clusters = double(uint64_t(1) << (pB - cBits));
    double bytes = leave * elemBytes / clusters;
    int64_t sends = int64_t(bytes / double(wr) + 0.999999);
    // Distinct partner clusters: cluster-select bits fed by bits that vary
    // inside one source cluster (its intra-cluster p-bits and its m-bits).
    unsigned fed = 0;
    for (unsigned i = 0; i < n; ++i) {
      bool varies = src.dataBit[i] >= 0 && (i < mB || intra(i - mB));
      if (varies && g.to[i] >= mB && !intra(g.to[i] - mB))
        ++fed;
    }
    int64_t opens =
        std::max<int64_t>(1, (int64_t(1) << std::min(fed, 20u)) - 1);
    // Each send moves at most one transfer per PE and opens at least one
    // connection, and a cluster's connection to a partner in one send
    // serves only the PEs that can reach that partner: those agreeing on
    // the intra-cluster bits that feed cluster-select bits. So a cluster's
    // transfers need at least transfers / sharing opens (003 fig. 5.4's
    // 16 x 128 opens when no cluster is kept).
    unsigned intraVarying = 0, intraFeeding = 0;
    for (unsigned i = mB; i < n; ++i)
      if (src.dataBit[i] >= 0 && intra(i - mB)) {
        ++intraVarying;
        intraFeeding += g.to[i] >= mB && !intra(g.to[i] - mB);
      }
    int64_t sharing = int64_t(1) << (intraVarying - intraFeeding);
    int64_t sendsPerPE =
        int64_t(leave * elemBytes / validPEs / double(wr) + 0.999999);
    opens = std::max({opens, sendsPerPE, (sends + sharing - 1) / sharing});
    router = opens * cost.ropen + sends * cost.rsend[widthIndex(unsigned(wr))];
  }
  return memory + router;
}
