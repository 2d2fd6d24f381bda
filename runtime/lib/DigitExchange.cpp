//===- DigitExchange.cpp - the P/M digit exchange of 003 function 6.1 -----===//
#include "mapc/runtime/DigitExchange.h"

#include <algorithm>
#include <numeric>

using namespace mapc::rt;

std::vector<DigitExchangeChunk>
mapc::rt::digitExchangeChunks(int64_t chunk, unsigned elemBytes) {
  std::vector<DigitExchangeChunk> out;
  if (elemBytes >= 8) {
    // Wide elements: one 8-byte part at a time.
    for (int64_t e = 0; e < chunk; ++e)
      for (unsigned x = 0; x < elemBytes / 8; ++x)
        out.push_back({e * elemBytes + x * 8, 1, 8});
    return out;
  }
  // As many elements as fit in 64 bits, the last send holding the rest
  // (003 5.6.3): 6 u8 elements are one 64-bit send of 48 bits of data
  // (loaded and stored as 4 + 2 bytes) rather than two sends of 4 and 2.
  const int64_t most = 8 / elemBytes;
  for (int64_t e = 0; e < chunk; e += most) {
    const unsigned elems = unsigned(std::min(most, chunk - e));
    out.push_back({e * elemBytes, elems, elems * elemBytes});
  }
  return out;
}

