//===- AffineKernel.cpp - cache-blocked BMMC remaps -----------------------===//
#include "AffineKernel.h"

#include "AffineNetwork.h"
#include "ElementCopy.h"
#include "Parallel.h"
#include "StreamStore.h"
#include "Transpose.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <random>
#include <vector>

using namespace mapc;
using namespace mapc::native;

namespace {

uint64_t lowMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

/// Scatters the low bits of `v` to the set bits of `mask`, lowest first.
uint64_t deposit(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  for (uint64_t bit = 1; mask; mask &= mask - 1, bit <<= 1)
    if (v & bit)
      out |= mask & -mask;
  return out;
}

/// A linear map given by its columns: apply(x) = XOR of cols[j], x_j = 1.
uint64_t applyColumns(const std::vector<uint64_t> &cols, uint64_t x) {
  uint64_t out = 0;
  for (; x; x &= x - 1)
    out ^= cols[__builtin_ctzll(x)];
  return out;
}

/// A GF(2) basis kept by leading bit, each vector tagged with the
/// combination of inputs that made it (to solve M x = w).
class TaggedBasis {
public:
  void insert(uint64_t v, uint64_t tag) {
    for (int b = 63; b >= 0 && v; --b) {
      if (!((v >> b) & 1))
        continue;
      if (!vec[b]) {
        vec[b] = v;
        tags[b] = tag;
        return;
      }
      v ^= vec[b];
      tag ^= tags[b];
    }
  }
  /// A tag whose vector is w, if w is in the span.
  bool solve(uint64_t w, uint64_t &tag) const {
    tag = 0;
    for (int b = 63; b >= 0 && w; --b) {
      if (!((w >> b) & 1))
        continue;
      if (!vec[b])
        return false;
      w ^= vec[b];
      tag ^= tags[b];
    }
    return true;
  }

private:
  uint64_t vec[64] = {}, tags[64] = {};
};

#if defined(__x86_64__) && defined(__GNUC__)
#define MAPC_NATIVE_AVX2 1
/// Phase 2 of a tile for 4-byte cells on AVX2: eight buffer cells per
/// gather, written with (streaming, when `nt`) 32-byte stores.
__attribute__((target("avx2"))) void
gatherRun4(uint8_t *out, const uint8_t *buf, const uint32_t *idx, uint32_t bi,
           size_t n, bool nt) {
  const __m256i base = _mm256_set1_epi32(int(bi));
  for (size_t lo = 0; lo < n; lo += 8) {
    __m256i v = _mm256_xor_si256(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(idx + lo)), base);
    __m256i g =
        _mm256_i32gather_epi32(reinterpret_cast<const int *>(buf), v, 4);
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(out + lo * 4), g);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + lo * 4), g);
  }
}

/// The same for 8-byte cells: four per gather.
__attribute__((target("avx2"))) void
gatherRun8(uint8_t *out, const uint8_t *buf, const uint32_t *idx, uint32_t bi,
           size_t n, bool nt) {
  const __m128i base = _mm_set1_epi32(int(bi));
  for (size_t lo = 0; lo < n; lo += 4) {
    __m128i v = _mm_xor_si128(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(idx + lo)), base);
    __m256i g =
        _mm256_i32gather_epi64(reinterpret_cast<const long long *>(buf), v, 8);
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(out + lo * 8), g);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + lo * 8), g);
  }
}

bool hostHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

