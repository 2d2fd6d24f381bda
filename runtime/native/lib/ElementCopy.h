//===- ElementCopy.h - element moves of a size fixed at compile time ------===//
//
// The kernels are templates over a Mover that copies one element; the
// sizes programs use (1..16 bytes, and the larger "super-elements" a kernel
// makes by fusing runs of contiguous elements) get a Mover whose size is a
// constant, so each copy compiles to a few moves; any other size copies
// through memcpy with a run-time length.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_ELEMENTCOPY_H
#define MAPC_NATIVE_ELEMENTCOPY_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mapc::native {

template <size_t B> struct FixedMover {
  static constexpr bool kFixed = true;
  size_t size() const { return B; }
  void copy(uint8_t *d, const uint8_t *s) const { std::memcpy(d, s, B); }
};

struct DynamicMover {
  static constexpr bool kFixed = false;
  size_t bytes;
  size_t size() const { return bytes; }
  void copy(uint8_t *d, const uint8_t *s) const { std::memcpy(d, s, bytes); }
};

/// Calls f(mover) with the mover for elements of `bytes` bytes.
template <class F> void withMover(size_t bytes, F &&f) {
  switch (bytes) {
  case 1:
    return f(FixedMover<1>());
  case 2:
    return f(FixedMover<2>());
  case 3:
    return f(FixedMover<3>());
  case 4:
    return f(FixedMover<4>());
  case 6:
    return f(FixedMover<6>());
  case 8:
    return f(FixedMover<8>());
  case 12:
    return f(FixedMover<12>());
  case 16:
    return f(FixedMover<16>());
  case 24:
    return f(FixedMover<24>());
  case 32:
    return f(FixedMover<32>());
  case 48:
    return f(FixedMover<48>());
  case 64:
    return f(FixedMover<64>());
  default:
    return f(DynamicMover{bytes});
  }
}

} // namespace mapc::native

#endif
