//===- TileBuilder.h - assemble a k-Tile format dim by dim ----------------===//
//
// Passes describe a format as "k-Tile dim of length L belongs to data dim j
// (or is empty) and sits next in device dim i"; the builder numbers the dims
// as the format requires (data groups in order, then empty dims) and derives
// the device lengths. Calls for one data dim, and for one device dim, go
// from least to most significant.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_TILEBUILDER_H
#define MAPC_PASSES_TILEBUILDER_H

#include "ir/KTile.h"
#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace mapc {

class TileBuilder {
public:
  TileBuilder(llvm::ArrayRef<int64_t> shape, unsigned numDeviceDims);

  /// Adds a k-Tile dim; dataDim < 0 makes it empty. Returns its handle.
  unsigned add(int dataDim, KDim dim, unsigned deviceDim);
  unsigned add(int dataDim, int64_t len, unsigned deviceDim) {
    return add(dataDim, KDim::plain(len), deviceDim);
  }
  SpaceDim &dataDim(unsigned j) { return data[j]; }
  /// Pads device dim i to `tlen` with a device template.
  void padDevice(unsigned i, int64_t tlen) { deviceTemplate[i] = tlen; }

  KTile finish() const;

private:
  std::vector<SpaceDim> data;
  std::vector<KDim> dims;
  std::vector<int> owner; // data dim of each handle, -1 for empty
  std::vector<std::vector<unsigned>> byDevice;
  std::vector<int64_t> deviceTemplate;
};

} // namespace mapc

#endif
