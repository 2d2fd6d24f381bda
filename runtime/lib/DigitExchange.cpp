//===- DigitExchange.cpp - the P/M digit exchange of 003 function 6.1 -----===//
#include "mapc/runtime/DigitExchange.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <unordered_map>

using namespace mapc::rt;

int64_t DigitExchangeShape::dstHigh(int64_t h) const {
  if (!destHigh.empty())
    return destHigh[size_t(h)];
  if (highDigits.empty())
    return srcHigh(h);
  int64_t at = 0;
  for (const DigitPlace &d : highDigits) {
    at += h % d.base * d.to;
    h /= d.base;
  }
  return at;
}

int64_t DigitExchangeShape::highsKept() const {
  if (destHigh.empty() && highDigits.empty())
    return highs();
  if (!highDigits.empty())
    if (const std::optional<int64_t> kept = valuesKeptInPlace(highDigits))
      return *kept;
  int64_t kept = 0;
  for (int64_t h = 0; h < highs(); ++h)
    kept += dstHigh(h) == srcHigh(h);
  return kept;
}

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

/// Whether the step walks a folded permutation's cycles: in place through
/// function 6.1's round pairs (shape.canRunInPlace). In place otherwise,
/// each transfer is whole in registers and writes what it read
/// (digitExchangeRunsInPlace): the walk out of place.
bool walksCycles(const DigitExchangeShape &s, bool inPlace) {
  return inPlace && s.canRunInPlace() && s.foldsPermutation();
}

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

/// Adds the loads (each with its store) of a piece of `bytes`, `times`
/// over, to `parts` (by width index).
void addParts(unsigned bytes, int64_t times, int64_t *parts) {
  forEachPart(bytes,
              [&](unsigned, unsigned w) { parts[widthIndex(w)] += times; });
}

/// The loads and stores of `parts` (by width index) at `load` and `store`
/// prices: moveTicks summed over the transfers they came from.
int64_t partTicks(const int64_t *parts, const int64_t *load,
                  const int64_t *store) {
  int64_t ticks = 0;
  for (unsigned w = 0; w < 4; ++w)
    ticks += parts[w] * (load[w] + store[w]);
  return ticks;
}

/// digitExchangeChunks(chunk, elemBytes) counted: fn(bytes, n) for each
/// size of part, n parts of `bytes` each (at most two sizes: the full sends
/// and the rest).
template <typename Fn>
void forEachChunkPart(int64_t chunk, unsigned elemBytes, Fn fn) {
  if (elemBytes >= 8) {
    fn(8u, chunk * int64_t(elemBytes / 8));
    return;
  }
  const int64_t most = 8 / elemBytes;
  if (chunk >= most)
    fn(unsigned(most) * elemBytes, chunk / most);
  if (chunk % most)
    fn(unsigned(chunk % most) * elemBytes, 1);
}

/// Adds to `t` the transfers of a send in the rounds of `bytes` of data,
/// `times` over.
void addRoundTransfer(unsigned bytes, int64_t times, DigitExchangeTally &t) {
  t.transfers += times;
  t.filledSends += bytes == sendWidth(bytes) ? times : 0;
  t.widest = std::max(t.widest, bytes);
  t.perSendWidth[widthIndex(sendWidth(bytes))] += times;
}

} // namespace

int64_t mapc::rt::digitExchangeValueRegisters(int64_t base, unsigned bytes,
                                              int64_t inHand) {
  const int64_t values = inHand * base;
  // Whole registers per value; or packed, each value at its bytes of a run
  // of registers and assembled into a pair for its send (shifts and masks,
  // register work that fig. 5.2 does not price).
  const int64_t whole = values * ((bytes + 3) / 4);
  const int64_t packed = (values * bytes + 3) / 4 + 2;
  return std::min(whole, packed);
}

DigitExchangeLoads mapc::rt::digitExchangeLoads(
    const DigitExchangeShape &s, const DigitExchangeSequences &seqs,
    unsigned elemBytes, bool inPlace, const CostModel &cost) {
  return digitExchangeLoads(s, digitExchangeTally(seqs), elemBytes, inPlace,
                            cost);
}

DigitExchangeLoads mapc::rt::digitExchangeLoads(const DigitExchangeShape &s,
                                                const DigitExchangeTally &tally,
                                                unsigned elemBytes,
                                                bool inPlace,
                                                const CostModel &cost) {
  const int64_t b = s.base;
  const bool peMoves = s.foldsPePermutation();
  // Registers (003 5.6.2: 40 of 32 bits for the programmer, 8 kept for
  // offsets, the digit and the mask): the values of every slot digit of the
  // transfer in hand (and of the next, walking a folded permutation's
  // cycles in place), the received ones taking the places of those sent
  // in the same round pair; and a permuted exchange's schedule entries,
  // two registers each: every round pair's kept, or the running pair's.
  const bool cycles = walksCycles(s, inPlace);
  const int64_t values =
      digitExchangeValueRegisters(b, tally.widest, cycles ? 2 : 1);
  const int64_t pairs = peMoves ? b / 2 + 1 : 0;
  DigitExchangeLoads out;
  if (values + 2 * pairs > 32) {
    if (!peMoves || values + 2 > 32)
      return out;
    out.reloadsEntries = true;
  }
  int64_t direct = b * partTicks(tally.roundParts, cost.load, cost.load);
  // A move per round: b - 1 rounds, or b with round 0 (PEs move).
  int64_t indirect =
      (peMoves ? b : b - 1) *
      partTicks(tally.roundParts, cost.loadIndirect, cost.loadIndirect);
  if (!peMoves)
    indirect +=
        partTicks(tally.diagonalParts, cost.loadIndirect, cost.loadIndirect);
  // Entries loaded again for every transfer after the first.
  if (out.reloadsEntries)
    direct += (tally.transfers - 1) * pairs * cost.load[widthIndex(8)];
  out.direct = direct < indirect;
  if (!out.direct)
    out.reloadsEntries = false;
  return out;
}

bool mapc::rt::digitExchangeLoadsDirect(const DigitExchangeShape &s,
                                        const DigitExchangeSequences &seqs,
                                        unsigned elemBytes, bool inPlace,
                                        const CostModel &cost) {
  return digitExchangeLoads(s, seqs, elemBytes, inPlace, cost).direct;
}

void mapc::rt::setDigitExchangePeSide(DigitExchangeShape &s,
                                      std::vector<int64_t> sendDigit,
                                      std::vector<int64_t> recvDigit,
                                      std::vector<int64_t> destPe) {
  const int64_t base = s.base, pes = s.pes;
  // Function 6.1's own PE side: x = p / wp % b, sending to p + (y - x) wp.
  const int64_t wp = destPe[size_t(1)] - destPe[size_t(0)];
  bool regular = wp > 0 && pes % (base * wp) == 0;
  for (int64_t p = 0; p < pes && regular; ++p) {
    const int64_t x = p / wp % base;
    regular = sendDigit[size_t(p)] == x && recvDigit[size_t(p)] == x;
    for (int64_t y = 0; y < base && regular; ++y)
      regular = destPe[size_t(p * base + y)] == p + (y - x) * wp;
  }
  s.keepsPeDigit = true;
  for (int64_t p = 0; p < pes; ++p)
    s.keepsPeDigit &= sendDigit[size_t(p)] == recvDigit[size_t(p)];
  s.peWeight = regular ? wp : 0;
  s.sendDigit.clear();
  s.recvDigit.clear();
  s.destPe.clear();
  if (!regular) {
    s.sendDigit = std::move(sendDigit);
    s.recvDigit = std::move(recvDigit);
    s.destPe = std::move(destPe);
  }
}

