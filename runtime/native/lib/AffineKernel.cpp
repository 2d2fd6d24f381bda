//===- AffineKernel.cpp - cache-blocked BMMC remaps -----------------------===//
#include "AffineKernel.h"

#include "ElementCopy.h"
#include "Parallel.h"

#include <algorithm>
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
  std::vector<uint64_t> loS, loD, hiS, hiD;
  bool contiguousLo = true, permutation = true;
  unsigned sourceBits = 0, destBits = 0;

  void run(const uint8_t *src, uint8_t *dst,
           const ThreadBudget &threads) const override {
    withMover(cell, [&](auto mover) { runWith(mover, src, dst, threads); });
  }

  template <class Mover>
  void runWith(Mover mv, const uint8_t *src, uint8_t *dst,
               const ThreadBudget &threads) const {
    uint64_t tiles = uint64_t(1) << __builtin_popcountll(freeMask);
    uint64_t bytes = (uint64_t(2) * cell) << k;
    const size_t sz = mv.size();
    parallelRanges(threads, tiles, bytes, [&](uint64_t begin, uint64_t end) {
      const size_t nLo = loS.size(), nHi = hiS.size();
      for (uint64_t i = begin; i < end; ++i) {
        uint64_t c = deposit(i, freeMask);
        uint64_t bs = s0 ^ applyColumns(mCols, c);
        uint64_t bd = d0 ^ applyColumns(dCols, c);
        for (size_t h = 0; h < nHi; ++h) {
          uint64_t sb = bs ^ hiS[h], db = bd ^ hiD[h];
          if (contiguousLo) {
            uint8_t *out = dst + db * sz;
            for (size_t lo = 0; lo < nLo; ++lo)
              mv.copy(out + lo * sz, src + (sb ^ loS[lo]) * sz);
          } else {
            for (size_t lo = 0; lo < nLo; ++lo)
              mv.copy(dst + (db ^ loD[lo]) * sz, src + (sb ^ loS[lo]) * sz);
          }
        }
      }
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
    s += "  tiles of " + std::to_string(loS.size()) + " x " +
         std::to_string(hiS.size()) + " blocks: runs of " +
         std::to_string(loS.size() * cell) + " destination bytes written " +
         (contiguousLo ? "contiguously" : "in place of padding bits") +
         ", every source line of the tile read whole while it is in L1; " +
         std::to_string(uint64_t(1) << __builtin_popcountll(freeMask)) +
         " tiles split over the threads";
    return s;
  }
};

} // namespace

std::unique_ptr<Kernel>
mapc::native::planAffineKernel(const rt::RemapSpec &spec) {
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
  while (t < 6 && t < kr && (cell << t) < 256)
    ++t;
  kernel->t = t;
  TaggedBasis basis;
  for (unsigned j = 0; j < kr; ++j)
    basis.insert(kernel->mCols[j], uint64_t(1) << j);
  // The x that feed the low source bits, less the low destination bits
  // the tile already holds, in reduced echelon form.
  std::vector<uint64_t> hi, hiPivot;
  uint64_t pivots = 0;
  unsigned sourceBits = sa.bits() > r ? sa.bits() - r : 0;
  for (unsigned i = 0; i < sourceBits && hi.size() < t; ++i) {
    uint64_t x;
    if (!basis.solve(uint64_t(1) << i, x))
      continue; // a disabled source bit: padding inside the line
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
  kernel->freeMask = lowMask(kr) & ~lowMask(t) & ~pivots;
  for (uint64_t lo = 0; lo < (uint64_t(1) << t); ++lo) {
    kernel->loS.push_back(applyColumns(kernel->mCols, lo));
    kernel->loD.push_back(applyColumns(kernel->dCols, lo));
    kernel->contiguousLo &= kernel->loD.back() == lo;
  }
  for (uint64_t h = 0; h < (uint64_t(1) << hi.size()); ++h) {
    uint64_t x = 0;
    for (unsigned b = 0; b < hi.size(); ++b)
      if ((h >> b) & 1)
        x ^= hi[b];
    kernel->hiS.push_back(applyColumns(kernel->mCols, x));
    kernel->hiD.push_back(applyColumns(kernel->dCols, x));
  }
  return kernel;
}
