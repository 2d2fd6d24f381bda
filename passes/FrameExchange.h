//===- FrameExchange.h - a digit exchange read off its frames' digits -----===//
//
// rt::findDigitExchange (DigitExchange.h) reads a P/M digit exchange (003
// 6.2.1, function 6.1; 6.2.2's step (iii)) off a table of the move's
// sources: the exchanged digits' weights from PE 0's elements, every PE's
// digits, the chunk, each high part's place on arrival, and then a check
// of every cell. Between two digit frames over one factorisation, every
// cell held (FramePrice.h), each digit keeps its value and only changes
// place, so the same answer follows from the digits (003 6.2: a cell's
// slot and PE are sums of one weight per digit, FrameMove.h):
//
// - the memory digits of `from` bound for the PEs are the exchanged memory
//   digit: they must be neighbours in `from`'s memory (b, their product,
//   is the base, the weight of the lowest the slot weight);
// - the PE digits bound for memory are the exchanged PE digit on arrival:
//   neighbours in `to`'s memory (the weight of the lowest is the digit's
//   weight there), of product b (equal numbers of slots make it so);
// - the chunk: the memory digits at the bottom of both frames, in the same
//   order (their product). The finder takes the largest divisor of both
//   exchanged weights whose chunks every element keeps whole; a larger
//   one would split at the first digit that lands elsewhere;
// - each high part (the other memory digits of `from`, in its order)
//   lands at the sum of their weights in `to`;
// - every PE's digit x, the digit y it receives and where it sends each y
//   follow from the PE digits' weights (rt::setDigitExchangePeSide says
//   whether that is function 6.1's own side).
//
// Anything else the finder refuses. Other layouts (templates, offsets,
// constant or replicated digits, several data dims) are still read off
// the table: a digit exchange between them is no digit permutation, and
// nothing here says where their elements go.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_FRAMEEXCHANGE_H
#define MAPC_PASSES_FRAMEEXCHANGE_H

#include "mapc/runtime/DigitExchange.h"

#include <optional>

namespace mapc {

/// What rt::findDigitExchange finds in the move from `from` to `to` (two
/// digit frames over one factorisation, every cell held:
/// heldFramesOverOneFactorisation), read off their digits: the same shape,
/// or none when it finds none.
std::optional<rt::DigitExchangeShape>
frameDigitExchange(const rt::TileMap &from, const rt::TileMap &to);

} // namespace mapc

#endif // MAPC_PASSES_FRAMEEXCHANGE_H
