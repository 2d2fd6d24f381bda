//===- RemapCycles.h - radix-2 remaps in cycle notation (003 4.2) ---------===//
#ifndef MAPC_PASSES_REMAPCYCLES_H
#define MAPC_PASSES_REMAPCYCLES_H

#include "ir/BitMap.h"

#include <string>
#include <variant>
#include <vector>

namespace mapc {

/// One element of a cycle: a device bit and what happens to it.
struct CycleBit {
  unsigned bit;               ///< device bit index (m0.. then p0..)
  bool invertedAfter = false; ///< `!`: inverted after the move
  bool disabledInSource = false;
  bool sourceValue = false; ///< the source's value when disabled (. or ~)
};

/// A cycle lists each bit followed by its destination; the last moves to
/// the first. A chain (003 4.2.2) starts at the bit disabled in the
/// destination and ends at the bit disabled in the source.
using Cycle = std::vector<CycleBit>;

/// The radix-2 remapping from `src` to `dst` (003 4.2.1: P' = P_d^-1 P_s
/// with inversions s'), with at most one disabled bit in each cycle. Pure
/// identity cycles are left out. Fails when the maps do not fit together.
std::variant<std::vector<Cycle>, std::string>
remapCycles(const IndexBitMap &src, const IndexBitMap &dst);

/// The notation of 4.2.2: `(m0, !p0, m1~)(!p1)`.
std::string formatCycles(const IndexBitMap &map,
                         const std::vector<Cycle> &cycles);

} // namespace mapc

#endif
