//===- StrideKernel.cpp - loop nests over two k-Tile layouts --------------===//
#include "StrideKernel.h"

#include "DigitForm.h"
#include "ElementCopy.h"
#include "Parallel.h"
#include "StreamStore.h"
#include "Transpose.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <random>

using namespace mapc;
using namespace mapc::native;

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define MAPC_NATIVE_AVX2 1
/// Writes n (a multiple of 8) 4-byte cells to `out` from a column of the
/// tile buffer: cell i is at base + i * stride cells.
__attribute__((target("avx2"))) void gatherColumn4(uint8_t *out,
                                                   const uint8_t *base,
                                                   int stride, int64_t n,
                                                   bool nt) {
  const __m256i idx = _mm256_mullo_epi32(
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
  for (int64_t i = 0; i < n; i += 8) {
    __m256i g = _mm256_i32gather_epi32(
        reinterpret_cast<const int *>(base + i * stride * 4), idx, 4);
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(out + i * 4), g);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i * 4), g);
  }
}

bool hostHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

/// Moves of a run of rb bytes, W / 2 <= rb <= W, in place of rb / cell
/// size cell moves. `move` is one W-byte move: its tail reads and writes
/// past the run, so the caller uses it only where those bytes are inside
/// the buffers and are rewritten by a later run; `exact` is two
/// overlapping W / 2-byte moves, for the last run of a stretch.
template <size_t W> struct WideRun {
  static void move(uint8_t *to, const uint8_t *from) {
    std::memcpy(to, from, W);
  }
  static void exact(uint8_t *to, const uint8_t *from, size_t rb) {
    std::memcpy(to, from, W / 2);
    std::memcpy(to + rb - W / 2, from + rb - W / 2, W / 2);
  }
};

/// Calls f(WideRun<W>()) for the width W that fits runs of rb bytes; false
/// when none does (rb < 4 or rb > 64).
template <class F> bool withWideRun(size_t rb, F &&f) {
  if (rb >= 4 && rb <= 8)
    return f(WideRun<8>()), true;
  if (rb > 8 && rb <= 16)
    return f(WideRun<16>()), true;
  if (rb > 16 && rb <= 32)
    return f(WideRun<32>()), true;
  if (rb > 32 && rb <= 64)
    return f(WideRun<64>()), true;
  return false;
}

bool contiguous(const std::vector<int64_t> &v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] != v[0] + int64_t(i))
      return false;
  return true;
}

/// The data dim whose lowest digit has address step 1, or -1.
int unitAxis(const DigitForm &f) {
  for (size_t j = 0; j < f.axes.size(); ++j)
    if (!f.axes[j].digits.empty() && f.axes[j].digits[0].stride == 1)
      return int(j);
  return -1;
}

class StrideKernel final : public Kernel {
public:
  DigitForm src, dst;
  size_t elementBytes = 0;
  int64_t dataSize = 0;
  bool tiled = false;
  unsigned inner = 0;          ///< run mode: the data dim of the runs
  unsigned axisA = 0;          ///< tile mode: source-contiguous data dim
  unsigned axisB = 0;          ///< tile mode: destination-contiguous data dim
  int64_t chunk = 1 << 14;     ///< run mode: coordinates per work item
  int64_t tileSize = 64;       ///< tile mode: coordinates per tile side
  std::vector<unsigned> outer; ///< the other data dims, fastest first
  std::vector<int64_t> replicaOff; ///< every destination copy's offset
  /// Tile rows go out as streaming stores (the output is large).
  bool stream = false;
  /// Tile mode: the side of the in-register transposes (Transpose.h), 0
  /// when the host has none for this element size.
  unsigned tside = 0;
  int64_t sourceCells = 0;
  /// Run mode with short runs on one side (cyclic(k) with small k): that
  /// side's lowest `periodDigits` digits, `period` coordinates in all, are
  /// a table of offsets; the other side advances evenly across a period.
  bool periodic = false, periodOnDest = true;
  /// The destination's low digit has step 1 and the digit above the
  /// period continues it: many periods go out in destination order.
  bool batchPeriods = false;
  unsigned periodDigits = 0;
  int64_t period = 0;
  std::vector<int64_t> periodOff;
  /// Periods whose short side's runs (its low digit, k0 cells) are
  /// contiguous on both sides move each run as one wide move (WideRun)
  /// instead of k0 cell moves; false under MAPC_NATIVE_RUNS=cells.
  bool wideRuns = false;

