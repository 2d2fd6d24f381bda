//===- NetworkTiming.cpp - element transfers timed by link reservations ---===//
//
// timeByReservation (NetworkTiming.h): one walk per element in key order,
// each hop taking the first cycle its link has free after the element
// arrives.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkTiming.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>
#include <tuple>

namespace mapc::rt {

ZeroedWords::ZeroedWords(size_t count)
    : words(count
                ? static_cast<uint64_t *>(std::calloc(count, sizeof(uint64_t)))
                : nullptr),
      count(count) {
  if (count && !words)
    throw std::bad_alloc();
}

ZeroedWords &ZeroedWords::operator=(ZeroedWords &&other) noexcept {
  if (this != &other) {
    std::free(words);
    words = other.words;
    count = other.count;
    other.words = nullptr;
    other.count = 0;
  }
  return *this;
}

ZeroedWords::~ZeroedWords() { std::free(words); }

void ZeroedWords::grow(size_t newCount) {
  assert(newCount >= count && "the words only grow");
  if (newCount == count)
    return;
  void *grown = std::realloc(words, newCount * sizeof(uint64_t));
  if (!grown)
    throw std::bad_alloc();
  words = static_cast<uint64_t *>(grown);
  std::memset(words + count, 0, (newCount - count) * sizeof(uint64_t));
  count = newCount;
}

LinkCalendar::LinkCalendar(size_t links, uint64_t cycleHint, size_t maxWords,
                           bool listTaken)
    : links(links), maxWords(maxWords), listTaken(listTaken),
      words(
          std::max<size_t>(1, std::min(size_t((cycleHint + 64) / 64),
                                       maxWords / std::max<size_t>(1, links)))),
      bits(links * words), fullWords((words + 63) / 64),
      full(links * fullWords), takenBelow(links, 1),
      dirty(listTaken ? links : 0, 0) {}

bool LinkCalendar::grow(size_t minWords) {
  size_t grown = std::max(minWords, 2 * words);
  if (links * grown > maxWords)
    return false;
  // Word-major: the new words (and summaries) are appended, empty.
  bits.grow(links * grown);
  words = grown;
  fullWords = (words + 63) / 64;
  full.grow(links * fullWords);
  return true;
}

uint32_t LinkCalendar::scanFrom(size_t link, uint64_t c) {
  for (;;) {
    size_t w = size_t(c >> 6);
    if (w >= words) {
      if (!grow(w + 1))
        return 0;
    }
    // Cycles below c in this word count as taken.
    uint64_t taken = bits[w * links + link] | ((uint64_t(1) << (c & 63)) - 1);
    if (~taken)
      return uint32_t((uint64_t(w) << 6) + unsigned(__builtin_ctzll(~taken)));
    // Mostly a queue ends in the next word: read it without the summaries.
    if (w + 1 < words) {
      const uint64_t after = bits[(w + 1) * links + link];
      if (~after)
        return uint32_t((uint64_t(w + 1) << 6) +
                        unsigned(__builtin_ctzll(~after)));
    }
    // On to the first word after w that is not full, by the summaries (a
    // word past the bitmap counts as not full).
    size_t next = w + 1;
    for (;;) {
      const size_t s = next >> 6;
      if (s >= fullWords) {
        next = std::max(next, words);
        break;
      }
      const uint64_t open =
          ~full[s * links + link] & (~uint64_t(0) << (next & 63));
      if (open) {
        next = (s << 6) + unsigned(__builtin_ctzll(open));
        break;
      }
      next = (s + 1) << 6;
    }
    c = uint64_t(next) << 6;
  }
}

uint32_t LinkCalendar::takeByScan(size_t link, uint32_t &below, uint32_t from) {
  const uint32_t c = scanFrom(link, from);
  if (c == 0)
    return 0;
  uint64_t &word = bits[(c >> 6) * links + link];
  word |= uint64_t(1) << (c & 63);
  noteIfFull(link, c >> 6, word);
  return taken(link, below, from, c);
}

void LinkCalendar::markDirty(size_t link) {
  dirty[link] = 1;
  touched.push_back(uint32_t(link));
}

void LinkCalendar::clear() {
  assert(listTaken && "a calendar that lists no links cannot be cleared");
  for (uint32_t l : touched) {
    for (size_t w = 0; w < words; ++w)
      bits[w * links + l] = 0;
    for (size_t f = 0; f < fullWords; ++f)
      full[f * links + l] = 0;
    takenBelow[l] = 1;
    dirty[l] = 0;
  }
  touched.clear();
}

int64_t timeByReservation(const NetworkShape &shape,
                          const std::vector<Transfer> &transfers,
                          uint64_t &hops, uint64_t &maxLoad,
                          size_t maxBitmapWords) {
  // One walk per transfer and phase, in (phase, priority, index) order.
  struct Walk {
    uint32_t phase, priority, transfer, first, end;
  };
  std::vector<Walk> walks;
  walks.reserve(transfers.size());
  hops = 0;
  for (uint32_t i = 0; i < transfers.size(); ++i) {
    const Transfer &t = transfers[i];
    for (uint32_t k = 0; k < t.path.size();) {
      const uint32_t phase = t.phase + t.path[k].phase;
      const uint32_t priority = t.path[k].priority;
      uint32_t j = k;
      for (; j < t.path.size() && t.phase + t.path[j].phase == phase; ++j) {
        if (t.path[j].priority != priority)
          return -1; // two keys in one phase: not a single walk
        hops += t.path[j].count;
      }
      walks.push_back({phase, priority, i, k, j});
      k = j;
    }
  }
  auto key = [](const Walk &w) {
    return std::tie(w.phase, w.priority, w.transfer);
  };
  auto byKey = [&](const Walk &a, const Walk &b) { return key(a) < key(b); };
  if (!std::is_sorted(walks.begin(), walks.end(), byKey))
    std::sort(walks.begin(), walks.end(), byKey);

  const std::vector<int32_t> strides = nodeStrides(shape);
  const unsigned perNode = linksPerNode(shape);
  const size_t links = size_t(shape.nodeCount()) * perNode;
  LinkCalendar calendar(links, 64, maxBitmapWords);
  std::vector<uint32_t> at(transfers.size()), load(links, 0);
  for (size_t i = 0; i < transfers.size(); ++i)
    at[i] = transfers[i].node;
  maxLoad = 0;
  int64_t phaseStart = 0, end = 0;
  for (size_t w = 0; w < walks.size(); ++w) {
    const Walk &walk = walks[w];
    if (w > 0 && walk.phase != walks[w - 1].phase) {
      // A barrier: the next phase moves from the cycle after the last hop.
      phaseStart = end;
      calendar.clear();
    }
    const Transfer &t = transfers[walk.transfer];
    uint32_t node = at[walk.transfer], cycle = 0;
    for (uint32_t k = walk.first; k < walk.end; ++k) {
      const Hop &h = t.path[k];
      const unsigned slot = linkSlot(shape, h);
      for (uint32_t s = 0; s < h.count; ++s) {
        const size_t link = size_t(node) * perNode + slot;
        cycle = calendar.takeAfter(link, cycle);
        if (cycle == 0)
          return -1; // past the bitmap cap
        maxLoad = std::max<uint64_t>(maxLoad, ++load[link]);
        node = shape.cube ? node ^ (uint32_t(1) << h.dim)
                          : uint32_t(int64_t(node) + h.dir * strides[h.dim]);
      }
    }
    at[walk.transfer] = node;
    end = std::max(end, phaseStart + cycle);
  }
  return end;
}

} // namespace mapc::rt
