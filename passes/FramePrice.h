//===- FramePrice.h - steps between digit frames priced from their digits -===//
//
// 003 6.2.2's candidates (DigitPlanner.cpp) and the one-step candidates of
// a digit permutation price memory and processor permutations between
// digit frames: layouts with one memory and one PE device dim, each as long
// as the product of its digits, every cell holding one element. Such a
// move is a digit permutation (003 6.2): an element's source and
// destination cells are sums of one weight per digit (FrameMove.h), so
// what the pricing machine charges a local or a slotwise step
// (runtime/lib/GeneralExecute.cpp, moveLocal and runSlotwise in pricing
// mode) follows from the digits and the slots, without a table of sources
// of every cell:
//
// - local (003 6.2.1, permute_m): every PE moves the same slots, so one
//   direct load and store per slot that moves (in place, walked along the
//   permutation's cycles), or per slot (out of place);
// - slotwise (permute_p): source slot s goes to one slot t(s), and its
//   elements go from PE p to PE base(p) + k(s), where k(s) is what the
//   memory digits bound for the PEs add to the PE number: two slots send
//   between the same PE pairs iff their k agree (PE 0 sends to base(0) +
//   k), so 5.6.3's chunks, the sends and their router prices follow from
//   t and k, each router price taken once per k and width;
// - a digit exchange (003 6.2.1, function 6.1) is read off the digits
//   (FrameExchange.h: the shape rt::findDigitExchange would find on the
//   table) and priced by running it on the pricing machine, which prices
//   each round once per width without touching the elements.
//
// Each price equals rt::predictGeneralStep's on the same step, to the
// tick (FramePriceTest, FrameExchangeTest); exchange steps (rounds
// coloured from the move's pair counts) still need the table.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_FRAMEPRICE_H
#define MAPC_PASSES_FRAMEPRICE_H

#include "mapc/runtime/General.h"

#include <cstdint>
#include <optional>

namespace mapc {

/// Whether `t` is a digit map whose device is [memory, PEs] with plain
/// dims, each as long as the product of its digits.
bool isDigitFrame(const rt::TileMap &t);

/// Whether every cell of `t` (a digit frame) holds one element: no
/// constant or replicated digits, no data templates or offsets.
bool everyCellHeld(const rt::TileMap &t);

/// Whether `a` and `b` are digit frames over the same digits (the same
/// k-Tile dims, only placed differently), every cell held in both: the
/// moves FrameMove.h and this file read off their digits.
bool heldFramesOverOneFactorisation(const rt::TileMap &a, const rt::TileMap &b);
/// The same with digits of either sense: a digit reversed on one side only
/// is a permutation of its values (003 6.1), which frameStepTicks reads off
/// the digits too.
bool heldFramesOverOneFactorisationEitherSense(const rt::TileMap &a,
                                               const rt::TileMap &b);

/// The ticks rt::predictGeneralStep gives a step of `kind` from `from` to
/// `to` (heldFramesOverOneFactorisationEitherSense) on a machine of `shape`, -1
/// if the step fails; none when the digits do not decide it (exchange steps).
std::optional<int64_t> frameStepTicks(rt::GeneralStepKind kind, bool inPlace,
                                      const rt::TileMap &from,
                                      const rt::TileMap &to, unsigned elemBytes,
                                      const rt::MachineShape &shape,
                                      const rt::CostModel &cost);

} // namespace mapc

#endif // MAPC_PASSES_FRAMEPRICE_H