class AffineKernel final : public Kernel {
public:
  // The remap after fusing r low bits into super-elements of `cell` bytes:
  // cell x (k bits) of the destination is at D x xor d0 and reads the
  // source cell M x xor s0.
  unsigned k = 0, fused = 0, t = 0;
  size_t elementBytes = 0, cell = 0;
  std::vector<uint64_t> mCols, dCols;
  uint64_t s0 = 0, d0 = 0;
  uint64_t freeMask = 0; ///< x bits that number the tiles
  /// Tile i is c = XOR of the free x bits selected by i's bits, in this
  /// order: free bits that move a low address bit on either side come
  /// first, so that neighbouring tiles share pages and DRAM rows on both
  /// sides. mFree/dFree: their source and destination images.
  std::vector<uint64_t> mFree, dFree;
  // A tile is the coset c xor U. Phase 1 copies its source as 2^rowBits
  // aligned blocks of 2^s cells (rowS: their offsets) into an L1 buffer;
  // phase 2 writes its destination as runs of loD.size() cells (the low
  // destination bits), one run per hiD entry, reading the buffer at
  // bufHi xor bufLo xor (the source base's low bits).
  unsigned s = 0;
  std::vector<uint64_t> rowS, loD, hiD, bufLo, bufHi;
  std::vector<uint32_t> bufLo32; ///< bufLo for the AVX2 gathers
  bool contiguousLo = true, permutation = true;
  /// The tile order alternates source- and destination-near steps (dense M).
  bool interleaved = false;
  /// Destination runs go around the caches (the output is large).
  bool stream = false;
  /// Phase 2 is a transpose of the buffer (bufLo only picks rows, bufHi
  /// only columns): done in registers in blocks of this side, 0 if not.
  /// colH[c]: the destination run (hiD index) of buffer column c.
  unsigned tside = 0;
  std::vector<uint32_t> colH;
  /// With a transposed phase 2, there is no phase 1: the transposes load
  /// the source rows themselves. Each load takes a whole line (16 or 8
  /// cells), so lines that share an L1 set never need to stay there
  /// together, and copying them first would only add work (measured:
  /// 1.2-1.25x faster without the buffer).
  bool directRead = false;
  unsigned sourceBits = 0, destBits = 0;
  static constexpr size_t kMaxStage = 16384;
  /// Dense tiles of 2^s x 2^s cells (whole 64-byte lines on both sides)
  /// moved inside registers by a planned network (AffineNetwork.h): rowS
  /// are the source lines, hiD the destination lines, and no buffer.
  std::unique_ptr<TileNetwork> network;
  /// mCum[j], dCum[j]: the XOR of mFree[0 .. j), dFree[0 .. j).
  std::vector<uint64_t> mCum, dCum;
  /// How many tiles ahead the network tiles ask for their source lines
  /// (MAPC_NATIVE_NETWORK_AHEAD; measured on 2^26 f32 maps: 4 took 0.8x
  /// the time of 1, none 1.3x, 2-16 the same as 4).
  unsigned prefetchAhead = 4;

  void run(const uint8_t *src, uint8_t *dst,
           const ThreadBudget &threads) const override {
    if (network)
      return runNetwork(src, dst, threads);
    withMover(cell, [&](auto mover) { runWith(mover, src, dst, threads); });
  }

  /// Each tile: its 2^s source lines loaded whole, moved by the network,
  /// stored as 2^s whole destination lines (streamed when the output is
  /// large); the next tile's lines are asked for meanwhile.
  void runNetwork(const uint8_t *src, uint8_t *dst,
                  const ThreadBudget &threads) const {
    const uint64_t tiles = uint64_t(1) << __builtin_popcountll(freeMask);
    const uint64_t bytes = (uint64_t(2) * cell) << k;
    const size_t lines = rowS.size();
    const uint64_t low = (uint64_t(1) << s) - 1;
    const bool nt = stream && (uintptr_t(dst) & 63) == 0;
    const uint64_t ahead = prefetchAhead;
    parallelRanges(threads, tiles, bytes, [&](uint64_t begin, uint64_t end) {
      const uint8_t *in[16];
      uint8_t *out[16];
      // Tile i + 1's bases differ from tile i's by the free vectors of
      // i xor (i + 1), the low ctz(i + 1) + 1 of them: one table look-up.
      auto step = [](const std::vector<uint64_t> &cum, uint64_t next) {
        return cum[size_t(__builtin_ctzll(next)) + 1];
      };
      uint64_t bs = s0 ^ applyColumns(mFree, begin);
      uint64_t bd = d0 ^ applyColumns(dFree, begin);
      uint64_t pf =
          begin + ahead < end ? s0 ^ applyColumns(mFree, begin + ahead) : 0;
      for (uint64_t i = begin; i < end; ++i) {
        for (size_t r = 0; r < lines; ++r) {
          in[r] = src + ((bs ^ rowS[r]) & ~low) * cell;
          out[r] = dst + (bd ^ hiD[r]) * cell;
        }
        if (ahead && i + ahead < end) {
          for (size_t r = 0; r < lines; ++r)
            __builtin_prefetch(src + ((pf ^ rowS[r]) & ~low) * cell, 0, 1);
          if (i + ahead + 1 < end)
            pf ^= step(mCum, i + ahead + 1);
        }
        runTileNetwork(*network, in, out, unsigned(bs & low), nt);
        if (i + 1 < end) {
          bs ^= step(mCum, i + 1);
          bd ^= step(dCum, i + 1);
        }
      }
      if (nt)
        streamFence();
    });
  }

