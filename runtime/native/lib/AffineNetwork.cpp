//===- AffineNetwork.cpp - GF(2)-affine tiles moved inside registers ------===//
#include "AffineNetwork.h"

#include "Transpose.h"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MAPC_NATIVE_X86 1
// GCC 12's AVX-512 intrinsics start some results from a deliberately
// undefined register, which -Wmaybe-uninitialized (and, for the 64-bit
// permutes, -Wuninitialized) reports (Transpose.cpp).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

using namespace mapc::native;

namespace {

/// An n x n matrix over GF(2) (n <= 4) by its columns.
struct Small {
  unsigned n = 0;
  uint32_t col[4] = {};

  uint32_t apply(uint32_t v) const {
    uint32_t out = 0;
    for (unsigned c = 0; c < n; ++c)
      if ((v >> c) & 1)
        out ^= col[c];
    return out;
  }
  /// The inverse, or false when singular (by tabulating all 2^n images).
  bool invert(Small &inv) const {
    uint32_t pre[16];
    bool seen[16] = {};
    for (uint32_t v = 0; v < (1u << n); ++v) {
      uint32_t w = apply(v);
      if (w >= (1u << n) || seen[w])
        return false;
      seen[w] = true;
      pre[w] = v;
    }
    inv.n = n;
    for (unsigned c = 0; c < n; ++c)
      inv.col[c] = pre[1u << c];
    return true;
  }
};

uint32_t applyCols(const uint32_t *cols, unsigned count, uint32_t v) {
  uint32_t out = 0;
  for (unsigned q = 0; q < count; ++q)
    if ((v >> q) & 1)
      out ^= cols[q];
  return out;
}

} // namespace

void TileNetwork::setPre(unsigned r, unsigned l, uint32_t v) {
  if (bits == 4)
    pre32[r][l] = v;
  else
    pre64[r][l] = v;
}

void TileNetwork::setPost(unsigned r, unsigned l, uint32_t v) {
  if (bits == 4)
    post32[r][l] = v;
  else
    post64[r][l] = v;
}

unsigned TileNetwork::stages() const {
  unsigned k = 0;
  for (unsigned s = 0; s < bits; ++s)
    k += mask[s] != 0;
  return k;
}

std::unique_ptr<TileNetwork>
mapc::native::planTileNetwork(unsigned bits, const uint32_t *cols) {
  if (bits != 3 && bits != 4)
    return nullptr;
  const unsigned n = bits;
  const uint32_t lanes = 1u << n, laneMask = lanes - 1;
  // The blocks of T over (r; o): A, C read the register bits, B, D the
  // lane bits; A and B give the destination register, C and D the lane.
  Small A{n, {}}, B{n, {}}, C{n, {}}, D{n, {}};
  for (unsigned q = 0; q < n; ++q) {
    B.col[q] = cols[q] >> n;
    D.col[q] = cols[q] & laneMask;
    A.col[q] = cols[n + q] >> n;
    C.col[q] = cols[n + q] & laneMask;
  }
  for (unsigned q = 0; q < 2 * n; ++q)
    if (cols[q] >> (2 * n))
      return nullptr;
  // Q: o += F r. The rows of [A B] are independent (T is invertible), so
  // some F makes A + B F invertible; F = 0 when A already is.
  Small F{n, {}}, A2, A2inv;
  bool found = false;
  for (uint32_t f = 0; f < (1u << (n * n)) && !found; ++f) {
    for (unsigned c = 0; c < n; ++c)
      F.col[c] = (f >> (n * c)) & laneMask;
    A2.n = n;
    for (unsigned c = 0; c < n; ++c)
      A2.col[c] = A.col[c] ^ B.apply(F.col[c]);
    found = A2.invert(A2inv);
  }
  if (!found)
    return nullptr; // T is singular
  Small C2{n, {}}, G{n, {}}, S{n, {}}, Sinv;
  for (unsigned c = 0; c < n; ++c) {
    C2.col[c] = C.col[c] ^ D.apply(F.col[c]);
    G.col[c] = A2inv.apply(B.col[c]);
  }
  for (unsigned c = 0; c < n; ++c)
    S.col[c] = D.col[c] ^ C2.apply(G.col[c]);
  if (!S.invert(Sinv))
    return nullptr; // T is singular

  auto net = std::make_unique<TileNetwork>();
  net->bits = n;
  for (unsigned c = 0; c < n; ++c)
    net->hasPre |= F.col[c] != 0;
  for (uint32_t r = 0; r < lanes; ++r)
    for (uint32_t l = 0; l < lanes; ++l)
      net->setPre(r, l, l ^ F.apply(r));
  // Butterflies: r += G o, one stage per bit of r.
  for (unsigned k = 0; k < n; ++k)
    for (uint32_t o = 0; o < lanes; ++o)
      if ((G.apply(o) >> k) & 1)
        net->mask[k] |= uint16_t(1u << o);
  // The rest, [[A' 0][C' S]]: register r goes to line A' r, its lane o to
  // C' r + S o, so lane i of the result reads lane S^-1 (i + C' r).
  for (uint32_t r = 0; r < lanes; ++r) {
    net->to[r] = uint8_t(A2.apply(r));
    for (uint32_t i = 0; i < lanes; ++i)
      net->setPost(r, i, Sinv.apply(i ^ C2.apply(r)));
  }
  // A tile whose lines start at lane b holds (r, o) at (r, o xor b): T is
  // linear, so everything lands T(0, b) away, which moves whole lines
  // (regXor) and, since the post indices are linear in the lane, XORs them
  // with S^-1 of the lane part.
  for (uint32_t b = 0; b < lanes; ++b) {
    uint32_t t = applyCols(cols, 2 * n, b);
    net->regXor[b] = uint8_t(t >> n);
    net->laneXor[b] = uint8_t(Sinv.apply(t & laneMask));
  }
  return net;
}

