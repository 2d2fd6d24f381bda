//===- FrameMove.h - a digit permutation read off its digits --------------===//
//
// 003 6.2.2's candidates (DigitPlanner.cpp) price a dozen moves between
// digit frames (one memory and one PE device dim, each as long as the
// product of its digits) over the same data digits, every cell held. Such
// a move is a digit permutation (003 6.2): each digit keeps its value and
// changes place, so a source cell's slot and PE are sums of one weight per
// digit, and what the planner asks of the move follows from the weights:
//
// - no element changes PE iff every digit has the same PE weight on both
//   sides (the PE numbers are linear in the digit values, each free to be
//   0 or 1; likewise slots for "every element keeps its slot");
// - each source slot feeds one destination slot iff every memory digit of
//   the destination is a memory digit of the source (its value is then
//   read off the source slot; else two cells of one source slot differing
//   only in that digit land in different slots); and the other way round;
// - the elements PE p sends away: those whose destination PE is not p. The
//   destination PE depends on p's digits and the source memory digits that
//   go to the PEs, not on those that stay in memory, so each value of the
//   former stands for the product of the latter's bases.
//
// The table of sources is walked as an odometer of the destination's digits
// (no division per cell).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_FRAMEMOVE_H
#define MAPC_PASSES_FRAMEMOVE_H

#include "mapc/runtime/CostModel.h"
#include "mapc/runtime/General.h"

#include <cstdint>
#include <vector>

namespace mapc {

/// rt::sourcesOf(from, to) for two digit frames (device [memory, PEs],
/// plain dims as long as their digits' product) over the same k-Tile dims,
/// in which every cell holds one element.
std::vector<uint32_t> frameSources(const rt::TileMap &from,
                                   const rt::TileMap &to);
/// The same into `out`, whose memory a caller pricing many moves reuses
/// (a table of 10^6 cells costs more in fresh pages than in filling).
void frameSources(const rt::TileMap &from, const rt::TileMap &to,
                  std::vector<uint32_t> &out);

/// What 003 6.2.2's planner reads of the move's rt::MoveShape, from the
/// digits alone (frames as for frameSources): its fields as analyseMove
/// gives them; `leaving` only if `withLeaving`, else empty.
struct FrameShape {
  bool local = true, keepsSlots = true;
  bool slotUniformFrom = true, slotUniformTo = true;
  std::vector<int64_t> leaving;
};
FrameShape frameShape(const rt::TileMap &from, const rt::TileMap &to,
                      bool withLeaving);

/// The ticks rt::predictGeneralStep charges a local step (a memory
/// permutation, GeneralExecute.cpp's moveLocal) from `from` to `to` (frames
/// as for frameSources), from the digits, without a table: a digit
/// permutation that keeps every PE moves the same slots in every PE, so out
/// of place every slot is one direct load and store; in place the slots the
/// permutation does not fix are (runLocalInPlace walks its cycles). -1 when
/// an element changes PE, as predictGeneralStep.
int64_t frameLocalTicks(const rt::TileMap &from, const rt::TileMap &to,
                        bool inPlace, unsigned elemBytes,
                        const rt::MachineShape &shape,
                        const rt::CostModel &cost);
/// The same for a slotwise step (permute_p per slot, runSlotwise): source
/// slot s goes to one slot t(s), and its PE pairs depend only on the source
/// memory digits the destination puts on the PEs (their contribution to
/// the destination PE, the same for every sender), so the sends are priced
/// once per such value and width, and the chunks of neighbouring slots are
/// found from t(s) and that value slot by slot, not cell by cell. -1 when a
/// source slot feeds two slots, or in place when a slot moves.
int64_t frameSlotwiseTicks(const rt::TileMap &from, const rt::TileMap &to,
                           bool inPlace, unsigned elemBytes,
                           const rt::MachineShape &shape,
                           const rt::CostModel &cost);

} // namespace mapc

#endif // MAPC_PASSES_FRAMEMOVE_H