  int64_t innerItems() const {
    if (!tiled) {
      int64_t len = src.axes[inner].length;
      return (len + chunk - 1) / chunk;
    }
    int64_t ta = (src.axes[axisA].length + tileSize - 1) / tileSize;
    int64_t tb = (src.axes[axisB].length + tileSize - 1) / tileSize;
    return ta * tb;
  }

  uint64_t items() const {
    uint64_t n = uint64_t(innerItems());
    for (unsigned j : outer)
      n *= uint64_t(src.axes[j].length);
    return n;
  }

  void run(const uint8_t *s, uint8_t *d,
           const ThreadBudget &threads) const override {
    if (dataSize == 0)
      return;
    withMover(elementBytes, [&](auto mv) { runWith(mv, s, d, threads); });
  }

  template <class Mover>
  void runWith(Mover mv, const uint8_t *s, uint8_t *d,
               const ThreadBudget &threads) const {
    uint64_t bytes = uint64_t(dataSize) * elementBytes * 2;
    int64_t perOuter = innerItems();
    parallelRanges(threads, items(), bytes, [&](uint64_t b, uint64_t e) {
      TileScratch ts;
      ts.buf.resize(tiled && !tside ? size_t(tileSize * tileSize) * elementBytes
                                    : 0);
      struct Fence {
        bool on;
        ~Fence() {
          if (on)
            streamFence();
        }
      } fence{stream && tiled};
      for (uint64_t item = b; item < e; ++item) {
        // Outer coordinates and their address parts.
        uint64_t rest = item / uint64_t(perOuter);
        int64_t inItem = int64_t(item % uint64_t(perOuter));
        int64_t bs = src.base, bd = dst.base;
        for (unsigned j : outer) {
          int64_t len = src.axes[j].length;
          int64_t c = int64_t(rest % uint64_t(len));
          rest /= uint64_t(len);
          bs += src.axes[j].addressOf(c);
          bd += dst.axes[j].addressOf(c);
        }
        if (!tiled)
          runItem(mv, s, d, bs, bd, inItem);
        else
          tileItem(mv, s, d, bs, bd, inItem, ts);
      }
    });
  }

