//===- RemapPlanner.h - plans for radix-2 remaps (003 4.4, 5.5, 5.6, 6.3.3)
//-===//
//
// planRemap turns a pair of radix-2 layouts into a plan of machine steps
// (runtime/Plan.h). Three planners:
//   optimal      003 4.4: mixed cycles are factored into a memory pre-step
//                and (m*), (p*) and even-parity (mp*) cycles (4.4.7); the
//                rest runs in one router step. Then 5.6's machine choices,
//                each taken only when the predicted ticks drop: chunking
//                with m-bits moved to make room (5.6.3), one connection per
//                cluster pair (5.6.4), the xnet for P/M exchanges (5.6.5).
//   atomic       003 4.3 / 5.5: one swap, move, invert or flip per step, in
//                5.5's heuristic order.
//   brute-force  003 6.3.3: every element sent with its address.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_REMAPPLANNER_H
#define MAPC_PASSES_REMAPPLANNER_H

#include "ir/BitMap.h"
#include "mapc/runtime/Affine.h"
#include "mapc/runtime/Execute.h"

#include <string>
#include <variant>

namespace mapc {

enum class PlannerKind { Optimal, Atomic, BruteForce };
const char *plannerName(PlannerKind k);

struct PlanRequest {
  rt::BitLayout src, dst;
  unsigned elemBytes = 1;
  bool copy = false;
  rt::MachineShape shape;
  rt::CostModel cost;
};

/// The largest remap, in device bits, whose plan is priced by running it
/// when a bit is disabled (smaller ones' predictions equal --run's).
constexpr unsigned kMaxLedgerPricedBits = 22;

/// The largest remap, in device bits, the brute-force planner takes: it
/// prices every element (2^22 cells plan in a few seconds).
constexpr unsigned kMaxBruteForceBits = 22;

std::variant<rt::Plan, std::string> planRemap(const PlanRequest &request,
                                              PlannerKind kind);

/// The runtime form of an index bit map, widened to `mBits` memory bits and
/// `pBits` PE bits with disabled zero bits (an array that uses fewer PEs or
/// less memory than the machine leaves the rest empty).
std::variant<rt::BitLayout, std::string>
toRuntimeLayout(const IndexBitMap &map, unsigned mBits, unsigned pBits);

/// The same for any index bit map, Gray-coded ones included, as a
/// GF(2)-affine layout.
std::variant<rt::AffineLayout, std::string>
toRuntimeAffine(const IndexBitMap &map, unsigned mBits, unsigned pBits);

} // namespace mapc

#endif