namespace {

/// The power of two of bytes a router send of `bytes` of data takes.
unsigned sendWidth(unsigned bytes) {
  unsigned w = 1;
  while (w < bytes)
    w *= 2;
  return w;
}

/// The loads and stores of one transfer: its bytes as powers of two, the
/// widest first (6 bytes: 4 at offset 0, 2 at offset 4).
template <typename Fn> void forEachPart(unsigned bytes, Fn fn) {
  unsigned off = 0;
  for (unsigned w = 8; w; w /= 2)
    if (bytes - off >= w) {
      fn(off, w);
      off += w;
    }
}

} // namespace

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
  const char *notMoving = "PE 0's elements do not move as in a digit exchange";
  // Where each element of PE 0 goes: slot 0 (every digit 0) stays on PE 0
  // at `home`; the first slot to leave has exchanged digit y = 1 and names
  // both weights, and y = 2, 3, ... the base.
  std::vector<int64_t> destOf(size_t(slots), -1);
  for (size_t b = 0; b < sources.size(); ++b)
    if (sources[b] != kNoSource && int64_t(sources[b]) < slots)
      destOf[sources[b]] = int64_t(b);
  const int64_t home = destOf[0];
  if (home < 0 || home >= slots)
    return fail(notMoving);
  int64_t wm = 1;
  while (wm < slots && destOf[size_t(wm)] >= 0 && destOf[size_t(wm)] < slots)
    ++wm;
  if (wm >= slots || destOf[size_t(wm)] < slots ||
      destOf[size_t(wm)] % slots != home)
    return fail(notMoving);
  const int64_t wp = destOf[size_t(wm)] / slots;
  int64_t base = 2;
  while (base * wm < slots &&
         destOf[size_t(base * wm)] == base * wp * slots + home)
    ++base;
  if (slots % (base * wm) != 0 || pes % (base * wp) != 0)
    return fail("not a digit exchange: the digits found do not divide the "
                "slots and PEs");
  // The exchanged digit's place on arrival: PE wp's slot 0 (sender digit
  // x = 1, y = 0) lands on PE 0 one weight above `home`.
  int64_t wd = -1;
  for (int64_t t = 0; t < slots; ++t)
    if (sources[size_t(t)] == uint32_t(wp * slots))
      wd = t - home;
  if (wd <= 0 || slots % (wd * base) != 0)
    return fail(notMoving);
  // The chunk: identity slot digits at the bottom of memory, a divisor of
  // both weights; the largest that fits the elements of PE 0 is tried
  // first, smaller ones if the move is finer than it looked.
  int64_t run = 1;
  while (run < wm && destOf[size_t(run)] == home + run)
    ++run;
  const int64_t g = std::gcd(wm, wd);
  const char *reason = notMoving;
  for (int64_t c = std::min(run, g); c >= 1; --c) {
    if (g % c != 0 || home % c != 0)
      continue;
    DigitExchangeShape s;
    s.base = base;
    s.peWeight = wp;
    s.slotWeight = wm;
    s.pes = pes;
    s.slots = slots;
    s.chunk = c;
    s.destSlotWeight = wd;
    const int64_t highs = s.highs();
    // Each high part's place on arrival, read off PE 0 (x = y = 0); the
    // places must be distinct, leave the chunk and the arriving digit 0.
    std::vector<int64_t> dest(size_t(highs), 0);
    std::vector<int64_t> partOf(size_t(slots / c), -1);
    bool ok = true, moves = wd != wm;
    for (int64_t h = 0; h < highs && ok; ++h) {
      const int64_t d = destOf[size_t(s.srcHigh(h))];
      ok = d >= 0 && d < slots && d % c == 0 && d / wd % base == 0 &&
           partOf[size_t(d / c)] < 0;
      if (!ok)
        break;
      partOf[size_t(d / c)] = h;
      dest[size_t(h)] = d;
      moves |= d != s.srcHigh(h);
    }
    if (!ok)
      continue;
    if (moves)
      s.destHigh = std::move(dest);
    // Every held cell (PE of digit y, high part h, arriving digit x,
    // chunk element lo) takes the element of the PE of digit x at slot
    // digit y of the same high part and chunk element: walked so that the
    // inner loop only counts.
    std::vector<int64_t> srcFirst(size_t(highs), 0), dstFirst(size_t(highs), 0);
    for (int64_t h = 0; h < highs; ++h) {
      srcFirst[size_t(h)] = s.srcHigh(h);
      dstFirst[size_t(h)] = s.dstHigh(h);
    }
    for (int64_t pe = 0; pe < pes && ok; ++pe) {
      const int64_t y = pe / wp % base;
      const uint32_t *cell = sources.data() + pe * slots;
      for (int64_t h = 0; h < highs && ok; ++h)
        for (int64_t x = 0; x < base && ok; ++x) {
          const int64_t first = dstFirst[size_t(h)] + x * wd;
          const int64_t src =
              (pe + (x - y) * wp) * slots + srcFirst[size_t(h)] + y * wm;
          for (int64_t lo = 0; lo < c; ++lo) {
            const uint32_t a = cell[first + lo];
            if (a != kNoSource && int64_t(a) != src + lo) {
              ok = false;
              break;
            }
          }
        }
    }
    if (ok) {
      shape = std::move(s);
      return true;
    }
    reason = "an element does not move as in a digit exchange";
  }
  return fail(reason);
}