  template <class Mover>
  void runItem(Mover mv, const uint8_t *s, uint8_t *d, int64_t bs, int64_t bd,
               int64_t inItem) const {
    const size_t sz = mv.size();
    int64_t c = inItem * chunk;
    int64_t end = std::min(c + chunk, src.axes[inner].length);
    AxisCursor cs(src.axes[inner], c), cd(dst.axes[inner], c);
    int64_t ss =
        src.axes[inner].digits.empty() ? 0 : src.axes[inner].digits[0].stride;
    int64_t ds =
        dst.axes[inner].digits.empty() ? 0 : dst.axes[inner].digits[0].stride;
    AxisCursor &shortSide = periodOnDest ? cd : cs;
    AxisCursor &longSide = periodOnDest ? cs : cd;
    const int64_t longStride = periodOnDest ? ss : ds;
    while (c < end) {
      if (periodic && end - c >= period && longSide.run() >= period) {
        bool aligned = true;
        for (unsigned g = 0; g < periodDigits && aligned; ++g)
          aligned = shortSide.digitAt(g) == 0;
        if (aligned && batchPeriods) {
          // Several periods at once, in destination order: for each value
          // of its middle digits (the PE of cyclic(k)), its low digit and
          // the digit above the period are one contiguous run.
          const AxisForm &ax = dst.axes[inner];
          const int64_t k0 = ax.digits[0].k;
          int64_t q = std::min(
              {int64_t(64),
               ax.digits[periodDigits].k - shortSide.digitAt(periodDigits),
               (end - c) / period, longSide.run() / period});
          if (q >= 2) {
            const int64_t *off = periodOff.data();
            const int64_t step = longStride * int64_t(sz);
            const int64_t rb = k0 * int64_t(sz);
            // Each PE's runs: one wide move each (the source step is 1, so
            // a run of k0 cells is rb contiguous bytes on both sides).
            bool wide =
                wideRuns && withWideRun(size_t(rb), [&](auto wr) {
                  for (int64_t r : replicaOff)
                    for (int64_t jm = 0; jm < period / k0; ++jm) {
                      uint8_t *to = d + (bd + cd.address() + r + off[jm * k0]) *
                                            int64_t(sz);
                      const uint8_t *from =
                          s + (bs + cs.address()) * int64_t(sz) + jm * rb;
                      for (int64_t m = 0; m + 1 < q; ++m)
                        wr.move(to + m * rb, from + m * period * step);
                      wr.exact(to + (q - 1) * rb,
                               from + (q - 1) * period * step, size_t(rb));
                    }
                });
            if (!wide)
              for (int64_t r : replicaOff)
                for (int64_t jm = 0; jm < period / k0; ++jm) {
                  uint8_t *to =
                      d + (bd + cd.address() + r + off[jm * k0]) * int64_t(sz);
                  const uint8_t *from =
                      s + (bs + cs.address()) * int64_t(sz) + jm * k0 * step;
                  for (int64_t m = 0; m < q; ++m)
                    for (int64_t w = 0; w < k0; ++w)
                      mv.copy(to + (m * k0 + w) * int64_t(sz),
                              from + (m * period + w) * step);
                }
            for (int64_t m = 0; m < q; ++m)
              shortSide.stepDigit(periodDigits);
            longSide.advance(q * period);
            c += q * period;
            continue;
          }
        }
        if (aligned && !periodOnDest) {
          // Several periods in destination order: the source's digit above
          // the period steps evenly across them (no carry before q).
          const AxisForm &ax = src.axes[inner];
          const int64_t stepS = ax.digits[periodDigits].stride;
          int64_t q = std::min(
              {int64_t(64),
               ax.digits[periodDigits].k - shortSide.digitAt(periodDigits),
               (end - c) / period, longSide.run() / period});
          if (q >= 2) {
            const int64_t *off = periodOff.data();
            const int64_t step = longStride * int64_t(sz);
            const int64_t k0 = ax.digits[0].k, rb = k0 * int64_t(sz);
            // Each source run of k0 cells is rb contiguous bytes, and the
            // destination is one contiguous stretch: one wide move per run.
            bool wide =
                wideRuns && withWideRun(size_t(rb), [&](auto wr) {
                  for (int64_t r : replicaOff)
                    for (int64_t m = 0; m < q; ++m) {
                      const uint8_t *from =
                          s + (bs + cs.address() + m * stepS) * int64_t(sz);
                      uint8_t *to = d + (bd + cd.address() + r) * int64_t(sz) +
                                    m * period * step;
                      if (m + 1 < q)
                        for (int64_t j = 0; j < period; j += k0)
                          wr.move(to + j * step, from + off[j] * int64_t(sz));
                      else
                        for (int64_t j = 0; j < period; j += k0)
                          wr.exact(to + j * step, from + off[j] * int64_t(sz),
                                   size_t(rb));
                    }
                });
            if (!wide)
              for (int64_t r : replicaOff)
                for (int64_t m = 0; m < q; ++m) {
                  const uint8_t *from =
                      s + (bs + cs.address() + m * stepS) * int64_t(sz);
                  uint8_t *to = d + (bd + cd.address() + r) * int64_t(sz) +
                                m * period * step;
                  for (int64_t j = 0; j < period; ++j)
                    mv.copy(to + j * step, from + off[j] * int64_t(sz));
                }
            for (int64_t m = 0; m < q; ++m)
              shortSide.stepDigit(periodDigits);
            longSide.advance(q * period);
            c += q * period;
            continue;
          }
        }
        if (aligned) {
          // One period: a table on the short side, even steps on the other.
          const int64_t *off = periodOff.data();
          for (int64_t r : replicaOff) {
            if (periodOnDest) {
              const uint8_t *from = s + (bs + cs.address()) * int64_t(sz);
              uint8_t *to = d + (bd + cd.address() + r) * int64_t(sz);
              for (int64_t j = 0; j < period; ++j)
                mv.copy(to + off[j] * int64_t(sz),
                        from + j * longStride * int64_t(sz));
            } else {
              const uint8_t *from = s + (bs + cs.address()) * int64_t(sz);
              uint8_t *to = d + (bd + cd.address() + r) * int64_t(sz);
              for (int64_t j = 0; j < period; ++j)
                mv.copy(to + j * longStride * int64_t(sz),
                        from + off[j] * int64_t(sz));
            }
          }
          shortSide.stepDigit(periodDigits);
          longSide.advance(period);
          c += period;
          continue;
        }
      }
      int64_t n = std::min({cs.run(), cd.run(), end - c});
      const uint8_t *from = s + (bs + cs.address()) * int64_t(sz);
      for (int64_t r : replicaOff) {
        uint8_t *to = d + (bd + cd.address() + r) * int64_t(sz);
        if (ss == 1 && ds == 1 && size_t(n) * sz >= 64) {
          std::memcpy(to, from, size_t(n) * sz);
        } else if (ss == 1 && ds == 1) { // short runs: no call
          for (int64_t i = 0; i < n; ++i)
            mv.copy(to + i * int64_t(sz), from + i * int64_t(sz));
        } else {
          for (int64_t i = 0; i < n; ++i)
            mv.copy(to + i * ds * int64_t(sz), from + i * ss * int64_t(sz));
        }
      }
      cs.advance(n);
      cd.advance(n);
      c += n;
    }
  }

