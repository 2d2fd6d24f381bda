//===- AffineKernel.h - cache-blocked BMMC remaps -------------------------===//
//
// When both layouts are GF(2)-affine (bit permutations, Gray codes, XOR
// maps, disabled bits: 003 4.1, 001), the source address of the element
// that lands in destination cell x (numbered over the destination's enabled
// address bits) is affine too: s(x) = M x xor c, a BMMC permutation (Cormen
// et al.). The kernel moves it in one pass of tiles: a tile is a coset of a
// subspace U of x that holds the low destination bits (so writes fill whole
// runs of 2^t cells) and the x that feed the low source bits (so reads take
// whole runs of 2^s cells). As in COBRA (Carter and Gatlin, FOCS 1998) the
// source runs go into a buffer that stays in L1 and the destination runs
// are gathered from it (AVX2 for 4- and 8-byte cells), streamed past the
// caches when the output is large. Low bits that both sides keep in place
// become one wider "super-element" moved as a block. Dense maps of 4- and
// 8-byte cells on AVX-512 hosts take tiles of 16 x 16 (8 x 8) whole lines
// moved inside registers by a planned network instead (AffineNetwork.h).
// docs/native.md.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_AFFINEKERNEL_H
#define MAPC_NATIVE_AFFINEKERNEL_H

#include "Kernel.h"

#include "mapc/runtime/RemapSpec.h"

#include <memory>

namespace mapc::native {

/// Plans the affine kernel for `spec`, or returns null when either layout
/// has no affine form (or the two do not agree on one, which a check of
/// sampled elements would show).
std::unique_ptr<Kernel> planAffineKernel(const rt::RemapSpec &spec);

} // namespace mapc::native

#endif
