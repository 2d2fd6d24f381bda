//===- FrameMove.cpp - a digit permutation read off its digits ------------===//
#include "passes/FrameMove.h"

#include "mapc/runtime/MasPar.h"

#include <algorithm>

using namespace mapc;

namespace {

/// Each digit's weight in a frame's slot number and in its PE number (003
/// 3.2.2's skmap per digit): one of the two is 0.
struct Weights {
  std::vector<int64_t> slot, pe;
  explicit Weights(const rt::TileMap &t)
      : slot(t.kdims.size(), 0), pe(t.kdims.size(), 0) {
    for (size_t dim = 0; dim < 2; ++dim) {
      int64_t place = 1;
      for (unsigned l : t.m[dim]) {
        (dim == 0 ? slot : pe)[l] = place;
        place *= t.kdims[l].tk;
      }
    }
  }
};

/// An odometer over some digits, least significant first: `step` moves
/// to the next value and returns what `weight` adds to a sum of
/// digit x weight, false after the last.
struct Odometer {
  std::vector<int64_t> base, weight, value;
  void add(int64_t b, int64_t w) {
    base.push_back(b);
    weight.push_back(w);
    value.push_back(0);
  }
  bool step(int64_t &sum) {
    for (size_t i = 0; i < base.size(); ++i) {
      if (++value[i] < base[i]) {
        sum += weight[i];
        return true;
      }
      value[i] = 0;
      sum -= (base[i] - 1) * weight[i];
    }
    return false;
  }
};

} // namespace

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
  const Weights wf(from);
  const int64_t fromSlots = rt::slotsOf(from);
  Odometer cellsOfTo;
  for (const auto &dim : to.m)
    for (unsigned l : dim)
      if (to.kdims[l].tk > 1)
        cellsOfTo.add(to.kdims[l].tk, wf.slot[l] + wf.pe[l] * fromSlots);
  src.assign(size_t(to.deviceSize()), 0);
  // The lowest digit is a plain loop; the odometer turns the others.
  int64_t lowBase = 1, lowWeight = 0;
  if (!cellsOfTo.base.empty()) {
    lowBase = cellsOfTo.base[0];
    lowWeight = cellsOfTo.weight[0];
    cellsOfTo.base[0] = 1; // always 0 in the odometer
  }
  int64_t at = 0;
  for (size_t c = 0; c < src.size();) {
    for (int64_t v = 0, a = at; v < lowBase && c < src.size();
         ++v, a += lowWeight)
      src[c++] = uint32_t(a);
    cellsOfTo.step(at);
  }
}

