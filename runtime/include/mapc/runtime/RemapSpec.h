//===- RemapSpec.h - a remap as every target sees it ----------------------===//
//
// The one target-independent description of a data-moving statement: the
// two layouts as index maps from device addresses to linear data indices,
// the element size, and whether the statement copies between two arrays or
// moves one array in place. Each target starts from it: the simulators'
// planners, the native CPU target (runtime/native) and the MPI target.
//
// A device address is linear over the layout's device template, memory
// fastest: address = m + d0 * (pe0 + d1 * (pe1 + ...)) (language.md
// "Conventions"). Every layout mapc accepts is a k-Tile index map (TileMap,
// 003 3.2.6) except index bit maps that XOR data bits (001), which are only
// GF(2)-affine; a layout whose device dims are all powers of two and whose
// map is GF(2)-affine (bit permutations, Gray codes, XOR maps, disabled
// bits: 003 4.1, 001) also carries its AffineLayout, so that a target can
// use its bit structure.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_REMAPSPEC_H
#define MAPC_RUNTIME_REMAPSPEC_H

#include "mapc/runtime/Affine.h"
#include "mapc/runtime/TileMap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapc::rt {

/// One layout of one array: its device shape and its index map.
class DeviceLayout {
public:
  DeviceLayout() = default;
  /// A k-Tile index map; `affine` its GF(2)-affine form when it has one
  /// (bits = log2 of the device size, mBits = log2 of shape[0]).
  static DeviceLayout fromTile(TileMap tile,
                               std::optional<AffineLayout> affine = {});
  /// A GF(2)-affine map with no k-Tile form (an XOR bit map, 001).
  static DeviceLayout fromAffine(AffineLayout affine);

  /// The device template's shape: [memory, PE dims...].
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Cells of the device: the product of shape().
  int64_t size() const { return size_; }
  /// Cells of one PE (device dim 0).
  int64_t memory() const { return shape_.empty() ? 1 : shape_[0]; }
  int64_t pes() const { return memory() ? size_ / memory() : 0; }
  /// Elements of the data space the layout maps.
  int64_t dataSize() const { return dataSize_; }

  const std::optional<TileMap> &tile() const { return tile_; }
  const std::optional<AffineLayout> &affine() const { return affine_; }

  /// The linear data index held at `address`, or -1 for an empty cell.
  int64_t dataAt(int64_t address) const;
  /// The first address holding `dataIndex` (the copy a replicated source
  /// reads, 003 6.2.1 "Data replication").
  int64_t firstAddressOf(int64_t dataIndex) const;
  /// Appends every address holding `dataIndex`.
  void addressesOf(int64_t dataIndex, std::vector<int64_t> &out) const;
  /// Some element is held at more than one address.
  bool replicates() const;

private:
  std::vector<int64_t> shape_;
  int64_t size_ = 0, dataSize_ = 0;
  std::optional<TileMap> tile_;
  std::optional<AffineLayout> affine_;
  std::optional<AffineDecoder> decoder_; ///< affine-only layouts
};

/// A data-moving statement for any target.
struct RemapSpec {
  std::string label; ///< "remap A: R -> C", as --run prints it
  DeviceLayout source, dest;
  unsigned elementBytes = 4;
  /// Between two arrays' buffers (`copy`); otherwise one array moves in
  /// place (remap, redistribute, realign, reshape), and a target may use
  /// scratch of the array's size.
  bool copy = false;

  /// Elements moved: the data space (both layouts map the same one).
  int64_t dataSize() const { return dest.dataSize(); }
};

} // namespace mapc::rt

#endif
