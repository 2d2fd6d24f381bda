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

namespace mapc::rt {

/// The device template addresses of data indices 0, 1, 2, ... of a layout
/// that does not replicate: address() is firstAddressOf(index()).
class TileWalk {
public:
  /// Whether `t` can be walked: it replicates no element.
  static bool walkable(const TileMap &t);

  explicit TileWalk(const TileMap &t);
  int64_t index() const { return index_; }
  int64_t address() const;
  /// On to the next data index.
  void next();

private:
  struct Digit {
    int64_t k, tk, otk, ok, radix; ///< radix: place inside its device dim
    unsigned device;
    bool minus, gray;
    int64_t w = 0; ///< the digit's value
  };
  struct Dim {
    int64_t len, off, toff, i = 0; ///< i: the index in this data dim
    unsigned first, count;         ///< its digits
  };
  const TileMap &t;
  std::vector<Digit> digits;
  std::vector<Dim> dims;
  std::vector<int64_t> sum, place; ///< per device dim
  int64_t index_ = 0;

  int64_t term(const Digit &d, int64_t w) const;
  void set(Digit &d, int64_t w);
  /// Sets the digits of data dim `j` to the k-Tile position `u`.
  void setDim(const Dim &dim, int64_t u);
};

} // namespace mapc::rt

#endif
