//===- GatherKernel.h - the element-by-element fallback -------------------===//
//
// Correct for every layout: each destination cell asks the two index maps
// where its element comes from. Used only when no structured kernel applies
// (wrap-around offsets, Gray k-Tile dims, a TileMap paired with an
// affine-only layout); split over threads by destination address.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_GATHERKERNEL_H
#define MAPC_NATIVE_GATHERKERNEL_H

#include "Kernel.h"

#include "mapc/runtime/RemapSpec.h"

#include <memory>

namespace mapc::native {

std::unique_ptr<Kernel> planGatherKernel(const rt::RemapSpec &spec,
                                         std::string reason);

} // namespace mapc::native

#endif
