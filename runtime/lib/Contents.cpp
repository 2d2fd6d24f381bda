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

void mapc::rt::storePattern(MasPar &m, const BitLayout &l, unsigned elemBytes,
                            uint64_t base, uint64_t tag) {
  forEachElement(l, elemBytes, base, [&](uint64_t d, unsigned pe, uint64_t at) {
    uint8_t *mem = m.memoryOf(pe) + at;
    for (unsigned k = 0; k < elemBytes; ++k)
      mem[k] = patternByte(d, tag, k);
  });
}

uint64_t mapc::rt::countMismatches(const MasPar &m, const BitLayout &l,
                                   unsigned elemBytes, uint64_t base,
                                   uint64_t tag) {
  uint64_t bad = 0;
  forEachElement(l, elemBytes, base, [&](uint64_t d, unsigned pe, uint64_t at) {
    const uint8_t *mem = m.memoryOf(pe) + at;
    for (unsigned k = 0; k < elemBytes; ++k)
      if (mem[k] != patternByte(d, tag, k)) {
        ++bad;
        return;
      }
  });
  return bad;
}

void mapc::rt::storePattern(const std::function<uint8_t *(unsigned)> &memoryOf,
                            const AffineLayout &l, unsigned elemBytes,
                            uint64_t base, uint64_t tag) {
  forEachElement(l, elemBytes, base, [&](uint64_t d, unsigned pe, uint64_t at) {
    uint8_t *mem = memoryOf(pe) + at;
    for (unsigned k = 0; k < elemBytes; ++k)
      mem[k] = patternByte(d, tag, k);
  });
}

uint64_t mapc::rt::countMismatches(
    const std::function<const uint8_t *(unsigned)> &memoryOf,
    const AffineLayout &l, unsigned elemBytes, uint64_t base, uint64_t tag) {
  uint64_t bad = 0;
  forEachElement(l, elemBytes, base, [&](uint64_t d, unsigned pe, uint64_t at) {
    const uint8_t *mem = memoryOf(pe) + at;
    for (unsigned k = 0; k < elemBytes; ++k)
      if (mem[k] != patternByte(d, tag, k)) {
        ++bad;
        return;
      }
  });
  return bad;
}

uint64_t mapc::rt::memoryDigest(const MasPar &m) {
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned pe = 0; pe < m.peCount(); ++pe) {
    const uint8_t *mem = m.memoryOf(pe);
    for (uint64_t i = 0; i < m.memoryBytes(); ++i)
      h = (h ^ mem[i]) * 0x100000001b3u;
  }
  return h;
}