bool mapc::native::checkTileNetwork(const TileNetwork &net,
                                    const uint32_t *cols) {
  const unsigned n = net.bits;
  if (n != 3 && n != 4)
    return false;
  const uint32_t lanes = 1u << n;
  for (unsigned k = 0; k < n; ++k)
    if (net.mask[k] >> lanes)
      return false;
  for (uint32_t b = 0; b < lanes; ++b) {
    if (net.regXor[b] >= lanes || net.laneXor[b] >= lanes)
      return false;
    // state[r][l]: the position (r, lane) the cell was loaded at.
    uint32_t state[16][16], next[16][16];
    for (uint32_t r = 0; r < lanes; ++r)
      for (uint32_t l = 0; l < lanes; ++l)
        state[r][l] = (r << n) | l;
    if (net.hasPre) {
      for (uint32_t r = 0; r < lanes; ++r)
        for (uint32_t l = 0; l < lanes; ++l) {
          uint32_t from = net.preIndex(r, l);
          if (from >= lanes)
            return false;
          next[r][l] = state[r][from];
        }
      std::memcpy(state, next, sizeof state);
    }
    for (unsigned k = 0; k < n; ++k)
      for (uint32_t r = 0; r < lanes; ++r)
        if (!((r >> k) & 1))
          for (uint32_t l = 0; l < lanes; ++l)
            if ((net.mask[k] >> l) & 1)
              std::swap(state[r][l], state[r | (1u << k)][l]);
    bool stored[16][16] = {};
    for (uint32_t r = 0; r < lanes; ++r) {
      if (net.to[r] >= lanes)
        return false;
      uint32_t line = net.to[r] ^ net.regXor[b];
      for (uint32_t i = 0; i < lanes; ++i) {
        uint32_t from = net.postIndex(r, i) ^ net.laneXor[b];
        if (from >= lanes || stored[line][i])
          return false;
        stored[line][i] = true;
        uint32_t p = state[r][from];
        uint32_t logical = p ^ b; // loaded at lane o xor b
        if (applyCols(cols, 2 * n, logical) != ((line << n) | i))
          return false;
      }
    }
  }
  return true;
}

bool mapc::native::hostRunsTileNetworks() {
#ifdef MAPC_NATIVE_X86
  const char *off = std::getenv("MAPC_NATIVE_NETWORK");
  if (off && std::string(off) == "off")
    return false;
  // transposeSide(4) is 16 only on AVX-512 hosts not capped by
  // MAPC_NATIVE_TRANSPOSE.
  return transposeSide(4) == 16;
#else
  return false;
#endif
}

