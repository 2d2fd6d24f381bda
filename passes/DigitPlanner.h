//===- DigitPlanner.h - plans of several steps for digit permutations -----===//
//
// 003 6.2.2 performs any aligned index digit permutation in five steps: (i)
// move the digits that change sides between P and M next to each other,
// (ii) compound each group into one digit of the other's size, (iii)
// exchange the two compound digits (exchange_dig, function 6.1), (iv) undo
// the compounding and (v) finish with a processor/memory permutation.
// Steps (i)-(ii) and (iv)-(v) are each one permute_mp; here a permute_mp is
// planned as one step or as a processor permutation and a memory
// permutation through an intermediate layout, whichever the cost model
// prices lower, so that each half keeps its cheap form (a slotwise step in
// place, with 64-bit chunks; a local step walked in place).
//
// The candidates apply when both layouts are digit maps over the same data
// digits (the same k-Tile dims, no templates or offsets, one memory and one
// PE device dim) that differ only in where the digits sit: the layouts the
// language's `digits [...]` maps over one factorisation give. Compound
// digits need no layout change of their own: a group of neighbouring
// digits exchanged as one is a compound digit (6.2.1, "Resizing/
// compounding"), and the digit-exchange step finds it in the move.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_DIGITPLANNER_H
#define MAPC_PASSES_DIGITPLANNER_H

#include "passes/GeneralPlanner.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mapc {

/// A step priced only by a floor (an in-place resig_mp, 003 6.3.9's
/// rounds: rt::resignifyInPlaceFloor) and the move it makes.
struct FloorStep {
  size_t step = 0;
  rt::TileMap from, to;
};

/// A priced candidate plan: its steps (predictedTicks set) and a name for
/// the planner's list of prices.
struct PricedPlan {
  std::vector<rt::GeneralStep> steps;
  int64_t ticks = 0;
  std::string name;
  /// The steps whose predictedTicks is a floor, not a price; `ticks` is
  /// then a floor too (priceFloorSteps prices them).
  std::vector<FloorStep> floors;
  /// `ticks` is a floor at or above digitPermutationPlans' budget: an
  /// exchange step's partial rounds priced only by their floor (not
  /// searched), as the plan cannot win.
  bool bounded = false;
};

/// The plans of 003 6.2.2 for `req` (empty when its layouts are not digit
/// maps over one factorisation): a combined permutation as a processor and
/// a memory permutation in either order, and a P/M exchange as permute_mp,
/// digit exchange, permute_mp, with the exchanged memory digits moved to
/// the top of memory (so that the digits below travel in chunks) or left
/// where they are, and the PE digits moved to the bottom or left. Every
/// step is priced on the simulator; the plan ends in the destination.
/// With `floors`, an in-place resig_mp step (003 6.3.4, 6.3.9) carries only
/// a floor (PricedPlan::floors): the caller prices it when it may win.
/// With a `budget` (the price of a candidate listed before these plans), a
/// plan whose floor is at or above it is left bounded (PricedPlan::bounded)
/// rather than have its exchange's partial rounds searched.
std::vector<PricedPlan> digitPermutationPlans(const GeneralPlanRequest &req,
                                              bool floors = false,
                                              int64_t budget = INT64_MAX);

/// Prices on the simulator the steps of `steps` that `floors` lists (the
/// same ticks digitPermutationPlans without floors gives them) and empties
/// `floors`. False when one cannot be priced.
bool priceFloorSteps(const GeneralPlanRequest &req,
                     std::vector<rt::GeneralStep> &steps,
                     std::vector<FloorStep> &floors);

/// `src` and `dst` factorised alike when both are digit frames that align
/// (fig. 6.1: compact forms re-factorised at every place either splits the
/// index), every cell held: the same layouts, whose move FramePrice.h and
/// FrameMove.h read off the digits (a digit reversed on one side only
/// counted down). None otherwise.
std::optional<std::pair<rt::TileMap, rt::TileMap>>
alignedFrames(const rt::TileMap &src, const rt::TileMap &dst);

/// `steps` (each priced) as a plan of `req` that ends in the destination:
/// a copy back from the scratch region appended when the steps end there
/// (003 6.3.3), priced once per planning through `copyBackTicks` (-1 until
/// then). Named `name` and the steps' kinds. None when the copy back cannot
/// be priced or the regions do not work out.
std::optional<PricedPlan> pricedPlanOf(const GeneralPlanRequest &req,
                                       std::vector<rt::GeneralStep> steps,
                                       const std::string &name,
                                       int64_t &copyBackTicks);

} // namespace mapc

#endif
