//===- Contents.h - putting known data into arrays and checking it --------===//
//
// How --run, the property tests and the benchmark give every element a value
// that depends on its data index (003 5.7.2 checks remaps the same way), and
// count the elements a remap left in the wrong place.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_CONTENTS_H
#define MAPC_RUNTIME_CONTENTS_H

#include "mapc/runtime/Affine.h"
#include "mapc/runtime/BitLayout.h"
#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/Network.h"
#include "mapc/runtime/TileMap.h"

#include <cstdint>
#include <functional>

namespace mapc::rt {

/// Calls f(d, pe, byteAddress) for every data index d of `l` (a BitLayout
/// or an AffineLayout), stored with `elemBytes` per element from byte
/// `base` of each PE's memory.
template <typename Layout, typename F>
void forEachElement(const Layout &l, unsigned elemBytes, uint64_t base, F &&f) {
  uint64_t mMask = (uint64_t(1) << l.mBits) - 1;
  for (uint64_t d = 0; d < (uint64_t(1) << l.dataBits); ++d) {
    uint64_t a = l.addressOf(d);
    f(d, unsigned(a >> l.mBits), base + (a & mMask) * elemBytes);
  }
}

/// forEachAddress for a general layout (003 ch. 6, below), every copy of a
/// replicated element included.
template <typename F>
void forEachAddress(const TileMap &l, unsigned elemBytes, uint64_t base,
                    F &&f) {
  const int64_t slots = l.device.empty() ? 1 : l.device[0].tlen;
  const int64_t cells = l.deviceSize();
  for (int64_t a = 0; a < cells; ++a) {
    int64_t d = l.dataAt(a);
    if (d >= 0)
      f(uint64_t(d), unsigned(a / slots),
        base + uint64_t(a % slots) * elemBytes);
  }
}

/// Calls f(d, pe, byteAddress) for every device address of `l` that holds
/// data, in address order: PE by PE, each PE's memory ascending. Filling
/// and checking walk memory sequentially this way, where data order jumps
/// to another PE on every element (most of a large --run's time).
template <typename F>
void forEachAddress(const AffineLayout &l, unsigned elemBytes, uint64_t base,
                    F &&f) {
  AffineDecoder decoder(l);
  uint64_t slots = uint64_t(1) << l.mBits;
  for (uint64_t pe = 0; pe < (uint64_t(1) << l.pBits); ++pe)
    for (uint64_t s = 0; s < slots; ++s) {
      uint64_t a = s | pe << l.mBits;
      if (l.holds(a))
        f(decoder.dataAt(a), unsigned(pe), base + s * elemBytes);
    }
}

/// Byte `byte` of element `d` of the data set `tag`: every byte depends on
/// both, so a misplaced element shows even in 8-bit arrays.
uint8_t patternByte(uint64_t d, uint64_t tag, unsigned byte);

/// Writes data set `tag` in layout `l` at `base`.
void storePattern(MasPar &m, const BitLayout &l, unsigned elemBytes,
                  uint64_t base, uint64_t tag);

/// How many elements of `l` at `base` do not hold data set `tag`.
uint64_t countMismatches(const MasPar &m, const BitLayout &l,
                         unsigned elemBytes, uint64_t base, uint64_t tag);

/// The same for affine layouts (Gray codes, 001), on any machine whose
/// node memories `memoryOf(node)` gives.
void storePattern(const std::function<uint8_t *(unsigned)> &memoryOf,
                  const AffineLayout &l, unsigned elemBytes, uint64_t base,
                  uint64_t tag);
uint64_t
countMismatches(const std::function<const uint8_t *(unsigned)> &memoryOf,
                const AffineLayout &l, unsigned elemBytes, uint64_t base,
                uint64_t tag);

/// The same for general layouts (003 ch. 6) on the MasPar.
void storePattern(const std::function<uint8_t *(unsigned)> &memoryOf,
                  const TileMap &l, unsigned elemBytes, uint64_t base,
                  uint64_t tag);
uint64_t
countMismatches(const std::function<const uint8_t *(unsigned)> &memoryOf,
                const TileMap &l, unsigned elemBytes, uint64_t base,
                uint64_t tag);

/// FNV-1a (64 bits) over every byte of every PE's memory, PE by PE: two
/// runs that leave the same memory image give the same digest.
uint64_t memoryDigest(const MasPar &m);
/// The same over every node of a hypercube or mesh (`--memory-digest`).
uint64_t memoryDigest(const NetworkMachine &m);

} // namespace mapc::rt

#endif
