//===- Resignify.cpp - 003 6.3.4's resig_mp -------------------------------===//
#include "mapc/runtime/Resignify.h"

#include <algorithm>

using namespace mapc::rt;

int64_t ResignifyShape::destOf(int64_t pe, int64_t slot) const {
  const int64_t x = pe / peWeight % peBase, y = slot / slotWeight % slotBase;
  int64_t x2, y2;
  if (!inverse) {
    const int64_t a = slotBase * x + y;
    x2 = a % peBase;
    y2 = a / peBase;
  } else {
    const int64_t a = peBase * y + x;
    x2 = a / slotBase;
    y2 = a % slotBase;
  }
  return (pe + (x2 - x) * peWeight) * slots + slot + (y2 - y) * slotWeight;
}

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d * d != n)
        out.push_back(n / d);
    }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

bool mapc::rt::resignifiesEveryCell(const ResignifyShape &s,
                                    const std::vector<uint32_t> &sources) {
  // destOf(pe, slot) is the cell plus a step that depends only on the two
  // digits' values (x, y): one table of steps, the cells walked in order.
  const int64_t b1 = s.peBase, b0 = s.slotBase;
  std::vector<int64_t> step(size_t(b1 * b0));
  for (int64_t x = 0; x < b1; ++x)
    for (int64_t y = 0; y < b0; ++y)
      step[size_t(x * b0 + y)] = s.destOf(x * s.peWeight, y * s.slotWeight) -
                                 (x * s.peWeight * s.slots + y * s.slotWeight);
  const int64_t cells = s.pes * s.slots, span = s.slotWeight * b0;
  if (int64_t(sources.size()) != cells)
    return false;
  if (s.slots % span || s.pes % (s.peWeight * b1)) { // digits that do not nest
    for (int64_t c = 0; c < cells; ++c) {
      const int64_t d = s.destOf(c / s.slots, c % s.slots);
      if (d < 0 || d >= cells || sources[size_t(d)] != uint32_t(c))
        return false;
    }
    return true;
  }
  for (int64_t pe = 0, c = 0; pe < s.pes; ++pe) {
    const int64_t *row = &step[size_t(pe / s.peWeight % b1 * b0)];
    for (int64_t high = 0; high < s.slots; high += span)
      for (int64_t y = 0; y < b0; ++y)
        for (int64_t lo = 0; lo < s.slotWeight; ++lo, ++c)
          if (sources[size_t(c + row[y])] != uint32_t(c))
            return false;
  }
  return true;
}

bool mapc::rt::findResignification(const TileMap &from, const TileMap &to,
                                   const std::vector<uint32_t> &sources,
                                   ResignifyShape &shape, std::string *why) {
  auto fail = [&](const char *w) {
    if (why)
      *why = w;
    return false;
  };
  const int64_t slots = slotsOf(to), pes = pesOf(to);
  if (slotsOf(from) != slots || pesOf(from) != pes)
    return fail("a re-signification keeps the number of slots and PEs");
  const int64_t cells = slots * pes;
  if (int64_t(sources.size()) != cells || from.deviceSize() != cells ||
      from.dataSize() != cells || to.dataSize() != cells)
    return fail("a re-signification needs every cell of both layouts held");
  for (uint32_t s : sources)
    if (s == kNoSource)
      return fail("a re-signification needs every cell of both layouts held");
  // The slot digit's place: the identity slot digits below it keep PE 0's
  // first elements where they are.
  std::vector<int64_t> destOf(size_t(slots), -1);
  for (size_t b = 0; b < sources.size(); ++b)
    if (int64_t(sources[b]) < slots)
      destOf[sources[b]] = int64_t(b);
  int64_t wm = 1;
  while (wm < slots && destOf[size_t(wm)] == wm)
    ++wm;
  if (wm >= slots)
    return fail("PE 0's elements do not move as in a re-signification");
  // A few cells spread over the device reject most candidates at once.
  std::vector<int64_t> sample;
  for (int64_t i = 0; i < 64 && i < cells; ++i)
    sample.push_back(int64_t((uint64_t(i) * 2654435761u) % uint64_t(cells)));
  auto matches = [&](const ResignifyShape &s, int64_t cell) {
    return s.destOf(cell / slots, cell % slots) >= 0 &&
           sources[size_t(s.destOf(cell / slots, cell % slots))] ==
               uint32_t(cell);
  };
  for (int64_t b0 : divisors(slots / wm)) {
    if (b0 < 2)
      continue;
    for (int64_t wp : divisors(pes))
      for (int64_t b1 : divisors(pes / wp)) {
        if (b1 < 2)
          continue;
        for (bool inverse : {false, true}) {
          ResignifyShape s{b1, b0, wp, wm, pes, slots, inverse};
          bool ok = true;
          for (int64_t c : sample)
            if (!(ok = matches(s, c)))
              break;
          if (ok && resignifiesEveryCell(s, sources)) {
            shape = s;
            return true;
          }
        }
      }
  }
  return fail("the move is not one re-signification of a PE digit and a "
              "slot digit");
}