  /// Address parts of coordinates [c, c + n) of one axis.
  static void fill(const AxisForm &axis, int64_t c, int64_t n,
                   std::vector<int64_t> &out) {
    out.resize(size_t(n));
    AxisCursor cur(axis, c);
    for (int64_t i = 0; i < n; ++i) {
      out[size_t(i)] = cur.address();
      if (i + 1 < n)
        cur.advance(1);
    }
  }

  /// The next tile along B most likely continues these rows' stride: asks
  /// for its source lines now.
  void prefetchNextTile(const uint8_t *s, int64_t bs, int64_t a0,
                        const std::vector<int64_t> &sB, int64_t na, int64_t nb,
                        int64_t sz) const {
    int64_t step = sB[1] - sB[0];
    if (sB[size_t(nb - 1)] - sB[0] != step * (nb - 1))
      return;
    for (int64_t ib = 0; ib < nb; ++ib) {
      int64_t at = bs + a0 + sB[size_t(nb - 1)] + step * (ib + 1);
      if (at >= 0 && at + na <= sourceCells)
        for (int64_t b = 0; b < na * sz; b += 64)
          __builtin_prefetch(s + at * sz + b, 0, 1);
    }
  }

  /// What a thread reuses from tile to tile.
  struct TileScratch {
    std::vector<int64_t> sA, dA, sB, dB;
    std::vector<uint8_t> buf;
    std::vector<const uint8_t *> rows;
    std::vector<uint8_t *> cols;
  };