namespace {

/// findDigitExchange on a table of `pes` x `slots` cells.
bool findOnCells(const std::vector<uint32_t> &sources, int64_t slots,
                 int64_t pes, DigitExchangeShape &shape, std::string *why) {
  auto fail = [&](const char *w) {
    if (why)
      *why = w;
    return false;
  };
  const char *notMoving = "PE 0's elements do not move as in a digit exchange";
  // Where every element goes (the inverse of `sources`).
  std::vector<uint32_t> destOf(sources.size(), kNoSource);
  for (size_t t = 0; t < sources.size(); ++t)
    if (sources[t] != kNoSource)
      destOf[sources[t]] = uint32_t(t);
  auto at = [&](int64_t pe, int64_t slot) -> int64_t {
    const uint32_t d = destOf[size_t(pe * slots + slot)];
    return d == kNoSource ? -1 : int64_t(d);
  };
  // PE 0's elements of exchanged digit y = 0 (slot 0 among them) land on
  // one PE r0; the first slot to land elsewhere has y = 1 and names the
  // memory digit's weight; y = 2, 3, ... at the same slot the base.
  if (at(0, 0) < 0)
    return fail(notMoving);
  const int64_t r0 = at(0, 0) / slots, home = at(0, 0) % slots;
  int64_t wm = 1;
  while (wm < slots && at(0, wm) >= 0 && at(0, wm) / slots == r0)
    ++wm;
  if (wm >= slots || at(0, wm) < 0 || at(0, wm) % slots != home)
    return fail(notMoving);
  int64_t base = 2;
  while (base * wm < slots && at(0, base * wm) >= 0 &&
         at(0, base * wm) / slots != r0 && at(0, base * wm) % slots == home)
    ++base;
  if (slots % (base * wm) != 0 || pes % base != 0)
    return fail("not a digit exchange: the digits found do not divide the "
                "slots and PEs");
  // PE r0's cells that take a slot 0 (high part 0, chunk element 0, y = 0)
  // come from the senders of digits x = 0, 1, ..., b - 1 at places dst0 +
  // x wd: the memory digit's weight on arrival.
  std::vector<int64_t> fromSlot0;
  for (int64_t t = 0; t < slots; ++t) {
    const uint32_t a = sources[size_t(r0 * slots + t)];
    if (a != kNoSource && a % slots == 0)
      fromSlot0.push_back(t);
  }
  if (int64_t(fromSlot0.size()) != base)
    return fail(notMoving);
  const int64_t dst0 = fromSlot0[0], wd = fromSlot0[1] - fromSlot0[0];
  for (int64_t x = 0; x < base; ++x)
    if (fromSlot0[size_t(x)] != dst0 + x * wd)
      return fail(notMoving);
  if (wd <= 0 || slots % (wd * base) != 0)
    return fail(notMoving);
  // Every PE's digit x (where its slot 0 lands), where it sends each slot
  // digit y, and the digit y every PE receives (the slot of the element
  // at its place dst0).
  std::vector<int64_t> sendDigit(size_t(pes), 0), recvDigit(size_t(pes), 0),
      destPe(size_t(pes * base), 0);
  for (int64_t p = 0; p < pes; ++p) {
    const int64_t d0 = at(p, 0);
    if (d0 < 0 || (d0 % slots - dst0) % wd != 0 || d0 % slots < dst0 ||
        (d0 % slots - dst0) / wd >= base)
      return fail(notMoving);
    sendDigit[size_t(p)] = (d0 % slots - dst0) / wd;
    for (int64_t y = 0; y < base; ++y) {
      const int64_t d = at(p, y * wm);
      if (d < 0)
        return fail(notMoving);
      destPe[size_t(p * base + y)] = d / slots;
    }
    const uint32_t a = sources[size_t(p * slots + dst0)];
    if (a == kNoSource || a % slots % wm != 0 || a % slots / wm >= base)
      return fail(notMoving);
    recvDigit[size_t(p)] = a % slots / wm;
  }
  // Each round k must be a matching: PE p sends its digit x + k to a PE
  // that receives digit x + k and stores it at x.
  for (int64_t p = 0; p < pes; ++p)
    for (int64_t y = 0; y < base; ++y) {
      const int64_t r = destPe[size_t(p * base + y)];
      const uint32_t a =
          sources[size_t(r * slots + dst0 + sendDigit[size_t(p)] * wd)];
      if (recvDigit[size_t(r)] != y || a == kNoSource || a / slots != p)
        return fail(notMoving);
    }
  DigitExchangeShape side;
  side.base = base;
  side.pes = pes;
  const int64_t x0 = sendDigit[0];
  setDigitExchangePeSide(side, sendDigit, recvDigit, destPe);
  // The chunk: identity slot digits at the bottom of memory, a divisor of
  // both weights; the largest that fits the elements of PE 0 is tried
  // first, smaller ones if the move is finer than it looked.
  int64_t run = 1;
  while (run < wm && at(0, run) == r0 * slots + home + run)
    ++run;
  const int64_t g = std::gcd(wm, wd);
  const char *reason = notMoving;
  for (int64_t c = std::min(run, g); c >= 1; --c) {
    if (g % c != 0 || home % c != 0)
      continue;
    DigitExchangeShape s = side;
    s.slotWeight = wm;
    s.slots = slots;
    s.chunk = c;
    s.destSlotWeight = wd;
    const int64_t highs = s.highs();
    // Each high part's place on arrival, read off PE 0 (y = 0, its digit
    // x0 taken off); the places must be distinct, leave the chunk and the
    // arriving digit 0.
    std::vector<int64_t> dest(size_t(highs), 0);
    std::vector<int64_t> partOf(size_t(slots / c), -1);
    bool ok = true, moves = wd != wm;
    for (int64_t h = 0; h < highs && ok; ++h) {
      const int64_t to = at(0, s.srcHigh(h));
      const int64_t d = to - r0 * slots - x0 * wd;
      ok = to >= 0 && to / slots == r0 && d >= 0 && d % c == 0 &&
           d / wd % base == 0 && partOf[size_t(d / c)] < 0;
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
    // The sender of each digit x to each PE, from its cell of high part 0.
    std::vector<int64_t> senderOf(size_t(base), 0);
    for (int64_t pe = 0; pe < pes && ok; ++pe) {
      const int64_t y = recvDigit[size_t(pe)];
      const uint32_t *cell = sources.data() + pe * slots;
      for (int64_t x = 0; x < base; ++x)
        senderOf[size_t(x)] = cell[dst0 + x * wd] / slots;
      for (int64_t h = 0; h < highs && ok; ++h)
        for (int64_t x = 0; x < base && ok; ++x) {
          const int64_t first = dstFirst[size_t(h)] + x * wd;
          const int64_t src =
              senderOf[size_t(x)] * slots + srcFirst[size_t(h)] + y * wm;
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

} // namespace

bool mapc::rt::findDigitExchange(const TileMap &from, const TileMap &to,
                                 const std::vector<uint32_t> &sources,
                                 DigitExchangeShape &shape, std::string *why) {
  const int64_t slots = slotsOf(to), pes = pesOf(to);
  if (slotsOf(from) != slots || pesOf(from) != pes) {
    if (why)
      *why = "a digit exchange keeps the number of slots and PEs";
    return false;
  }
  if (int64_t(sources.size()) != slots * pes) {
    if (why)
      *why = "a digit exchange needs the sources of every cell";
    return false;
  }
  // Constant digits (003 3.2.5) on top of a device dim leave cells empty
  // in both layouts: of value 0, the cells above the held ones, which an
  // exchange over the held cells' extent does not move; of another value,
  // the cells below too: in the PE number PEs that idle while the held ones
  // run function 6.1 from the first of them, in memory slots below the
  // held ones (a base address offset).
  int64_t usedSlots = 0, usedPes = 0, firstPe = pes, firstSlot = slots;
  for (size_t t = 0; t < sources.size(); ++t)
    if (const uint32_t a = sources[t]; a != kNoSource) {
      usedSlots =
          std::max({usedSlots, int64_t(t) % slots + 1, int64_t(a) % slots + 1});
      usedPes =
          std::max({usedPes, int64_t(t) / slots + 1, int64_t(a) / slots + 1});
      firstPe = std::min({firstPe, int64_t(t) / slots, int64_t(a) / slots});
      firstSlot = std::min({firstSlot, int64_t(t) % slots, int64_t(a) % slots});
    }
  if (!usedSlots ||
      (usedSlots == slots && usedPes == pes && firstPe == 0 && firstSlot == 0))
    return findOnCells(sources, slots, pes, shape, why);
  const int64_t heldPes = usedPes - firstPe, heldSlots = usedSlots - firstSlot;
  std::vector<uint32_t> held(size_t(heldSlots * heldPes), kNoSource);
  for (int64_t p = 0; p < heldPes; ++p)
    for (int64_t t = 0; t < heldSlots; ++t)
      if (const uint32_t a =
              sources[size_t((firstPe + p) * slots + firstSlot + t)];
          a != kNoSource)
        held[size_t(p * heldSlots + t)] =
            uint32_t((int64_t(a) / slots - firstPe) * heldSlots +
                     int64_t(a) % slots - firstSlot);
  if (!findOnCells(held, heldSlots, heldPes, shape, why))
    return findOnCells(sources, slots, pes, shape, why);
  shape.firstSlot = firstSlot;
  shape.firstPe = firstPe;
  return true;
}

namespace {

/// The chunks of `n` high parts, highAt(0), highAt(1), ..., as one stream
/// of elements cut into sends of as many as fit in 64 bits; a send's
/// pieces are its runs inside one chunk. Each send goes to `fn`, which
/// returns whether to go on; false if it stopped.
template <typename HighAt, typename Fn>
bool streamHighs(int64_t n, HighAt highAt, int64_t chunk, unsigned elemBytes,
                 Fn fn) {
  const unsigned most = 8 / elemBytes;
  DigitExchangeTransfer t;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t e = 0; e < chunk;) {
      const unsigned k = unsigned(std::min<int64_t>(most - t.elems, chunk - e));
      t.pieces.push_back(
          {highAt(i), uint64_t(e) * elemBytes, k * elemBytes, t.bytes});
      t.elems += k;
      t.bytes += k * elemBytes;
      e += k;
      if (t.elems == most) {
        if (!fn(t))
          return false;
        t = {};
      }
    }
  return !t.elems || fn(t);
}

/// streamHighs into `out`, the high parts `hs` in that order.
void packHighs(const std::vector<int64_t> &hs, int64_t chunk,
               unsigned elemBytes, std::vector<DigitExchangeTransfer> &out) {
  streamHighs(
      int64_t(hs.size()), [&](int64_t i) { return hs[size_t(i)]; }, chunk,
      elemBytes,
      [&](const DigitExchangeTransfer &t) {
        out.push_back(t);
        return true;
      });
}

} // namespace

DigitExchangeSequences
mapc::rt::digitExchangeSequences(const DigitExchangeShape &s,
                                 unsigned elemBytes, bool inPlace) {
  const int64_t highs = s.highs();
  // The high parts in the order they are walked. In place with a folded
  // permutation, along its cycles: high part h lands where h' = next(h)
  // was read, so h is stored just after h' is loaded, and the last of a
  // cycle where its first was read.
  const bool cycles = walksCycles(s, inPlace);
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
        if (!cycles)
          break;
        h = partAt[size_t(s.dstHigh(h) / s.chunk)];
      }
    }
  }
  // One transfer per chunk part and high part, walk by walk.
  std::vector<DigitExchangeChunk> chunks =
      digitExchangeChunks(s.chunk, elemBytes);
  auto along = [&](std::vector<std::vector<DigitExchangeTransfer>> &out,
                   bool skipSingles) {
    for (const DigitExchangeChunk &c : chunks)
      for (const auto &w : walks) {
        if (skipSingles && w.size() < 2)
          continue;
        std::vector<DigitExchangeTransfer> q;
        for (int64_t h : w)
          q.push_back({{{h, uint64_t(c.first), c.bytes, 0}}, c.elems, c.bytes});
        out.push_back(std::move(q));
      }
  };
  DigitExchangeSequences out;
  // The rounds pack the chunks of several high parts into one send, one
  // stream of all of them. Out of place, or in place without a folded
  // permutation, every transfer writes only cells it read itself. Along the
  // cycles (walked one after another) a transfer writes the cells of the
  // pieces one chunk further on, which the next transfer holds when a
  // chunk fits in one send, or the first of its cycle, read already. Wider
  // chunks go one high part at a time.
  const bool narrow = elemBytes < 8 && s.chunk * elemBytes <= 8;
  if (elemBytes < 8 && (!cycles || narrow)) {
    std::vector<int64_t> order;
    for (const auto &w : walks)
      order.insert(order.end(), w.begin(), w.end());
    std::vector<DigitExchangeTransfer> ts;
    packHighs(order, s.chunk, elemBytes, ts);
    if (cycles)
      out.rounds.push_back(std::move(ts));
    else
      for (DigitExchangeTransfer &t : ts)
        out.rounds.push_back({std::move(t)});
  } else {
    along(out.rounds, false);
  }
  // The diagonal (x = y) stays on its PE, one chunk part at a time (no
  // send to share): out of place every chunk is copied, in place those on
  // cycles.
  along(out.diagonal, inPlace);
  return out;
}

DigitExchangeTally
mapc::rt::digitExchangeTally(const DigitExchangeSequences &seqs) {
  DigitExchangeTally t;
  for (const auto &q : seqs.rounds)
    for (const DigitExchangeTransfer &x : q) {
      addRoundTransfer(x.bytes, 1, t);
      for (const DigitExchangePiece &c : x.pieces)
        addParts(c.bytes, 1, t.roundParts);
    }
  for (const auto &q : seqs.diagonal)
    for (const DigitExchangeTransfer &x : q)
      for (const DigitExchangePiece &c : x.pieces)
        addParts(c.bytes, 1, t.diagonalParts);
  return t;
}

DigitExchangeTally mapc::rt::digitExchangeTally(const DigitExchangeShape &s,
                                                unsigned elemBytes,
                                                bool inPlace) {
  DigitExchangeTally t;
  const int64_t highs = s.highs();
  const bool cycles = walksCycles(s, inPlace);
  // The rounds, as digitExchangeSequences makes them.
  const bool narrow = elemBytes < 8 && s.chunk * elemBytes <= 8;
  if (elemBytes < 8 && (!cycles || narrow)) {
    // One stream of every high part's chunk, cut into sends of `most`
    // elements and at the chunks' ends: the cuts repeat every lcm(chunk,
    // most) elements, where a send and a chunk start together, so one
    // such period is cut and counted as often as it comes, then the rest.
    const int64_t most = 8 / elemBytes, total = highs * s.chunk;
    const int64_t period = std::lcm(s.chunk, most);
    // A period holds at most `most` chunks: cut each at the send that is
    // open when it starts, in whole sends, and in the rest it leaves open.
    auto cut = [&](int64_t elems, int64_t times) {
      if (!times)
        return;
      int64_t open = 0; // elements of the send being filled
      for (int64_t c = 0; c < elems / s.chunk; ++c) {
        int64_t left = s.chunk;
        if (open) {
          const int64_t k = std::min(most - open, left);
          addParts(unsigned(k) * elemBytes, times, t.roundParts);
          open += k;
          left -= k;
          if (open == most) {
            addRoundTransfer(unsigned(most) * elemBytes, times, t);
            open = 0;
          }
        }
        if (left >= most) {
          const int64_t whole = left / most;
          addParts(unsigned(most) * elemBytes, whole * times, t.roundParts);
          addRoundTransfer(unsigned(most) * elemBytes, whole * times, t);
          left -= whole * most;
        }
        if (left) {
          addParts(unsigned(left) * elemBytes, times, t.roundParts);
          open = left;
        }
      }
      if (open)
        addRoundTransfer(unsigned(open) * elemBytes, times, t);
    };
    cut(period, total / period);
    cut(total % period, 1);
  } else {
    // A transfer per chunk part and high part.
    forEachChunkPart(s.chunk, elemBytes, [&](unsigned bytes, int64_t n) {
      addRoundTransfer(bytes, n * highs, t);
      addParts(bytes, n * highs, t.roundParts);
    });
  }
  // The diagonal, a chunk part at a time: out of place every high part's;
  // in place those on the folded permutation's cycles (the high parts that
  // move), and none without one.
  const int64_t diagonal = !inPlace ? highs
                           : cycles ? highs - s.highsKept()
                                    : 0;
  forEachChunkPart(s.chunk, elemBytes, [&](unsigned bytes, int64_t n) {
    addParts(bytes, n * diagonal, t.diagonalParts);
  });
  return t;
}

namespace {

/// Whether every transfer of the out-of-place sequences
/// (digitExchangeSequences(s, elemBytes, false)) writes the very bytes it
/// reads (the same in every PE: the addresses of a direct load or store).
/// The transfers are made one at a time, up to the first that does not.
bool transfersWriteWhatTheyRead(const DigitExchangeShape &s,
                                unsigned elemBytes) {
  std::vector<uint64_t> reads, writes;
  auto writesWhatItReads = [&](const DigitExchangeTransfer &t) {
    reads.clear();
    writes.clear();
    for (const DigitExchangePiece &c : t.pieces)
      for (int64_t y = 0; y < s.base; ++y)
        for (unsigned k = 0; k < c.bytes; ++k) {
          reads.push_back(uint64_t(s.srcHigh(c.high) + y * s.slotWeight) *
                              elemBytes +
                          c.first + k);
          writes.push_back(uint64_t(s.dstHigh(c.high) + y * s.destSlotWeight) *
                               elemBytes +
                           c.first + k);
        }
    std::sort(reads.begin(), reads.end());
    std::sort(writes.begin(), writes.end());
    return reads == writes;
  };
  // Out of place every high part is a walk of its own, in order: narrow
  // elements packed in one stream, wide ones a transfer per 8-byte part.
  if (elemBytes < 8)
    return streamHighs(
        s.highs(), [](int64_t h) { return h; }, s.chunk, elemBytes,
        writesWhatItReads);
  for (const DigitExchangeChunk &c : digitExchangeChunks(s.chunk, elemBytes))
    for (int64_t h = 0; h < s.highs(); ++h)
      if (!writesWhatItReads(
              {{{h, uint64_t(c.first), c.bytes, 0}}, c.elems, c.bytes}))
        return false;
  return true;
}

} // namespace

bool mapc::rt::digitExchangeRunsInPlace(const DigitExchangeShape &s,
                                        unsigned elemBytes,
                                        const CostModel &cost) {
  if (s.canRunInPlace())
    return true;
  return digitExchangeLoads(s, digitExchangeTally(s, elemBytes, false),
                            elemBytes, false, cost)
             .direct &&
         transfersWriteWhatTheyRead(s, elemBytes);
}

namespace {

/// Where PE p (the machine's number) sends its slot digit y, `digit` being
/// every PE's x: function 6.1's p + (y - x) peWeight, or a folded processor
/// permutation's table (its PEs counted from firstPe).
uint64_t exchangeDest(const DigitExchangeShape &s,
                      const std::vector<int64_t> &digit, int64_t p, int64_t y) {
  if (s.foldsPePermutation())
    return uint64_t(s.firstPe + s.destPe[size_t((p - s.firstPe) * s.base + y)]);
  return uint64_t(p + (y - digit[size_t(p)]) * s.peWeight);
}

/// The exchange with direct loads and stores (DigitExchange.h): per
/// transfer every slot digit y is loaded at one address in every PE, the
/// rounds send from these registers and receive into them, and every digit
/// is stored back at one address. `digit` and `recvDigit` are every PE's
/// (runDigitExchange has paid for them); the schedule entries of the rounds
/// of a permuted exchange are loaded once and kept, or, when they do not
/// fit beside the values (`reloadsEntries`), loaded for every transfer as
/// its round pairs run. With `partial`, its rounds instead of 6.1's, run in
/// `form`.
void runDirect(MasPar &m, const DigitExchangeShape &s,
               const DigitExchangeSequences &seqs,
               const DigitExchangeRegions &where,
               const std::vector<int64_t> &digit,
               const std::vector<int64_t> &recvDigit, const Mask &active,
               bool reloadsEntries, const DigitExchangePartialRounds *partial,
               const DigitExchangePartialForm &form) {
  const unsigned pes = m.peCount(), eb = where.elemBytes;
  const int64_t b = s.base, lo = s.firstPe, hi = lo + s.pes;
  const bool peMoves = s.foldsPePermutation();
  const int64_t firstRound = peMoves ? 0 : 1;
  auto destOf = [&](int64_t p, int64_t y) {
    return exchangeDest(s, digit, p, y);
  };
  // Per round pair: what each PE sends where, and where it keeps what
  // comes back (the digits runDigitExchange's rounds use).
  struct RoundPair {
    bool half = false;
    std::vector<int64_t> up, down, recvUp, recvDown;
    Plural dest0, dest1;
  };
  std::vector<RoundPair> pairs;
  for (int64_t k = firstRound; 2 * k <= b && !partial; ++k) {
    RoundPair r;
    r.half = k == 0 || 2 * k == b;
    r.up.assign(pes, 0);
    r.down.assign(pes, 0);
    r.recvUp.assign(pes, 0);
    r.recvDown.assign(pes, 0);
    r.dest0.assign(pes, 0);
    r.dest1.assign(pes, 0);
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t x = digit[size_t(p)], y = recvDigit[size_t(p)];
      r.up[size_t(p)] = (x + k) % b;
      r.down[size_t(p)] = (x - k + b) % b;
      r.recvUp[size_t(p)] = (y + k) % b;
      r.recvDown[size_t(p)] = (y - k + b) % b;
      r.dest0[size_t(p)] = destOf(p, r.up[size_t(p)]);
      r.dest1[size_t(p)] = destOf(p, r.down[size_t(p)]);
    }
    if (peMoves && !reloadsEntries)
      m.tableLoad(8, active);
    pairs.push_back(std::move(r));
  }
  std::vector<int64_t> srcFirst(size_t(s.highs()), 0),
      dstFirst(size_t(s.highs()), 0);
  for (int64_t h = 0; h < s.highs(); ++h) {
    srcFirst[size_t(h)] = s.srcHigh(h);
    dstFirst[size_t(h)] = s.dstHigh(h);
  }
  auto send = [&](unsigned bytes, const Plural &z, const Plural &dest,
                  Mask &received) {
    return m.routerSendCheaper(bytes, z, dest, active, received);
  };
  using Values = std::vector<Plural>; // one per slot digit
  // Every slot digit of a transfer's pieces, each at one address.
  auto loadAll = [&](const DigitExchangeTransfer &t) {
    Values in(size_t(b), Plural(pes, 0));
    for (int64_t y = 0; y < b; ++y)
      for (const DigitExchangePiece &c : t.pieces)
        forEachPart(c.bytes, [&](unsigned off, unsigned w) {
          const uint64_t at =
              where.readBase +
              uint64_t(srcFirst[size_t(c.high)] + y * s.slotWeight) * eb +
              c.first + off;
          Plural part = m.load(w, at, active);
          for (unsigned p = 0; p < pes; ++p)
            in[size_t(y)][p] |= part[p] << (8 * (c.at + off));
        });
    return in;
  };
  // Partial rounds: the values that stay on their PE are kept (register
  // work); each round's senders send the slot of their entry, with their
  // own digit in the spare bytes (or the receiver's entry holds it), and
  // the receiver keeps the value at that digit.
  auto exchangePartial = [&](const DigitExchangeTransfer &t, const Values &in,
                             Values &out, std::vector<Mask> &filled) {
    const unsigned bytes = sendWidth(t.bytes);
    const uint64_t data = t.bytes >= 8 ? ~0ull : (1ull << 8 * t.bytes) - 1;
    out.assign(size_t(b), Plural(pes, 0));
    filled.assign(size_t(b), Mask(pes, 0));
    for (int64_t p = 0; p < s.pes; ++p)
      for (int64_t y = 0; y < b; ++y)
        if (destOf(p, y) == uint64_t(p)) {
          const size_t x = size_t(digit[size_t(p)]);
          out[x][size_t(p)] = in[size_t(y)][size_t(p)];
          filled[x][size_t(p)] = 1;
        }
    Plural z(pes, 0), dest(pes, 0), slotOf(pes, 0);
    Mask sending(pes, 0), on;
    for (size_t r = 0; r < partial->rounds.size(); ++r) {
      if (r % size_t(form.roundsPerEntry) == 0)
        m.tableLoad(8, active);
      std::fill(sending.begin(), sending.end(), 0);
      for (const DigitExchangePartialSend &e : partial->rounds[r]) {
        const uint64_t to = destOf(e.pe, e.slot), x = uint64_t(digit[e.pe]);
        sending[e.pe] = 1;
        dest[e.pe] = to;
        z[e.pe] = in[e.slot][e.pe] | (form.slotInSpare ? x << 8 * t.bytes : 0);
        slotOf[to] = x; // the receiver's entry, when tabulated
      }
      Plural got = m.routerSendCheaper(bytes, z, dest, sending, on);
      for (unsigned q = 0; q < pes; ++q)
        if (on[q]) {
          const size_t at =
              size_t(form.slotInSpare ? got[q] >> 8 * t.bytes : slotOf[q]);
          out[at][q] = got[q] & data;
          filled[at][q] = 1;
        }
    }
  };
  // The rounds: each PE sends from `in`, the values it receives land in
  // `out` at the digits runDigitExchange would store them.
  auto exchangeAll = [&](const DigitExchangeTransfer &t, const Values &in,
                         Values &out, std::vector<Mask> &filled) {
    const unsigned bytes = sendWidth(t.bytes);
    out.assign(size_t(b), Plural(pes, 0));
    filled.assign(size_t(b), Mask(pes, 0));
    if (!peMoves)
      for (int64_t p = lo; p < hi; ++p) {
        const size_t x = size_t(digit[size_t(p)]);
        out[x][size_t(p)] = in[x][size_t(p)];
        filled[x][size_t(p)] = 1;
      }
    Plural z(pes, 0);
    Mask on;
    auto keep = [&](const Plural &got, const std::vector<int64_t> &at) {
      for (int64_t p = lo; p < hi; ++p)
        if (on[size_t(p)]) {
          out[size_t(at[size_t(p)])][size_t(p)] = got[size_t(p)];
          filled[size_t(at[size_t(p)])][size_t(p)] = 1;
        }
    };
    if (partial)
      return exchangePartial(t, in, out, filled);
    for (const RoundPair &r : pairs) {
      if (peMoves && reloadsEntries)
        m.tableLoad(8, active);
      for (int64_t p = lo; p < hi; ++p)
        z[size_t(p)] = in[size_t(r.up[size_t(p)])][size_t(p)];
      Plural got = send(bytes, z, r.dest0, on);
      keep(got, r.half ? r.recvUp : r.recvDown);
      if (r.half)
        continue;
      for (int64_t p = lo; p < hi; ++p)
        z[size_t(p)] = in[size_t(r.down[size_t(p)])][size_t(p)];
      got = send(bytes, z, r.dest1, on);
      keep(got, r.recvUp);
    }
  };
  auto storeAll = [&](const DigitExchangeTransfer &t, const Values &out,
                      const std::vector<Mask> &filled) {
    Plural part(pes, 0);
    for (int64_t y = 0; y < b; ++y)
      for (const DigitExchangePiece &c : t.pieces)
        forEachPart(c.bytes, [&](unsigned off, unsigned w) {
          const uint64_t at =
              where.writeBase +
              uint64_t(dstFirst[size_t(c.high)] + y * s.destSlotWeight) * eb +
              c.first + off;
          const unsigned shift = 8 * (c.at + off);
          for (unsigned p = 0; p < pes; ++p)
            part[p] =
                w == 8 ? out[size_t(y)][p] >> shift
                       : (out[size_t(y)][p] >> shift) & ((1ull << 8 * w) - 1);
          m.store(w, at, part, filled[size_t(y)]);
        });
  };
  // Along each sequence the next transfer is loaded before this one is
  // stored (in place along a folded permutation's cycles).
  Values out;
  std::vector<Mask> filled;
  for (const auto &q : seqs.rounds) {
    Values in = loadAll(q[0]);
    for (size_t i = 0; i < q.size(); ++i) {
      Values next = i + 1 < q.size() ? loadAll(q[i + 1]) : Values();
      exchangeAll(q[i], in, out, filled);
      storeAll(q[i], out, filled);
      in = std::move(next);
    }
  }
}

} // namespace

