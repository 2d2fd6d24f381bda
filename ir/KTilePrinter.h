//===- KTilePrinter.h - k-Tile formats and digit maps as .map text --------===//
#ifndef MAPC_IR_KTILEPRINTER_H
#define MAPC_IR_KTILEPRINTER_H

#include "ir/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace mapc {

/// Prints `layout NAME of ARRAY = ktile { ... };` with the thesis's field
/// syntax; fields at their defaults are left out. The text parses back to
/// the same format.
void printKTileLayout(const std::string &name, const std::string &array,
                      const KTile &tile, llvm::raw_ostream &os);

/// A digit map in its own syntax, `bits [p: ... | m: ...]` or `digits [...]`.
std::string digitMapText(const DigitMap &map);

/// Prints a digit map in its own syntax (`bits [...]` or `digits [...]`).
void printDigitMapLayout(const std::string &name, const std::string &array,
                         const DigitMap &map, llvm::raw_ostream &os);

} // namespace mapc

#endif
