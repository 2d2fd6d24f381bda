//===- KTile.h - the extended k-Tile format (003 chapter 3) ---------------===//
//
// A k-Tile format maps a device index space D onto a data index space A
// through a k-Tile space K (003 3.1.5). Its fields and the composition of
// the five index maps of 003 3.2.6 (g_K) are rt::TileMap's
// (mapc/runtime/TileMap.h), shared with the runtime; KTile adds the checks
// of 003 3.1.7, 3.2.3-3.2.5 and B.2.1.
//
// Worked example (003 3.2.4): a = [6], k = [3, 2], o_K = [1, 0], m = [0, 1],
// d = [6]. Device address x splits into digits (x mod 3, x / 3); the offset
// maps digit 0 through (w + 3 - 1) mod 3; so the device holds 2 0 1 5 3 4.
//
// Numbering: k-Tile dims are numbered in the order of the data groups of `k`
// (data dim 0's dims first, least significant first); groups past the data
// rank hold empty dims. `m` lists, per device dim, the k-Tile dims from least
// significant upward. Dimension 0 of every space is the fastest varying.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_KTILE_H
#define MAPC_IR_KTILE_H

#include "mapc/runtime/TileMap.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mapc {

using rt::Encoding;
using rt::KDim;
using rt::kReplicated;
using rt::Sense;
using rt::SpaceDim;

/// The fields of a k-Tile format, named as in the thesis and the language.
enum class KField { A, TA, OA, OTA, K, TK, OK, OTK, S, E, M, D, TD, OD, OTD };
const char *fieldName(KField f);

/// A problem found by KTile::verify, in terms of the field it concerns.
struct KTileProblem {
  KField field;
  std::string message;
  std::string hint;
};

/// An extended k-Tile format (003 3.2.6 plus the encoding field). The
/// fields and their evaluation (dataAt, addressesOf) live in rt::TileMap so
/// that the runtime evaluates the same maps; this adds verification.
struct KTile : rt::TileMap {
  unsigned numDataDims() const { return data.size(); }
  unsigned numDeviceDims() const { return device.size(); }
  bool isEmptyDim(unsigned l) const { return l >= firstEmptyDim(); }
  /// The k-Tile dims of data dim j, least significant first.
  llvm::SmallVector<unsigned, 4> dataGroup(unsigned j) const;
  /// The data dim of k-Tile dim l, or -1 for an empty dim.
  int dataDimOf(unsigned l) const;

  /// Checks every condition of 003 3.1.7, 3.2.3-3.2.5 and B.2.1. An empty
  /// result means the format is well formed and can be evaluated.
  std::vector<KTileProblem> verify() const;

  /// Shape of the device template T_D (what the device array occupies).
  llvm::SmallVector<int64_t, 4> deviceShape() const;
};

using rt::grayDecode;
using rt::grayEncode;
using rt::satMul;
/// The saturating product of a shape: its number of elements.
int64_t shapeSize(llvm::ArrayRef<int64_t> shape);

} // namespace mapc

#endif