  template <class Mover>
  void tileItem(Mover mv, const uint8_t *s, uint8_t *d, int64_t bs, int64_t bd,
                int64_t inItem, TileScratch &ts) const {
    const int64_t sz = int64_t(mv.size());
    std::vector<int64_t> &sA = ts.sA, &dA = ts.dA, &sB = ts.sB, &dB = ts.dB;
    uint8_t *buf = ts.buf.data();
    int64_t lenA = src.axes[axisA].length, lenB = src.axes[axisB].length;
    int64_t ta = (lenA + tileSize - 1) / tileSize;
    int64_t tb = (lenB + tileSize - 1) / tileSize;
    // Transposed tiles go along the source rows (axis A), so that each
    // source row is read as one stream; the others down them.
    int64_t a0 = (tside ? inItem % ta : inItem / tb) * tileSize;
    int64_t b0 = (tside ? inItem / ta : inItem % tb) * tileSize;
    int64_t na = std::min(tileSize, lenA - a0);
    int64_t nb = std::min(tileSize, lenB - b0);
    fill(src.axes[axisA], a0, na, sA);
    fill(dst.axes[axisA], a0, na, dA);
    fill(src.axes[axisB], b0, nb, sB);
    fill(dst.axes[axisB], b0, nb, dB);
    const int64_t side = int64_t(tside);
    if (side && na >= side && nb >= side && contiguous(sA) && contiguous(dB)) {
      // The source rows transposed in registers straight into the
      // destination rows (each load takes whole lines, so rows that share
      // L1 sets need no buffer), while the next tile's rows are fetched.
      ts.rows.resize(size_t(nb));
      ts.cols.resize(size_t(na));
      for (int64_t ib = 0; ib < nb; ++ib)
        ts.rows[size_t(ib)] = s + (bs + sB[size_t(ib)] + sA[0]) * sz;
      if (a0 + tileSize < lenA)
        for (int64_t ib = 0; ib < nb; ++ib) {
          const uint8_t *p = ts.rows[size_t(ib)] + na * sz;
          int64_t n = std::min(tileSize, lenA - a0 - tileSize) * sz;
          for (int64_t b = 0; b < n; b += 64)
            __builtin_prefetch(p + b, 0, 1);
        }
      const int64_t na2 = na / side * side, nb2 = nb / side * side;
      for (int64_t r : replicaOff) {
        for (int64_t ia = 0; ia < na; ++ia)
          ts.cols[size_t(ia)] = d + (bd + dA[size_t(ia)] + dB[0] + r) * sz;
        transposeCells(size_t(sz), tside, ts.rows.data(), ts.cols.data(),
                       size_t(nb2), size_t(na2), stream);
        // The ragged edges of a tile at the end of a dim, cell by cell.
        for (int64_t ia = 0; ia < na; ++ia)
          for (int64_t ib = ia < na2 ? nb2 : 0; ib < nb; ++ib)
            mv.copy(ts.cols[size_t(ia)] + ib * sz,
                    ts.rows[size_t(ib)] + ia * sz);
      }
      return;
    }
#ifdef MAPC_NATIVE_AVX2
    if (sz == 4 && na == tileSize && nb == tileSize && na % 8 == 0 &&
        nb % 8 == 0 && contiguous(sA) && contiguous(dB) && hostHasAvx2()) {
      // COBRA's two phases: na-cell source rows into the buffer, then each
      // destination row gathered from a buffer column.
      for (int64_t ib = 0; ib < nb; ++ib)
        std::memcpy(buf + ib * na * 4, s + (bs + sB[size_t(ib)] + sA[0]) * 4,
                    size_t(na) * 4);
      prefetchNextTile(s, bs, sA[0], sB, na, nb, 4);
      for (int64_t r : replicaOff)
        for (int64_t ia = 0; ia < na; ++ia) {
          uint8_t *out = d + (bd + dA[size_t(ia)] + dB[0] + r) * 4;
          gatherColumn4(out, buf + ia * 4, int(na), nb,
                        stream && (uintptr_t(out) & 31) == 0);
        }
      return;
    }
#endif
    (void)buf;
    for (int64_t r : replicaOff) {
      // Rows of the destination (axis B contiguous) gather from na source
      // rows that stay in L1 across the tile.
      for (int64_t ia = 0; ia < na; ++ia) {
        const uint8_t *from = s + (bs + sA[size_t(ia)]) * sz;
        uint8_t *to = d + (bd + dA[size_t(ia)] + r) * sz;
        for (int64_t ib = 0; ib < nb; ++ib)
          mv.copy(to + dB[size_t(ib)] * sz, from + sB[size_t(ib)] * sz);
      }
    }
  }

