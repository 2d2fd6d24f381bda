//===- DigitMap.h - index digit maps and index bit maps (003 4.1, 6.1) ----===//
//
// An index digit map writes the device address as a mixed-radix number whose
// digits are digits of the data index (003 6.1.3). The data index is
// factorised as a = sum a_i * prod_{j<i} b_i, digit a_i having base b_i. A
// device digit is a data digit (possibly reversed: b - 1 - a_i, the "sense"
// of 6.1.3), a constant (a disabled digit: only addresses with that value
// hold data), or `*` (replication: every value holds the same data).
//
// An index bit map (003 4.1.3) is the digit map whose bases are all 2. The
// device is [memory; PEs]: memory digits form device dim 0 and PE digits the
// one-dimensional PE view, as in `bits [p: a2 !a0 | m: 1 a1]` (fig. 4.3).
// A bit map may also XOR data bits into a device bit (`a2^a1`), which makes
// it a GF(2)-affine map; each data bit leads exactly one device bit and the
// bit matrix is invertible (Sema checks both).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_DIGITMAP_H
#define MAPC_IR_DIGITMAP_H

#include "ir/KTile.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapc {

struct DeviceDigit {
  enum Kind { Data, Const, Star } kind = Data;
  int64_t base = 2;
  int64_t index = 0; ///< data digit number (Data) or the value (Const)
  bool inverted = false;
  /// Data digits of a bit map only: further data bits XORed into this one
  /// (`a3^a1`), so the bits form any invertible GF(2) matrix.
  uint64_t xorMask = 0;
};

struct DigitMap {
  bool isBits = false;             ///< written as `bits [...]`
  std::vector<DeviceDigit> memory; ///< least significant first
  std::vector<DeviceDigit> pes;    ///< least significant first
  std::vector<int64_t> dataBases;  ///< base of data digit i
  std::vector<int64_t> shape;      ///< the array's shape

  int64_t memorySize() const;
  int64_t peCount() const;
  int64_t deviceSize() const { return satMul(memorySize(), peCount()); }
  int64_t dataSize() const;
  /// Some device bit XORs several data bits (not a digit permutation).
  bool hasXor() const;
  /// The bit map without XOR items closest to this one: each device bit
  /// that XORs data bits keeps one of them (its first where it can), the
  /// bits chosen so that every data bit is held once (a perfect matching
  /// of the invertible matrix's rows to its columns, which a nonzero
  /// determinant guarantees). Inversions, constants and `*` stay. The
  /// stage between a layout with XOR items and one that is not a bit map
  /// (docs/mixed-radix.md "Layouts with XOR items"). None when there is
  /// no such matching: then the matrix is singular, which Sema rejects.
  std::optional<DigitMap> withoutXor() const;

  /// The data index at linear device address `addr` (memory fastest), or -1.
  int64_t dataAt(int64_t addr) const;
  void addressesOf(int64_t dataIndex,
                   llvm::SmallVectorImpl<int64_t> &out) const;

  /// The equivalent k-Tile format, when the digit factorisation splits at
  /// every data dim boundary (always so for bit maps of power-of-two arrays
  /// without XORs).
  std::optional<KTile> toKTile() const;
  /// The same map over the linear data index, always (no XORs): one data
  /// dim of the array's size in a template of the digits' product, one
  /// k-Tile dim per data digit, constant and `*` digits as empty dims.
  rt::TileMap toTileMap() const;
};

} // namespace mapc

#endif
