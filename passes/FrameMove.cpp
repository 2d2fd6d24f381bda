//===- FrameMove.cpp - a digit permutation read off its digits ------------===//
#include "passes/FrameMove.h"

#include <algorithm>

using namespace mapc;

std::vector<unsigned> mapc::frameDigitsOf(const rt::TileMap &t, size_t dim) {
  std::vector<unsigned> out;
  for (unsigned l : t.m[dim])
    if (t.kdims[l].tk > 1)
      out.push_back(l);
  return out;
}

std::vector<int64_t> mapc::frameDigitSums(const rt::TileMap &t, size_t dim,
                                          const std::vector<int64_t> &weight) {
  DigitOdometer digits;
  for (unsigned l : t.m[dim])
    if (t.kdims[l].tk > 1)
      digits.add(t.kdims[l].tk, weight[l]);
  const int64_t n = dim == 0 ? rt::slotsOf(t) : rt::pesOf(t);
  std::vector<int64_t> out(size_t(n), 0);
  int64_t sum = 0;
  for (int64_t v = 0; v < n; ++v) {
    out[size_t(v)] = sum;
    digits.step(sum);
  }
  return out;
}

std::vector<int64_t> mapc::countedDown(const rt::TileMap &from,
                                       const rt::TileMap &to,
                                       std::vector<int64_t> weight,
                                       int64_t &offset) {
  for (size_t l = 0; l < weight.size(); ++l)
    if (from.kdims[l].sense != to.kdims[l].sense) {
      offset += (from.kdims[l].tk - 1) * weight[l];
      weight[l] = -weight[l];
    }
  return weight;
}

std::vector<uint32_t> mapc::frameSources(const rt::TileMap &from,
                                         const rt::TileMap &to) {
  std::vector<uint32_t> src;
  frameSources(from, to, src);
  return src;
}

void mapc::frameSources(const rt::TileMap &from, const rt::TileMap &to,
                        std::vector<uint32_t> &src) {
  // Walk `to`'s cells in order: its device digits, least significant
  // first, count like an odometer, and the source cell moves by each
  // digit's weight in `from`'s linear address.
  // A digit reversed on one side only holds b - 1 - u where the other
  // holds u: it counts down from its top (003 3.2.2's sense).
  const DigitWeights wf(from);
  const int64_t fromSlots = rt::slotsOf(from);
  DigitOdometer cellsOfTo;
  int64_t at = 0;
  for (const auto &dim : to.m)
    for (unsigned l : dim)
      if (const int64_t b = to.kdims[l].tk; b > 1) {
        const int64_t w = wf.slot[l] + wf.pe[l] * fromSlots;
        const bool flips = from.kdims[l].sense != to.kdims[l].sense;
        cellsOfTo.add(b, flips ? -w : w);
        at += flips ? (b - 1) * w : 0;
      }
  src.assign(size_t(to.deviceSize()), 0);
  // The lowest digit is a plain loop; the odometer turns the others.
  int64_t lowBase = 1, lowWeight = 0;
  if (!cellsOfTo.base.empty()) {
    lowBase = cellsOfTo.base[0];
    lowWeight = cellsOfTo.weight[0];
    cellsOfTo.base[0] = 1; // always 0 in the odometer
  }
  for (size_t c = 0; c < src.size();) {
    for (int64_t v = 0, a = at; v < lowBase && c < src.size();
         ++v, a += lowWeight)
      src[c++] = uint32_t(a);
    cellsOfTo.step(at);
  }
}

FrameShape mapc::frameShape(const rt::TileMap &from, const rt::TileMap &to,
                            bool withLeaving) {
  const DigitWeights wf(from), wt(to);
  // A digit reversed on one side only takes every value u to b - 1 - u.
  auto flips = [&](unsigned l) {
    return from.kdims[l].sense != to.kdims[l].sense;
  };
  FrameShape s;
  for (unsigned l = 0; l < from.kdims.size(); ++l) {
    if (from.kdims[l].tk < 2)
      continue; // always 0: no weight matters
    s.local &= wf.pe[l] == wt.pe[l] && (wf.pe[l] == 0 || !flips(l));
    s.keepsSlots &= wf.slot[l] == wt.slot[l] && (wf.slot[l] == 0 || !flips(l));
    s.slotUniformFrom &= wt.slot[l] == 0 || wf.slot[l] != 0;
    s.slotUniformTo &= wf.slot[l] == 0 || wt.slot[l] != 0;
  }
  if (!withLeaving)
    return s;
  // PE by PE of the source (its digits as an odometer, tracking the part
  // of the destination PE they give), the source memory digits bound for
  // the PEs as another: a value whose destination PE is the source's
  // stays, for every value of the memory digits that stay in memory
  // (`perValue` of them).
  DigitOdometer sourcePe, toPes;
  int64_t part = 0, toPesAt = 0; // the odometers' sums at value 0
  auto add = [&](DigitOdometer &o, int64_t &at, unsigned l) {
    const int64_t b = from.kdims[l].tk, w = wt.pe[l];
    o.add(b, flips(l) ? -w : w);
    at += flips(l) ? (b - 1) * w : 0;
  };
  for (unsigned l : from.m[1])
    if (from.kdims[l].tk > 1)
      add(sourcePe, part, l);
  int64_t perValue = 1;
  for (unsigned l = 0; l < from.kdims.size(); ++l)
    if (from.kdims[l].tk > 1 && wf.pe[l] == 0) {
      if (wt.pe[l] != 0)
        add(toPes, toPesAt, l);
      else
        perValue *= from.kdims[l].tk;
    }
  const int64_t fromPes = rt::pesOf(from), fromSlots = rt::slotsOf(from);
  s.leaving.assign(size_t(std::max<int64_t>(1, fromPes)), 0);
  for (int64_t p = 0; p < fromPes; ++p) {
    int64_t stays = 0, dest = part + toPesAt;
    do
      stays += dest == p;
    while (toPes.step(dest));
    s.leaving[size_t(p)] = fromSlots - stays * perValue;
    sourcePe.step(part);
  }
  return s;
}
