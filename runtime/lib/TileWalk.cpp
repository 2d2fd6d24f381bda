//===- TileWalk.cpp - a layout's addresses in data order (see header) -----===//
#include "mapc/runtime/TileWalk.h"

#include <cstddef>

using namespace mapc::rt;

bool TileWalk::walkable(const TileMap &t) {
  return !t.replicates() && t.groups.size() >= t.data.size() &&
         t.m.size() == t.device.size();
}

TileWalk::TileWalk(const TileMap &t) : t(t) {
  digits.resize(t.kdims.size());
  for (unsigned i = 0; i < t.device.size(); ++i) {
    int64_t radix = 1;
    for (unsigned l : t.m[i]) {
      const KDim &kd = t.kdims[l];
      digits[l] = {kd.k,
                   kd.tk,
                   kd.otk,
                   kd.ok,
                   radix,
                   i,
                   kd.sense == Sense::Minus,
                   kd.enc == Encoding::Gray};
      radix *= kd.tk;
    }
  }
  sum.assign(t.device.size(), 0);
  int64_t p = 1;
  for (const SpaceDim &s : t.device) {
    place.push_back(p);
    p *= s.tlen;
  }
  // Every digit starts at 0 (empty dims stay there), then each data dim is
  // set to the position of its index 0.
  for (Digit &d : digits)
    sum[d.device] += term(d, 0);
  unsigned l = 0;
  for (unsigned j = 0; j < t.data.size(); ++j) {
    const SpaceDim &s = t.data[j];
    dims.push_back(
        {s.len, s.len > 0 ? s.off % s.len : 0, s.toff, 0, l, t.groups[j]});
    l += t.groups[j];
    if (s.len > 0)
      setDim(dims.back(), dims.back().off + s.toff);
  }
}

// templateIndex's K -> T_K and addressOf's encoding and sense, for one digit.
int64_t TileWalk::term(const Digit &d, int64_t w) const {
  int64_t x = d.ok == kReplicated ? d.otk : d.otk + (w + d.ok) % d.k;
  if (d.gray)
    x = int64_t(grayEncode(uint64_t(x)));
  if (d.minus)
    x = d.tk - 1 - x;
  return x * d.radix;
}

void TileWalk::set(Digit &d, int64_t w) {
  sum[d.device] += term(d, w) - term(d, d.w);
  d.w = w;
}

void TileWalk::setDim(const Dim &dim, int64_t u) {
  for (unsigned g = 0; g < dim.count; ++g) {
    Digit &d = digits[dim.first + g];
    set(d, u % d.k);
    u /= d.k;
  }
}

int64_t TileWalk::address() const {
  int64_t addr = 0;
  for (size_t i = 0; i < sum.size(); ++i) {
    const SpaceDim &s = t.device[i];
    addr += (s.toff + (sum[i] + s.off) % s.len) * place[i];
  }
  return addr;
}

void TileWalk::next() {
  ++index_;
  for (Dim &dim : dims) {
    if (++dim.i == dim.len) {
      // This dim starts over; the next one moves on.
      dim.i = 0;
      setDim(dim, dim.off + dim.toff);
      continue;
    }
    if (dim.i + dim.off == dim.len) {
      // The wrap-around offset (003 3.2.4) comes back to the start.
      setDim(dim, dim.toff);
      return;
    }
    // The odometer: the lowest digit up, carrying.
    for (unsigned g = 0; g < dim.count; ++g) {
      Digit &d = digits[dim.first + g];
      if (d.w + 1 < d.k) {
        set(d, d.w + 1);
        return;
      }
      set(d, 0);
    }
    return;
  }
}
