//===- Network.cpp - a simulated k-d mesh / Boolean cube network ---------===//

#include "mapc/runtime/Network.h"
#include "mapc/runtime/NetworkTiming.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mapc::rt {

namespace {

unsigned log2Exact(unsigned v) { return unsigned(__builtin_ctz(v)); }

} // namespace

NetworkShape NetworkShape::booleanCube(unsigned n) {
  return NetworkShape{std::vector<unsigned>(n, 2), true};
}

NetworkShape NetworkShape::mesh(std::vector<unsigned> dims) {
  return NetworkShape{std::move(dims), false};
}

uint32_t NetworkShape::nodeCount() const {
  uint64_t n = 1;
  for (unsigned d : dims)
    n = std::min<uint64_t>(n * d, uint64_t(1) << 32);
  return uint32_t(std::min<uint64_t>(n, ~uint32_t(0)));
}

unsigned NetworkShape::nodeBits() const {
  unsigned bits = 0;
  for (unsigned d : dims)
    bits += log2Exact(d);
  return bits;
}

bool NetworkShape::powerOfTwo() const {
  for (unsigned d : dims)
    if (d == 0 || (d & (d - 1)))
      return false;
  return true;
}

// Power-of-two sides keep the bit arithmetic the radix-2 schedules were
// written against (a coordinate is a field of the node's bits); any other
// side is a mixed-radix digit of the node number (003 6.1).
unsigned NetworkShape::coord(uint32_t node, unsigned dim) const {
  unsigned shift = 0;
  uint32_t stride = 1;
  bool bits = true;
  for (unsigned i = 0; i <= dim; ++i)
    bits &= (dims[i] & (dims[i] - 1)) == 0;
  if (bits) {
    for (unsigned i = 0; i < dim; ++i)
      shift += log2Exact(dims[i]);
    return (node >> shift) & (dims[dim] - 1);
  }
  for (unsigned i = 0; i < dim; ++i)
    stride *= dims[i];
  return (node / stride) % dims[dim];
}

uint32_t NetworkShape::withCoord(uint32_t node, unsigned dim,
                                 unsigned x) const {
  unsigned shift = 0;
  uint32_t stride = 1;
  bool bits = true;
  for (unsigned i = 0; i < dim; ++i) {
    bits &= (dims[i] & (dims[i] - 1)) == 0;
    shift += log2Exact(dims[i]);
    stride *= dims[i];
  }
  if (bits && (dims[dim] & (dims[dim] - 1)) == 0) {
    uint32_t mask = uint32_t(dims[dim] - 1) << shift;
    return (node & ~mask) | (uint32_t(x) << shift);
  }
  return node - coord(node, dim) * stride + x * stride;
}

unsigned NetworkShape::nodeBitDim(unsigned j, unsigned *bitInDim) const {
  for (unsigned i = 0; i < dims.size(); ++i) {
    unsigned b = log2Exact(dims[i]);
    if (j < b) {
      if (bitInDim)
        *bitInDim = j;
      return i;
    }
    j -= b;
  }
  return unsigned(dims.size());
}

unsigned NetworkShape::degree(uint32_t node) const {
  if (cube)
    return unsigned(dims.size());
  unsigned deg = 0;
  for (unsigned i = 0; i < dims.size(); ++i) {
    unsigned x = coord(node, i);
    deg += (x > 0) + (x + 1 < dims[i]);
  }
  return deg;
}

unsigned NetworkShape::distance(uint32_t a, uint32_t b) const {
  if (cube)
    return unsigned(__builtin_popcount(a ^ b));
  unsigned d = 0;
  for (unsigned i = 0; i < dims.size(); ++i) {
    int dx = int(coord(a, i)) - int(coord(b, i));
    d += unsigned(dx < 0 ? -dx : dx);
  }
  return d;
}

unsigned NetworkShape::diameter() const {
  unsigned d = 0;
  for (unsigned size : dims)
    d += size - 1; // a cube's dims have size 2
  return d;
}

bool NetworkShape::valid(std::string *why) const {
  auto fail = [&](const std::string &msg) {
    if (why)
      *why = msg;
    return false;
  };
  if (dims.size() > 255)
    return fail("too many dims");
  uint64_t nodes = 1;
  for (unsigned d : dims) {
    if (d == 0)
      return fail("a dim of size 0");
    if (cube && d != 2)
      return fail("a cube has dims of size 2");
    nodes *= d;
    if (nodes > (uint64_t(1) << 31))
      return fail("too many nodes");
  }
  return true;
}

uint64_t pathLength(const std::vector<Hop> &path) {
  uint64_t n = 0;
  for (const Hop &h : path)
    n += h.count;
  return n;
}

