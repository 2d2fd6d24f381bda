//===- FastDivide.h - dividing many 32-bit numbers by one divisor ---------===//
//
// Walks of a table of sources split each source cell into its PE and slot,
// a division by the slots per PE; a 64-bit divide instruction costs tens
// of cycles. Lemire, Kaser and Kurz ("Faster remainder by direct
// computation", 2019, theorem 1 with N = 32, F = 64): for a divisor
// 2 <= d < 2^32 and c = ceil(2^64 / d), floor(c a / 2^64) = floor(a / d) for
// every a < 2^32, since 64 >= 32 + log2(d). A multiplication and a shift.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_FASTDIVIDE_H
#define MAPC_RUNTIME_FASTDIVIDE_H

#include <cassert>
#include <cstdint>

namespace mapc::rt {

class Divider32 {
public:
  explicit Divider32(uint64_t divisor)
      : d(uint32_t(divisor)),
        // ceil(2^64 / d) = floor((2^64 - 1) / d) + 1 for d >= 2; d = 1 is
        // handled apart (c would be 2^64).
        c(divisor > 1 ? ~uint64_t(0) / divisor + 1 : 0) {
    assert(divisor >= 1 && divisor <= UINT32_MAX && "a 32-bit divisor");
  }
  uint32_t quotient(uint32_t a) const {
    return c == 0 ? a : uint32_t((unsigned __int128)c * a >> 64);
  }
  uint32_t remainder(uint32_t a) const { return a - quotient(a) * d; }

private:
  uint32_t d;
  uint64_t c;
};

} // namespace mapc::rt

#endif // MAPC_RUNTIME_FASTDIVIDE_H
