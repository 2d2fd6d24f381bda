//===- Plan.h - a remap plan: a sequence of machine steps
//------------------===//
//
// A plan takes an array from one radix-2 layout to another as a product of
// bit moves, each carried out by one of the methods of 003 4.4 and 5.6:
//
//   Memory  (m*) cycles only: every PE walks the same data-cycle list with
//           direct loads and stores (function 4.2).
//   Router  identity m-bits looped (function 4.4), even-parity (mp*) cycles
//           by parity masking with indirect addressing (4.3), (m*) cycles
//           walked in step with the sends (4.4.6) and (p*) cycles through
//           the router (4.1); `chunkBits` low identity m-bits travel
//           together as one transfer of up to 64 bits (5.6.3); `clustered`
//           opens one connection per cluster pair (5.6.4).
//   Xnet    exchange of consecutive m-bits with consecutive p-bits of one
//           grid dimension by the diagonal algorithm (5.6.5, 6.2.1).
//   BruteForce  every element sent with its destination address (6.3.3).
//   Exchange  001's conditional exchanges (x_j ^= parity(x & S)): a local
//           swap of two slots when j is an m-bit, an exchange with the
//           neighbour PE across bit j (router or xnet, or a cube dim) when
//           it is a p-bit. On a network machine one step may hold several
//           exchange orders run concurrently by one of 001's schedules.
//   Route   network machines: every element routed to its destination
//           node by dimension-order routing (the step's move).
//
// The executor derives everything else (slot order, parity masks, data
// cycles, destinations) from the step's move and the layout before it.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_PLAN_H
#define MAPC_RUNTIME_PLAN_H

#include "mapc/runtime/Affine.h"
#include "mapc/runtime/BitLayout.h"

#include <string>
#include <vector>

namespace mapc::rt {

enum class StepKind { Memory, Router, Xnet, BruteForce, Exchange, Route };
const char *stepKindName(StepKind k);

/// The most m-bits one memory or router step may permute among memory
/// (its (m*) cycles): function 4.2's data-cycle list has one node per PE,
/// so 2^bits <= PE count (003 4.4.5). Machines of fewer than 4 PEs are
/// allowed 2 bits, the least a bit cycle can be split into.
inline unsigned memoryPermutationLimit(unsigned peBits) {
  return peBits < 2 ? 2 : peBits;
}

struct Step {
  StepKind kind = StepKind::Memory;
  BitMove move;           ///< the bijection of device addresses applied
  unsigned chunkBits = 0; ///< low identity m-bits moved as one transfer
  bool clustered = false; ///< router: one connection per cluster pair
  int64_t predictedTicks = 0;
  std::string why; ///< the planner's reason, shown by --emit=plan
  /// Exchange: the exchange sequence each data set follows (one order
  /// unless the schedule runs several concurrently, 001 thm 2); every
  /// order realises the same map. `move` is then the identity.
  std::vector<std::vector<Exchange>> exchanges;
  std::string schedule; ///< Exchange on a network: 001's schedule name
  /// The affine map of this step's exchanges (identity for other kinds).
  AffineMove exchangeMove(unsigned bits) const;
  /// An Exchange step on `bits` device bits: one order per data set, and
  /// the schedule's name on a network (empty on the MasPar).
  static Step exchangeStep(unsigned bits,
                           std::vector<std::vector<Exchange>> orders,
                           std::string schedule = "");
};

struct Plan {
  BitLayout source, dest;
  unsigned elemBytes = 1;
  bool copy = false;   ///< source and destination are different arrays
  std::string planner; ///< "optimal", "atomic" or "brute-force"
  std::vector<Step> steps;
  int64_t predictedTicks = 0;
  int64_t lowerBound = 0;
  /// predictedTicks only bound the run's from above: a bit is disabled and
  /// the layouts span more device cells than the planner runs the plan on
  /// (RemapPlanner.cpp, priceWithDisabledBits).
  bool ticksAreBound = false;

  /// Affine plans (a layout is Gray-coded or XORs data bits, 001): the
  /// real layouts. `source` and `dest` are then the bit layouts the
  /// permutation steps see, with one virtual data bit per enabled device
  /// bit; exchange steps come first and leave them unchanged.
  bool affine = false;
  AffineLayout affineSource, affineDest;
  unsigned exchangeLowerBound = 0; ///< fewest exchanges any plan needs

  /// The layout after step i (i = -1: the source).
  BitLayout layoutAfter(int i) const;
  /// The real layout after step i, affine or not (i = -1: the source).
  AffineLayout affineAfter(int i) const;
};

} // namespace mapc::rt

#endif
