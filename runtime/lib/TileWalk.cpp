//===- TileWalk.cpp - a layout's addresses in data order (see header) -----===//
#include "mapc/runtime/TileWalk.h"

#include <algorithm>
#include <cstddef>
#include <vector>

using namespace mapc::rt;

bool TileWalk::walkable(const TileMap &t) {
  if (t.replicates() || t.groups.size() < t.data.size() ||
      t.m.size() != t.device.size())
    return false;
  // Every k-Tile dim in one device dim, each of some length.
  std::vector<unsigned> seen(t.kdims.size(), 0);
  for (const auto &group : t.m)
    for (unsigned l : group)
      if (l >= seen.size() || seen[l]++)
        return false;
  for (size_t l = 0; l < t.kdims.size(); ++l)
    if (!seen[l] || t.kdims[l].k < 1 ||
        (t.kdims[l].ok != kReplicated &&
         (t.kdims[l].ok < 0 || t.kdims[l].ok >= t.kdims[l].k)))
      return false;
  for (const SpaceDim &s : t.device)
    if (s.len < 1)
      return false;
  return true;
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
      Digit &d = digits[l];
      // term() is (otk + (w + ok) mod k) radix, reversed if minus: a step
      // of w moves it by one radix until w + ok reaches k.
      d.step = d.minus ? -radix : radix;
      d.fastBelow = d.gray                ? int64_t(0)
                    : d.ok == kReplicated ? d.k
                                          : d.k - d.ok;
      if (d.ok == kReplicated)
        d.step = 0;
      radix *= kd.tk;
    }
  }
  sum.assign(t.device.size(), 0);
  int64_t p = 1;
  for (const SpaceDim &s : t.device) {
    device.push_back({s.len, s.len > 0 ? s.off % s.len : 0, s.toff, p});
    p *= s.tlen;
  }
  // Every digit starts at 0 (empty dims stay there), then each data dim is
  // set to the position of its index 0.
  for (Digit &d : digits) {
    d.term = term(d, 0);
    sum[d.device] += d.term;
  }
  // No wrap-around when every position stays below its dim's length: the
  // largest term of each digit summed (a Gray digit's is not bounded so
  // simply: such walks wrap as before).
  std::vector<int64_t> most(device.size(), 0);
  linear_ = true;
  for (const Digit &d : digits) {
    const int64_t top = d.minus               ? d.tk - 1 - d.otk
                        : d.ok == kReplicated ? d.otk
                                              : d.otk + d.k - 1;
    linear_ &= !d.gray;
    most[d.device] += std::max<int64_t>(top, 0) * d.radix;
  }
  for (size_t i = 0; i < device.size(); ++i)
    linear_ &= device[i].off + most[i] < device[i].len;
  unsigned l = 0;
  for (unsigned j = 0; j < t.data.size(); ++j) {
    const SpaceDim &s = t.data[j];
    dims.push_back(
        {s.len, s.len > 0 ? s.off % s.len : 0, s.toff, 0, l, t.groups[j]});
    l += t.groups[j];
    if (s.len > 0)
      setDim(dims.back(), dims.back().off + s.toff);
  }
  addr_ = 0;
  for (size_t i = 0; i < device.size(); ++i)
    addr_ += (device[i].toff + sum[i] + device[i].off) * device[i].place;
}

void TileWalk::setDim(const Dim &dim, int64_t u) {
  for (unsigned g = 0; g < dim.count; ++g) {
    Digit &d = digits[dim.first + g];
    set(d, u % d.k);
    u /= d.k;
  }
}

void TileWalk::carry() {
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
