//===- Reshape.h - changing an array's shape, keeping its bits (001) ------===//
//
// `reshape A to (V...)` gives A a new logical shape while every linear data
// index bit (i0 + a0*(i1 + ...), dim 0 fastest) stays on the device bit it
// had. For binary k-Tile dims that changes nothing on the device. A Gray
// coded axis is Gray coded per axis, so splitting one axis into two, or
// merging two into one, changes the code in exactly one device bit, the
// most significant bit of the lower axis (001 lemma 2 and section 3).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_RESHAPE_H
#define MAPC_IR_RESHAPE_H

#include "ir/DigitMap.h"
#include "ir/KTile.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <variant>

namespace mapc {

/// The k-Tile format of a radix-2 layout after a reshape to `newShape`:
/// every k-Tile dim is cut at the new axes' bit boundaries (a cut Gray dim
/// becomes two Gray dims, 001 lemma 2), and two Gray pieces of one new axis
/// that an old axis boundary separated merge back into one Gray dim when
/// they are neighbours in one device dim (001 section 3). Empty dims carry
/// over. Fails, saying why and what to change, for layouts that are not
/// radix 2 (lengths, templates, offsets, replication) or when the element
/// counts differ.
std::variant<KTile, std::string> reshapeTile(const KTile &old,
                                             llvm::ArrayRef<int64_t> newShape);

/// A digit map already indexes the linear data index, so a reshape only
/// changes its shape (any bases). Fails when the element counts differ.
std::variant<DigitMap, std::string>
reshapeDigits(const DigitMap &old, llvm::ArrayRef<int64_t> newShape);

} // namespace mapc

#endif
