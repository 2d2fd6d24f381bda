//===- RandomNetwork.h - random cubes and meshes for the network tests ----===//
#ifndef MAPC_TEST_UNIT_RANDOMNETWORK_H
#define MAPC_TEST_UNIT_RANDOMNETWORK_H

#include "mapc/runtime/Network.h"

#include <random>
#include <vector>

namespace mapc::test {

/// The ranges a random network is drawn from; each test keeps its own so
/// that its draws stay as they were.
struct NetworkDraw {
  unsigned cubeOneIn; // a cube one time in this many
  unsigned cubeMinDims, cubeMaxDims;
  unsigned meshMaxSide; // 1 to 3 mesh dims of 1 to this many nodes
};

/// A Boolean cube or a mesh of 1-3 dims, drawn as `draw` says.
inline rt::NetworkShape randomNetwork(std::mt19937 &rng,
                                      const NetworkDraw &draw) {
  if (rng() % draw.cubeOneIn == 0)
    return rt::NetworkShape::booleanCube(
        std::uniform_int_distribution<unsigned>(draw.cubeMinDims,
                                                draw.cubeMaxDims)(rng));
  std::vector<unsigned> dims(
      std::uniform_int_distribution<unsigned>(1, 3)(rng));
  for (unsigned &d : dims)
    d = std::uniform_int_distribution<unsigned>(1, draw.meshMaxSide)(rng);
  return rt::NetworkShape::mesh(dims);
}

} // namespace mapc::test

#endif