FrameShape mapc::frameShape(const rt::TileMap &from, const rt::TileMap &to,
                            bool withLeaving) {
  const Weights wf(from), wt(to);
  FrameShape s;
  for (size_t l = 0; l < from.kdims.size(); ++l) {
    if (from.kdims[l].tk < 2)
      continue; // always 0: no weight matters
    s.local &= wf.pe[l] == wt.pe[l];
    s.keepsSlots &= wf.slot[l] == wt.slot[l];
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
  Odometer sourcePe, toPes;
  for (unsigned l : from.m[1])
    if (from.kdims[l].tk > 1)
      sourcePe.add(from.kdims[l].tk, wt.pe[l]);
  int64_t perValue = 1;
  for (size_t l = 0; l < from.kdims.size(); ++l)
    if (from.kdims[l].tk > 1 && wf.pe[l] == 0) {
      if (wt.pe[l] != 0)
        toPes.add(from.kdims[l].tk, wt.pe[l]);
      else
        perValue *= from.kdims[l].tk;
    }
  const int64_t fromPes = rt::pesOf(from), fromSlots = rt::slotsOf(from);
  s.leaving.assign(size_t(std::max<int64_t>(1, fromPes)), 0);
  int64_t part = 0;
  for (int64_t p = 0; p < fromPes; ++p) {
    int64_t stays = 0, dest = part;
    do
      stays += dest == p;
    while (toPes.step(dest));
    s.leaving[size_t(p)] = fromSlots - stays * perValue;
    sourcePe.step(part);
  }
  return s;
}

namespace {

/// Whether the machine has every PE of both layouts: runGeneralStep fails a
/// step otherwise.
bool fitsMachine(const rt::TileMap &from, const rt::TileMap &to,
                 const rt::MachineShape &shape) {
  return rt::pesOf(from) <= int64_t(shape.peCount()) &&
         rt::pesOf(to) <= int64_t(shape.peCount());
}

/// The widths GeneralExecute.cpp moves elements in: transfers of up to 8
/// bytes, `xfers` of them an element.
struct Transfers {
  unsigned bytes;
  int64_t count;
  explicit Transfers(unsigned elemBytes)
      : bytes(std::min(elemBytes, 8u)), count(elemBytes / bytes) {}
};

} // namespace

int64_t mapc::frameLocalTicks(const rt::TileMap &from, const rt::TileMap &to,
                              bool inPlace, unsigned elemBytes,
                              const rt::MachineShape &shape,
                              const rt::CostModel &cost) {
  if (!fitsMachine(from, to, shape))
    return -1;
  const Weights wf(from), wt(to);
  for (size_t l = 0; l < from.kdims.size(); ++l)
    if (from.kdims[l].tk > 1 && wf.pe[l] != wt.pe[l])
      return -1; // an element changes PE
  const Transfers x(elemBytes);
  const unsigned w = rt::widthIndex(x.bytes);
  const int64_t perSlot = x.count * (cost.load[w] + cost.store(w));
  const int64_t slots = rt::slotsOf(to);
  if (!inPlace)
    return slots * perSlot;
  // The PE digits stay, so the memory digits are the same on both sides:
  // walk the destination's, summing how far each moves the source slot
  // from the destination slot; the fixed slots sum to 0.
  Odometer memory;
  for (unsigned l : to.m[0])
    if (to.kdims[l].tk > 1)
      memory.add(to.kdims[l].tk, wf.slot[l] - wt.slot[l]);
  int64_t fixed = 0, offset = 0;
  do
    fixed += offset == 0;
  while (memory.step(offset));
  return (slots - fixed) * perSlot;
}

int64_t mapc::frameSlotwiseTicks(const rt::TileMap &from, const rt::TileMap &to,
                                 bool inPlace, unsigned elemBytes,
                                 const rt::MachineShape &shape,
                                 const rt::CostModel &cost) {
  if (!fitsMachine(from, to, shape))
    return -1;
  const Weights wf(from), wt(to);
  for (size_t l = 0; l < from.kdims.size(); ++l)
    if (from.kdims[l].tk > 1 && wt.slot[l] != 0 && wf.slot[l] == 0)
      return -1; // a source slot feeds two destination slots
  const int64_t fromSlots = rt::slotsOf(from), toSlots = rt::slotsOf(to),
                fromPes = rt::pesOf(from), toPes = rt::pesOf(to);
  // Source slot by slot: its destination slot and the part of the
  // destination PE its digits give (`shift`), as one odometer over the
  // source memory digits summing shift x toSlots + slot.
  std::vector<int64_t> target(static_cast<size_t>(fromSlots)),
      shift(static_cast<size_t>(fromSlots));
  {
    Odometer memory;
    for (unsigned l : from.m[0])
      if (from.kdims[l].tk > 1)
        memory.add(from.kdims[l].tk, wt.slot[l] + wt.pe[l] * toSlots);
    int64_t at = 0;
    for (size_t s = 0; s < target.size(); ++s, memory.step(at)) {
      target[s] = at % toSlots;
      shift[s] = at / toSlots;
      if (inPlace && target[s] != int64_t(s))
        return -1; // an in-place slotwise step must keep every slot
    }
  }
  // Each source PE's destination PE for shift 0: the source PE digits all
  // go to the destination's PEs (else a slot would feed two).
  std::vector<int64_t> basePe(static_cast<size_t>(fromPes));
  {
    Odometer pes;
    for (unsigned l : from.m[1])
      if (from.kdims[l].tk > 1)
        pes.add(from.kdims[l].tk, wt.pe[l]);
    int64_t at = 0;
    for (size_t p = 0; p < basePe.size(); ++p, pes.step(at))
      basePe[p] = at;
  }
  rt::MasPar m =
      rt::MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  // Per shift met: whether some PE sends to another, whether some keeps
  // its element, and the send's price per width (-1 until priced).
  struct Sends {
    bool known = false, moving = false, staying = false;
    int64_t ticks[4] = {-1, -1, -1, -1};
  };
  std::vector<Sends> byShift(size_t(std::max<int64_t>(1, toPes)));
  rt::Plural dest(m.peCount(), 0);
  rt::Mask active(m.peCount(), 0);
  auto sendsOf = [&](int64_t k) -> Sends & {
    Sends &sends = byShift[size_t(k)];
    if (!sends.known)
      for (int64_t p = 0; p < fromPes; ++p) {
        const bool stays = basePe[size_t(p)] + k == p;
        sends.moving |= !stays;
        sends.staying |= stays && !inPlace;
      }
    sends.known = true;
    return sends;
  };
  auto sendTicks = [&](int64_t k, unsigned bytes) {
    int64_t &t = byShift[size_t(k)].ticks[rt::widthIndex(bytes)];
    if (t < 0) {
      for (int64_t p = 0; p < fromPes; ++p) {
        const int64_t q = basePe[size_t(p)] + k;
        active[size_t(p)] = q != p;
        dest[size_t(p)] = uint64_t(q);
      }
      t = m.cheaperRouterCost(bytes, dest, active);
    }
    return t;
  };
  // runSlotwise's chunks (003 5.6.3): up to 64 bits of neighbouring source
  // slots with the same pairs (the same shift: another shift sends every PE
  // elsewhere) bound for neighbouring slots, a power of two of them.
  const Transfers x(elemBytes);
  const bool chunks =
      x.count == 1 && (elemBytes & (elemBytes - 1)) == 0 && elemBytes < 8;
  const unsigned most = chunks ? 8 / elemBytes : 1;
  int64_t ticks = 0;
  for (int64_t s = 0; s < fromSlots;) {
    unsigned run = 1;
    while (run < most && s + run < fromSlots &&
           target[size_t(s + run)] == target[size_t(s)] + int64_t(run) &&
           shift[size_t(s + run)] == shift[size_t(s)])
      ++run;
    unsigned chunk = 1;
    while (chunk * 2 <= run)
      chunk *= 2;
    const unsigned bytes = x.bytes * chunk;
    const unsigned wb = rt::widthIndex(bytes);
    const Sends &k = sendsOf(shift[size_t(s)]);
    int64_t perTransfer = cost.load[wb];
    if (k.moving)
      perTransfer += sendTicks(shift[size_t(s)], bytes);
    if (k.moving || k.staying)
      perTransfer += cost.store(wb);
    ticks += x.count * perTransfer;
    s += chunk;
  }
  return ticks;
}
