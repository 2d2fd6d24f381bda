//===- ExchangeStep.cpp ---------------------------------------------------===//
#include "ExchangeStep.h"

#include <algorithm>

using namespace mapc::rt;

namespace {

/// How one exchange runs: chunk width, and per chunk the PEs that act.
struct ExchangeShape {
  unsigned mBits = 0, pBits = 0, chunkBits = 0, xferBytes = 1;
  /// Transfers per chunk: the machine moves at most 8 bytes at once, so a
  /// c128 element travels as two 8-byte halves.
  unsigned parts = 1;
  uint64_t condM = 0, condP = 0; ///< the condition's m- and p-bits
  bool memoryTarget = false;
  unsigned target = 0; ///< m-bit, or p-bit number
  /// Disabled bits of the layout before, with their values: an address
  /// whose bits there differ holds nothing, and (the exchange leaves them
  /// alone, or for the target bit, one partner must match) gets nothing.
  uint64_t offM = 0, offP = 0, valM = 0, valP = 0;

  ExchangeShape(const Exchange &e, const AffineLayout &before,
                unsigned elemBytes)
      : mBits(before.mBits), pBits(before.pBits) {
    uint64_t mMask = (uint64_t(1) << mBits) - 1;
    uint64_t off = before.disabled & ~(uint64_t(1) << e.bit);
    offM = off & mMask;
    offP = off >> mBits;
    valM = before.constant & offM;
    valP = (before.constant >> mBits) & offP;
    condM = e.condition & mMask;
    condP = e.condition >> mBits;
    memoryTarget = e.bit < mBits;
    target = memoryTarget ? e.bit : e.bit - mBits;
    // Low m-bits that neither the condition nor the target touch, nor
    // decide occupancy, travel together (003 5.6.3's chunks), up to 64 bits.
    uint64_t busy = condM | offM | (memoryTarget ? uint64_t(1) << e.bit : 0);
    while (chunkBits < mBits && !((busy >> chunkBits) & 1) &&
           (elemBytes << (chunkBits + 1)) <= 8)
      ++chunkBits;
    xferBytes = elemBytes << chunkBits;
    if (xferBytes > 8) {
      parts = xferBytes / 8;
      xferBytes = 8;
    }
  }
  uint64_t chunks() const { return uint64_t(1) << (mBits - chunkBits); }
  /// Does PE p act on the chunk at slot s?
  bool acts(uint64_t s, uint64_t p) const {
    return parity64((condM & s) ^ (condP & p)) && ((p & offP) == valP);
  }
  /// Can the chunk at slot s hold data anywhere?
  bool used(uint64_t s) const { return (s & offM) == valM; }
};

Mask actingMask(const ExchangeShape &x, uint64_t s, unsigned pes) {
  Mask mask(pes);
  for (unsigned p = 0; p < pes; ++p)
    mask[p] = x.acts(s, p);
  return mask;
}

Mask complement(const Mask &m) {
  Mask r(m.size());
  for (size_t i = 0; i < m.size(); ++i)
    r[i] = !m[i];
  return r;
}

/// The PEs that copy a chunk unchanged in a copy's first exchange: those
/// that do not act but may hold data.
Mask copyMask(const ExchangeShape &x, const Mask &acting) {
  Mask r(acting.size());
  for (size_t p = 0; p < acting.size(); ++p)
    r[p] = !acting[p] && (p & x.offP) == x.valP;
  return r;
}

bool anyOf(const Mask &m) {
  return std::any_of(m.begin(), m.end(), [](uint8_t v) { return v != 0; });
}

/// The xnet direction and distance that reach the PE across p-bit q from
/// PEs where that bit is 0 (the others go the opposite way).
struct XnetRoute {
  XnetDir up, down;
  unsigned distance;
};
XnetRoute xnetRoute(unsigned q, const MachineShape &shape) {
  unsigned xBits = __builtin_ctz(shape.width);
  if (q < xBits)
    return {XnetDir::E, XnetDir::W, 1u << q};
  return {XnetDir::S, XnetDir::N, 1u << (q - xBits)};
}

int64_t xnetPairCost(const ExchangeShape &x, const MachineShape &shape,
                     const CostModel &cost) {
  return 2 * cost.xnet(widthIndex(x.xferBytes),
                       xnetRoute(x.target, shape).distance);
}

} // namespace

