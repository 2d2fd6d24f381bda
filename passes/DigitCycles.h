//===- DigitCycles.h - a digit remap in cycle notation (003 4.2.2, 6.1) ---===//
//
// --emit=cycles for remaps between index digit maps (003 6.1.3). Both
// layouts must be digit maps (k-Tile formats without templates, offsets or
// Gray dims); their data digits are aligned by re-factorising the data index
// (003 6.1.3, fig. 6.1): the places where either splits the index are
// merged, and every digit of either is cut into the common digits it spans.
// Two maps whose splits do not divide each other cannot be aligned (fig.
// 6.2); the text then says so.
//
// The notation follows 4.2.2's for bits, with digits named with their base:
// device digit positions are m0, m1, ... (memory, least significant first)
// and p0, p1, ... (PEs, the PE dims flattened, first fastest). A cycle lists
// positions of the source, each followed by the position its digit goes to
// in the destination, and the base of the digit it holds: `(m0:5, p0:5)`
// exchanges a base-5 memory digit with a base-5 PE digit (003 6.2.1). `!`
// before a position marks a digit reversed on arrival (sense, 6.1.3). A
// chain that ends at a position holding no data digit in the source is
// written in brackets, its last position with what the source held there:
// `=v` a constant (disabled) digit, `*` a replicated one, nothing if the
// source has no digit there. A position holding no data digit in either
// map that changes is written in braces, `{m1:3=1 -> 3*}` (a constant digit
// becoming a replicated one). Digits that keep their position, base and
// sense are left out. Unlike bits, digits of different bases change the
// places of the digits above them (003 6.1.4, "No independence of digits"):
// the cycles say where each digit goes, not the data permutation.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_DIGITCYCLES_H
#define MAPC_PASSES_DIGITCYCLES_H

#include "mapc/runtime/TileMap.h"

#include <string>

namespace mapc {

struct DigitCycleText {
  /// Set when the remap has a digit form: the cycles (empty for the
  /// identity), or a parenthesised note that the maps cannot be aligned.
  bool ok = false;
  std::string text;
  /// When !ok: why a layout is not a digit map.
  std::string why;
};

/// The remap from `src` to `dst` in digit cycle notation, naming the
/// layouts `srcName` and `dstName` in notes.
DigitCycleText digitRemapText(const rt::TileMap &src, const rt::TileMap &dst,
                              const std::string &srcName,
                              const std::string &dstName);

} // namespace mapc

#endif
