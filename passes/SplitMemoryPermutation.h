//===- SplitMemoryPermutation.h - (m*) permutations in parts (003 4.4.5) --===//
//
// Function 4.2 walks the data cycles of an (m*) permutation through a
// linked list that lives one node per PE, so a permutation of k m-bits
// needs 2^k <= PE count. Larger ones are performed as several smaller
// permutations, one after another (003 4.4.5): whole bit cycles are packed
// into parts, and a bit cycle longer than the limit is split like
// (m0, ..., m13) = (m0, ..., m9) then (m0, m10, ..., m13), starting the
// cycle where the parts keep the most low m-bits in place (for chunking).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_SPLITMEMORYPERMUTATION_H
#define MAPC_PASSES_SPLITMEMORYPERMUTATION_H

#include "mapc/runtime/BitLayout.h"

#include <vector>

namespace mapc {

/// The bits a move changes: those that go elsewhere or are inverted.
unsigned movingBitCount(const rt::BitMove &move);

/// The move's cycles that lie wholly in the low `mBits` bits (its (m*)
/// part, inversions included); every other bit is left in place.
rt::BitMove memoryCyclesOf(const rt::BitMove &move, unsigned mBits);

/// Moves that, applied in order, equal `star` (a move of memory bits
/// only), each changing at most `limit` bits (limit >= 2). Empty when
/// `star` is the identity; `star` itself when it is small enough.
std::vector<rt::BitMove> splitMemoryPermutation(const rt::BitMove &star,
                                                unsigned limit);

} // namespace mapc

#endif