namespace {

/// One router send of a priced exchange: the machine, the width, and the
/// destinations of PEs first .. first + n - 1 (every one active).
struct RouterSendKey {
  unsigned width, height, clusterSize, bytes;
  int64_t ropen, rsend, first;
  std::vector<uint64_t> dest;
  bool operator==(const RouterSendKey &o) const {
    return width == o.width && height == o.height &&
           clusterSize == o.clusterSize && bytes == o.bytes &&
           ropen == o.ropen && rsend == o.rsend && first == o.first &&
           dest == o.dest;
  }
};
struct RouterSendKeyHash {
  size_t operator()(const RouterSendKey &k) const {
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the words
    for (uint64_t x :
         {uint64_t(k.width), uint64_t(k.height), uint64_t(k.clusterSize),
          uint64_t(k.bytes), uint64_t(k.first)})
      h = (h ^ x) * 0x100000001b3ull;
    for (uint64_t d : k.dest)
      h = (h ^ d) * 0x100000001b3ull;
    return size_t(h);
  }
};

/// MasPar::cheaperRouterCost of a round's sends, PEs first .. first + n - 1
/// active.
/// The prices depend on the PE side alone (each PE's destination per
/// round), which the planner's candidates share: 003 6.2.2's folded
/// memory permutations around one processor side, each priced in place
/// and not. So the prices are kept per thread (the least of a send's two
/// router modes, computed as the machine computes them: the same ticks).
int64_t roundRouterCost(const MasPar &m, unsigned bytes, const Plural &dest,
                        const Mask &active, int64_t first, int64_t n) {
  thread_local std::unordered_map<RouterSendKey, int64_t, RouterSendKeyHash>
      known;
  RouterSendKey key{
      m.width(),
      m.height(),
      m.clusterSize(),
      bytes,
      m.cost().ropen,
      m.cost().rsend[widthIndex(bytes)],
      first,
      std::vector<uint64_t>(dest.begin() + first, dest.begin() + first + n)};
  auto it = known.find(key);
  if (it != known.end())
    return it->second;
  if (known.size() >= 1024) // a bounded memory: 1024 sends at most
    known.clear();
  const int64_t ticks = m.cheaperRouterCost(bytes, dest, active);
  known.emplace(std::move(key), ticks);
  return ticks;
}

/// Router ticks and sends (those of positive ticks) of some rounds, per
/// transfer of each send width as the tally counts them.
struct SendTicks {
  int64_t ticks = 0, sends = 0;
};

/// Function 6.1's rounds (round 0 too when PEs move): each round pair's
/// two sends, every PE active.
SendTicks fullRoundSends(const MasPar &m, const DigitExchangeShape &s,
                         const DigitExchangeTally &tally) {
  const unsigned pes = m.peCount();
  const int64_t b = s.base, lo = s.firstPe;
  Mask active(pes, 0);
  std::fill(active.begin() + lo, active.begin() + lo + s.pes, 1);
  Plural dest0(pes, 0), dest1(pes, 0);
  SendTicks out;
  for (int64_t k = s.foldsPePermutation() ? 0 : 1; 2 * k <= b; ++k) {
    const bool half = k == 0 || 2 * k == b;
    // ownDigit and destOf count the PEs from firstPe.
    for (int64_t p = 0; p < s.pes; ++p) {
      const int64_t x = s.ownDigit(p);
      dest0[size_t(lo + p)] = uint64_t(lo + s.destOf(p, (x + k) % b));
      dest1[size_t(lo + p)] = uint64_t(lo + s.destOf(p, (x - k + b) % b));
    }
    for (unsigned w = 0; w < 4; ++w) {
      const int64_t n = tally.perSendWidth[w];
      if (!n)
        continue;
      const unsigned bytes = 1u << w;
      const int64_t send0 = roundRouterCost(m, bytes, dest0, active, lo, s.pes);
      const int64_t send1 =
          half ? 0 : roundRouterCost(m, bytes, dest1, active, lo, s.pes);
      out.ticks += n * (send0 + send1);
      out.sends += n * ((send0 > 0) + (send1 > 0));
    }
  }
  return out;
}

/// The partial rounds' sends of one width: the machine's price of each.
SendTicks partialSends(const MasPar &m, const DigitExchangeShape &s,
                       const DigitExchangePartialRounds &r, unsigned bytes) {
  const unsigned pes = m.peCount();
  Plural dest(pes, 0);
  Mask on(pes, 0);
  SendTicks out;
  for (const auto &round : r.rounds) {
    for (const DigitExchangePartialSend &e : round) {
      on[e.pe] = 1;
      dest[e.pe] = uint64_t(s.destOf(e.pe, e.slot));
    }
    const int64_t ticks = m.cheaperRouterCost(bytes, dest, on);
    out.ticks += ticks;
    out.sends += ticks > 0;
    for (const DigitExchangePartialSend &e : round)
      on[e.pe] = 0;
  }
  return out;
}

/// What a search or a floor of partial rounds depends on: the machine, the
/// send width, the registers (`live`, 0 for a floor) and the exchange's
/// destinations (its PE side, or the destinations ranked by
/// digitExchangeSendOrder).
struct RoundsKey {
  unsigned width = 0, height = 0, clusterSize = 0, bytes = 0;
  CostModel cost;
  int64_t live = 0, base = 0, pes = 0, peWeight = 0;
  std::vector<int64_t> sendDigit, destPe;

