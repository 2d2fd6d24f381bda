//===- MasPar.h - a simulated MasPar-like SIMD machine
//---------------------===//
//
// A functional and timed model of the MasPar MP-1 as 003 ch. 2.4 and 5.6
// describe it: an ACU driving a grid of PEs, each with its own byte-addressed
// memory; plural values with an activity mask; direct loads and stores (every
// active PE at the same address) and indirect ones (a per-PE address) of 8,
// 16, 32 or 64 bits; a router whose connections are shared by clusters of
// PEs; and the xnet, a toroidal mesh in eight directions. Every operation
// charges its price from CostModel to a ledger of ticks.
//
// PE numbering: iproc = x + width * y on a width x height grid (003 2.4).
// Clusters (003 5.6.4): the PEs sharing one router connection form a block
// of the grid, as on the MP-1, where a cluster of 16 is a 4 x 4 block. For
// clusterSize = 2^c the block is 2^ceil(c/2) PEs wide and 2^floor(c/2)
// high, narrowed to the grid (then as wide as the grid, or as high) and
// numbered row by row: see clusterBlock and clusterOf. On a 32 x 32 grid,
// PEs 0-3, 32-35, 64-67 and 96-99 are cluster 0, and the intra-cluster PE
// bits are p0, p1 (x) and p5, p6 (y), as in 5.6.4's address diagram; on a
// grid one PE high a cluster is a run of clusterSize consecutive PEs.
//
// Router timing (5.6.4, 6.4). A send moves one value from every active PE to
// its destination PE. Plain mode gives every PE a connection of its own:
// each round every cluster opens one connection, so the send takes
//   rounds = max over clusters of (active senders in it, receivers in it)
// rounds of ropen + rsend, assuming the contention-free connection order of
// 6.4. Clustered mode opens one connection per pair of clusters that talk
// and drains every PE of the pair through it (5.6.4):
//   partners = max over clusters of distinct clusters it sends to or
//              receives from,
//   group    = max number of PEs sharing one cluster pair,
//   cost     = partners * (ropen + group * rsend).
// A send in which no active PE leaves its own PE is free.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_MASPAR_H
#define MAPC_RUNTIME_MASPAR_H

#include "mapc/runtime/CostModel.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mapc::rt {

/// The width and height, in PEs, of the grid block one router connection
/// serves (003 5.6.4): 2^ceil(c/2) x 2^floor(c/2) for clusterSize = 2^c,
/// narrowed to a grid narrower or lower than that, so that width * height
/// is clusterSize (clamped to the machine) and both divide the grid's.
struct ClusterBlock {
  unsigned width = 1, height = 1;
};
ClusterBlock clusterBlock(unsigned width, unsigned height,
                          unsigned clusterSize);

/// The cluster of PE `iproc` (= x + width * y) on a width x height grid
/// with clusters of `clusterSize` PEs (powers of two): clusters are the
/// blocks of clusterBlock, numbered row by row of blocks.
unsigned clusterOf(unsigned width, unsigned height, unsigned clusterSize,
                   unsigned iproc);

/// One value per PE (up to 64 bits), as MPL's `plural`.
using Plural = std::vector<uint64_t>;
/// One flag per PE.
using Mask = std::vector<uint8_t>;

/// Ticks spent, by kind of instruction.
struct Ledger {
  int64_t memory = 0; ///< loads and stores
  int64_t router = 0; ///< ropen and rsend
  int64_t xnet = 0;
  int64_t arith = 0;       ///< per-PE address arithmetic (div, mod)
  int64_t routerSends = 0; ///< router send instructions issued (not free)
  int64_t total() const { return memory + router + xnet + arith; }
  Ledger &operator+=(const Ledger &o) {
    memory += o.memory;
    router += o.router;
    xnet += o.xnet;
    arith += o.arith;
    routerSends += o.routerSends;
    return *this;
  }
  /// What was charged between `before` and this ledger.
  Ledger operator-(const Ledger &before) const {
    Ledger d = *this;
    d.memory -= before.memory;
    d.router -= before.router;
    d.xnet -= before.xnet;
    d.arith -= before.arith;
    d.routerSends -= before.routerSends;
    return d;
  }
};

enum class XnetDir { N, NE, E, SE, S, SW, W, NW };

class MasPar {
public:
  /// A width x height PE grid (any sides: mixed-radix devices, 003 6.1.4),
  /// `memoryBytes` of memory per PE, routers shared by clusters of
  /// `clusterSize` PEs (a power of two), drawn as grid blocks (clusterOf),
  /// partial at the edges of a grid the block does not divide.
  MasPar(unsigned width, unsigned height, uint64_t memoryBytes,
         unsigned clusterSize = 16, CostModel cost = {});

  /// A machine without memory that only keeps the ledger: every
  /// instruction is priced exactly as on a real one, and loads return 0.
  /// Planners run a step on it to predict the step's ticks, so that the
  /// prediction and the simulation are one computation.
  static MasPar pricing(unsigned width, unsigned height,
                        unsigned clusterSize = 16, CostModel cost = {});
  bool pricingOnly() const { return pricing_; }

