//===- AffineProbe.cpp - the GF(2)-affine form of a radix-2 k-Tile format -===//
#include "AffineProbe.h"

#include <random>

using namespace mapc;
using namespace mapc::native;

static bool powerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static unsigned log2Of(int64_t v) {
  return unsigned(63 - __builtin_clzll(uint64_t(v)));
}

/// The structural conditions of AffineProbe.h on the format's fields.
static bool radix2Plain(const rt::TileMap &t) {
  auto plainSpace = [](const rt::SpaceDim &s) {
    return powerOfTwo(s.len) && s.tlen == s.len && s.off == 0 && s.toff == 0;
  };
  for (const rt::SpaceDim &s : t.data)
    if (!plainSpace(s))
      return false;
  for (const rt::SpaceDim &s : t.device)
    if (!plainSpace(s))
      return false;
  unsigned firstEmpty = t.firstEmptyDim();
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    const rt::KDim &d = t.kdims[l];
    if (!powerOfTwo(d.k) || d.tk != d.k || d.otk != 0 ||
        d.ok == rt::kReplicated)
      return false;
    // A data dim's o_K rotates its values (an addition, not affine); an
    // empty dim's o_K only names the one value that holds data.
    if (l < firstEmpty && d.ok != 0)
      return false;
  }
  return true;
}

std::optional<rt::AffineLayout>
mapc::native::affineFormOf(const rt::TileMap &t) {
  if (!radix2Plain(t))
    return std::nullopt;
  int64_t size = t.deviceSize(), data = t.dataSize();
  std::vector<int64_t> shape = t.deviceShape();
  if (!powerOfTwo(size) || !powerOfTwo(data) || shape.empty() ||
      !powerOfTwo(shape[0]) || log2Of(size) >= 63)
    return std::nullopt;
  rt::AffineLayout l;
  l.mBits = log2Of(shape[0]);
  l.pBits = log2Of(size) - l.mBits;
  l.dataBits = log2Of(data);
  l.row.assign(l.bits(), 0);
  // Columns from dataBits + 1 evaluations: address(d) = C d xor c.
  uint64_t c = uint64_t(t.firstAddressOf(0)), touched = 0;
  for (unsigned j = 0; j < l.dataBits; ++j) {
    uint64_t col = uint64_t(t.firstAddressOf(int64_t(1) << j)) ^ c;
    touched |= col;
    for (uint64_t b = col; b; b &= b - 1)
      l.row[unsigned(__builtin_ctzll(b))] |= uint64_t(1) << j;
  }
  uint64_t all = l.bits() >= 64 ? ~uint64_t(0) : (uint64_t(1) << l.bits()) - 1;
  l.disabled = all & ~touched;
  l.constant = c;
  // Every data index has one address only if the enabled rows are dataBits
  // independent vectors (valid() checks it).
  if (!l.valid())
    return std::nullopt;
  // The fields already make the map affine; a few samples guard against a
  // format this reasoning missed.
  std::mt19937_64 rng(uint64_t(data) * 31 + uint64_t(size));
  for (int trial = 0; trial < 64; ++trial) {
    uint64_t d = rng() & uint64_t(data - 1);
    if (uint64_t(t.firstAddressOf(int64_t(d))) != l.addressOf(d))
      return std::nullopt;
    uint64_t a = rng() & uint64_t(size - 1);
    int64_t held = t.dataAt(int64_t(a));
    if (held < 0 ? l.holds(a) : l.addressOf(uint64_t(held)) != a)
      return std::nullopt;
  }
  return l;
}

rt::DeviceLayout mapc::native::withAffineForm(const rt::DeviceLayout &layout) {
  if (layout.affine() || !layout.tile())
    return layout;
  std::optional<rt::AffineLayout> form = affineFormOf(*layout.tile());
  if (!form)
    return layout;
  return rt::DeviceLayout::fromTile(*layout.tile(), std::move(form));
}