  RoundsKey() = default;
  RoundsKey(const MasPar &m, const DigitExchangeShape &s, unsigned bytes,
            int64_t live)
      : width(m.width()), height(m.height()), clusterSize(m.clusterSize()),
        bytes(bytes), cost(m.cost()), live(live), base(s.base), pes(s.pes),
        peWeight(s.peWeight), sendDigit(s.sendDigit), destPe(s.destPe) {}
  /// Without building a key: the same as RoundsKey(m, s, bytes, live).
  bool is(const MasPar &m, const DigitExchangeShape &s, unsigned b,
          int64_t l) const {
    return width == m.width() && height == m.height() &&
           clusterSize == m.clusterSize() && bytes == b && cost == m.cost() &&
           live == l && base == s.base && pes == s.pes &&
           peWeight == s.peWeight && sendDigit == s.sendDigit &&
           destPe == s.destPe;
  }
};

/// A searched schedule and its sends' prices per width (once asked).
struct SearchedRounds {
  RoundsKey key;
  DigitExchangePartialRounds rounds;
  SendTicks sends[4];
  bool priced[4] = {false, false, false, false};
};

/// Searches kept per machine and PE side, on two levels: a planner prices
/// one exchange a dozen times (in place and not, around several memory
/// permutations: `exact`, keyed by the shape), and the exchanges around
/// different memory permutations often send the same values to the same
/// PEs from other slots (`ranked`, keyed by digitExchangeSendOrder's
/// shape, rounds in ranks): one search serves them all. The sends' prices
/// read only the destinations, so an entry renamed from the ranked level
/// starts with the prices the search gave (its own width's); others it
/// prices when asked, as any entry does.
struct KeptSearches {
  std::vector<std::unique_ptr<SearchedRounds>> exact, ranked;
};
KeptSearches &keptSearches() {
  thread_local KeptSearches kept;
  return kept;
}

SearchedRounds *findKept(std::vector<std::unique_ptr<SearchedRounds>> &list,
                         const MasPar &m, const DigitExchangeShape &s,
                         unsigned bytes, int64_t live) {
  for (auto &k : list)
    if (k->key.is(m, s, bytes, live))
      return k.get();
  return nullptr;
}

SearchedRounds &keep(std::vector<std::unique_ptr<SearchedRounds>> &list,
                     std::unique_ptr<SearchedRounds> k) {
  constexpr size_t kKept = 8;
  if (list.size() >= kKept)
    list.erase(list.begin());
  list.push_back(std::move(k));
  return *list.back();
}

/// The search kept for `s` itself, or null.
SearchedRounds *keptRounds(const MasPar &m, const DigitExchangeShape &s,
                           unsigned bytes, int64_t live) {
  return findKept(keptSearches().exact, m, s, bytes, live);
}

/// The search for `s`: kept for it, else one kept for the same
/// destinations from other slots, renamed, else searched (and kept on both
/// levels).
SearchedRounds &searchedRounds(const MasPar &m, const DigitExchangeShape &s,
                               unsigned bytes, int64_t live) {
  KeptSearches &kept = keptSearches();
  if (SearchedRounds *k = keptRounds(m, s, bytes, live))
    return *k;
  const DigitExchangeSendOrder order = digitExchangeSendOrder(s);
  if (SearchedRounds *r = findKept(kept.ranked, m, order.shape, bytes, live)) {
    auto k = std::make_unique<SearchedRounds>(*r);
    k->key = RoundsKey(m, s, bytes, live);
    order.toSlots(k->rounds);
    return keep(kept.exact, std::move(k));
  }
  auto k = std::make_unique<SearchedRounds>();
  k->key = RoundsKey(m, s, bytes, live);
  // The search's own round prices are its width's sends.
  std::vector<int64_t> ticks;
  k->rounds =
      searchDigitExchangePartialRoundsInRanks(m, order, bytes, live, &ticks);
  const unsigned w = widthIndex(bytes);
  for (int64_t t : ticks) {
    k->sends[w].ticks += t;
    k->sends[w].sends += t > 0;
  }
  k->priced[w] = true;
  auto ranked = std::make_unique<SearchedRounds>(*k);
  ranked->key = RoundsKey(m, order.shape, bytes, live);
  keep(kept.ranked, std::move(ranked));
  order.toSlots(k->rounds);
  return keep(kept.exact, std::move(k));
}

SendTicks searchedSends(const MasPar &m, const DigitExchangeShape &s,
                        SearchedRounds &r, const DigitExchangeTally &tally) {
  SendTicks out;
  for (unsigned w = 0; w < 4; ++w) {
    const int64_t n = tally.perSendWidth[w];
    if (!n)
      continue;
    if (!r.priced[w])
      r.sends[w] = partialSends(m, s, r.rounds, 1u << w);
    r.priced[w] = true;
    out.ticks += n * r.sends[w].ticks;
    out.sends += n * r.sends[w].sends;
  }
  return out;
}

/// The ticks of one table entry of 8 bytes.
int64_t entryTicks(const CostModel &c) { return c.load[widthIndex(8)]; }

/// The schedule entries of partial rounds: several rounds an entry, loaded
/// for every transfer.
int64_t partialEntryTicks(size_t rounds, const DigitExchangePartialForm &f,
                          const DigitExchangeTally &t, const CostModel &c) {
  const int64_t per = f.roundsPerEntry;
  return t.transfers * ((int64_t(rounds) + per - 1) / per) * entryTicks(c);
}

/// digitExchangePartialRoundsFloor, kept per machine and PE side (every
/// width counted at once): the planner asks for one exchange's floor a
/// dozen times before its search, if any.
DigitExchangePartialFloor
keptFloor(const MasPar &m, const DigitExchangeShape &s, unsigned bytes) {
  struct Kept {
    RoundsKey key;
    std::array<DigitExchangePartialFloor, 4> floors;
  };
  constexpr size_t kKept = 16;
  thread_local std::vector<Kept> kept;
  for (const Kept &k : kept)
    if (k.key.is(m, s, 0, 0))
      return k.floors[widthIndex(bytes)];
  if (kept.size() >= kKept)
    kept.erase(kept.begin());
  kept.push_back(
      {RoundsKey(m, s, 0, 0), digitExchangePartialRoundsFloors(m, s)});
  return kept.back().floors[widthIndex(bytes)];
}

/// A floor of partial rounds' sends and schedule entries, in place of a
/// search (DigitExchangeFloorPricing).
struct FlooredRounds {
  bool used = false;
  SendTicks sends;
  int64_t entries = 0;
};

/// digitExchangeRoundsChoice from the tally and the loads; `out` gets the
/// partial rounds when they win, `sends` their sends' prices, and `full`
/// those of function 6.1's rounds. With `floored` (an exchange run, not
/// reported) a search not kept yet is skipped where the rounds' floor
/// already loses to function 6.1's, and priced at that floor (`floored`
/// used, `sends` the floor's) under a DigitExchangeFloorPricing.
DigitExchangeRoundsChoice
chooseRounds(const MasPar &m, const DigitExchangeShape &s,
             const DigitExchangeTally &tally, const DigitExchangeLoads &loads,
             const DigitExchangePartialForm &form,
             const DigitExchangePartialRounds **out, SendTicks *sends = nullptr,
             SendTicks *full = nullptr, FlooredRounds *floored = nullptr) {
  DigitExchangeRoundsChoice c;
  const SendTicks fullSends = fullRoundSends(m, s, tally);
  if (full)
    *full = fullSends;
  c.fullTicks = fullSends.ticks;
  if (s.foldsPePermutation())
    c.fullTicks += (s.base / 2 + 1) *
                   (loads.reloadsEntries ? tally.transfers : 1) *
                   entryTicks(m.cost());
  if (!form.usable) {
    c.whyNot = "partial rounds need direct loads and no cycles walked";
    return c;
  }
  // The search costs some 60 M instructions on random #5 (base 18, 648
  // PEs); it is tried where a PE holds many values bound for many
  // clusters, which is where full rounds' clustered price is high.
  if (s.pes <= int64_t(m.clusterSize()) || s.base < 8) {
    c.whyNot = "not searched: one cluster or a base below 8";
    return c;
  }
  const unsigned bytes = 1u << widthIndex(sendWidth(tally.widest));
  if (floored && !keptRounds(m, s, bytes, form.live)) {
    // No rounds cost less than their floor: where it does not beat
    // function 6.1's rounds, neither would the search's.
    DigitExchangePartialFloor f;
    SendTicks least;
    for (unsigned w = 0; w < 4; ++w)
      if (const int64_t n = tally.perSendWidth[w]) {
        f = keptFloor(m, s, 1u << w);
        least.ticks += n * f.ticks;
        least.sends += n * f.rounds;
      }
    const int64_t entries =
        partialEntryTicks(size_t(f.rounds), form, tally, m.cost());
    if (least.ticks + entries >= c.fullTicks) {
      c.whyNot = "not searched: the partial rounds' floor loses";
      return c;
    }
    DigitExchangeFloorPricing *p = DigitExchangeFloorPricing::active();
    if (p && m.pricingOnly()) {
      p->markFloored();
      *floored = {true, least, entries};
      c.partial = true;
      c.partialTicks = least.ticks + entries;
      if (sends)
        *sends = least;
      return c;
    }
  }
  SearchedRounds &r = searchedRounds(m, s, bytes, form.live);
  if (r.rounds.rounds.empty()) {
    c.whyNot = "the search found no schedule";
    return c;
  }
  c.partialRounds = r.rounds.rounds.size();
  const SendTicks partial = searchedSends(m, s, r, tally);
  c.partialTicks =
      partial.ticks + partialEntryTicks(c.partialRounds, form, tally, m.cost());
  c.partial = c.partialTicks < c.fullTicks;
  if (c.partial && out)
    *out = &r.rounds;
  if (c.partial && sends)
    *sends = partial;
  return c;
}

/// The exchange, in `forced` partial rounds when given, else in the
/// rounds chooseRounds picks.
void runExchange(MasPar &m, const DigitExchangeShape &s,
                 const DigitExchangeRegions &where,
                 const DigitExchangePartialRounds *forced);

} // namespace

