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
//
// The executor derives everything else (slot order, parity masks, data
// cycles, destinations) from the step's move and the layout before it.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_PLAN_H
#define MAPC_RUNTIME_PLAN_H

#include "mapc/runtime/BitLayout.h"

#include <string>
#include <vector>

namespace mapc::rt {

enum class StepKind { Memory, Router, Xnet, BruteForce };
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
};

struct Plan {
  BitLayout source, dest;
  unsigned elemBytes = 1;
  bool copy = false;   ///< source and destination are different arrays
  std::string planner; ///< "optimal", "atomic" or "brute-force"
  std::vector<Step> steps;
  int64_t predictedTicks = 0;
  int64_t lowerBound = 0;

  /// The layout after step i (i = -1: the source).
  BitLayout layoutAfter(int i) const;
};

} // namespace mapc::rt

#endif