  unsigned width() const { return width_; }
  unsigned height() const { return height_; }
  unsigned peCount() const { return width_ * height_; }
  unsigned clusterSize() const { return clusterSize_; }
  unsigned clusterCount() const { return unsigned(clusterStart_.size() - 1); }
  /// clusterOf(width(), height(), clusterSize(), pe), from a table.
  unsigned clusterOfPe(unsigned pe) const { return clusterOf_[pe]; }
  /// The clusterPeCount(cluster) PEs of `cluster`, in increasing order.
  const uint32_t *clusterPes(unsigned cluster) const {
    return &clusterPes_[clusterStart_[cluster]];
  }
  /// clusterSize(), or fewer for a partial block at the edge of a grid
  /// whose sides the cluster block does not divide.
  unsigned clusterPeCount(unsigned cluster) const {
    return clusterStart_[cluster + 1] - clusterStart_[cluster];
  }
  uint64_t memoryBytes() const { return memoryBytes_; }
  const CostModel &cost() const { return cost_; }
  Ledger &ledger() { return ledger_; }
  const Ledger &ledger() const { return ledger_; }

  /// All PEs active.
  Mask allActive() const { return Mask(peCount(), 1); }

  /// Direct load: every active PE reads `bytes` (1, 2, 4, 8) at `address`.
  /// Inactive PEs get 0. Little-endian.
  Plural load(unsigned bytes, uint64_t address, const Mask &active);
  /// Indirect load: PE i reads at addresses[i].
  Plural loadIndirect(unsigned bytes, const Plural &addresses,
                      const Mask &active);
  void store(unsigned bytes, uint64_t address, const Plural &values,
             const Mask &active);
  void storeIndirect(unsigned bytes, const Plural &addresses,
                     const Plural &values, const Mask &active);

  /// Router send: active PE i sends values[i] to PE dest[i]. Returns, per
  /// PE, the value received and in `received` whether one arrived. Two
  /// senders to one PE is a programming error (asserts). `extraBytes` adds
  /// a second send through each connection (brute force sends an address
  /// with each datum, 6.3.3).
  Plural routerSend(unsigned bytes, const Plural &values, const Plural &dest,
                    const Mask &active, bool clustered, Mask &received,
                    unsigned extraBytes = 0);
  /// The ticks routerSend would charge, without moving data.
  int64_t routerCost(unsigned bytes, const Plural &dest, const Mask &active,
                     bool clustered, unsigned extraBytes = 0) const;
  /// The ticks of the cheaper of plain and clustered connections (5.6.4),
  /// the mode general steps choose per send.
  int64_t cheaperRouterCost(unsigned bytes, const Plural &dest,
                            const Mask &active) const;
  /// cheaperRouterCost of the send in which PE pairs[i].first sends to
  /// pairs[i].second (senders and receivers distinct, as routerSend
  /// requires), counted from its pairs: k log k for k pairs, where the
  /// planes cost a walk of every PE. A broadcast's pricing sends to one PE
  /// at a time; over n PEs that walk made its pricing n^2.
  int64_t cheaperRouterCostOfPairs(
      unsigned bytes,
      const std::vector<std::pair<uint32_t, uint32_t>> &pairs) const;
  /// routerSend in the cheaper mode (plain when the two cost the same).
  Plural routerSendCheaper(unsigned bytes, const Plural &values,
                           const Plural &dest, const Mask &active,
                           Mask &received);

  /// Xnet: every active PE sends values[i] `distance` PEs in direction
  /// `dir` with toroidal wrap; the receiver gets it whether or not it is
  /// active (as the MP-1's xnetc). Costs xnetBase + distance * xnetHop.
  Plural xnetSend(unsigned bytes, XnetDir dir, unsigned distance,
                  const Plural &values, const Mask &active, Mask &received);

  /// A direct load of `bytes` of per-PE schedule data (a precomputed table
  /// kept beside the arrays, 003 6.4): priced as load(), no data moved.
  void tableLoad(unsigned bytes, const Mask &active);

  /// Per-PE address arithmetic every active PE does at once (mixed-radix
  /// division and modulus, 003 6.1.4): `divmods` divisions with remainder.
  void arith(unsigned divmods, const Mask &active);

  /// Raw access for setting up and checking data (free: not an instruction).
  uint8_t *memoryOf(unsigned pe) { return &memory_[size_t(pe) * memoryBytes_]; }
  const uint8_t *memoryOf(unsigned pe) const {
    return &memory_[size_t(pe) * memoryBytes_];
  }

private:
  unsigned width_, height_, clusterSize_;
  uint64_t memoryBytes_;
  CostModel cost_;
  Ledger ledger_;
  std::vector<uint8_t> memory_;
  bool pricing_ = false;
  std::vector<uint32_t> clusterOf_;    ///< per PE
  std::vector<uint32_t> clusterPes_;   ///< the PEs, cluster by cluster
  std::vector<uint32_t> clusterStart_; ///< per cluster, its first PE there
};

} // namespace mapc::rt

#endif