void mapc::rt::runDigitExchange(MasPar &m, const DigitExchangeShape &s,
                                const DigitExchangeRegions &where) {
  const unsigned pes = m.peCount();
  const int64_t b = s.base, wp = s.peWeight;
  Mask active(pes, 0);
  for (int64_t p = 0; p < s.pes; ++p)
    active[size_t(p)] = 1;
  // Every PE's own digit of the PE number: one division with remainder.
  std::vector<int64_t> digit(pes, 0);
  for (int64_t p = 0; p < s.pes; ++p)
    digit[size_t(p)] = p / wp % b;
  m.arith(1, active);

  const unsigned eb = where.elemBytes;
  const std::vector<DigitExchangeChunk> chunks =
      digitExchangeChunks(s.chunk, eb);
  const int64_t highs = s.highs();
  // The high parts in the order they are walked. In place with a folded
  // permutation, along its cycles: high part h lands where h' = next(h)
  // was read, so h is stored just after h' is loaded (one transfer in
  // flight), and the last of a cycle where its first was read.
  std::vector<std::vector<int64_t>> walks;
  {
    std::vector<int64_t> partAt(size_t(s.slots / s.chunk), -1);
    for (int64_t h = 0; h < highs; ++h)
      partAt[size_t(s.srcHigh(h) / s.chunk)] = h;
    std::vector<uint8_t> seen(size_t(highs), 0);
    for (int64_t h0 = 0; h0 < highs; ++h0) {
      if (seen[size_t(h0)])
        continue;
      walks.emplace_back();
      for (int64_t h = h0; !seen[size_t(h)];) {
        seen[size_t(h)] = 1;
        walks.back().push_back(h);
        if (!where.inPlace || !s.foldsPermutation())
          break;
        h = partAt[size_t(s.dstHigh(h) / s.chunk)];
      }
    }
  }
  // The diagonal (x = y) stays on its PE; in place only high parts that
  // move are copied, each of their cycles walked as above.
  int64_t diagonalParts = 0;
  for (const auto &w : walks)
    diagonalParts += where.inPlace ? (w.size() > 1 ? int64_t(w.size()) : 0)
                                   : int64_t(w.size());

  std::vector<int64_t> srcFirst(size_t(highs), 0), dstFirst(size_t(highs), 0);
  for (int64_t h = 0; h < highs; ++h) {
    srcFirst[size_t(h)] = s.srcHigh(h);
    dstFirst[size_t(h)] = s.dstHigh(h);
  }
  auto readAddr = [&](int64_t h, const DigitExchangeChunk &c, int64_t d) {
    return where.readBase +
           uint64_t(srcFirst[size_t(h)] + d * s.slotWeight) * eb +
           uint64_t(c.first);
  };
  auto writeAddr = [&](int64_t h, const DigitExchangeChunk &c, int64_t d) {
    return where.writeBase +
           uint64_t(dstFirst[size_t(h)] + d * s.destSlotWeight) * eb +
           uint64_t(c.first);
  };
  auto send = [&](unsigned bytes, const Plural &z, const Plural &dest,
                  Mask &received) {
    bool clustered = m.routerCost(bytes, dest, active, true) <
                     m.routerCost(bytes, dest, active, false);
    return m.routerSend(bytes, z, dest, active, clustered, received);
  };
  Plural dest0(pes, 0), dest1(pes, 0);
  if (m.pricingOnly() && s.pes > 0) {
    // Every (high part, transfer) of one round costs what any other of the
    // same send width does: priced once per width, times their number.
    std::vector<int64_t> perWidth(4, 0);
    int64_t moveTicks = 0; // loads and stores of one high part's transfers
    const CostModel &cost = m.cost();
    for (const DigitExchangeChunk &c : chunks) {
      perWidth[widthIndex(sendWidth(c.bytes))] += highs;
      forEachPart(c.bytes, [&](unsigned, unsigned w) {
        moveTicks += cost.loadIndirect[widthIndex(w)] +
                     cost.storeIndirect(widthIndex(w));
      });
    }
    Ledger &ledger = m.ledger();
    for (int64_t k = 1; 2 * k <= b; ++k) {
      const bool half = 2 * k == b;
      for (int64_t p = 0; p < s.pes; ++p) {
        const int64_t x = digit[size_t(p)];
        dest0[size_t(p)] = uint64_t(p + ((x + k) % b - x) * wp);
        dest1[size_t(p)] = uint64_t(p + ((x - k + b) % b - x) * wp);
      }
      const int64_t moves = half ? 1 : 2;
      ledger.memory += highs * moves * moveTicks;
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
        ledger.router += n * (send0 + send1);
        ledger.routerSends += n * ((send0 > 0) + (send1 > 0));
      }
    }
    ledger.memory += diagonalParts * moveTicks;
    return;
  }

  // One transfer's parts, loaded into one value and stored back from it.
  auto load = [&](const DigitExchangeChunk &c, const Plural &addr) {
    Plural v(pes, 0), a(pes, 0);
    forEachPart(c.bytes, [&](unsigned off, unsigned w) {
      for (unsigned p = 0; p < pes; ++p)
        a[p] = addr[p] + off;
      Plural part = m.loadIndirect(w, a, active);
      for (unsigned p = 0; p < pes; ++p)
        v[p] |= part[p] << (8 * off);
    });
    return v;
  };
  auto store = [&](const DigitExchangeChunk &c, const Plural &addr,
                   const Plural &v, const Mask &on) {
    Plural a(pes, 0), part(pes, 0);
    forEachPart(c.bytes, [&](unsigned off, unsigned w) {
      for (unsigned p = 0; p < pes; ++p) {
        a[p] = addr[p] + off;
        part[p] = w == 8 ? v[p] : (v[p] >> (8 * off)) & ((1ull << 8 * w) - 1);
      }
      m.storeIndirect(w, a, part, on);
    });
  };
  // Rounds k and b - k together (function 6.1): each PE reads its slot
  // digits x + k and x - k, sends them to PEs x + k and x - k, and stores
  // what comes back in the same two places, so nothing is overwritten
  // before it is read. For even b, round b/2 reads, sends and writes one.
  Plural addr(pes, 0);
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
    // What one high part's transfer received, until it is stored.
    struct Received {
      Plural got0, got1;
      Mask on0, on1;
    };
    auto exchange = [&](int64_t h, const DigitExchangeChunk &c) {
      const unsigned bytes = sendWidth(c.bytes);
      Received r;
      for (int64_t p = 0; p < s.pes; ++p)
        addr[size_t(p)] = readAddr(h, c, up[size_t(p)]);
      Plural z0 = load(c, addr);
      if (half) {
        r.got0 = send(bytes, z0, dest0, r.on0);
        return r;
      }
      for (int64_t p = 0; p < s.pes; ++p)
        addr[size_t(p)] = readAddr(h, c, down[size_t(p)]);
      Plural z1 = load(c, addr);
      r.got0 = send(bytes, z0, dest0, r.on0);
      r.got1 = send(bytes, z1, dest1, r.on1);
      return r;
    };
    // From PE x - k comes the element of slot digit x; it is stored at
    // digit x - k. From x + k, at x + k.
    auto keep = [&](int64_t h, const DigitExchangeChunk &c, const Received &r) {
      for (int64_t p = 0; p < s.pes; ++p)
        addr[size_t(p)] =
            writeAddr(h, c, half ? up[size_t(p)] : down[size_t(p)]);
      store(c, addr, r.got0, r.on0);
      if (half)
        return;
      for (int64_t p = 0; p < s.pes; ++p)
        addr[size_t(p)] = writeAddr(h, c, up[size_t(p)]);
      store(c, addr, r.got1, r.on1);
    };
    for (const DigitExchangeChunk &c : chunks)
      for (const auto &w : walks) {
        Received pending = exchange(w[0], c);
        for (size_t i = 1; i < w.size(); ++i) {
          Received next = exchange(w[i], c);
          keep(w[i - 1], c, pending);
          pending = std::move(next);
        }
        keep(w.back(), c, pending);
      }
  }
  // The diagonal: out of place every high part is copied; in place the
  // high parts that move, along their cycles.
  for (const DigitExchangeChunk &c : chunks)
    for (const auto &w : walks) {
      if (where.inPlace && w.size() < 2)
        continue;
      auto readAt = [&](int64_t h) {
        for (int64_t p = 0; p < s.pes; ++p)
          addr[size_t(p)] = readAddr(h, c, digit[size_t(p)]);
        return load(c, addr);
      };
      Plural pending = readAt(w[0]);
      for (size_t i = 0; i < w.size(); ++i) {
        Plural next = i + 1 < w.size() ? readAt(w[i + 1]) : Plural();
        for (int64_t p = 0; p < s.pes; ++p)
          addr[size_t(p)] = writeAddr(w[i], c, digit[size_t(p)]);
        store(c, addr, pending, active);
        pending = std::move(next);
      }
    }
}
