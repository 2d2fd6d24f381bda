//===- GeneralPlanner.h - plans for remaps between any layouts (003 ch. 6) ===//
//
// planGeneralRemap plans a remap whose layouts are not both radix-2 bit maps:
// HPF distributions on any number of PEs, index digit maps, k-Tile formats
// with templates, offsets and replication. It analyses the element move
// between the two layouts and prices every method that applies to it
// (runtime/General.h): a local move (003 6.2.1's memory permutation), a
// slot-by-slot processor permutation (permute_p), an exchange in
// contention-free rounds, one P/M digit exchange (function 6.1), brute
// force (6.3.3, skewed as in 6.3.8), which always applies, and for digit
// maps 003 6.2.2's plans of several steps (DigitPlanner.h). The cheapest
// predicted plan wins; its `why` lists the prices of the others.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_GENERALPLANNER_H
#define MAPC_PASSES_GENERALPLANNER_H

#include "mapc/runtime/General.h"

#include <string>
#include <variant>

namespace mapc {

struct GeneralPlanRequest {
  rt::TileMap src, dst;
  unsigned elemBytes = 1;
  bool copy = false;
  /// A copy whose first step out of place must write the destination, so
  /// that an odd number of them ends there (General.h): a plan with an even
  /// number ends with a copy back. 003 6.3.2's first half of an in-place
  /// remap, planned to end in the scratch region, asks for it.
  bool firstToDestination = false;
  rt::MachineShape shape;
  rt::CostModel cost;
  /// The scratch region does not fit: only plans that never write it (an
  /// in-place remap whose steps all run in place, 003 6.3.9's brute force
  /// among them).
  bool noScratch = false;
  /// The most slots per PE a layout between the two may use (the region
  /// each array has, 003 6.3.2's working memory); 0: the larger of the
  /// two layouts' slots.
  int64_t maxSlots = 0;
  /// Count the move from its runs and periods (rt::countMoveByRuns) rather
  /// than element by element, from this many elements on (below it the
  /// table is as quick and most candidates need it anyway); tests set 0 to
  /// reach it, or turn it off to compare.
  bool countByRuns = true;
  int64_t countByRunsFrom = int64_t(1) << 16;
  /// Price local and slotwise steps between digit frames from their digits
  /// (FramePrice.h) and tabulate such moves with frameSources; tests turn
  /// it off to compare with the prices run on tables.
  bool priceFramesByDigits = true;
  /// Price an in-place resig_mp step (003 6.3.4, 6.3.9) only when its floor
  /// (rt::resignifyInPlaceFloor) does not already lose; tests turn it off
  /// to compare.
  bool resignifyFloors = true;
};

/// The most device cells a general plan may span: planning walks every
/// element (sourcesOf) and keeps one 32-bit source per cell, unless the
/// move is counted from its runs (rt::countMoveByRuns) and every priced
/// method can do without the table.
constexpr int64_t kMaxGeneralCells = int64_t(1) << 28;

/// The most device cells a layout of an in-place remap planned without the
/// scratch region (GeneralPlanRequest::noScratch) may span. Only 003
/// 6.3.9's bounded-stack brute force then applies to most moves, and its
/// ticks are known only by running its rounds: which items wait, and so
/// which send when, depends on every element's source and destination, so
/// no count of the move prices it. Its run takes some 2 us and 50 bytes an
/// element (4 x 10^7 f32: a minute and 1.9 GB), once to price and once
/// more to simulate; past this a driver plans with the scratch region.
constexpr int64_t kMaxInPlaceBruteForceCells = int64_t(1) << 20;

/// What both general planners (MasPar and network) start with: checks that
/// each layout fits kMaxGeneralCells and the machine's `units` PEs or nodes
/// (`unitName`) and that the two hold as many elements; then the plan's
/// layouts, element size, copy flag and planner name. Returns why not, or
/// the plan without steps or bound.
std::variant<rt::GeneralPlan, std::string>
startGeneralPlan(const rt::TileMap &src, const rt::TileMap &dst,
                 unsigned elemBytes, bool copy, uint64_t units,
                 const char *unitName);

std::variant<rt::GeneralPlan, std::string>
planGeneralRemap(const GeneralPlanRequest &request);

/// `shape` as an in-place brute-force step (003 6.3.9) sends it: every
/// element that changes cell, one per PE a round, so its rounds are at
/// least the busiest PE's leaving elements and the moved cells spread
/// evenly over the machine's `pes` PEs.
rt::MoveShape inPlaceBruteForceShape(const rt::MoveShape &shape, int64_t pes);

/// A lower bound on the ticks of a brute-force step for a move of `shape`
/// (rt::analyseMove): the planner does not run brute force when this
/// reaches the best price found.
int64_t bruteForceStepBound(const GeneralPlanRequest &request,
                            const rt::MoveShape &shape);

} // namespace mapc

#endif
