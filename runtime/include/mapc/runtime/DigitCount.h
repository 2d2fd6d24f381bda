//===- DigitCount.h - the values a digit permutation keeps, counted -------===//
//
// A digit permutation (003 6.2) gives each digit of a mixed-radix number
// another place: the value with digits v_l sits at sum v_l from_l before
// and at sum v_l to_l after (from_l, to_l: the products of the digits
// below l on either side). An in-place memory permutation (003 6.2.1,
// permute_m) moves the slots that do not stay put, and a digit exchange
// walks the cycles of the high parts that do not, so pricing them needs
// the number of values with
//
//   sum_l v_l (to_l - from_l) = 0,   0 <= v_l < base_l,
//
// which is counted over the digits rather than the values: digit by
// digit, the largest difference first, keeping each partial sum that the
// digits left can still bring back to 0 (within the sum of their
// (base - 1) |to - from|) with the number of ways to reach it. Mixed-radix
// differences shrink fast, so few partial sums survive: a digit whose
// difference exceeds twice what the rest can add leaves at most one value
// per sum, and a digit that keeps its place multiplies the count.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_DIGITCOUNT_H
#define MAPC_RUNTIME_DIGITCOUNT_H

#include <cstdint>
#include <optional>
#include <vector>

namespace mapc::rt {

/// A digit of a digit permutation: its base and its weights before and
/// after.
struct DigitPlace {
  int64_t base = 1, from = 0, to = 0;
};

/// How many values of `digits` (each 0 .. base - 1) have the same sum of
/// value x weight before and after: the values a digit permutation keeps
/// in place. None when more than `maxSums` partial sums would be kept at
/// once (the caller then walks the values).
std::optional<int64_t> valuesKeptInPlace(const std::vector<DigitPlace> &digits,
                                         size_t maxSums = size_t(1) << 16);

} // namespace mapc::rt

#endif // MAPC_RUNTIME_DIGITCOUNT_H
