//===- Transpose.cpp - in-register transposes of 4- and 8-byte cells ------===//
#include "Transpose.h"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MAPC_NATIVE_X86 1
// GCC 12's AVX-512 intrinsics start some results from a deliberately
// undefined register (_mm512_undefined_epi32), which -Wmaybe-uninitialized
// reports at every inlined use; the values are always fully written.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

using namespace mapc::native;

namespace {

#ifdef MAPC_NATIVE_X86
/// True when every out[c0 .. c0 + n) is aligned to `align` bytes.
bool aligned(uint8_t *const *out, size_t c0, size_t n, uintptr_t align) {
  for (size_t j = 0; j < n; ++j)
    if (uintptr_t(out[c0 + j]) & (align - 1))
      return false;
  return true;
}

// The shuffles follow one pattern: pairs of rows interleaved cell by cell,
// then pairs of pairs, so that each 128-bit lane holds a small transposed
// block; whole lanes are then moved across registers.

/// 16 x 16 blocks of 4-byte cells, AVX-512.
__attribute__((target("avx512f"))) void
transpose4Avx512(const uint8_t *const *in, uint8_t *const *out, size_t rows,
                 size_t cols, bool stream) {
  for (size_t c0 = 0; c0 < cols; c0 += 16) {
    const bool nt = stream && aligned(out, c0, 16, 64);
    for (size_t r0 = 0; r0 < rows; r0 += 16) {
      __m512i r[16], a[16], b[16], col[16];
      for (int i = 0; i < 16; ++i)
        r[i] = _mm512_loadu_si512(in[r0 + i] + c0 * 4);
      for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
      }
      // b[4j + c], lane L: column 4L + c of rows 4j .. 4j + 3.
      for (int j = 0; j < 4; ++j) {
        b[4 * j] = _mm512_unpacklo_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 1] = _mm512_unpackhi_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 2] = _mm512_unpacklo_epi64(a[4 * j + 1], a[4 * j + 3]);
        b[4 * j + 3] = _mm512_unpackhi_epi64(a[4 * j + 1], a[4 * j + 3]);
      }
      for (int c = 0; c < 4; ++c) {
        __m512i e = _mm512_shuffle_i32x4(b[c], b[4 + c], 0x88);
        __m512i o = _mm512_shuffle_i32x4(b[c], b[4 + c], 0xdd);
        __m512i f = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0x88);
        __m512i p = _mm512_shuffle_i32x4(b[8 + c], b[12 + c], 0xdd);
        col[c] = _mm512_shuffle_i32x4(e, f, 0x88);
        col[8 + c] = _mm512_shuffle_i32x4(e, f, 0xdd);
        col[4 + c] = _mm512_shuffle_i32x4(o, p, 0x88);
        col[12 + c] = _mm512_shuffle_i32x4(o, p, 0xdd);
      }
      for (int j = 0; j < 16; ++j) {
        auto *to = reinterpret_cast<__m512i *>(out[c0 + j] + r0 * 4);
        if (nt)
          _mm512_stream_si512(to, col[j]);
        else
          _mm512_storeu_si512(to, col[j]);
      }
    }
  }
}

/// 8 x 8 blocks of 4-byte cells, AVX2.
__attribute__((target("avx2"))) void transpose4Avx2(const uint8_t *const *in,
                                                    uint8_t *const *out,
                                                    size_t rows, size_t cols,
                                                    bool stream) {
  for (size_t c0 = 0; c0 < cols; c0 += 8) {
    const bool nt = stream && aligned(out, c0, 8, 32);
    for (size_t r0 = 0; r0 < rows; r0 += 8) {
      __m256i r[8], a[8], b[8];
      for (int i = 0; i < 8; ++i)
        r[i] = _mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(in[r0 + i] + c0 * 4));
      for (int i = 0; i < 4; ++i) {
        a[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
      }
      for (int j = 0; j < 2; ++j) {
        b[4 * j] = _mm256_unpacklo_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 1] = _mm256_unpackhi_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 2] = _mm256_unpacklo_epi64(a[4 * j + 1], a[4 * j + 3]);
        b[4 * j + 3] = _mm256_unpackhi_epi64(a[4 * j + 1], a[4 * j + 3]);
      }
      for (int c = 0; c < 4; ++c) {
        __m256i lo = _mm256_permute2x128_si256(b[c], b[4 + c], 0x20);
        __m256i hi = _mm256_permute2x128_si256(b[c], b[4 + c], 0x31);
        auto *toLo = reinterpret_cast<__m256i *>(out[c0 + c] + r0 * 4);
        auto *toHi = reinterpret_cast<__m256i *>(out[c0 + 4 + c] + r0 * 4);
        if (nt) {
          _mm256_stream_si256(toLo, lo);
          _mm256_stream_si256(toHi, hi);
        } else {
          _mm256_storeu_si256(toLo, lo);
          _mm256_storeu_si256(toHi, hi);
        }
      }
    }
  }
}

