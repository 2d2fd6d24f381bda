//===- AffineProbe.h - the GF(2)-affine form of a radix-2 k-Tile format ---===//
//
// A k-Tile format whose spaces and k-Tile dims are all powers of two, with
// no templates larger than their spaces, no wrap-around offsets and no
// replication, is GF(2)-affine: ikmap and the device linearization
// concatenate bit fields, a `-` sense complements a field (an XOR constant)
// and a Gray dim XORs neighbouring bits (001 lemma 1; 003 4.1). Layouts
// built in code (the C++ API, the tests) carry no affine form; this finds
// it, so that Gray dims of radix-2 formats reach the affine tile kernel
// instead of the per-element gather. docs/native.md "Kernels".
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_AFFINEPROBE_H
#define MAPC_NATIVE_AFFINEPROBE_H

#include "mapc/runtime/RemapSpec.h"

#include <optional>

namespace mapc::native {

/// The affine form of `tile` when the conditions above hold (checked on the
/// format's fields, then on sampled addresses), otherwise none.
std::optional<rt::AffineLayout> affineFormOf(const rt::TileMap &tile);

/// `layout` with its affine form filled in when it has a k-Tile form and
/// affineFormOf finds one; otherwise `layout` unchanged.
rt::DeviceLayout withAffineForm(const rt::DeviceLayout &layout);

} // namespace mapc::native

#endif
