//===- DigitExchange.cpp - the P/M digit exchange of 003 function 6.1 -----===//
#include "mapc/runtime/DigitExchange.h"

#include <algorithm>

using namespace mapc::rt;

bool mapc::rt::findDigitExchange(const TileMap &from, const TileMap &to,
                                 const std::vector<uint32_t> &sources,
                                 DigitExchangeShape &shape, std::string *why) {
  auto fail = [&](const char *w) {
    if (why)
      *why = w;
    return false;
  };
  const int64_t slots = slotsOf(to), pes = pesOf(to);
  if (slotsOf(from) != slots || pesOf(from) != pes)
    return fail("a digit exchange keeps the number of slots and PEs");
  if (int64_t(sources.size()) != slots * pes)
    return fail("a digit exchange needs the sources of every cell");
  // Where each element of PE 0 goes: its slot digits below the exchanged
  // one stay, the first that moves names the two places (x = 0, y = 1).
  std::vector<int64_t> destOf(size_t(slots), -1);
  for (size_t b = 0; b < sources.size(); ++b)
    if (sources[b] != kNoSource && int64_t(sources[b]) < slots)
      destOf[sources[b]] = int64_t(b);
  int64_t wm = 1;
  while (wm < slots && destOf[size_t(wm)] == wm)
    ++wm;
  if (wm >= slots || destOf[size_t(wm)] < slots ||
      destOf[size_t(wm)] % slots != 0)
    return fail("PE 0's elements do not move as in a digit exchange");
  const int64_t wp = destOf[size_t(wm)] / slots;
  int64_t base = 2;
  while (base * wm < slots && destOf[size_t(base * wm)] == base * wp * slots)
    ++base;
  if (slots % (base * wm) != 0 || pes % (base * wp) != 0)
    return fail("not a digit exchange: the digits found do not divide the "
                "slots and PEs");
  shape = {base, wp, wm, pes, slots};
  // Every held cell takes the element of the cell with its PE digit x and
  // slot digit y traded (the exchange is its own inverse), walked PE by PE
  // and slot digit by slot digit so that the inner loop only counts.
  const int64_t block = base * wm;
  for (int64_t pe = 0; pe < pes; ++pe) {
    const int64_t x = pe / wp % base;
    const uint32_t *cell = sources.data() + pe * slots;
    for (int64_t hi = 0; hi < slots; hi += block)
      for (int64_t y = 0; y < base; ++y) {
        const int64_t first = hi + y * wm;
        const int64_t from = (pe + (y - x) * wp) * slots + first + (x - y) * wm;
        for (int64_t lo = 0; lo < wm; ++lo) {
          const uint32_t a = cell[first + lo];
          if (a != kNoSource && int64_t(a) != from + lo)
            return fail("an element does not move as in a digit exchange");
        }
      }
  }
  return true;
}

