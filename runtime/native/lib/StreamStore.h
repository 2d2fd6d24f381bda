//===- StreamStore.h - non-temporal copies of whole destination runs ------===//
//
// A kernel that writes a destination larger than the caches would make
// every written line first be read (write-allocate). Non-temporal stores of
// whole 64-byte lines skip that read and keep the output from evicting the
// tile buffers. SSE2 (every x86-64) has them; elsewhere this is memcpy.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_STREAMSTORE_H
#define MAPC_NATIVE_STREAMSTORE_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mapc::native {

/// Copies `bytes` (a multiple of 64) from the 64-byte aligned `from` to the
/// 16-byte aligned `to`, around the caches.
inline void streamOut(uint8_t *to, const uint8_t *from, size_t bytes) {
#if defined(__SSE2__)
  for (size_t b = 0; b < bytes; b += 16)
    _mm_stream_si128(
        reinterpret_cast<__m128i *>(to + b),
        _mm_load_si128(reinterpret_cast<const __m128i *>(from + b)));
#else
  std::memcpy(to, from, bytes);
#endif
}

/// Orders streamed stores before whatever the thread does next.
inline void streamFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

} // namespace mapc::native

#endif
