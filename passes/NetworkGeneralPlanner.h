//===- NetworkGeneralPlanner.h - general remaps on a cube or mesh ---------===//
//
// planNetworkGeneralRemap plans a remap whose layouts are not both radix-2
// bit maps (HPF distributions on any node count, index digit maps, k-Tile
// formats with templates, offsets and replication), or any remap on a mesh
// whose sides are not powers of two, for a hypercube or mesh machine: one
// Route step (runtime/NetworkExecute.h) that sends every element from its
// nearest copy to its cell by dimension-order routing, timed by the
// store-and-forward simulator (001's model), with networkGeneralLowerBound.
// A remap that moves nothing in place has no steps.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_NETWORKGENERALPLANNER_H
#define MAPC_PASSES_NETWORKGENERALPLANNER_H

#include "mapc/runtime/NetworkExecute.h"

#include <string>
#include <variant>

namespace mapc {

struct NetworkGeneralPlanRequest {
  rt::TileMap src, dst;
  unsigned elemBytes = 1;
  bool copy = false;
  rt::NetworkShape shape;
};

std::variant<rt::GeneralPlan, std::string>
planNetworkGeneralRemap(const NetworkGeneralPlanRequest &request);

} // namespace mapc

#endif