namespace {
thread_local DigitExchangeFloorPricing *activeFloorPricing = nullptr;
} // namespace

DigitExchangeFloorPricing::DigitExchangeFloorPricing()
    : outer_(activeFloorPricing) {
  activeFloorPricing = this;
}

DigitExchangeFloorPricing::~DigitExchangeFloorPricing() {
  activeFloorPricing = outer_;
}

DigitExchangeFloorPricing *DigitExchangeFloorPricing::active() {
  return activeFloorPricing;
}

DigitExchangePartialForm
mapc::rt::digitExchangePartialForm(const DigitExchangeShape &s,
                                   const DigitExchangeTally &t,
                                   const DigitExchangeLoads &l, bool inPlace) {
  DigitExchangePartialForm f;
  // The search numbers the exchange's PEs from 0 as the machine's (its
  // clusters are the router's): an exchange from a later first PE keeps
  // 6.1's full rounds.
  if (!l.direct || walksCycles(s, inPlace) || s.pes < 2 || s.firstPe != 0)
    return f;
  // The values in hand, packed as the direct form packs them, beside the
  // running entry (two registers) in 32 (003 5.6.2).
  f.live = s.base;
  while (digitExchangeValueRegisters(f.live + 1, t.widest, 1) + 2 <= 32)
    ++f.live;
  if (digitExchangeValueRegisters(s.base, t.widest, 1) + 2 > 32)
    return f;
  // An entry per round: an active bit, the slot sent and the destination
  // (and the receiver's slot unless the sends have a spare byte for it).
  auto bitsFor = [](int64_t n) {
    int64_t bits = 0;
    while ((int64_t(1) << bits) < n)
      ++bits;
    return bits;
  };
  f.slotInSpare = t.filledSends == 0 && s.base <= 256;
  const int64_t bits = 1 + bitsFor(s.base) + bitsFor(s.pes) +
                       (f.slotInSpare ? 0 : bitsFor(s.base));
  f.roundsPerEntry = 64 / bits;
  f.usable = f.roundsPerEntry > 0;
  return f;
}

