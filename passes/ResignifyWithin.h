//===- ResignifyWithin.h - re-signification within device dims (003 6.3.2) ===//
//
// Two digit maps that cannot be aligned (fig. 6.2) split the data index at
// places that do not divide each other. Cut both maps at the places where
// both split the index: between two such common cuts lies a *segment*, an
// index part a = sum of its digits times their places that both maps hold
// in whole digits. In an aligned segment the two factorisations refine each
// other; in an unaligned one they do not (fig. 6.4: 31 x 32 against 32 x 31).
//
// 003 6.3.2 re-signifies within a device dim by digit permutations: when
// every digit of an unaligned segment sits in one device dim (memory or the
// PE number) as a run in the data's order, that dim's address holds the
// segment's value a times the run's place, however a is factorised, so the
// same cells read as the destination's factorisation of the segment at no
// cost. A run of digits all reversed holds n - 1 - a and re-reads as the
// destination's digits reversed; a run of mixed senses is gathered plain
// (the halves reverse its digits). Constant digits stay where the source
// has them. The plan is therefore
//
//   source -> I     an aligned digit permutation (one step or 6.2.2's)
//                   gathering each unaligned segment into one device dim,
//   I == I'         the same cells, the segments' digits re-read as the
//                   destination's (free),
//   I' -> dest      an aligned digit permutation,
//
// each half planned by the general planner (planGeneralRemap), so that the
// plan is ordinary steps that run, price and emit like any other.
//
// The search is small and bounded: at most three unaligned segments, each
// gathered into memory or into the PEs (2^3 choices at most), its run
// placed where its lowest digit in that dim was (else on top); when the
// gathered layout needs more PEs than the machine has or more slots than
// an array's region, digits of aligned segments move to the other dim
// (every subset of at most ten such digits is tried, the one whose PE
// count is nearest the source's wins, fewest moved on ties). A layout that
// still does not fit is dropped: fig. 6.4's 1024 | 1023 pair needs 1024 x
// 1023 slots in one dim, and is not offered.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_RESIGNIFYWITHIN_H
#define MAPC_PASSES_RESIGNIFYWITHIN_H

#include "passes/DigitPlanner.h"

#include <string>
#include <vector>

namespace mapc {

/// One intermediate of 003 6.3.2: `gathered` (over the source's digits)
/// and `reread` (the destination's digits in the unaligned segments) hold
/// every element in the same cell.
struct WithinDimRoute {
  rt::TileMap gathered, reread;
  std::string why;
};

/// The intermediates the search offers for `req` (none when its maps are
/// not plain digit maps over one data dim, or align).
std::vector<WithinDimRoute> withinDimRoutes(const GeneralPlanRequest &req);

/// 003 6.3.2's candidate plans for `req`, each the aligned plans to and
/// from one of withinDimRoutes(req), priced and ending in the destination
/// region.
std::vector<PricedPlan>
withinDimResignifiedPlans(const GeneralPlanRequest &req);

} // namespace mapc

#endif
