//===- BitMap.h - index bit maps of radix-2 layouts (003 4.1, 5.1.1) ------===//
//
// An index bit map gives, for every device address bit, the data index bit
// it holds (possibly inverted) or, for a disabled bit, the constant value an
// address must have there to hold data (003 4.1.2-4.1.3). Device bits are
// numbered memory first: m0 .. m(M-1) are device dim 0, p0 .. p(P-1) the PE
// dims flattened (dim 1 fastest), as in the cycle notation of 4.2.2.
//
// A 2^k-Tile format converts to one by splitting every k-Tile dim into bits
// (003 5.1.1): a dim's sense inverts its bits; an empty dim's bits are
// disabled with the value of its constant offset.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_BITMAP_H
#define MAPC_IR_BITMAP_H

#include "ir/Program.h"

#include <string>
#include <variant>
#include <vector>

namespace mapc {

struct DeviceBit {
  bool enabled = true;
  unsigned dataBit = 0; ///< enabled: the data index bit held here
  bool value = false;   ///< enabled: inverted; disabled: the constant value
  /// Enabled: further data bits XORed into this one (a Gray-coded k-Tile
  /// dim holds b_j xor b_(j+1), 001 lemma 1). Zero in a bit permutation.
  uint64_t alsoXor = 0;
};

struct IndexBitMap {
  unsigned memoryBits = 0;
  unsigned peBits = 0;
  unsigned dataBits = 0;
  std::vector<DeviceBit> bits; ///< m0 .. then p0 ..

  /// "m3" or "p0" for device bit i.
  std::string bitName(unsigned i) const;
  /// No device bit XORs several data bits.
  bool isPermutation() const;
};

/// The index bit map of a layout, or why it has none (not radix 2, Gray
/// encoded, replicated, templates or offsets that are not XOR constants).
std::variant<IndexBitMap, std::string> toIndexBitMap(const Layout &layout);

/// The same, with Gray-coded k-Tile dims (and `bits` items such as a3^a2)
/// allowed: device bits may XOR several data bits, a GF(2)-affine map.
std::variant<IndexBitMap, std::string> toAffineBitMap(const Layout &layout);

/// The index bit maps of a data-moving statement's source and destination
/// layouts (toAffineBitMap: Gray codes and XORs allowed), or why one of them
/// has none (naming the layout).
struct StatementBitMaps {
  IndexBitMap src, dst;
};
std::variant<StatementBitMaps, std::string>
statementBitMaps(const Program &program, const Statement &statement);

} // namespace mapc

#endif
