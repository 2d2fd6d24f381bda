//===- CostModel.h - MasPar MP-1 instruction prices (003 fig. 5.2) --------===//
//
// Prices in ticks (1 tick = 80 ns) of the memory and communication
// instructions of the MasPar MP-1, exactly as 003 fig. 5.2 lists them.
// Stores cost what loads cost (the figure's note). Widths are indexed by
// log2 of the byte count: 0 = 8 bits, 1 = 16, 2 = 32, 3 = 64.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_COSTMODEL_H
#define MAPC_RUNTIME_COSTMODEL_H

#include <cstdint>

namespace mapc::rt {

/// Nanoseconds per tick on the MP-1.
constexpr double kNanosecondsPerTick = 80.0;

struct CostModel {
  int64_t ropen = 42;                     ///< open a router connection
  int64_t rsend[4] = {25, 33, 49, 81};    ///< send through an open connection
  int64_t xnetBase[4] = {13, 15, 19, 27}; ///< xnet: base ...
  int64_t xnetHop[4] = {10, 18, 34, 66};  ///< ... plus this per PE of distance
  int64_t load[4] = {20, 38, 74,
                     146}; ///< direct load (same address in all PEs)
  int64_t loadIndirect[4] = {55, 103, 199, 391}; ///< per-PE address

  /// One 32-bit division with remainder on every active PE. Fig. 5.2 has
  /// no price for it: the MP-1 microcodes division on its 4-bit PEs
  /// (003 2.4.2), so mapc assumes 32 shift-subtract steps of 4 ticks each.
  /// Mixed-radix address computations pay it (003 6.1.4, 6.3.3).
  int64_t divmod = 128;

  int64_t store(unsigned w) const { return load[w]; }
  int64_t storeIndirect(unsigned w) const { return loadIndirect[w]; }
  int64_t xnet(unsigned w, int64_t distance) const {
    return xnetBase[w] + distance * xnetHop[w];
  }
};

/// Every price alike (the planners' caches key on the machine's prices).
inline bool operator==(const CostModel &a, const CostModel &b) {
  // A price added to CostModel must be compared here too.
  static_assert(sizeof(CostModel) == 22 * sizeof(int64_t),
                "compare every field of CostModel");
  auto same = [](const int64_t(&x)[4], const int64_t(&y)[4]) {
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
  };
  return a.ropen == b.ropen && same(a.rsend, b.rsend) &&
         same(a.xnetBase, b.xnetBase) && same(a.xnetHop, b.xnetHop) &&
         same(a.load, b.load) && same(a.loadIndirect, b.loadIndirect) &&
         a.divmod == b.divmod;
}
inline bool operator!=(const CostModel &a, const CostModel &b) {
  return !(a == b);
}

/// log2 of a transfer width in bytes (1, 2, 4 or 8).
inline unsigned widthIndex(unsigned bytes) {
  return bytes >= 8 ? 3 : bytes >= 4 ? 2 : bytes >= 2 ? 1 : 0;
}

} // namespace mapc::rt

#endif