  template <class Mover>
  void runWith(Mover mv, const uint8_t *src, uint8_t *dst,
               const ThreadBudget &threads) const {
    uint64_t tiles = uint64_t(1) << __builtin_popcountll(freeMask);
    uint64_t bytes = (uint64_t(2) * cell) << k;
    const size_t sz = mv.size();
    const uint64_t low = (uint64_t(1) << s) - 1;
    const size_t block = sz << s;
    const size_t runBytes = loD.size() * sz;
    const bool streamRuns = stream && contiguousLo && runBytes % 64 == 0;
    parallelRanges(threads, tiles, bytes, [&](uint64_t begin, uint64_t end) {
      std::vector<uint8_t> buffer(directRead ? 0
                                             : (rowS.size() << s) * sz + 64);
      uint8_t *buf = buffer.data();
      alignas(64) uint8_t stage[kMaxStage];
      const size_t nLo = loD.size(), nHi = hiD.size(), nRows = rowS.size();
      bool streamed = false;
      // The transposed phase 2: each tile's source rows in destination-run
      // order, and its destination runs by source column.
      std::vector<const uint8_t *> inRows(directRead ? nLo : 0);
      std::vector<uint8_t *> outCols(directRead ? colH.size() : 0);
#ifdef MAPC_NATIVE_AVX2
      const bool avx2 = (sz == 4 || sz == 8) && contiguousLo && nLo % 8 == 0 &&
                        !bufLo32.empty() && hostHasAvx2();
#endif
      for (uint64_t i = begin; i < end; ++i) {
        uint64_t bs = s0 ^ applyColumns(mFree, i);
        uint64_t bd = d0 ^ applyColumns(dFree, i);
        if (nRows == 1 && s == 0) { // a single cell: no buffer
          mv.copy(dst + bd * sz, src + bs * sz);
          continue;
        }
        if (!directRead)
          for (size_t r = 0; r < nRows; ++r)
            std::memcpy(buf + r * block, src + ((bs ^ rowS[r]) & ~low) * sz,
                        block);
        else
          for (size_t lo = 0; lo < nLo; ++lo)
            inRows[lo] = src + ((bs ^ rowS[bufLo[lo] >> s]) & ~low) * sz;
        if (i + 1 < end) {
          // Ask for the next tile's source lines while this one is written:
          // scattered runs get no help from the hardware prefetchers
          // (measured on the transposed tiles: asking two or four tiles
          // ahead took 1.15-1.36x the time, not asking 1.42-1.44x).
          uint64_t next = s0 ^ applyColumns(mFree, i + 1);
          for (size_t r = 0; r < nRows; ++r) {
            const uint8_t *p = src + ((next ^ rowS[r]) & ~low) * sz;
            for (size_t b = 0; b < block; b += 64)
              __builtin_prefetch(p + b, 0, 1);
          }
        }
        uint64_t bl = bs & low;
        if (directRead) {
          for (size_t c = 0; c < outCols.size(); ++c)
            outCols[c] = dst + (bd ^ hiD[colH[c ^ bl]]) * sz;
          transposeCells(sz, tside, inRows.data(), outCols.data(), nLo,
                         outCols.size(), streamRuns);
          streamed |= streamRuns;
          continue;
        }
        for (size_t h = 0; h < nHi; ++h) {
          uint64_t db = bd ^ hiD[h], bi = bufHi[h] ^ bl;
#ifdef MAPC_NATIVE_AVX2
          if (avx2) {
            uint8_t *out = dst + db * sz;
            bool nt = streamRuns && (uintptr_t(out) & 31) == 0;
            if (sz == 4)
              gatherRun4(out, buf, bufLo32.data(), uint32_t(bi), nLo, nt);
            else
              gatherRun8(out, buf, bufLo32.data(), uint32_t(bi), nLo, nt);
            streamed |= nt;
            continue;
          }
#endif
          if (contiguousLo) {
            uint8_t *out = dst + db * sz;
            bool nt = streamRuns && (uintptr_t(out) & 15) == 0;
            uint8_t *to = nt ? stage : out;
            for (size_t lo = 0; lo < nLo; ++lo)
              mv.copy(to + lo * sz, buf + (bi ^ bufLo[lo]) * sz);
            if (nt) {
              streamOut(out, stage, runBytes);
              streamed = true;
            }
          } else {
            for (size_t lo = 0; lo < nLo; ++lo)
              mv.copy(dst + (db ^ loD[lo]) * sz, buf + (bi ^ bufLo[lo]) * sz);
          }
        }
      }
      if (streamed)
        streamFence();
    });
  }

