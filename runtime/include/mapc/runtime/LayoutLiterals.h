//===- LayoutLiterals.h - builders that emitted code spells layouts with --===//
//
// The C++ emitters (simulator, native, MPI) write every layout as a call to
// one of these, so emitted files carry no helper functions of their own and
// all three spell a layout the same way (backend/CppLiterals.h).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LAYOUTLITERALS_H
#define MAPC_RUNTIME_LAYOUTLITERALS_H

#include "mapc/runtime/Affine.h"
#include "mapc/runtime/TileMap.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace mapc::rt::literal {

/// A k-Tile dim (003 3.2.6): length, template length, template offset,
/// offset (-1: `*`, replicated), reversed sense, Gray encoding.
inline KDim kdim(int64_t k, int64_t tk, int64_t otk, int64_t ok, bool minus,
                 bool gray) {
  KDim d;
  d.k = k;
  d.tk = tk;
  d.otk = otk;
  d.ok = ok;
  d.sense = minus ? Sense::Minus : Sense::Plus;
  d.enc = gray ? Encoding::Gray : Encoding::Binary;
  return d;
}

/// A k-Tile format's index map: data dims {len, tlen, off, toff}, k-Tile
/// dims, dims per data dim (then empty dims), k-Tile dims per device dim
/// (least significant first), device dims.
inline TileMap tileMap(std::vector<SpaceDim> data, std::vector<KDim> kdims,
                       std::vector<unsigned> groups,
                       std::vector<std::vector<unsigned>> m,
                       std::vector<SpaceDim> device) {
  TileMap t;
  t.data = std::move(data);
  t.kdims = std::move(kdims);
  t.groups = std::move(groups);
  t.m = std::move(m);
  t.device = std::move(device);
  return t;
}

/// A GF(2)-affine layout (003 4.1.3, 001): per device bit (m-bits, then
/// p-bits) the data bits XORed into it, the XOR constant, the disabled bits.
inline AffineLayout affineLayout(unsigned mBits, unsigned pBits,
                                 unsigned dataBits, std::vector<uint64_t> row,
                                 uint64_t constant, uint64_t disabled) {
  AffineLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = dataBits;
  l.row = std::move(row);
  l.constant = constant;
  l.disabled = disabled;
  return l;
}

} // namespace mapc::rt::literal

#endif
