//===- Contents.cpp -------------------------------------------------------===//
#include "mapc/runtime/Contents.h"

using namespace mapc::rt;

uint8_t mapc::rt::patternByte(uint64_t d, uint64_t tag, unsigned byte) {
  uint64_t x = (d + 1) * 0x9E3779B97F4A7C15ull ^ (tag << 32) ^ byte;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return uint8_t(x);
}

namespace {

// The layouts forEachAddress walks: affine and general ones as they are,
// bit layouts as affine ones (the same addresses).
const AffineLayout &walkable(const AffineLayout &l) { return l; }
AffineLayout walkable(const BitLayout &l) { return AffineLayout::fromBits(l); }
const TileMap &walkable(const TileMap &l) { return l; }

/// storePattern's and countMismatches' loops, for any layout type and any
/// way of reaching a node's memory.
template <typename Layout, typename MemoryOf>
void storeWith(const MemoryOf &memoryOf, const Layout &l, unsigned elemBytes,
               uint64_t base, uint64_t tag) {
  forEachAddress(walkable(l), elemBytes, base,
                 [&](uint64_t d, unsigned pe, uint64_t at) {
                   uint8_t *mem = memoryOf(pe) + at;
                   for (unsigned k = 0; k < elemBytes; ++k)
                     mem[k] = patternByte(d, tag, k);
                 });
}

template <typename Layout, typename MemoryOf>
uint64_t countWith(const MemoryOf &memoryOf, const Layout &l,
                   unsigned elemBytes, uint64_t base, uint64_t tag) {
  uint64_t bad = 0;
  forEachAddress(walkable(l), elemBytes, base,
                 [&](uint64_t d, unsigned pe, uint64_t at) {
                   const uint8_t *mem = memoryOf(pe) + at;
                   for (unsigned k = 0; k < elemBytes; ++k)
                     if (mem[k] != patternByte(d, tag, k)) {
                       ++bad;
                       return;
                     }
                 });
  return bad;
}

/// FNV-1a (64 bits) over `nodes` memories of `bytes` each, node by node.
template <typename MemoryOf>
uint64_t digestWith(const MemoryOf &memoryOf, uint32_t nodes, uint64_t bytes) {
  uint64_t h = 0xcbf29ce484222325u;
  for (uint32_t node = 0; node < nodes; ++node) {
    const uint8_t *mem = memoryOf(node);
    for (uint64_t i = 0; i < bytes; ++i)
      h = (h ^ mem[i]) * 0x100000001b3u;
  }
  return h;
}

} // namespace

void mapc::rt::storePattern(MasPar &m, const BitLayout &l, unsigned elemBytes,
                            uint64_t base, uint64_t tag) {
  storeWith([&](unsigned pe) { return m.memoryOf(pe); }, l, elemBytes, base,
            tag);
}

uint64_t mapc::rt::countMismatches(const MasPar &m, const BitLayout &l,
                                   unsigned elemBytes, uint64_t base,
                                   uint64_t tag) {
  return countWith([&](unsigned pe) { return m.memoryOf(pe); }, l, elemBytes,
                   base, tag);
}

void mapc::rt::storePattern(const std::function<uint8_t *(unsigned)> &memoryOf,
                            const AffineLayout &l, unsigned elemBytes,
                            uint64_t base, uint64_t tag) {
  storeWith(memoryOf, l, elemBytes, base, tag);
}

uint64_t mapc::rt::countMismatches(
    const std::function<const uint8_t *(unsigned)> &memoryOf,
    const AffineLayout &l, unsigned elemBytes, uint64_t base, uint64_t tag) {
  return countWith(memoryOf, l, elemBytes, base, tag);
}

void mapc::rt::storePattern(const std::function<uint8_t *(unsigned)> &memoryOf,
                            const TileMap &l, unsigned elemBytes, uint64_t base,
                            uint64_t tag) {
  storeWith(memoryOf, l, elemBytes, base, tag);
}

uint64_t mapc::rt::countMismatches(
    const std::function<const uint8_t *(unsigned)> &memoryOf, const TileMap &l,
    unsigned elemBytes, uint64_t base, uint64_t tag) {
  return countWith(memoryOf, l, elemBytes, base, tag);
}

uint64_t mapc::rt::memoryDigest(const MasPar &m) {
  return digestWith([&](unsigned pe) { return m.memoryOf(pe); }, m.peCount(),
                    m.memoryBytes());
}

uint64_t mapc::rt::memoryDigest(const NetworkMachine &m) {
  return digestWith([&](uint32_t node) { return m.memory(node); },
                    m.shape().nodeCount(), m.memoryBytes());
}