  std::string describe() const override {
    std::string s = "affine tiles: the source cell of destination cell x is "
                    "M x xor c over " +
                    std::to_string(k + fused) + " data bits (" +
                    (permutation ? "a bit permutation" : "a GF(2)-affine map") +
                    ", " + std::to_string(sourceBits) + " -> " +
                    std::to_string(destBits) + " address bits)\n";
    s += "  " + std::to_string(fused) +
         " low bits stay in place on both "
         "sides: moved as blocks of " +
         std::to_string(cell) + " bytes\n";
    s += "  tiles of " + std::to_string(loD.size()) + " x " +
         std::to_string(hiD.size()) + " blocks: the source read as " +
         std::to_string(rowS.size()) + " runs of " +
         std::to_string(cell << this->s) +
         (network      ? std::string(" bytes straight into registers")
          : directRead ? " bytes straight into registers, transposed " +
                             std::to_string(tside) + " x " +
                             std::to_string(tside) + " cells at a time"
                       : std::string(" bytes into an L1 buffer")) +
         ", the destination written as " + std::to_string(hiD.size()) +
         " runs of " + std::to_string(loD.size() * cell) + " bytes" +
         (contiguousLo ? "" : " (with padding bits)") +
         (stream ? ", streamed past the caches" : "") + "; " +
         std::to_string(uint64_t(1) << __builtin_popcountll(freeMask)) +
         " tiles split over the threads";
    if (network)
      s += "\n  each tile moved inside registers by a GF(2) network: " +
           std::string(network->hasPre ? "lane permutes, " : "") +
           std::to_string(network->stages()) +
           " butterfly stages, lane permutes and renamed lines";
    if (directRead)
      s += "\n  tile order follows the source rows";
    if (interleaved && network)
      s += "\n  tile order follows the source lines, each read as one "
           "stream, the destination lines scattered" +
           std::string(permutation ? "" : " (a dense M)");
    else if (interleaved)
      s += "\n  tile order alternates steps that keep the source near with "
           "steps that keep the destination near (a dense M)";
    return s;
  }
};

/// For a dense M (not a bit permutation) a free x bit that keeps the
/// destination near moves the source far, so ordering the tiles by the
/// destination alone gives every tile new source pages (and TLB misses).
/// Returns another basis of the same tiles (mod U) that alternates
/// destination-near vectors (`destNear`, x unit vectors, nearest first) with
/// source-near ones (the x that M sends to a unit source bit above the
/// tile's, less their low t x bits): a block of 2^(a+b) neighbouring tiles
/// then touches 2^a sets of source pages and 2^b of destination pages.
std::vector<uint64_t> interleaveFreeBits(const AffineKernel &kn,
                                         const std::vector<uint64_t> &destNear,
                                         const std::vector<uint64_t> &hi,
                                         unsigned destSteps = 1,
                                         unsigned sourceSteps = 1) {
  TaggedBasis inverse;
  for (unsigned j = 0; j < kn.k; ++j)
    inverse.insert(kn.mCols[j], uint64_t(1) << j);
  std::vector<uint64_t> sourceNear;
  for (unsigned i = kn.s; i < kn.k; ++i) {
    uint64_t x;
    if (inverse.solve(uint64_t(1) << i, x))
      sourceNear.push_back(x & ~lowMask(kn.t)); // keeps runs aligned
  }
  // U's span (low t x bits and hi) plus the vectors taken so far.
  TaggedBasis taken;
  for (unsigned j = 0; j < kn.t; ++j)
    taken.insert(uint64_t(1) << j, 0);
  for (uint64_t h : hi)
    taken.insert(h, 0);
  std::vector<uint64_t> out;
  size_t di = 0, si = 0;
  auto takeNext = [&](const std::vector<uint64_t> &from, size_t &at) {
    for (uint64_t tag; at < from.size(); ++at)
      if (!taken.solve(from[at], tag)) {
        taken.insert(from[at], 0);
        out.push_back(from[at++]);
        return;
      }
  };
  while (out.size() < destNear.size()) {
    size_t before = out.size();
    for (unsigned k = 0; k < destSteps && out.size() < destNear.size(); ++k)
      takeNext(destNear, di);
    for (unsigned k = 0; k < sourceSteps && out.size() < destNear.size(); ++k)
      takeNext(sourceNear, si);
    if (out.size() == before)
      takeNext(destNear, di); // the source-near steps ran out
    if (out.size() == before)
      return destNear; // cannot happen: destNear alone completes U
  }
  return out;
}

