//===- AffinePlanner.h - plans for GF(2)-affine remaps (001 + 003 ch. 4) --===//
//
// A remap whose layouts are Gray-coded, or XOR data bits, is an affine map
// of device addresses. planAffineRemap factors it (ExchangeDecomposition.h)
// into 001's exchanges, run first, one step each on the MasPar (a local
// slot swap for an m-bit, the router or the xnet for a p-bit), then the bit
// permutation that is left, planned by the radix-2 planner (RemapPlanner.h)
// on virtual bit layouts: one virtual data bit per enabled device bit.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_AFFINEPLANNER_H
#define MAPC_PASSES_AFFINEPLANNER_H

#include "passes/RemapPlanner.h"

#include <optional>

namespace mapc {

struct AffinePlanRequest {
  rt::AffineLayout src, dst;
  unsigned elemBytes = 1;
  bool copy = false;
  rt::MachineShape shape;
  rt::CostModel cost;
  /// 001 fig. 5: the p-bit the exchanges start in, then downwards
  /// cyclically; by default the highest (fig. 4).
  std::optional<unsigned> exchangeStart;
};

std::variant<rt::Plan, std::string>
planAffineRemap(const AffinePlanRequest &request, PlannerKind kind);

/// A plan from `src` to `dst` with no steps yet: the affine layouts, the
/// element size, copy or not, and the factoring's fewest exchanges.
rt::Plan emptyAffinePlan(const rt::AffineLayout &src,
                         const rt::AffineLayout &dst, unsigned elemBytes,
                         bool copy, unsigned exchangeLowerBound);

/// The bit layout an affine layout presents to permutation steps: every
/// enabled device bit holds its own virtual data bit (numbered upwards),
/// disabled bits keep their values.
rt::BitLayout virtualBitLayout(const rt::AffineLayout &l);

/// "p2 ^= p3" or "m0 ^= p1^p0": an exchange in the cycle notation's names.
std::string formatExchange(const rt::Exchange &e, unsigned mBits);

/// A remap in words: its exchanges in the source's device bits, then the
/// cycles (003 4.2.2) of `permutation` on the bits of `permuted`, e.g.
/// "exchanges [p2 ^= p3], [p1 ^= p2] then (m0, p0)".
std::string remapText(const std::vector<rt::Exchange> &exchanges,
                      const rt::BitMove &permutation,
                      const rt::BitLayout &permuted);

/// --emit=cycles for an affine remap: its exchanges in the source's device
/// bits, then the cycles of the permutation left, e.g.
/// "exchanges [p2 ^= p3], [p1 ^= p2] then (m0, p0)". Empty and `why` set
/// when the maps do not fit each other.
std::string affineRemapText(const IndexBitMap &src, const IndexBitMap &dst,
                            std::optional<unsigned> exchangeStart,
                            std::string &why);

/// A sound lower bound for an affine remap on the MasPar: every element
/// whose address changes is loaded and stored once, in 64-bit chunks at
/// best, with direct addressing (docs/cost-model.md).
int64_t affineLowerBound(const rt::AffineLayout &src, const rt::AffineMove &g,
                         unsigned elemBytes, bool copy,
                         const rt::MachineShape &shape,
                         const rt::CostModel &cost);

} // namespace mapc

#endif