bool mapc::rt::exchangeUsesXnet(const Exchange &e, unsigned mBits,
                                unsigned pBits, unsigned elemBytes,
                                const MachineShape &shape,
                                const CostModel &cost) {
  AffineLayout full;
  full.mBits = mBits;
  full.pBits = pBits;
  ExchangeShape x(e, full, elemBytes);
  if (x.memoryTarget)
    return false;
  // Price one chunk both ways with every acting PE (the router's price
  // depends on the mask; the all-condition mask is the common case).
  MasPar probe(shape.width, shape.height, 8, shape.clusterSize, cost);
  unsigned pes = shape.peCount();
  Mask mask = actingMask(x, 0, pes);
  if (!anyOf(mask))
    mask = complement(mask);
  Plural dest(pes);
  for (unsigned p = 0; p < pes; ++p)
    dest[p] = p ^ (1u << x.target);
  int64_t router = probe.routerCost(x.xferBytes, dest, mask, false);
  return xnetPairCost(x, shape, cost) < router;
}

namespace {

void runOne(MasPar &m, const Exchange &e, const AffineLayout &before,
            unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
            bool copyFirst, const MachineShape &shape) {
  unsigned pes = m.peCount();
  unsigned mBits = before.mBits, pBits = before.pBits;
  ExchangeShape x(e, before, elemBytes);
  unsigned w = x.xferBytes;
  // Part k of the chunk at slot s (k is always 0 for elements up to 8 bytes).
  unsigned k = 0;
  auto at = [&](uint64_t base, uint64_t s) {
    return base + s * elemBytes + uint64_t(k) * w;
  };
  auto copyRest = [&](uint64_t s, const Mask &acting) {
    if (copyFirst) {
      Mask rest = copyMask(x, acting);
      m.store(w, at(writeBase, s), m.load(w, at(readBase, s), rest), rest);
    }
  };
  if (x.memoryTarget) {
    uint64_t t = uint64_t(1) << x.target;
    for (uint64_t c = 0; c < x.chunks(); ++c) {
      uint64_t s = c << x.chunkBits;
      if ((s & t) || !x.used(s))
        continue;
      Mask acting = actingMask(x, s, pes);
      for (k = 0; k < x.parts; ++k) {
        Plural lo = m.load(w, at(readBase, s), acting);
        Plural hi = m.load(w, at(readBase, s | t), acting);
        m.store(w, at(writeBase, s), hi, acting);
        m.store(w, at(writeBase, s | t), lo, acting);
        copyRest(s, acting);
        copyRest(s | t, acting);
      }
    }
    return;
  }
  bool xnet = exchangeUsesXnet(e, mBits, pBits, elemBytes, shape, m.cost());
  XnetRoute route = xnetRoute(x.target, shape);
  Plural dest(pes);
  for (unsigned p = 0; p < pes; ++p)
    dest[p] = p ^ (1u << x.target);
  Mask received(pes);
  for (uint64_t c = 0; c < x.chunks(); ++c) {
    uint64_t s = c << x.chunkBits;
    if (!x.used(s))
      continue;
    Mask acting = actingMask(x, s, pes);
    for (k = 0; k < x.parts; ++k) {
      Plural v = m.load(w, at(readBase, s), acting);
      if (xnet) {
        // Both halves of each pair send at once: PEs with the bit clear go
        // up, the others down; partners act together (S never holds j).
        Mask upward(pes), downward(pes);
        for (unsigned p = 0; p < pes; ++p) {
          bool clear = !((p >> x.target) & 1);
          upward[p] = acting[p] && clear;
          downward[p] = acting[p] && !clear;
        }
        Mask r1(pes), r2(pes);
        Plural a = m.xnetSend(w, route.up, route.distance, v, upward, r1);
        Plural b = m.xnetSend(w, route.down, route.distance, v, downward, r2);
        for (unsigned p = 0; p < pes; ++p)
          if (r2[p])
            a[p] = b[p];
        m.store(w, at(writeBase, s), a, acting);
      } else {
        Plural got = m.routerSend(w, v, dest, acting, false, received);
        m.store(w, at(writeBase, s), got, received);
      }
      copyRest(s, acting);
    }
  }
}

} // namespace