/// Phase 2 is a transpose when each destination run reads one buffer row
/// per cell (bufLo holds no column bits) and each run one buffer column
/// (bufHi holds only column bits, one run per column): then whole vectors
/// of rows are loaded and shuffled into vectors of runs.
void planTranspose(AffineKernel &kn) {
  const uint64_t cols = uint64_t(1) << kn.s;
  unsigned side = transposeSide(kn.cell);
  if (!side || !kn.contiguousLo || kn.hiD.size() != cols ||
      kn.loD.size() % side || cols % side)
    return;
  for (uint64_t b : kn.bufLo)
    if (b & (cols - 1))
      return;
  std::vector<uint32_t> colH(cols, UINT32_MAX);
  for (size_t h = 0; h < kn.bufHi.size(); ++h) {
    uint64_t c = kn.bufHi[h];
    if (c >= cols || colH[c] != UINT32_MAX)
      return;
    colH[c] = uint32_t(h);
  }
  kn.tside = side;
  kn.colH = std::move(colH);
  kn.directRead = true;
}

/// Numbers the tiles (mFree, dFree). Free bits that move a low address bit
/// come first, so that neighbouring tiles share pages and DRAM rows. A
/// transposed tile reads the source directly, and then the source side
/// decides: consecutive tiles continue the same source rows, each row read
/// as one long stream (measured: 1.3-1.5x faster than ordering by either
/// side's nearest bit, on 1 and 2 threads).
void orderTiles(AffineKernel &kn, const std::vector<uint64_t> &hi) {
  auto top = [](uint64_t v) { return v ? 63 - __builtin_clzll(v) : 0; };
  std::vector<std::pair<int, unsigned>> order;
  for (uint64_t f = kn.freeMask; f; f &= f - 1) {
    unsigned j = unsigned(__builtin_ctzll(f));
    int key = kn.directRead ? top(kn.mCols[j])
                            : std::min(top(kn.mCols[j]), top(kn.dCols[j]));
    order.push_back({key, j});
  }
  std::stable_sort(order.begin(), order.end());
  std::vector<uint64_t> free;
  for (auto [key, j] : order)
    free.push_back(uint64_t(1) << j);
  if (!kn.permutation || kn.network) {
    // Network tiles go by the source alone: each of a tile's source lines
    // continues in the next tile, so the reads are 2^n sequential streams
    // that the hardware prefetches, while the scattered destination lines
    // are whole-line streaming stores that nobody waits for. (Measured on
    // 2^26 f32 maps: 1.4x faster than alternating the steps, 1.45x faster
    // than the destination order.) MAPC_NATIVE_NETWORK_ORDER=d,s (steps
    // of each kind per round) is there for --ab.
    unsigned destSteps = kn.network ? 0 : 1, sourceSteps = 1;
    if (kn.network)
      if (const char *o = std::getenv("MAPC_NATIVE_NETWORK_ORDER"))
        std::sscanf(o, "%u,%u", &destSteps, &sourceSteps);
    std::vector<uint64_t> mixed =
        interleaveFreeBits(kn, free, hi, destSteps, sourceSteps);
    kn.interleaved = mixed != free;
    free = std::move(mixed);
  }
  for (uint64_t f : free) {
    kn.mFree.push_back(applyColumns(kn.mCols, f));
    kn.dFree.push_back(applyColumns(kn.dCols, f));
  }
}