DigitExchangeRoundsChoice
mapc::rt::digitExchangeRoundsChoice(const MasPar &m,
                                    const DigitExchangeShape &s,
                                    unsigned elemBytes, bool inPlace) {
  const DigitExchangeTally tally = digitExchangeTally(s, elemBytes, inPlace);
  const DigitExchangeLoads loads =
      digitExchangeLoads(s, tally, elemBytes, inPlace, m.cost());
  return chooseRounds(m, s, tally, loads,
                      digitExchangePartialForm(s, tally, loads, inPlace),
                      nullptr);
}

void mapc::rt::runDigitExchange(MasPar &m, const DigitExchangeShape &s,
                                const DigitExchangeRegions &where) {
  runExchange(m, s, where, nullptr);
}

void mapc::rt::runDigitExchangePartial(
    MasPar &m, const DigitExchangeShape &s, const DigitExchangeRegions &where,
    const DigitExchangePartialRounds &rounds) {
  const DigitExchangeTally t =
      digitExchangeTally(s, where.elemBytes, where.inPlace);
  const DigitExchangePartialForm f = digitExchangePartialForm(
      s, t, digitExchangeLoads(s, t, where.elemBytes, where.inPlace, m.cost()),
      where.inPlace);
  std::string wrong = f.usable
                          ? checkDigitExchangePartialRounds(s, rounds, f.live)
                          : "the exchange cannot run partial rounds";
  if (!wrong.empty()) {
    std::fprintf(stderr, "mapc runtime: digit exchange: %s\n", wrong.c_str());
    std::abort();
  }
  runExchange(m, s, where, &rounds);
}

