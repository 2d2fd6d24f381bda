//===- TileWalk.h - a layout's addresses in data order, incrementally -----===//
//
// TileMap::firstAddressOf composes 003 3.2.6's index maps from scratch for
// every element: a division per k-Tile dim and per device dim. Walking the
// data indices in order, the k-Tile digits change like an odometer (the
// lowest one almost always alone), and each device dim's position is a sum
// of one term per digit (skmap, 3.2.2): so a walk keeps the digits and the
// per-dim sums and updates only what changed, one wrap-around offset per
// device dim left to apply per element.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_TILEWALK_H
#define MAPC_RUNTIME_TILEWALK_H

#include "mapc/runtime/TileMap.h"

#include <cstddef>

namespace mapc::rt {

/// The device template addresses of data indices 0, 1, 2, ... of a layout
/// that does not replicate: address() is firstAddressOf(index()).
class TileWalk {
public:
  /// Whether `t` can be walked: it replicates no element.
  static bool walkable(const TileMap &t);

  explicit TileWalk(const TileMap &t);
  int64_t index() const { return index_; }
  int64_t address() const {
    if (linear_)
      return addr_;
    int64_t addr = 0;
    for (size_t i = 0; i < sum.size(); ++i) {
      const Device &d = device[i];
      int64_t x = sum[i] + d.off;
      if (x >= d.len)
        x = x < 2 * d.len ? x - d.len : x % d.len;
      addr += (d.toff + x) * d.place;
    }
    return addr;
  }
  /// Whether no device dim's position can wrap around (003 3.2.4): the
  /// address is then a sum of one term per digit, kept as digits change.
  bool linear() const { return linear_; }
  /// On to the next data index.
  void next() {
    ++index_;
    if (dims.empty())
      return;
    // Most steps only raise the lowest digit of data dim 0.
    Dim &dim = dims.front();
    if (dim.count > 0 && dim.i + 1 < dim.len &&
        dim.i + 1 + dim.off != dim.len) {
      Digit &d = digits[dim.first];
      if (d.w + 1 < d.k) {
        ++dim.i;
        if (d.w + 1 >= d.fastBelow) {
          set(d, d.w + 1);
          return;
        }
        // Its position moves by one (up, or down if reversed): no term to
        // compose.
        ++d.w;
        d.term += d.step;
        sum[d.device] += d.step;
        addr_ += d.step * device[d.device].place;
        return;
      }
    }
    carry();
  }

private:
  struct Digit {
    int64_t k, tk, otk, ok, radix; ///< radix: place inside its device dim
    unsigned device;
    bool minus, gray;
    int64_t w = 0; ///< the digit's value
    /// term(w + 1) - term(w) while w + 1 < fastBelow (before its offset
    /// wraps around; never for a Gray digit).
    int64_t step = 0, fastBelow = 0;
    int64_t term = 0; ///< its share of its device dim's position
  };
  struct Device {
    int64_t len, off, toff, place;
  };
  struct Dim {
    int64_t len, off, toff, i = 0; ///< i: the index in this data dim
    unsigned first, count;         ///< its digits
  };
  const TileMap &t;
  std::vector<Digit> digits;
  std::vector<Dim> dims;
  std::vector<int64_t> sum; ///< per device dim: its digits' terms
  std::vector<Device> device;
  int64_t index_ = 0;
  bool linear_ = false;
  int64_t addr_ = 0; ///< address() when linear_

  static int64_t term(const Digit &d, int64_t w) {
    int64_t x = d.otk;
    if (d.ok != kReplicated) {
      int64_t v = w + d.ok;
      x += v >= d.k ? v - d.k : v;
    }
    if (d.gray)
      x = int64_t(grayEncode(uint64_t(x)));
    if (d.minus)
      x = d.tk - 1 - x;
    return x * d.radix;
  }
  void set(Digit &d, int64_t w) {
    const int64_t t = term(d, w);
    sum[d.device] += t - d.term;
    addr_ += (t - d.term) * device[d.device].place;
    d.term = t;
    d.w = w;
  }
  /// next() past the lowest digit: carries, wrap-arounds, later dims.
  void carry();
  /// Sets the digits of data dim `j` to the k-Tile position `u`.
  void setDim(const Dim &dim, int64_t u);
};

} // namespace mapc::rt

#endif