std::vector<std::vector<SendItem>>
mapc::rt::resignifyTransfers(const ResignifyShape &s, unsigned elemBytes,
                             bool inPlace) {
  // The identity slot digits below the slot digit travel together, in
  // chunks of a power of two of elements of at most 64 bits (003 5.6.3).
  const unsigned perChunk = elemBytes < 8 ? 8 / elemBytes : 1;
  struct Chunk {
    int64_t lo;
    uint32_t elems;
  };
  std::vector<Chunk> chunks;
  for (int64_t lo = 0; lo < s.slotWeight;) {
    uint32_t c = 1;
    while (c * 2 <= perChunk && lo + int64_t(c) * 2 <= s.slotWeight)
      c *= 2;
    chunks.push_back({lo, c});
    lo += c;
  }
  const int64_t span = s.slotWeight * s.slotBase, highs = s.slots / span;
  const int64_t b0 = s.slotBase, b1 = s.peBase;
  std::vector<std::vector<SendItem>> lists(size_t(s.pes));
  for (int64_t p = 0; p < s.pes; ++p) {
    const int64_t x = p / s.peWeight % b1;
    // 6.3.8: with a longer slot digit than PE digit, PE digit x starts at
    // x (|M| - 1) / (|P| - 1), spreading the first sends; else at x mod |M|.
    int64_t start = b0 > b1 ? x * (b0 - 1) / (b1 - 1) : x % b0;
    // Forward, x' = (b0 x + y) mod b1: starting at y = x (1 - b0) mod b1
    // makes round r's destination digit x + r, all different, until y
    // wraps past b0 (a skew of our own, when that start is a slot digit).
    const int64_t cyclic = ((x - b0 % b1 * x) % b1 + b1) % b1;
    if (!s.inverse && cyclic < b0)
      start = cyclic;
    auto &l = lists[size_t(p)];
    for (int64_t r = 0; r < b0; ++r) {
      const int64_t y = (start + r) % b0;
      const int64_t cell = s.destOf(p, y * s.slotWeight);
      const int64_t q = cell / s.slots, y2 = cell % s.slots / s.slotWeight;
      if (inPlace && q == p && y2 == y)
        continue;
      bool first = true;
      for (int64_t h = 0; h < highs; ++h)
        for (const Chunk &c : chunks) {
          SendItem t;
          t.srcSlot = uint32_t(h * span + y * s.slotWeight + c.lo);
          t.dstSlot = uint32_t(h * span + y2 * s.slotWeight + c.lo);
          t.dstPe = uint32_t(q);
          t.elems = c.elems;
          t.divmods = first ? 1 : 0;
          first = false;
          l.push_back(t);
        }
    }
  }
  return lists;
}

int64_t mapc::rt::resignifyInPlaceFloor(const TileMap &from, const TileMap &to,
                                        const std::vector<uint32_t> &sources,
                                        unsigned elemBytes,
                                        const MachineShape &shape,
                                        const CostModel &cost) {
  ResignifyShape s;
  if (!findResignification(from, to, sources, s, nullptr))
    return -1;
  const MasPar m =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  return inPlaceTransfersFloor(m, resignifyTransfers(s, elemBytes, true),
                               elemBytes);
}