/// 8 x 8 blocks of 8-byte cells, AVX-512.
__attribute__((target("avx512f"))) void
transpose8Avx512(const uint8_t *const *in, uint8_t *const *out, size_t rows,
                 size_t cols, bool stream) {
  for (size_t c0 = 0; c0 < cols; c0 += 8) {
    const bool nt = stream && aligned(out, c0, 8, 64);
    for (size_t r0 = 0; r0 < rows; r0 += 8) {
      __m512i r[8], a[8], col[8];
      for (int i = 0; i < 8; ++i)
        r[i] = _mm512_loadu_si512(in[r0 + i] + c0 * 8);
      // a[2i + c], lane L: column 2L + c of rows 2i, 2i + 1.
      for (int i = 0; i < 4; ++i) {
        a[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
      }
      for (int c = 0; c < 2; ++c) {
        __m512i e = _mm512_shuffle_i64x2(a[c], a[2 + c], 0x88);
        __m512i o = _mm512_shuffle_i64x2(a[c], a[2 + c], 0xdd);
        __m512i f = _mm512_shuffle_i64x2(a[4 + c], a[6 + c], 0x88);
        __m512i p = _mm512_shuffle_i64x2(a[4 + c], a[6 + c], 0xdd);
        col[c] = _mm512_shuffle_i64x2(e, f, 0x88);
        col[4 + c] = _mm512_shuffle_i64x2(e, f, 0xdd);
        col[2 + c] = _mm512_shuffle_i64x2(o, p, 0x88);
        col[6 + c] = _mm512_shuffle_i64x2(o, p, 0xdd);
      }
      for (int j = 0; j < 8; ++j) {
        auto *to = reinterpret_cast<__m512i *>(out[c0 + j] + r0 * 8);
        if (nt)
          _mm512_stream_si512(to, col[j]);
        else
          _mm512_storeu_si512(to, col[j]);
      }
    }
  }
}

/// 4 x 4 blocks of 8-byte cells, AVX2.
__attribute__((target("avx2"))) void transpose8Avx2(const uint8_t *const *in,
                                                    uint8_t *const *out,
                                                    size_t rows, size_t cols,
                                                    bool stream) {
  for (size_t c0 = 0; c0 < cols; c0 += 4) {
    const bool nt = stream && aligned(out, c0, 4, 32);
    for (size_t r0 = 0; r0 < rows; r0 += 4) {
      __m256i r[4];
      for (int i = 0; i < 4; ++i)
        r[i] = _mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(in[r0 + i] + c0 * 8));
      __m256i a0 = _mm256_unpacklo_epi64(r[0], r[1]);
      __m256i a1 = _mm256_unpackhi_epi64(r[0], r[1]);
      __m256i a2 = _mm256_unpacklo_epi64(r[2], r[3]);
      __m256i a3 = _mm256_unpackhi_epi64(r[2], r[3]);
      __m256i col[4] = {_mm256_permute2x128_si256(a0, a2, 0x20),
                        _mm256_permute2x128_si256(a1, a3, 0x20),
                        _mm256_permute2x128_si256(a0, a2, 0x31),
                        _mm256_permute2x128_si256(a1, a3, 0x31)};
      for (int j = 0; j < 4; ++j) {
        auto *to = reinterpret_cast<__m256i *>(out[c0 + j] + r0 * 8);
        if (nt)
          _mm256_stream_si256(to, col[j]);
        else
          _mm256_storeu_si256(to, col[j]);
      }
    }
  }
}

enum class Isa { None, Avx2, Avx512 };

/// The host's best.
Isa hostIsa() {
  static const Isa isa = __builtin_cpu_supports("avx512f") ? Isa::Avx512
                         : __builtin_cpu_supports("avx2")  ? Isa::Avx2
                                                           : Isa::None;
  return isa;
}

/// The host's best, capped by MAPC_NATIVE_TRANSPOSE (avx2, off), read when
/// a kernel is planned, so that a benchmark can plan both ways.
Isa cappedIsa() {
  Isa best = hostIsa();
  const char *cap = std::getenv("MAPC_NATIVE_TRANSPOSE");
  if (cap && std::string(cap) == "off")
    return Isa::None;
  if (cap && std::string(cap) == "avx2" && best == Isa::Avx512)
    return Isa::Avx2;
  return best;
}
#endif

} // namespace

unsigned mapc::native::transposeSide(size_t cellBytes) {
#ifdef MAPC_NATIVE_X86
  Isa isa = cappedIsa();
  if (cellBytes == 4)
    return isa == Isa::Avx512 ? 16 : isa == Isa::Avx2 ? 8 : 0;
  if (cellBytes == 8)
    return isa == Isa::Avx512 ? 8 : isa == Isa::Avx2 ? 4 : 0;
#endif
  (void)cellBytes;
  return 0;
}

bool mapc::native::hostHasAvx2Transpose() {
#ifdef MAPC_NATIVE_X86
  return hostIsa() != Isa::None;
#else
  return false;
#endif
}

void mapc::native::transposeCells(size_t cellBytes, unsigned side,
                                  const uint8_t *const *in, uint8_t *const *out,
                                  size_t rows, size_t cols, bool stream) {
#ifdef MAPC_NATIVE_X86
  if (cellBytes == 4 && side == 16)
    return transpose4Avx512(in, out, rows, cols, stream);
  if (cellBytes == 4 && side == 8)
    return transpose4Avx2(in, out, rows, cols, stream);
  if (cellBytes == 8 && side == 8)
    return transpose8Avx512(in, out, rows, cols, stream);
  if (cellBytes == 8 && side == 4)
    return transpose8Avx2(in, out, rows, cols, stream);
#endif
  // No vector transpose: cell by cell (callers check transposeSide first).
  (void)side;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      std::memcpy(out[c] + r * cellBytes, in[r] + c * cellBytes, cellBytes);
}