void mapc::rt::runDigitExchange(MasPar &m, const DigitExchangeShape &s,
                                const DigitExchangeRegions &where) {
  const unsigned pes = m.peCount();
  const int64_t b = s.base, wp = s.peWeight, wm = s.slotWeight;
  Mask active(pes, 0);
  for (int64_t p = 0; p < s.pes; ++p)
    active[size_t(p)] = 1;
  // Every PE's own digit of the PE number: one division with remainder.
  std::vector<int64_t> digit(pes, 0);
  for (int64_t p = 0; p < s.pes; ++p)
    digit[size_t(p)] = p / wp % b;
  m.arith(1, active);

  // The identity slot digits below the exchanged one travel together:
  // chunks of a power of two of elements, at most 64 bits (003 5.6.3).
  // Wider elements go in 64-bit parts, one element at a time.
  const unsigned eb = where.elemBytes;
  const unsigned perChunk = eb < 8 ? 8 / eb : 1;
  const unsigned parts = eb > 8 ? eb / 8 : 1;
  struct Chunk {
    int64_t lo;
    unsigned elems;
  };
  std::vector<Chunk> chunks;
  for (int64_t lo = 0; lo < wm;) {
    unsigned c = 1;
    while (c * 2 <= perChunk && lo + int64_t(c) * 2 <= wm)
      c *= 2;
    chunks.push_back({lo, c});
    lo += c;
  }
  const int64_t highs = s.slots / (wm * b);

  Plural addr0(pes, 0), addr1(pes, 0), waddr0(pes, 0), waddr1(pes, 0);
  Plural dest0(pes, 0), dest1(pes, 0);
  Mask received(pes, 0);
  // Addresses of slot digit d(p) for chunk c of high part h, part x.
  auto address = [&](uint64_t base, int64_t h, const Chunk &c, unsigned x,
                     int64_t d) {
    return base + uint64_t(h * wm * b + d * wm + c.lo) * eb + uint64_t(x) * 8;
  };
  auto send = [&](unsigned bytes, const Plural &z, const Plural &dest) {
    bool clustered = m.routerCost(bytes, dest, active, true) <
                     m.routerCost(bytes, dest, active, false);
    return m.routerSend(bytes, z, dest, active, clustered, received);
  };
  if (m.pricingOnly() && s.pes > 0) {
    // Every (high part, chunk, part) of one round costs what any other of
    // the same width does: priced once per width, times their number.
    std::vector<int64_t> perWidth(4, 0);
    for (const Chunk &c : chunks)
      perWidth[widthIndex(parts > 1 ? 8 : c.elems * eb)] += highs * parts;
    Ledger &ledger = m.ledger();
    const CostModel &cost = m.cost();
    for (int64_t k = 1; 2 * k <= b; ++k) {
      const bool half = 2 * k == b;
      for (int64_t p = 0; p < s.pes; ++p) {
        const int64_t x = digit[size_t(p)];
        dest0[size_t(p)] = uint64_t(p + ((x + k) % b - x) * wp);
        dest1[size_t(p)] = uint64_t(p + ((x - k + b) % b - x) * wp);
      }
      for (unsigned w = 0; w < 4; ++w) {
        const int64_t n = perWidth[w];
        if (!n)
          continue;
        const unsigned bytes = 1u << w;
        const int64_t send0 =
            std::min(m.routerCost(bytes, dest0, active, true),
                     m.routerCost(bytes, dest0, active, false));
        const int64_t send1 =
            half ? 0
                 : std::min(m.routerCost(bytes, dest1, active, true),
                            m.routerCost(bytes, dest1, active, false));
        const int64_t moves = half ? 1 : 2;
        ledger.memory +=
            n * moves * (cost.loadIndirect[w] + cost.storeIndirect(w));
        ledger.router += n * (send0 + send1);
        ledger.routerSends += n * ((send0 > 0) + (send1 > 0));
      }
    }
    if (!where.inPlace)
      for (unsigned w = 0; w < 4; ++w)
        ledger.memory +=
            perWidth[w] * (cost.loadIndirect[w] + cost.storeIndirect(w));
    return;
  }
  // Rounds k and b - k together (function 6.1): each PE reads its slot
  // digits x + k and x - k, sends them to PEs x + k and x - k, and stores
  // what comes back in the same two places, so nothing is overwritten
  // before it is read. For even b, round b/2 reads, sends and writes one.
  for (int64_t k = 1; 2 * k <= b; ++k) {
    const bool half = 2 * k == b;
    std::vector<int64_t> up(pes, 0), down(pes, 0);
    for (int64_t p = 0; p < s.pes; ++p) {
      const int64_t x = digit[size_t(p)];
      up[size_t(p)] = (x + k) % b;
      down[size_t(p)] = (x - k + b) % b;
      dest0[size_t(p)] = uint64_t(p + (up[size_t(p)] - x) * wp);
      dest1[size_t(p)] = uint64_t(p + (down[size_t(p)] - x) * wp);
    }
    for (int64_t h = 0; h < highs; ++h)
      for (const Chunk &c : chunks)
        for (unsigned x = 0; x < parts; ++x) {
          const unsigned bytes = parts > 1 ? 8 : c.elems * eb;
          for (int64_t p = 0; p < s.pes; ++p) {
            addr0[size_t(p)] = address(where.readBase, h, c, x, up[size_t(p)]);
            addr1[size_t(p)] =
                address(where.readBase, h, c, x, down[size_t(p)]);
            waddr0[size_t(p)] =
                address(where.writeBase, h, c, x, up[size_t(p)]);
            waddr1[size_t(p)] =
                address(where.writeBase, h, c, x, down[size_t(p)]);
          }
          Plural z0 = m.loadIndirect(bytes, addr0, active);
          if (half) {
            Plural got = send(bytes, z0, dest0);
            m.storeIndirect(bytes, waddr0, got, received);
            continue;
          }
          Plural z1 = m.loadIndirect(bytes, addr1, active);
          Plural got0 = send(bytes, z0, dest0);
          Mask received0 = received;
          Plural got1 = send(bytes, z1, dest1);
          // From PE x - k comes the element of slot digit x - k; from
          // x + k, that of x + k.
          m.storeIndirect(bytes, waddr1, got0, received0);
          m.storeIndirect(bytes, waddr0, got1, received);
        }
  }
  if (where.inPlace)
    return;
  // Out of place the diagonal (x = y) is copied too.
  for (int64_t h = 0; h < highs; ++h)
    for (const Chunk &c : chunks)
      for (unsigned x = 0; x < parts; ++x) {
        const unsigned bytes = parts > 1 ? 8 : c.elems * eb;
        for (int64_t p = 0; p < s.pes; ++p) {
          addr0[size_t(p)] = address(where.readBase, h, c, x, digit[size_t(p)]);
          waddr0[size_t(p)] =
              address(where.writeBase, h, c, x, digit[size_t(p)]);
        }
        m.storeIndirect(bytes, waddr0, m.loadIndirect(bytes, addr0, active),
                        active);
      }
}
