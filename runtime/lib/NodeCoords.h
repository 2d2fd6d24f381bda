//===- NodeCoords.h - a network's node coordinates, without divisions -----===//
//
// NetworkShape::coord divides the node number by every side before it; the
// planners ask for coordinates and distances of the same nodes millions of
// times, so they read them from a table (a mesh) or off the node's bits (a
// cube) instead.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_NODECOORDS_H
#define MAPC_RUNTIME_LIB_NODECOORDS_H

#include "mapc/runtime/Network.h"

#include <cstdint>
#include <vector>

namespace mapc::rt {

/// The bits set in `x`, without the library call __builtin_popcount makes
/// on a target without a popcount instruction (the default x86-64).
inline unsigned popcount(uint32_t x) {
  x -= (x >> 1) & 0x55555555u;
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

class NodeCoords {
public:
  explicit NodeCoords(const NetworkShape &shape)
      : cube(shape.cube), dims(unsigned(shape.dims.size())) {
    if (cube)
      return;
    const uint32_t nodes = shape.nodeCount();
    coords.resize(size_t(nodes) * dims);
    for (uint32_t n = 0; n < nodes; ++n)
      for (unsigned i = 0; i < dims; ++i)
        coords[size_t(n) * dims + i] = shape.coord(n, i);
  }

  /// NetworkShape::coord(node, dim).
  unsigned coord(uint32_t node, unsigned dim) const {
    return cube ? (node >> dim) & 1 : coords[size_t(node) * dims + dim];
  }
  /// A mesh node's coordinates (dims of them).
  const uint32_t *coordsOf(uint32_t node) const {
    return &coords[size_t(node) * dims];
  }
  /// NetworkShape::distance(a, b).
  unsigned distance(uint32_t a, uint32_t b) const {
    if (cube)
      return popcount(a ^ b);
    unsigned d = 0;
    for (unsigned i = 0; i < dims; ++i) {
      const unsigned x = coords[size_t(a) * dims + i];
      const unsigned y = coords[size_t(b) * dims + i];
      d += x > y ? x - y : y - x;
    }
    return d;
  }

private:
  bool cube;
  unsigned dims;
  std::vector<uint32_t> coords; ///< nodes x dims, on a mesh
};

} // namespace mapc::rt

#endif