namespace {

#ifdef MAPC_NATIVE_X86
/// 16 lines of 16 4-byte cells.
__attribute__((target("avx512f"))) void runNetwork4(const TileNetwork &net,
                                                    const uint8_t *const *in,
                                                    uint8_t *const *out,
                                                    unsigned b, bool stream) {
  __m512i v[16];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r)
    v[r] = _mm512_loadu_si512(in[r]);
  if (net.hasPre) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r)
      v[r] = _mm512_permutexvar_epi32(_mm512_load_si512(net.pre32[r]), v[r]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __mmask16 m = net.mask[k];
    if (!m)
      continue;
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r)
      if (!(r & (1 << k))) {
        __m512i a = v[r], c = v[r | (1 << k)];
        v[r] = _mm512_mask_blend_epi32(m, a, c);
        v[r | (1 << k)] = _mm512_mask_blend_epi32(m, c, a);
      }
  }
  const __m512i x = _mm512_set1_epi32(net.laneXor[b]);
  const unsigned rx = net.regXor[b];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) {
    __m512i idx = _mm512_xor_si512(_mm512_load_si512(net.post32[r]), x);
    __m512i w = _mm512_permutexvar_epi32(idx, v[r]);
    void *to = out[net.to[r] ^ rx];
    if (stream)
      _mm512_stream_si512(static_cast<__m512i *>(to), w);
    else
      _mm512_storeu_si512(to, w);
  }
}

/// 8 lines of 8 8-byte cells.
__attribute__((target("avx512f"))) void runNetwork8(const TileNetwork &net,
                                                    const uint8_t *const *in,
                                                    uint8_t *const *out,
                                                    unsigned b, bool stream) {
  __m512i v[8];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r)
    v[r] = _mm512_loadu_si512(in[r]);
  if (net.hasPre) {
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r)
      v[r] = _mm512_permutexvar_epi64(_mm512_load_si512(net.pre64[r]), v[r]);
  }
#pragma GCC unroll 3
  for (int k = 0; k < 3; ++k) {
    const __mmask8 m = __mmask8(net.mask[k]);
    if (!m)
      continue;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r)
      if (!(r & (1 << k))) {
        __m512i a = v[r], c = v[r | (1 << k)];
        v[r] = _mm512_mask_blend_epi64(m, a, c);
        v[r | (1 << k)] = _mm512_mask_blend_epi64(m, c, a);
      }
  }
  const __m512i x = _mm512_set1_epi64(net.laneXor[b]);
  const unsigned rx = net.regXor[b];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    __m512i idx = _mm512_xor_si512(_mm512_load_si512(net.post64[r]), x);
    __m512i w = _mm512_permutexvar_epi64(idx, v[r]);
    void *to = out[net.to[r] ^ rx];
    if (stream)
      _mm512_stream_si512(static_cast<__m512i *>(to), w);
    else
      _mm512_storeu_si512(to, w);
  }
}
#endif

/// The same moves cell by cell (hosts without AVX-512 never plan a
/// network; this keeps the function total).
void runNetworkScalar(const TileNetwork &net, const uint8_t *const *in,
                      uint8_t *const *out, unsigned b) {
  const unsigned n = net.bits, lanes = 1u << n, cell = n == 4 ? 4 : 8;
  uint8_t v[16][16][8], w[16][16][8];
  for (unsigned r = 0; r < lanes; ++r)
    std::memcpy(v[r], in[r], lanes * cell);
  if (net.hasPre) {
    for (unsigned r = 0; r < lanes; ++r)
      for (unsigned l = 0; l < lanes; ++l)
        std::memcpy(w[r][l], v[r][net.preIndex(r, l)], cell);
    std::memcpy(v, w, sizeof v);
  }
  for (unsigned k = 0; k < n; ++k)
    for (unsigned r = 0; r < lanes; ++r)
      if (!((r >> k) & 1))
        for (unsigned l = 0; l < lanes; ++l)
          if ((net.mask[k] >> l) & 1)
            std::swap(v[r][l], v[r | (1u << k)][l]);
  for (unsigned r = 0; r < lanes; ++r)
    for (unsigned i = 0; i < lanes; ++i)
      std::memcpy(out[net.to[r] ^ net.regXor[b]] + i * cell,
                  v[r][net.postIndex(r, i) ^ net.laneXor[b]], cell);
}

} // namespace

void mapc::native::runTileNetwork(const TileNetwork &net,
                                  const uint8_t *const *in, uint8_t *const *out,
                                  unsigned b, bool stream) {
#ifdef MAPC_NATIVE_X86
  if (net.bits == 4)
    return runNetwork4(net, in, out, b, stream);
  if (net.bits == 3)
    return runNetwork8(net, in, out, b, stream);
#endif
  (void)stream;
  runNetworkScalar(net, in, out, b);
}
