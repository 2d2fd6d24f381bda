//===- DigitExchange.h - the P/M digit exchange (003 6.2.1, function 6.1) ===//
//
// A step that exchanges one PE digit with one memory digit of the same base
// b (or two compound digits of the same size), every other digit kept: the
// element at PE digit x and slot digit y goes to PE digit y and slot digit
// x. Function 6.1 (exchange_dig, fig. 6.3) does it in b - 1 rounds: in
// round k every PE sends to the PE whose digit is x + k (mod b) the element
// at its slot digit x + k, and stores what arrives from digit x - k at its
// slot digit x - k. Every PE computes its offsets from its own digit (no
// schedule table), and rounds k and b - k pair up so that the step runs in
// place. The identity memory digits below the exchanged one keep their
// order, so their elements travel together in router sends of up to 64
// bits (003 5.6.3), as the slotwise method's chunks do.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_DIGITEXCHANGE_H
#define MAPC_RUNTIME_DIGITEXCHANGE_H

#include "mapc/runtime/General.h"

namespace mapc::rt {

/// The exchanged digits: base, and their places in the PE number and the
/// slot number (the product of the digits below each).
struct DigitExchangeShape {
  int64_t base = 0, peWeight = 0, slotWeight = 0;
  int64_t pes = 0, slots = 0; ///< of both layouts
};

/// Whether the move `sources` (sourcesOf(from, to)) is one P/M digit
/// exchange; fills `shape` if so. Reads the digits off the elements of PE 0
/// and then checks every held cell of `to`, so a yes is exact.
bool findDigitExchange(const TileMap &from, const TileMap &to,
                       const std::vector<uint32_t> &sources,
                       DigitExchangeShape &shape, std::string *why);

/// Where a digit exchange step reads and writes, and in what widths.
struct DigitExchangeRegions {
  uint64_t readBase = 0, writeBase = 0;
  unsigned elemBytes = 1;
  bool inPlace = false;
};

/// Runs the exchange on `m` (function 6.1, chunked).
void runDigitExchange(MasPar &m, const DigitExchangeShape &shape,
                      const DigitExchangeRegions &where);

} // namespace mapc::rt

#endif