  std::string describe() const override {
    std::string s = "strided loop nest over " +
                    std::to_string(src.axes.size()) + " data dims";
    s += "\n";
    if (replicaOff.size() > 1)
      s += "  every element written to " + std::to_string(replicaOff.size()) +
           " destination copies\n";
    auto digits = [](const AxisForm &a) {
      std::string t;
      for (const Digit &d : a.digits)
        t += (t.empty() ? "" : " ") + std::to_string(d.k) + "@" +
             std::to_string(d.stride);
      return t.empty() ? std::string("-") : t;
    };
    for (size_t j = 0; j < src.axes.size(); ++j)
      s += "  data dim " + std::to_string(j) + " (" +
           std::to_string(src.axes[j].length) + "): source digits " +
           digits(src.axes[j]) + ", destination digits " + digits(dst.axes[j]) +
           " (radix@address step)\n";
    if (!tiled && periodic)
      s += "  periods of " + std::to_string(period) +
           " coordinates along data dim " + std::to_string(inner) +
           ": a table of " + (periodOnDest ? "destination" : "source") +
           " offsets against even steps on the other side" +
           (batchPeriods || !periodOnDest
                ? ", up to 64 periods written in destination order"
                : "") +
           "\n";
    if (!tiled && periodic && wideRuns) {
      const AxisForm &sh = (periodOnDest ? dst : src).axes[inner];
      s += "  runs of " +
           std::to_string(sh.digits[0].k * int64_t(elementBytes)) +
           " bytes moved whole (one wide move each)\n";
    }
    if (!tiled)
      s += "  runs along data dim " + std::to_string(inner) +
           ": stretches where both addresses step evenly, block copies where "
           "both steps are 1; " +
           std::to_string(items()) + " work items over the threads";
    else
      s += "  tiles of " + std::to_string(tileSize) + " x " +
           std::to_string(tileSize) + " over data dims " +
           std::to_string(axisA) + " (source contiguous) and " +
           std::to_string(axisB) +
           " (destination contiguous): both sides touch whole lines; " +
           std::to_string(items()) + " tiles over the threads";
    if (tiled && tside)
      s += "\n  tiles transposed in registers, " + std::to_string(tside) +
           " x " + std::to_string(tside) + " cells at a time";
    return s;
  }
};

/// Does `form` give the addresses `layout` holds for sampled elements?
bool agrees(const DigitForm &form, const rt::DeviceLayout &layout,
            bool checkData) {
  int64_t n = layout.dataSize();
  std::mt19937_64 rng(uint64_t(n) * 31 + form.axes.size());
  std::vector<int64_t> c(form.axes.size());
  for (int trial = 0; trial < 160; ++trial) {
    int64_t d = trial == 0   ? 0
                : trial == 1 ? n - 1
                             : int64_t(rng() % uint64_t(n));
    int64_t rest = d;
    for (size_t j = 0; j < form.axes.size(); ++j) {
      c[j] = rest % form.axes[j].length;
      rest /= form.axes[j].length;
    }
    int64_t a = form.addressOf(c.data());
    if (a != layout.firstAddressOf(d))
      return false;
    if (checkData && (a < 0 || a >= layout.size() || layout.dataAt(a) != d))
      return false;
  }
  return true;
}

} // namespace