bool walkPath(const NetworkShape &shape, uint32_t from,
              const std::vector<Hop> &path, uint32_t &to, std::string *why) {
  uint32_t node = from;
  for (size_t k = 0; k < path.size(); ++k) {
    const Hop &h = path[k];
    if (h.dim >= shape.dims.size()) {
      if (why)
        *why = "hop " + std::to_string(k) + " in no dim";
      return false;
    }
    if (h.count == 0) {
      if (why)
        *why = "hop " + std::to_string(k) + " has no steps";
      return false;
    }
    if (shape.cube) {
      node ^= uint32_t(h.count & 1) << h.dim;
      continue;
    }
    // A run is monotone: it stays on the mesh if its end does.
    int64_t x = int64_t(shape.coord(node, h.dim)) + int64_t(h.dir) * h.count;
    if ((h.dir != 1 && h.dir != -1) || x < 0 ||
        x >= int64_t(shape.dims[h.dim])) {
      if (why)
        *why = "hop " + std::to_string(k) + " leaves the mesh";
      return false;
    }
    node = shape.withCoord(node, h.dim, unsigned(x));
  }
  to = node;
  return true;
}

std::vector<Hop> dimensionOrderPath(const NetworkShape &shape, uint32_t from,
                                    uint32_t to) {
  std::vector<Hop> path;
  for (unsigned i = 0; i < shape.dims.size(); ++i) {
    int x = int(shape.coord(from, i)), y = int(shape.coord(to, i));
    if (x == y)
      continue;
    Hop h{uint8_t(i), int8_t(y > x ? 1 : -1), 0};
    h.count = uint32_t(y > x ? y - x : x - y);
    path.push_back(h);
  }
  return path;
}

NetworkMachine::NetworkMachine(NetworkShape shape, uint64_t memoryBytes)
    : netShape(std::move(shape)), memBytes(memoryBytes),
      mem(size_t(netShape.nodeCount()) * memoryBytes) {}

uint64_t NetworkMachine::read(uint32_t node, uint64_t byteAddr,
                              unsigned bytes) const {
  uint64_t v = 0;
  std::memcpy(&v, memory(node) + byteAddr, bytes);
  return v;
}

void NetworkMachine::write(uint32_t node, uint64_t byteAddr, unsigned bytes,
                           uint64_t v) {
  std::memcpy(memory(node) + byteAddr, &v, bytes);
}

int64_t NetworkMachine::run(const std::vector<Transfer> &transfers,
                            unsigned elemBytes, std::string *why) {
  auto fail = [&](size_t i, const std::string &msg) -> int64_t {
    if (why)
      *why = "transfer " + std::to_string(i) + ": " + msg;
    return -1;
  };
  uint32_t nodes = netShape.nodeCount();
  for (size_t i = 0; i < transfers.size(); ++i) {
    const Transfer &t = transfers[i];
    if (t.node >= nodes || t.destNode >= nodes)
      return fail(i, "no such node");
    if (t.byteAddr + elemBytes > memBytes ||
        t.destByteAddr + elemBytes > memBytes)
      return fail(i, "outside node memory");
    uint32_t end = 0;
    std::string pathWhy;
    if (!walkPath(netShape, t.node, t.path, end, &pathWhy))
      return fail(i, pathWhy);
    if (end != t.destNode)
      return fail(i, "path does not end at the destination node");
    for (size_t k = 1; k < t.path.size(); ++k)
      if (t.path[k].phase < t.path[k - 1].phase)
        return fail(i, "phase decreases along the path");
  }

  // Functional: a permutation of elements; reads see the state before.
  std::vector<uint8_t> buf(transfers.size() * elemBytes);
  for (size_t i = 0; i < transfers.size(); ++i)
    std::memcpy(&buf[i * elemBytes],
                memory(transfers[i].node) + transfers[i].byteAddr, elemBytes);
  for (size_t i = 0; i < transfers.size(); ++i)
    std::memcpy(memory(transfers[i].destNode) + transfers[i].destByteAddr,
                &buf[i * elemBytes], elemBytes);

  uint64_t hops = 0, maxLoad = 0;
  // The reservation walk where it applies (one key per element and phase),
  // else the cycle-by-cycle simulation; both give the same cycles.
  int64_t cycles = timeByReservation(netShape, transfers, hops, maxLoad);
  if (cycles < 0)
    cycles = timeCycleByCycle(netShape, transfers, hops, maxLoad);
  if (cycles < 0)
    return fail(0, "internal: the simulation stalled");
  led.cycles += cycles;
  led.linkTransfers += hops;
  led.maxLinkLoad = maxLoad;
  return cycles;
}

} // namespace mapc::rt
