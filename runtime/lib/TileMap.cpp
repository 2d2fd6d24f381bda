//===- TileMap.cpp - g_K and its inverse (003 3.2.6) ----------------------===//
#include "mapc/runtime/TileMap.h"

#include <cstddef>
#include <limits>

using namespace mapc::rt;

int64_t mapc::rt::satMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::numeric_limits<int64_t>::max();
  return r;
}

unsigned TileMap::firstEmptyDim() const {
  unsigned n = 0;
  for (unsigned j = 0; j < data.size() && j < groups.size(); ++j)
    n += groups[j];
  return n;
}

/// The saturating product of a length field over a space's dims.
static int64_t product(const std::vector<SpaceDim> &dims,
                       int64_t SpaceDim::*length) {
  int64_t n = 1;
  for (const SpaceDim &s : dims)
    n = satMul(n, s.*length);
  return n;
}

int64_t TileMap::dataSize() const { return product(data, &SpaceDim::len); }

std::vector<int64_t> TileMap::deviceShape() const {
  std::vector<int64_t> shape;
  for (const SpaceDim &s : device)
    shape.push_back(s.tlen);
  return shape;
}

int64_t TileMap::deviceSize() const { return product(device, &SpaceDim::tlen); }

static bool sameDims(const std::vector<SpaceDim> &a,
                     const std::vector<SpaceDim> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].len != b[i].len || a[i].tlen != b[i].tlen ||
        a[i].off != b[i].off || a[i].toff != b[i].toff)
      return false;
  return true;
}

bool TileMap::operator==(const TileMap &o) const {
  if (!sameDims(data, o.data) || !sameDims(device, o.device) ||
      groups != o.groups || m != o.m || kdims.size() != o.kdims.size())
    return false;
  for (size_t i = 0; i < kdims.size(); ++i) {
    const KDim &x = kdims[i], &y = o.kdims[i];
    if (x.k != y.k || x.tk != y.tk || x.otk != y.otk || x.ok != y.ok ||
        x.sense != y.sense || x.enc != y.enc)
      return false;
  }
  return true;
}

bool TileMap::replicates() const {
  for (const KDim &kd : kdims)
    if (kd.ok == kReplicated && kd.k > 1)
      return true;
  return false;
}

int64_t TileMap::dataAt(int64_t addr) const {
  // Formats have few k-Tile dims; a fixed buffer keeps this allocation-free.
  int64_t wBuf[64];
  std::vector<int64_t> wHeap;
  int64_t *w = wBuf;
  if (kdims.size() > 64) {
    wHeap.resize(kdims.size());
    w = wHeap.data();
  }
  // otemplate(t_D, d, o_TD, o_D), then skmap^-1 per device dim.
  for (unsigned i = 0; i < device.size(); ++i) {
    const SpaceDim &s = device[i];
    int64_t v = addr % s.tlen;
    addr /= s.tlen;
    if (v < s.toff || v >= s.toff + s.len)
      return -1;
    int64_t b = (v - s.toff + s.len - s.off) % s.len;
    for (unsigned l : m[i]) {
      const KDim &kd = kdims[l];
      int64_t x = b % kd.tk;
      b /= kd.tk;
      if (kd.sense == Sense::Minus)
        x = kd.tk - 1 - x;
      if (kd.enc == Encoding::Gray)
        x = int64_t(grayDecode(uint64_t(x)));
      w[l] = x;
    }
  }
  // otemplate*(t_K, k, o_TK, o_K).
  unsigned firstEmpty = firstEmptyDim();
  for (unsigned l = 0; l < kdims.size(); ++l) {
    const KDim &kd = kdims[l];
    if (w[l] < kd.otk || w[l] >= kd.otk + kd.k)
      return -1;
    int64_t b =
        kd.ok == kReplicated ? 0 : (w[l] - kd.otk + kd.k - kd.ok) % kd.k;
    if (l >= firstEmpty && b != 0)
      return -1;
    w[l] = b;
  }
  // ikmap(k, t_A) and otemplate(t_A, a, o_TA, o_A), linearised.
  int64_t linear = 0, place = 1;
  unsigned l = 0;
  for (unsigned j = 0; j < data.size(); ++j) {
    int64_t u = 0, radix = 1;
    for (unsigned g = 0; g < groups[j]; ++g, ++l) {
      u += w[l] * radix;
      radix *= kdims[l].k;
    }
    const SpaceDim &s = data[j];
    if (u < s.toff || u >= s.toff + s.len)
      return -1;
    linear += ((u - s.toff + s.len - s.off) % s.len) * place;
    place *= s.len;
  }
  return linear;
}

void TileMap::templateIndex(int64_t dataIndex, int64_t *w) const {
  // Back through the data template to K (unique).
  unsigned l = 0;
  for (unsigned j = 0; j < data.size(); ++j) {
    const SpaceDim &s = data[j];
    int64_t i = dataIndex % s.len;
    dataIndex /= s.len;
    int64_t u = (i + s.off) % s.len + s.toff;
    for (unsigned g = 0; g < groups[j]; ++g, ++l) {
      w[l] = u % kdims[l].k;
      u /= kdims[l].k;
    }
  }
  for (; l < kdims.size(); ++l)
    w[l] = 0;
  // K -> T_K: replicated dims start at their first value.
  for (unsigned d = 0; d < kdims.size(); ++d) {
    const KDim &kd = kdims[d];
    w[d] = kd.ok == kReplicated ? kd.otk : kd.otk + (w[d] + kd.ok) % kd.k;
  }
}

int64_t TileMap::firstAddressOf(int64_t dataIndex) const {
  // Formats have few k-Tile dims; a fixed buffer keeps this allocation-free.
  int64_t buf[64];
  std::vector<int64_t> heap;
  int64_t *w = buf;
  if (kdims.size() > 64) {
    heap.resize(kdims.size());
    w = heap.data();
  }
  templateIndex(dataIndex, w);
  return addressOf(w);
}

TileMap::Cursor TileMap::start(int64_t dataIndex) const {
  Cursor c;
  c.w.assign(kdims.size(), 0);
  templateIndex(dataIndex, c.w.data());
  c.address = addressOf(c.w.data());
  return c;
}

bool TileMap::next(Cursor &c) const {
  // Odometer over the replicated dims.
  for (unsigned d = 0; d < kdims.size(); ++d) {
    const KDim &kd = kdims[d];
    if (kd.ok != kReplicated)
      continue;
    if (++c.w[d] < kd.otk + kd.k) {
      c.address = addressOf(c.w.data());
      return true;
    }
    c.w[d] = kd.otk;
  }
  return false;
}

int64_t TileMap::addressOf(const int64_t *w) const {
  int64_t addr = 0, place = 1;
  for (unsigned i = 0; i < device.size(); ++i) {
    const SpaceDim &s = device[i];
    int64_t u = 0, radix = 1;
    for (unsigned d : m[i]) {
      const KDim &kd = kdims[d];
      int64_t x = w[d];
      if (kd.enc == Encoding::Gray)
        x = int64_t(grayEncode(uint64_t(x)));
      if (kd.sense == Sense::Minus)
        x = kd.tk - 1 - x;
      u += x * radix;
      radix *= kd.tk;
    }
    int64_t v = s.toff + (u + s.off) % s.len;
    addr += v * place;
    place *= s.tlen;
  }
  return addr;
}