/// Plans the register network of a tile of 2^n whole source lines (xs: the
/// x of the n low source bits; rowX: the x of the lines) and 2^n whole
/// destination lines (the n low x bits; hi: the x of the lines), when the
/// tile has exactly that shape. Inside the tile both sides number the same
/// 2^2n cells linearly (a BMMC map restricted to a coset, Cormen et al.;
/// 003 4.1), so T, source position -> destination position, is one 2n x 2n
/// matrix for every tile; checked here on every cell against M and D.
bool planNetwork(AffineKernel &kn, const std::vector<uint64_t> &xs,
                 const std::vector<uint64_t> &rowX,
                 const std::vector<uint64_t> &hi) {
  const unsigned n = kn.t;
  if (!kn.contiguousLo || kn.s != n || xs.size() != n || rowX.size() != n ||
      hi.size() != n || !hostRunsTileNetworks())
    return false;
  TaggedBasis dest;
  for (unsigned q = 0; q < n; ++q)
    dest.insert(uint64_t(1) << q, uint64_t(1) << q);
  for (unsigned h = 0; h < n; ++h)
    dest.insert(hi[h], uint64_t(1) << (n + h));
  uint32_t cols[8];
  std::vector<uint64_t> unit(2 * n); // the x of each source position bit
  for (unsigned q = 0; q < 2 * n; ++q) {
    unit[q] = q < n ? xs[q] : rowX[q - n];
    uint64_t tag;
    if (!dest.solve(unit[q], tag) || tag >> (2 * n))
      return false;
    cols[q] = uint32_t(tag);
  }
  const uint64_t lanes = uint64_t(1) << n;
  for (uint64_t p = 0; p < lanes * lanes; ++p) {
    uint64_t x = 0, t = 0;
    for (unsigned q = 0; q < 2 * n; ++q)
      if ((p >> q) & 1) {
        x ^= unit[q];
        t ^= cols[q];
      }
    if (applyColumns(kn.mCols, x) != (kn.rowS[p >> n] ^ (p & (lanes - 1))) ||
        applyColumns(kn.dCols, x) != (kn.hiD[t >> n] ^ (t & (lanes - 1))))
      return false;
  }
  std::unique_ptr<TileNetwork> net = planTileNetwork(n, cols);
  if (!net || !checkTileNetwork(*net, cols))
    return false;
  kn.network = std::move(net);
  if (const char *a = std::getenv("MAPC_NATIVE_NETWORK_AHEAD"))
    kn.prefetchAhead = unsigned(std::max(0, std::atoi(a)));
  return true;
}

} // namespace

