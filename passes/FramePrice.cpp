//===- FramePrice.cpp - steps between digit frames priced from their digits
//===//
#include "passes/FramePrice.h"
#include "passes/FrameExchange.h"
#include "passes/FrameMove.h"

#include "mapc/runtime/DigitCount.h"
#include "mapc/runtime/MasPar.h"

#include <algorithm>
#include <map>

using namespace mapc;
using rt::GeneralStepKind;

bool mapc::isDigitFrame(const rt::TileMap &t) {
  if (t.device.size() != 2 || t.m.size() != 2)
    return false;
  for (size_t i = 0; i < 2; ++i) {
    const rt::SpaceDim &d = t.device[i];
    if (d.len != d.tlen || d.off || d.toff || t.m[i].empty())
      return false;
    int64_t n = 1;
    for (unsigned l : t.m[i]) {
      const rt::KDim &k = t.kdims[l];
      if (k.k != k.tk || k.otk || k.enc != rt::Encoding::Binary)
        return false;
      n = rt::satMul(n, k.tk);
    }
    if (n != d.len)
      return false;
  }
  return true;
}

bool mapc::everyCellHeld(const rt::TileMap &t) {
  for (const rt::KDim &k : t.kdims)
    if (!(k.k == k.tk && k.otk == 0 && k.ok == 0))
      return false;
  if (t.groups.size() != t.data.size())
    return false;
  unsigned l = 0;
  for (size_t i = 0; i < t.data.size(); ++i) {
    const rt::SpaceDim &d = t.data[i];
    int64_t n = 1;
    for (unsigned g = 0; g < t.groups[i]; ++g)
      n = rt::satMul(n, t.kdims[l++].k);
    if (d.len != d.tlen || d.off || d.toff || n != d.len)
      return false;
  }
  return true;
}

bool mapc::heldFramesOverOneFactorisation(const rt::TileMap &a,
                                          const rt::TileMap &b) {
  if (!isDigitFrame(a) || !isDigitFrame(b) || !everyCellHeld(a) ||
      !everyCellHeld(b))
    return false;
  rt::TileMap same = b;
  same.m = a.m;
  same.device = a.device;
  return same == a;
}

bool mapc::heldFramesOverOneFactorisationEitherSense(const rt::TileMap &a,
                                                     const rt::TileMap &b) {
  rt::TileMap same = b;
  for (size_t l = 0; l < same.kdims.size() && l < a.kdims.size(); ++l)
    same.kdims[l].sense = a.kdims[l].sense;
  return heldFramesOverOneFactorisation(a, same);
}