std::unique_ptr<Kernel>
mapc::native::planStrideKernel(const rt::RemapSpec &spec) {
  const rt::DeviceLayout &S = spec.source, &D = spec.dest;
  if (!S.tile() || !D.tile() || !spec.elementBytes)
    return nullptr;
  std::optional<DigitForm> sf = digitFormOf(*S.tile()),
                           df = digitFormOf(*D.tile());
  if (!sf || !df || sf->axes.size() != df->axes.size())
    return nullptr;
  for (size_t j = 0; j < sf->axes.size(); ++j)
    if (sf->axes[j].length != df->axes[j].length)
      return nullptr;
  if (S.dataSize() > 0 && (!agrees(*sf, S, false) || !agrees(*df, D, true)))
    return nullptr;

  auto k = std::make_unique<StrideKernel>();
  k->elementBytes = spec.elementBytes;
  k->dataSize = S.dataSize();
  k->sourceCells = S.size();
  // Every destination copy: the replicas' digits in mixed radix.
  k->replicaOff = {0};
  for (const Digit &r : df->replicas) {
    std::vector<int64_t> next;
    if (uint64_t(k->replicaOff.size()) * uint64_t(r.k) > (uint64_t(1) << 20))
      return nullptr;
    for (int64_t v = 0; v < r.k; ++v)
      for (int64_t o : k->replicaOff)
        next.push_back(o + v * r.stride);
    k->replicaOff = std::move(next);
  }
  k->src = std::move(*sf);
  k->dst = std::move(*df);
  int js = unitAxis(k->src), jd = unitAxis(k->dst);
  unsigned rank = unsigned(k->src.axes.size());
  if (rank == 0) {
    // A scalar: one data dim of length 1 does the same.
    AxisForm one;
    k->src.axes.push_back(one);
    k->dst.axes.push_back(one);
    rank = 1;
  }
  if (js >= 0 && jd >= 0 && js != jd && k->src.axes[js].length > 1 &&
      k->src.axes[jd].length > 1) {
    k->tiled = true;
    k->axisA = unsigned(js);
    k->axisB = unsigned(jd);
    // Rows of at least 256 bytes, tiles that fit in L1 beside their source.
    int64_t side = 256 / int64_t(spec.elementBytes);
    k->tileSize = std::clamp<int64_t>(side, 8, 64);
    k->stream = uint64_t(D.size()) * spec.elementBytes >= (uint64_t(8) << 20);
    k->tside = transposeSide(spec.elementBytes);
  } else {
    k->inner = unsigned(jd >= 0 ? jd : js >= 0 ? js : 0);
  }
  for (unsigned j = 0; j < rank; ++j)
    if (k->tiled ? (j != k->axisA && j != k->axisB) : j != k->inner)
      k->outer.push_back(j);
  if (!k->tiled) {
    // Short runs on one side, long on the other: move whole periods of the
    // short side's low digits through a table.
    const AxisForm &as = k->src.axes[k->inner], &ad = k->dst.axes[k->inner];
    auto lowRun = [](const AxisForm &a) {
      return a.digits.empty() ? int64_t(1) << 62 : a.digits[0].k;
    };
    constexpr int64_t kShort = 16, kMaxPeriod = 1024;
    bool destShort = lowRun(ad) < kShort && lowRun(as) >= 4 * kShort;
    bool srcShort = lowRun(as) < kShort && lowRun(ad) >= 4 * kShort;
    if (destShort || srcShort) {
      const AxisForm &sh = destShort ? ad : as;
      int64_t period = 1;
      unsigned g = 0;
      while (g + 1 < sh.digits.size() && period < 4 * kShort &&
             period * sh.digits[g].k <= kMaxPeriod)
        period *= sh.digits[g++].k;
      if (period >= kShort && g < sh.digits.size()) {
        k->periodic = true;
        k->periodOnDest = destShort;
        k->periodDigits = g;
        k->period = period;
        // (Measured: batching on the source side, which writes runs of k at
        // a stride of k * PEs, was slower than the table of source offsets.)
        k->batchPeriods = destShort && sh.digits[0].stride == 1 &&
                          sh.digits[g].stride == sh.digits[0].k;
        // Wide run moves (WideRun): the runs are contiguous on both sides,
        // the source may be read up to one run past each run but the last
        // (the next run of the same PE, or the next period's cells), and the
        // destination runs of a batch follow each other.
        const AxisForm &lg = destShort ? as : ad;
        const char *cells = std::getenv("MAPC_NATIVE_RUNS");
        int64_t rbytes = sh.digits[0].k * int64_t(spec.elementBytes);
        k->wideRuns =
            !(cells && std::string(cells) == "cells") &&
            sh.digits[0].stride == 1 && !lg.digits.empty() &&
            lg.digits[0].stride == 1 && rbytes >= 4 && rbytes <= 64 &&
            (destShort ? k->batchPeriods &&
                             period * int64_t(spec.elementBytes) >= 2 * rbytes
                       : sh.digits[g].stride >= sh.digits[0].k);
        AxisCursor cur(sh, -sh.offset);
        for (int64_t j = 0; j < period; ++j) {
          k->periodOff.push_back(cur.address());
          if (j + 1 < period)
            cur.advance(1);
        }
      }
    }
  }
  return k;
}