namespace {
void runExchange(MasPar &m, const DigitExchangeShape &s,
                 const DigitExchangeRegions &regions,
                 const DigitExchangePartialRounds *forced) {
  // The held slots from firstSlot on: the regions' bases moved up (an
  // address constant, no instruction).
  DigitExchangeRegions where = regions;
  where.readBase += uint64_t(s.firstSlot) * where.elemBytes;
  where.writeBase += uint64_t(s.firstSlot) * where.elemBytes;
  const unsigned pes = m.peCount();
  const int64_t b = s.base, lo = s.firstPe, hi = lo + s.pes;
  assert(lo >= 0 && hi <= int64_t(pes) && "the exchange's PEs on the machine");
  // PEs firstPe .. firstPe + pes - 1 take part, the others idle.
  Mask active(pes, 0);
  for (int64_t p = lo; p < hi; ++p)
    active[size_t(p)] = 1;
  // Every PE's own digit of the PE number, counted from firstPe: one
  // division with remainder (function 6.1), or with a processor
  // permutation folded in, its digit and the digit it receives from a
  // schedule table.
  const bool peMoves = s.foldsPePermutation();
  std::vector<int64_t> digit(pes, 0), recvDigit(pes, 0);
  for (int64_t p = lo; p < hi; ++p) {
    const size_t q = size_t(p - lo);
    digit[size_t(p)] = peMoves ? s.sendDigit[q] : (p - lo) / s.peWeight % b;
    recvDigit[size_t(p)] = peMoves ? s.recvDigit[q] : digit[size_t(p)];
  }
  if (peMoves)
    m.tableLoad(8, active);
  else
    m.arith(1, active);
  // Where PE p sends its slot digit y.
  auto destOf = [&](int64_t p, int64_t y) {
    return exchangeDest(s, digit, p, y);
  };
  // Round 0 sends the diagonal when PEs move; rounds k and b - k pair up.
  const int64_t firstRound = peMoves ? 0 : 1;

  const unsigned eb = where.elemBytes;
  const int64_t highs = s.highs();
  Plural dest0(pes, 0), dest1(pes, 0);
  const CostModel &cost = m.cost();
  if (m.pricingOnly() && s.pes > 0) {
    // Every transfer of one round costs what any other of the same send
    // width does: priced once per width, times their number, from the
    // sequences' tally (no sequences made). Loaded directly, every
    // transfer's pieces are loaded and stored once per slot digit, the
    // diagonal among them.
    const DigitExchangeTally tally = digitExchangeTally(s, eb, where.inPlace);
    const DigitExchangeLoads loads =
        digitExchangeLoads(s, tally, eb, where.inPlace, cost);
    assert((!where.inPlace || s.canRunInPlace() || loads.direct) &&
           "in place needs digitExchangeRunsInPlace");
    const int64_t *perWidth = tally.perSendWidth;
    const int64_t transfers = tally.transfers;
    const DigitExchangePartialForm form =
        digitExchangePartialForm(s, tally, loads, where.inPlace);
    const DigitExchangePartialRounds *partial = forced;
    // The sends of the partial rounds (searched ones priced once) and of
    // function 6.1's, both priced by chooseRounds.
    SendTicks sends, full;
    FlooredRounds floored;
    if (!forced)
      chooseRounds(m, s, tally, loads, form, &partial, &sends, &full, &floored);
    assert((!partial || form.usable) && "partial rounds need direct loads");
    int64_t roundMoves = 0, diagonalMoves = 0;
    if (loads.direct)
      diagonalMoves = b * partTicks(tally.roundParts, cost.load, cost.load);
    else
      roundMoves =
          partTicks(tally.roundParts, cost.loadIndirect, cost.loadIndirect);
    if (!peMoves && !loads.direct)
      diagonalMoves +=
          partTicks(tally.diagonalParts, cost.loadIndirect, cost.loadIndirect);
    Ledger &ledger = m.ledger();
    if (floored.used) {
      ledger.router += sends.ticks;
      ledger.routerSends += sends.sends;
      ledger.memory += diagonalMoves + floored.entries;
      return;
    }
    if (partial) {
      for (unsigned w = 0; w < 4 && forced; ++w)
        if (perWidth[w]) {
          const SendTicks one = partialSends(m, s, *partial, 1u << w);
          sends.ticks += perWidth[w] * one.ticks;
          sends.sends += perWidth[w] * one.sends;
        }
      ledger.router += sends.ticks;
      ledger.routerSends += sends.sends;
      ledger.memory += diagonalMoves + partialEntryTicks(partial->rounds.size(),
                                                         form, tally, cost);
      return;
    }
    // Function 6.1's round pairs: their sends as chooseRounds priced them
    // (fullRoundSends), their entries and indirect moves here.
    ledger.router += full.ticks;
    ledger.routerSends += full.sends;
    for (int64_t k = firstRound; 2 * k <= b; ++k) {
      const bool half = k == 0 || 2 * k == b;
      // One entry per round pair, again for every transfer when reloaded.
      if (peMoves) {
        m.tableLoad(8, active);
        if (loads.reloadsEntries)
          ledger.memory += (transfers - 1) * cost.load[widthIndex(8)];
      }
      ledger.memory += (half ? 1 : 2) * roundMoves;
    }
    ledger.memory += diagonalMoves;
    return;
  }

  // Sequences of transfers, each stored after the next one is loaded.
  using Sequence = std::vector<DigitExchangeTransfer>;
  const DigitExchangeSequences seqs =
      digitExchangeSequences(s, eb, where.inPlace);
  const std::vector<Sequence> &rounds = seqs.rounds, &diagonal = seqs.diagonal;
  const DigitExchangeLoads loads =
      digitExchangeLoads(s, seqs, eb, where.inPlace, cost);
  assert((!where.inPlace || s.canRunInPlace() || loads.direct) &&
         "in place needs digitExchangeRunsInPlace");
  const bool direct = loads.direct;
  std::vector<int64_t> srcFirst(size_t(highs), 0), dstFirst(size_t(highs), 0);
  for (int64_t h = 0; h < highs; ++h) {
    srcFirst[size_t(h)] = s.srcHigh(h);
    dstFirst[size_t(h)] = s.dstHigh(h);
  }
  auto readAddr = [&](const DigitExchangePiece &c, int64_t d) {
    return where.readBase +
           uint64_t(srcFirst[size_t(c.high)] + d * s.slotWeight) * eb + c.first;
  };
  auto writeAddr = [&](const DigitExchangePiece &c, int64_t d) {
    return where.writeBase +
           uint64_t(dstFirst[size_t(c.high)] + d * s.destSlotWeight) * eb +
           c.first;
  };
  auto send = [&](unsigned bytes, const Plural &z, const Plural &dest,
                  Mask &received) {
    return m.routerSendCheaper(bytes, z, dest, active, received);
  };

  // One transfer's pieces, each loaded in parts of powers of two into its
  // bytes of one value, and stored back from it. `digitOf(p)` is the slot
  // digit PE p reads or writes.
  Plural addr(pes, 0);
  auto load = [&](const DigitExchangeTransfer &t, auto digitOf) {
    Plural v(pes, 0);
    for (const DigitExchangePiece &c : t.pieces)
      forEachPart(c.bytes, [&](unsigned off, unsigned w) {
        for (int64_t p = lo; p < hi; ++p)
          addr[size_t(p)] = readAddr(c, digitOf(p)) + off;
        Plural part = m.loadIndirect(w, addr, active);
        for (unsigned p = 0; p < pes; ++p)
          v[p] |= part[p] << (8 * (c.at + off));
      });
    return v;
  };
  auto store = [&](const DigitExchangeTransfer &t, auto digitOf,
                   const Plural &v, const Mask &on) {
    Plural part(pes, 0);
    for (const DigitExchangePiece &c : t.pieces)
      forEachPart(c.bytes, [&](unsigned off, unsigned w) {
        for (int64_t p = lo; p < hi; ++p)
          addr[size_t(p)] = writeAddr(c, digitOf(p)) + off;
        const unsigned shift = 8 * (c.at + off);
        for (unsigned p = 0; p < pes; ++p)
          part[p] =
              w == 8 ? v[p] >> shift : (v[p] >> shift) & ((1ull << 8 * w) - 1);
        m.storeIndirect(w, addr, part, on);
      });
  };
  const DigitExchangePartialForm form = digitExchangePartialForm(
      s, digitExchangeTally(seqs), loads, where.inPlace);
  const DigitExchangePartialRounds *partial = forced;
  // Not under a DigitExchangeFloorPricing: a machine that runs the
  // elements never prices a floor.
  FlooredRounds floored;
  if (!forced && direct)
    chooseRounds(m, s, digitExchangeTally(seqs), loads, form, &partial, nullptr,
                 nullptr, &floored);
  assert(!floored.used && "an exchange run at its floor");
  assert((!partial || form.usable) && "partial rounds need direct loads");
  if (direct) {
    runDirect(m, s, seqs, where, digit, recvDigit, active, loads.reloadsEntries,
              partial, form);
    return;
  }
  // Rounds k and b - k together (function 6.1): each PE reads its slot
  // digits x + k and x - k, sends them to PEs x + k and x - k, and stores
  // what comes back in the same two places, so nothing is overwritten
  // before it is read. For even b, round b/2 reads, sends and writes one.
  for (int64_t k = firstRound; 2 * k <= b; ++k) {
    const bool half = k == 0 || 2 * k == b;
    // Read at the sender's digits x + k and x - k; stored at the
    // receiver's (the plain PE's) digits y - k and y + k.
    std::vector<int64_t> up(pes, 0), down(pes, 0), recvUp(pes, 0),
        recvDown(pes, 0);
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t x = digit[size_t(p)], y = recvDigit[size_t(p)];
      up[size_t(p)] = (x + k) % b;
      down[size_t(p)] = (x - k + b) % b;
      recvUp[size_t(p)] = (y + k) % b;
      recvDown[size_t(p)] = (y - k + b) % b;
      dest0[size_t(p)] = destOf(p, up[size_t(p)]);
      dest1[size_t(p)] = destOf(p, down[size_t(p)]);
    }
    // A permuted round's destinations and receiver digits: one table entry.
    if (peMoves)
      m.tableLoad(8, active);
    auto upOf = [&](int64_t p) { return up[size_t(p)]; };
    auto downOf = [&](int64_t p) { return down[size_t(p)]; };
    auto recvUpOf = [&](int64_t p) { return recvUp[size_t(p)]; };
    auto recvDownOf = [&](int64_t p) { return recvDown[size_t(p)]; };
    // What one transfer received, until it is stored.
    struct Received {
      Plural got0, got1;
      Mask on0, on1;
    };
    auto exchange = [&](const DigitExchangeTransfer &t) {
      const unsigned bytes = sendWidth(t.bytes);
      Received r;
      Plural z0 = load(t, upOf);
      if (half) {
        r.got0 = send(bytes, z0, dest0, r.on0);
        return r;
      }
      Plural z1 = load(t, downOf);
      r.got0 = send(bytes, z0, dest0, r.on0);
      r.got1 = send(bytes, z1, dest1, r.on1);
      return r;
    };
    // From PE x - k comes the element of slot digit x; it is stored at
    // digit x - k. From x + k, at x + k.
    auto keep = [&](const DigitExchangeTransfer &t, const Received &r) {
      if (half) {
        store(t, recvUpOf, r.got0, r.on0);
        return;
      }
      store(t, recvDownOf, r.got0, r.on0);
      store(t, recvUpOf, r.got1, r.on1);
    };
    for (const Sequence &q : rounds) {
      Received pending = exchange(q[0]);
      for (size_t i = 1; i < q.size(); ++i) {
        Received next = exchange(q[i]);
        keep(q[i - 1], pending);
        pending = std::move(next);
      }
      keep(q.back(), pending);
    }
  }
  // The diagonal, along its sequences as the rounds (round 0 sent it when
  // PEs move).
  auto ownOf = [&](int64_t p) { return digit[size_t(p)]; };
  for (const Sequence &q : peMoves ? std::vector<Sequence>() : diagonal) {
    Plural pending = load(q[0], ownOf);
    for (size_t i = 0; i < q.size(); ++i) {
      Plural next = i + 1 < q.size() ? load(q[i + 1], ownOf) : Plural();
      store(q[i], ownOf, pending, active);
      pending = std::move(next);
    }
  }
}

} // namespace