/// Plans the affine tiles; `shortRuns`, when not 0, caps the destination
/// runs at that many bytes (the source runs stay at 256 bytes).
/// With `network`, plans tiles of whole 64-byte lines moved by a register
/// network instead, or returns null when they do not fit.
static std::unique_ptr<AffineKernel>
buildAffineKernel(const rt::RemapSpec &spec, size_t shortRuns,
                  bool network = false) {
  const rt::DeviceLayout &S = spec.source, &D = spec.dest;
  if (!S.affine() || !D.affine() || !spec.elementBytes)
    return nullptr;
  const rt::AffineLayout &da = *D.affine(), &sa = *S.affine();
  unsigned k = da.dataBits;
  if (sa.dataBits != k || k >= 63 || da.bits() >= 63 || sa.bits() >= 63)
    return nullptr;
  uint64_t enabled = lowMask(da.bits()) & ~da.disabled;
  if (unsigned(__builtin_popcountll(enabled)) != k)
    return nullptr;
  uint64_t dconst = da.constant & da.disabled;

  // The composite map, from k + 1 evaluations of the two index maps.
  auto destAddr = [&](uint64_t x) { return deposit(x, enabled) | dconst; };
  auto srcOf = [&](uint64_t x) -> int64_t {
    int64_t d = D.dataAt(int64_t(destAddr(x)));
    return d < 0 ? -1 : S.firstAddressOf(d);
  };
  int64_t c0 = srcOf(0);
  if (c0 < 0)
    return nullptr;
  std::vector<uint64_t> mFull(k), dFull(k);
  for (unsigned j = 0; j < k; ++j) {
    int64_t s = srcOf(uint64_t(1) << j);
    if (s < 0)
      return nullptr;
    mFull[j] = uint64_t(s) ^ uint64_t(c0);
    dFull[j] = deposit(uint64_t(1) << j, enabled);
  }
  // Both layouts are affine, so the composite is; check a few cells anyway.
  std::mt19937_64 rng(k * 7919u + 17u);
  for (int trial = 0; trial < 64; ++trial) {
    uint64_t x = rng() & lowMask(k);
    if (srcOf(x) != int64_t(applyColumns(mFull, x) ^ uint64_t(c0)))
      return nullptr;
  }

  auto kernel = std::make_unique<AffineKernel>();
  kernel->elementBytes = spec.elementBytes;
  kernel->sourceBits = sa.bits();
  kernel->destBits = da.bits();
  for (uint64_t col : mFull)
    kernel->permutation &= __builtin_popcountll(col) == 1;

  // Fuse the low bits that both sides keep in place into one block.
  unsigned r = 0;
  auto fusable = [&](unsigned r) {
    uint64_t low = lowMask(r);
    if ((enabled & low) != low || (uint64_t(c0) & low))
      return false;
    for (unsigned j = 0; j < k; ++j)
      if (j < r ? mFull[j] != (uint64_t(1) << j) : (mFull[j] & low) != 0)
        return false;
    return true;
  };
  // Blocks beyond 4 KiB gain nothing more.
  while (r < k && fusable(r + 1) &&
         (uint64_t(spec.elementBytes) << (r + 1)) <= 4096)
    ++r;
  unsigned kr = k - r;
  size_t cell = size_t(spec.elementBytes) << r;
  kernel->k = kr;
  kernel->fused = r;
  kernel->cell = cell;
  kernel->s0 = uint64_t(c0) >> r;
  kernel->d0 = dconst >> r;
  for (unsigned j = r; j < k; ++j) {
    kernel->mCols.push_back(mFull[j] >> r);
    kernel->dCols.push_back(dFull[j] >> r);
  }

  // Runs of at least 256 bytes on both sides; tiles of at most 4096 cells.
  unsigned t = 0;
  // (Measured on the 8192^2 f32 transpose: two-level tiles, runs of 1-2 KiB
  // through an L2-sized buffer, took 0.75-1.49x the time of these, mostly
  // more; with the direct transposes, runs of 512 bytes took 1.2-1.5x the
  // time and runs of 128 bytes 1.0-1.1x. docs/native.md.)
  // A network tile is 2^n lines of 2^n cells (64 bytes) on both sides.
  const unsigned netBits = !network ? 0 : cell == 4 ? 4 : cell == 8 ? 3 : 0;
  if (network && (!netBits || kr < 2 * netBits))
    return nullptr;
  const unsigned maxT = netBits ? netBits : 6;
  while (t < maxT && t < kr && (netBits || (cell << t) < 256))
    ++t;
  kernel->t = t;
  // Past the last-level cache a write would first read its line; stream
  // whole runs instead (runs of t bits fit the stage buffer).
  kernel->stream = (uint64_t(spec.elementBytes) << k) >= (uint64_t(8) << 20) &&
                   (cell << t) <= AffineKernel::kMaxStage;
  TaggedBasis basis;
  for (unsigned j = 0; j < kr; ++j)
    basis.insert(kernel->mCols[j], uint64_t(1) << j);
  // xs[i]: the x whose source cell is the unit e_i, for the low source bits
  // 0 .. s-1 (up to t of them, stopping at a disabled source bit).
  std::vector<uint64_t> xs;
  unsigned sourceBits = sa.bits() > r ? sa.bits() - r : 0;
  const unsigned sMax = t;
  while (shortRuns && t > 0 && (cell << t) > shortRuns)
    --t;
  for (unsigned i = 0; i < sourceBits && xs.size() < sMax; ++i) {
    uint64_t x;
    if (!basis.solve(uint64_t(1) << i, x))
      break;
    xs.push_back(x);
  }
  unsigned s = unsigned(xs.size());
  kernel->s = s;
  // Phase 2's split U = span(low x bits) + span(hi): the xs less their low
  // x bits, in reduced echelon form (pivots: hiPivot).
  std::vector<uint64_t> hi, hiPivot;
  uint64_t pivots = 0;
  auto splitHi = [&] {
    hi.clear();
    hiPivot.clear();
    pivots = 0;
    for (uint64_t x : xs) {
      x &= ~lowMask(t);
      for (size_t h = 0; h < hi.size(); ++h)
        if (x & hiPivot[h])
          x ^= hi[h];
      if (!x)
        continue;
      uint64_t p = x & -x; // x holds no pivot bit, so p is new
      for (uint64_t &h : hi)
        if (h & p)
          h ^= x;
      hi.push_back(x);
      hiPivot.push_back(p);
      pivots |= p;
    }
  };
  splitHi();
  // When the source's low bits come mostly from the low x bits (Gray
  // codes, near-identities) the tile is thin: lengthen the destination
  // runs until it holds 4096 cells.
  while (!shortRuns && !network && t < kr && t + hi.size() < 2 * maxT &&
         (cell << (t + 1)) <= AffineKernel::kMaxStage) {
    ++t;
    splitHi();
  }
  kernel->t = t;
  kernel->freeMask = lowMask(kr) & ~lowMask(t) & ~pivots;
  // Phase 1's split U = span(xs) + span(rows): each low x bit less the xs
  // of its source's low bits has a source cell with low bits 0.
  auto sourceOf = [&](uint64_t x) { return applyColumns(kernel->mCols, x); };
  auto lessXs = [&](uint64_t x) {
    uint64_t e = sourceOf(x) & lowMask(s);
    for (unsigned i = 0; i < s; ++i)
      if ((e >> i) & 1)
        x ^= xs[i];
    return x;
  };
  TaggedBasis rows;
  std::vector<uint64_t> rowX;
  for (unsigned j = 0; j < t; ++j) {
    uint64_t v = lessXs(uint64_t(1) << j), tag;
    if (!v || rows.solve(v, tag))
      continue;
    rows.insert(v, uint64_t(1) << rowX.size());
    rowX.push_back(v);
  }
  for (uint64_t r = 0; r < (uint64_t(1) << rowX.size()); ++r) {
    uint64_t x = 0;
    for (unsigned b = 0; b < rowX.size(); ++b)
      if ((r >> b) & 1)
        x ^= rowX[b];
    kernel->rowS.push_back(sourceOf(x));
  }
  // Where cell x of the tile waits in the buffer: row and low source bits.
  auto bufferIndex = [&](uint64_t x) {
    uint64_t row = 0;
    bool ok = rows.solve(lessXs(x), row);
    (void)ok; // x is in U, so its row part is in span(rows)
    return (row << s) | (sourceOf(x) & lowMask(s));
  };
  for (uint64_t lo = 0; lo < (uint64_t(1) << t); ++lo) {
    kernel->loD.push_back(applyColumns(kernel->dCols, lo));
    kernel->bufLo.push_back(bufferIndex(lo));
    kernel->bufLo32.push_back(uint32_t(kernel->bufLo.back()));
    kernel->contiguousLo &= kernel->loD.back() == lo;
  }
  for (uint64_t h = 0; h < (uint64_t(1) << hi.size()); ++h) {
    uint64_t x = 0;
    for (unsigned b = 0; b < hi.size(); ++b)
      if ((h >> b) & 1)
        x ^= hi[b];
    kernel->hiD.push_back(applyColumns(kernel->dCols, x));
    kernel->bufHi.push_back(bufferIndex(x));
  }
  if (network) {
    if (!planNetwork(*kernel, xs, rowX, hi))
      return nullptr;
    orderTiles(*kernel, hi);
    kernel->mCum.assign(1, 0);
    kernel->dCum.assign(1, 0);
    for (size_t j = 0; j < kernel->mFree.size(); ++j) {
      kernel->mCum.push_back(kernel->mCum.back() ^ kernel->mFree[j]);
      kernel->dCum.push_back(kernel->dCum.back() ^ kernel->dFree[j]);
    }
    return kernel;
  }
  planTranspose(*kernel);
  orderTiles(*kernel, hi);
  return kernel;
}