namespace {

/// moveLocal's price (pricing mode): every PE reads the same slot for each
/// slot it writes, so one direct load and store per slot written, or in
/// place (runLocalInPlace) per slot that takes another slot's element,
/// walked along the cycles (a frame's slot map is a permutation: no
/// chains). A memory digit reversed on one side only is read counting down
/// (003 6.1: a permutation of its values).
int64_t localTicks(const rt::TileMap &from, const rt::TileMap &to, bool inPlace,
                   unsigned elemBytes, const rt::CostModel &cost) {
  const DigitWeights wf(from), wt(to);
  bool reversesSlots = false;
  for (size_t l = 0; l < from.kdims.size(); ++l) {
    if (from.kdims[l].tk < 2)
      continue;
    const bool flips = from.kdims[l].sense != to.kdims[l].sense;
    if (wf.pe[l] != wt.pe[l] || (flips && wf.pe[l] != 0))
      return -1; // an element changes PE
    reversesSlots |= flips;
  }
  const unsigned xferBytes = std::min(elemBytes, 8u);
  const int64_t xfers = int64_t(elemBytes / xferBytes);
  const unsigned w = rt::widthIndex(xferBytes);
  const int64_t perSlot = xfers * (cost.load[w] + cost.store(w));
  if (!inPlace)
    return rt::slotsOf(to) * perSlot;
  // Slot t reads the slot its digits give in `from`: it keeps its element
  // iff the two sums agree, counted over the digits (DigitCount.h).
  // With a digit counted down the sums differ by a constant, which the
  // count does not take: the slots are walked.
  const int64_t slots = rt::slotsOf(to);
  std::vector<rt::DigitPlace> digits;
  for (unsigned l : frameDigitsOf(to, 0))
    digits.push_back({to.kdims[l].tk, wt.slot[l], wf.slot[l]});
  if (const std::optional<int64_t> kept =
          reversesSlots
              ? std::nullopt
              : rt::valuesKeptInPlace(
                    digits, size_t(std::max<int64_t>(slots / 16, 64))))
    return (slots - *kept) * perSlot;
  int64_t first = 0;
  const std::vector<int64_t> readSlot =
      frameDigitSums(to, 0, countedDown(to, from, wf.slot, first));
  int64_t moved = 0;
  for (size_t t = 0; t < readSlot.size(); ++t)
    moved += first + readSlot[t] != int64_t(t);
  return moved * perSlot;
}

/// runSlotwise's price (pricing mode) from the digits: source slot s goes
/// to slot target(s), its element on PE p to PE base(p) + key(s), where
/// target and key are sums over the source's memory digits of their
/// weights in the destination's memory and PEs.
///
/// runSlotwise sends runs of slots whose targets follow each other and
/// whose keys agree, up to 64 bits, in chunks of powers of two. The memory
/// digits at the bottom of both frames in one order (product P) keep the
/// targets consecutive and the key fixed in every block of P slots, and a
/// run ends at a block's end unless the digits above let it go on (never,
/// it seems, but it is checked: then the slots are walked one by one). So
/// every block is cut alike: P / most chunks of `most` slots, then the
/// rest in powers of two; and the key runs over the values of the memory
/// digits bound for the PEs, each as often as the others. A digit reversed
/// on one side only counts down (its weights negated, what they add at its
/// top folded into the PE bases): the targets fall along it, so it ends the
/// blocks.
int64_t slotwiseTicks(const rt::TileMap &from, const rt::TileMap &to,
                      bool inPlace, unsigned elemBytes,
                      const rt::MachineShape &shape,
                      const rt::CostModel &cost) {
  const DigitWeights wf(from), wt(to);
  auto flips = [&](unsigned l) {
    return from.kdims[l].sense != to.kdims[l].sense;
  };
  for (size_t l = 0; l < from.kdims.size(); ++l)
    if (from.kdims[l].tk > 1 && wt.slot[l] != 0 && wf.slot[l] == 0)
      return -1; // a source slot feeds two destination slots
  const std::vector<unsigned> fromMem = frameDigitsOf(from, 0),
                              toMem = frameDigitsOf(to, 0);
  if (inPlace)
    for (unsigned l : fromMem)
      if (wt.slot[l] != wf.slot[l] || flips(l))
        return -1; // an in-place slotwise step must keep every slot
  int64_t unusedSlot = 0, peAtTop = 0;
  const std::vector<int64_t> toSlot =
                                 countedDown(from, to, wt.slot, unusedSlot),
                             toPe = countedDown(from, to, wt.pe, peAtTop);
  std::vector<int64_t> base = frameDigitSums(from, 1, toPe);
  for (int64_t &b : base)
    b += peAtTop;
  const int64_t slots = rt::slotsOf(from), pes = int64_t(base.size());
  const unsigned xferBytes = std::min(elemBytes, 8u);
  const int64_t xfers = int64_t(elemBytes / xferBytes);
  // chunkRun's rule: powers of two narrower than 64 bits travel in chunks.
  const bool chunks =
      xfers == 1 && (elemBytes & (elemBytes - 1)) == 0 && elemBytes < 8;
  const int64_t most = chunks ? 8 / elemBytes : 1;

  rt::MasPar m =
      rt::MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  rt::Plural dest(m.peCount(), 0);
  rt::Mask active(m.peCount(), 0);
  // Per key and send width: the router price of the PEs that send away,
  // and whether any keeps its element.
  struct Sends {
    int64_t router = 0;
    bool leaves = false, stays = false;
  };
  std::map<std::pair<int64_t, unsigned>, Sends> priced;
  auto sendsOf = [&](int64_t k, unsigned bytes) -> const Sends & {
    auto [it, fresh] = priced.try_emplace({k, bytes});
    if (!fresh)
      return it->second;
    Sends &out = it->second;
    for (int64_t p = 0; p < pes; ++p) {
      const int64_t q = base[size_t(p)] + k;
      active[size_t(p)] = q != p;
      dest[size_t(p)] = uint64_t(q);
      out.leaves |= q != p;
      out.stays |= q == p;
    }
    if (out.leaves)
      out.router = m.cheaperRouterCost(bytes, dest, active);
    return out;
  };
  // A chunk of `chunk` slots of key k: a load per transfer; a send and a
  // store when an element leaves, a store alone when elements only stay
  // (not in place).
  auto chunkTicks = [&](int64_t k, int64_t chunk) {
    const unsigned bytes = xferBytes * unsigned(chunk);
    const unsigned wb = rt::widthIndex(bytes);
    const Sends &sends = sendsOf(k, bytes);
    int64_t perXfer = cost.load[wb];
    if (sends.leaves)
      perXfer += sends.router + cost.store(wb);
    else if (sends.stays && !inPlace)
      perXfer += cost.store(wb);
    return xfers * perXfer;
  };

  // The blocks: P slots each, the digits above them an odometer.
  size_t below = 0;
  int64_t block = 1;
  while (below < fromMem.size() && below < toMem.size() &&
         fromMem[below] == toMem[below] && !flips(fromMem[below]))
    block *= from.kdims[fromMem[below++]].tk;
  // A block's last slot and the next block's first continue a run when the
  // step between them (the digits above carried up to some digit u_d)
  // moves the target by one and keeps the key.
  bool runsCross = false;
  int64_t carriedSlot = 0, carriedKey = 0;
  for (size_t d = below; d < fromMem.size(); ++d) {
    const unsigned u = fromMem[d];
    runsCross |= toSlot[u] - carriedSlot == block && toPe[u] == carriedKey;
    carriedSlot += (from.kdims[u].tk - 1) * toSlot[u];
    carriedKey += (from.kdims[u].tk - 1) * toPe[u];
  }
  int64_t ticks = 0;
  if (runsCross && most > 1) {
    const std::vector<int64_t> target = frameDigitSums(from, 0, toSlot),
                               key = frameDigitSums(from, 0, toPe);
    for (int64_t s = 0; s < slots;) {
      int64_t run = 1;
      while (run < most && s + run < slots &&
             target[size_t(s + run)] == target[size_t(s)] + run &&
             key[size_t(s + run)] == key[size_t(s)])
        ++run;
      int64_t chunk = 1;
      while (chunk * 2 <= run)
        chunk *= 2;
      ticks += chunkTicks(key[size_t(s)], chunk);
      s += chunk;
    }
    return ticks;
  }
  // Every key (the memory digits bound for the PEs) on as many blocks.
  DigitOdometer keys;
  int64_t values = 1;
  for (size_t d = below; d < fromMem.size(); ++d)
    if (toPe[fromMem[d]] != 0) {
      keys.add(from.kdims[fromMem[d]].tk, toPe[fromMem[d]]);
      values *= from.kdims[fromMem[d]].tk;
    }
  const int64_t blocksPerKey = slots / block / values;
  int64_t k = 0;
  do {
    int64_t perBlock = block / most * chunkTicks(k, most);
    for (int64_t chunk = most / 2; chunk >= 1; chunk /= 2)
      if (block % most & chunk)
        perBlock += chunkTicks(k, chunk);
    ticks += blocksPerKey * perBlock;
  } while (keys.step(k));
  return ticks;
}

/// runDigitExchangeStep's price (pricing mode) with the exchange read off
/// the digits (FrameExchange.h) rather than off a table of sources.
int64_t digitExchangeTicks(const rt::TileMap &from, const rt::TileMap &to,
                           bool inPlace, unsigned elemBytes,
                           const rt::MachineShape &shape,
                           const rt::CostModel &cost) {
  // The planners price a move in place and out of place one after the
  // other: the shape read for the last pair of frames is kept.
  struct Read {
    rt::TileMap from, to;
    std::optional<rt::DigitExchangeShape> shape;
  };
  thread_local std::optional<Read> last;
  if (!last || !(last->from == from) || !(last->to == to))
    last = Read{from, to, frameDigitExchange(from, to)};
  const std::optional<rt::DigitExchangeShape> &ex = last->shape;
  if (!ex || (inPlace && !rt::digitExchangeRunsInPlace(*ex, elemBytes, cost)))
    return -1;
  rt::MasPar m =
      rt::MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  rt::runDigitExchange(m, *ex, {0, 0, elemBytes, inPlace});
  return m.ledger().total();
}

} // namespace

std::optional<int64_t> mapc::frameStepTicks(GeneralStepKind kind, bool inPlace,
                                            const rt::TileMap &from,
                                            const rt::TileMap &to,
                                            unsigned elemBytes,
                                            const rt::MachineShape &shape,
                                            const rt::CostModel &cost) {
  if (rt::pesOf(from) > int64_t(shape.peCount()) ||
      rt::pesOf(to) > int64_t(shape.peCount()))
    return -1; // a layout spans more PEs than the machine has
  switch (kind) {
  case GeneralStepKind::Local:
    return localTicks(from, to, inPlace, elemBytes, cost);
  case GeneralStepKind::Slotwise:
    return slotwiseTicks(from, to, inPlace, elemBytes, shape, cost);
  case GeneralStepKind::DigitExchange:
    // FrameExchange.h reads no digit reversed on one side only.
    if (!heldFramesOverOneFactorisation(from, to))
      return std::nullopt;
    return digitExchangeTicks(from, to, inPlace, elemBytes, shape, cost);
  default:
    return std::nullopt;
  }
}