bool mapc::rt::runExchangeStep(MasPar &m, const Step &step,
                               const AffineLayout &before, unsigned elemBytes,
                               uint64_t readBase, uint64_t writeBase,
                               bool copyFirst, std::string *why) {
  unsigned mBits = before.mBits;
  MachineShape shape;
  shape.width = m.width();
  shape.height = m.height();
  shape.clusterSize = m.clusterSize();
  if (step.exchanges.empty()) {
    if (why)
      *why = "an exchange step without exchanges";
    return false;
  }
  bool first = copyFirst;
  AffineLayout now = before;
  for (const Exchange &e : step.exchanges[0]) {
    runOne(m, e, now, elemBytes, first ? readBase : writeBase, writeBase, first,
           shape);
    now = AffineMove::fromExchange(now.bits(), e).applyTo(now);
    first = false;
  }
  if (step.exchanges[0].empty() && copyFirst) {
    Mask all = m.allActive();
    unsigned w = std::min(elemBytes, 8u);
    uint64_t bytes = (uint64_t(1) << mBits) * elemBytes;
    for (uint64_t b = 0; b < bytes; b += w)
      m.store(w, writeBase + b, m.load(w, readBase + b, all), all);
  }
  return true;
}

int64_t mapc::rt::predictExchangeStep(const Step &step,
                                      const AffineLayout &before,
                                      unsigned elemBytes, bool copyFirst,
                                      const MachineShape &shape,
                                      const CostModel &cost) {
  unsigned mBits = before.mBits, pBits = before.pBits;
  if (step.exchanges.empty())
    return -1;
  unsigned pes = shape.peCount();
  MasPar probe(shape.width, shape.height, 8, shape.clusterSize, cost);
  int64_t total = 0;
  bool first = copyFirst;
  AffineLayout now = before;
  for (const Exchange &e : step.exchanges[0]) {
    ExchangeShape x(e, now, elemBytes);
    now = AffineMove::fromExchange(now.bits(), e).applyTo(now);
    unsigned wi = widthIndex(x.xferBytes);
    // The acting mask is one of two: parity of the condition's m-bits in
    // the chunk picks it. Count the chunks of each parity that are walked,
    // in closed form: the disabled m-bits are fixed, an m-bit target is
    // walked from its 0 side, every other chunk-index bit is free.
    uint64_t t = x.memoryTarget ? uint64_t(1) << x.target : 0;
    uint64_t indexBits =
        ((uint64_t(1) << mBits) - 1) & ~((uint64_t(1) << x.chunkBits) - 1);
    uint64_t freeBits = indexBits & ~x.offM & ~t;
    uint64_t walked = uint64_t(1) << __builtin_popcountll(freeBits);
    uint64_t perClass[2] = {0, 0};
    uint64_t base = x.valM, freeCond = x.condM & freeBits;
    Mask masksOf[2] = {Mask(pes), Mask(pes)};
    if (freeCond) {
      perClass[0] = perClass[1] = walked / 2;
      uint64_t flip = freeCond & -freeCond; // one free bit the parity sees
      masksOf[parity64(x.condM & base)] = actingMask(x, base, pes);
      masksOf[parity64(x.condM & (base | flip))] =
          actingMask(x, base | flip, pes);
    } else {
      unsigned k = parity64(x.condM & base);
      perClass[k] = walked;
      masksOf[k] = actingMask(x, base, pes);
    }
    const Mask *masks[2] = {&masksOf[0], &masksOf[1]};
    bool xnet = exchangeUsesXnet(e, mBits, pBits, elemBytes, shape, cost);
    Plural dest(pes);
    for (unsigned p = 0; p < pes; ++p)
      dest[p] = p ^ (uint64_t(1) << (x.memoryTarget ? 0 : x.target));
    for (int k = 0; k < 2; ++k) {
      if (!perClass[k])
        continue;
      const Mask &acting = *masks[k];
      bool any = anyOf(acting),
           rest = copyFirst && first && anyOf(copyMask(x, acting));
      int64_t one = 0;
      if (x.memoryTarget) {
        if (any)
          one += 2 * (cost.load[wi] + cost.store(wi));
        if (rest)
          one += 2 * (cost.load[wi] + cost.store(wi));
      } else {
        if (any) {
          one += cost.load[wi] + cost.store(wi);
          if (xnet) {
            // Two sends, unless every acting PE has the bit clear or set.
            bool up = false, down = false;
            for (unsigned p = 0; p < pes; ++p)
              if (acting[p])
                ((p >> x.target) & 1 ? down : up) = true;
            int64_t send = cost.xnet(wi, xnetRoute(x.target, shape).distance);
            one += (up ? send : 0) + (down ? send : 0);
          } else {
            one += probe.routerCost(x.xferBytes, dest, acting, false);
          }
        }
        if (rest)
          one += cost.load[wi] + cost.store(wi);
      }
      total += one * int64_t(perClass[k]) * int64_t(x.parts);
    }
    first = false;
  }
  return total;
}