std::unique_ptr<Kernel>
mapc::native::planAffineKernel(const rt::RemapSpec &spec) {
  std::unique_ptr<AffineKernel> kernel = buildAffineKernel(spec, 0);
  // Tiles whose destination lines mix rows and columns of the tile (dense
  // maps): moved inside registers when they split into 16 x 16 (8 x 8)
  // whole lines, instead of the L1 buffer and gathers. Bit permutations
  // keep the buffer unless MAPC_NATIVE_NETWORK=all: their tile order
  // already keeps both sides near, and on the 2^26 f32 benchmark the
  // networks took 1.04-1.10x the buffer's time on them.
  const char *mode = std::getenv("MAPC_NATIVE_NETWORK");
  const bool all = mode && std::string(mode) == "all";
  if (kernel && !kernel->directRead && hostRunsTileNetworks() &&
      (all || !kernel->permutation)) {
    std::unique_ptr<AffineKernel> net = buildAffineKernel(spec, 0, true);
    if (net)
      return net;
  }
  if (kernel && kernel->directRead) {
    // A transposed tile of 64 source rows at a large power-of-two stride
    // puts its lines and the next tile's (prefetched) into the same few L2
    // sets, more than they have ways: fewer, shorter destination runs keep
    // them apart. (Measured on 2^26 f32: 32 or 16 rows, destination runs
    // of 128 or 64 bytes, took 0.67-0.94x the time of 64 rows on the
    // transpose and the bit and 2-bit reversals; 32 rows 0.87-1.03x the
    // time of 16.)
    std::unique_ptr<AffineKernel> shorter = buildAffineKernel(spec, 128);
    if (shorter && shorter->directRead)
      kernel = std::move(shorter);
  }
  return kernel;
}
