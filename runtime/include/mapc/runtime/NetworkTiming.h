//===- NetworkTiming.h - the cycles of a list of element transfers --------===//
//
// NetworkMachine::run's timing (Network.h, 001's store-and-forward model) in
// two forms that give the same cycles:
//
// - timeCycleByCycle simulates cycle after cycle: every directed link keeps
//   a heap of the elements waiting for it and moves the smallest (phase,
//   priority, index) each cycle. Any transfers; the reference.
// - timeByReservation walks one element at a time. Within a phase the
//   element that crosses a link in cycle t is the smallest key waiting there,
//   so an element is delayed only by elements of smaller keys: it crosses
//   each link in the first cycle after its arrival that no smaller key has
//   taken. Taking the elements in key order, each path is walked once and
//   every link's taken cycles kept in a bitmap (LinkCalendar); no heaps and
//   no cycle loop. This holds when an element's key is one per phase, i.e.
//   every hop of a transfer within one phase has the same priority (Route
//   steps: one priority per element). Phases are barriers: phase p starts
//   in the cycle after the last hop of phase p - 1, so each is timed on its
//   own, from where its elements stand.
//
// NetworkGeneralTest's Reservation tests check both on thousands of random
// transfer lists (phases, priorities, meshes of any sides and cubes).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_NETWORKTIMING_H
#define MAPC_RUNTIME_NETWORKTIMING_H

#include "mapc/runtime/Network.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace mapc::rt {

/// 64-bit words that start zero, from calloc: fresh pages are not touched
/// until written, so a walk on a fresh thread (mapc's one call) faults in
/// only the words its cycles reach, where a vector's fill touches all.
/// Growing appends zero words (realloc, which may remap instead of copy).
class ZeroedWords {
public:
  ZeroedWords() = default;
  explicit ZeroedWords(size_t count);
  ZeroedWords(ZeroedWords &&other) noexcept
      : words(other.words), count(other.count) {
    other.words = nullptr;
    other.count = 0;
  }
  ZeroedWords &operator=(ZeroedWords &&other) noexcept;
  ZeroedWords(const ZeroedWords &) = delete;
  ZeroedWords &operator=(const ZeroedWords &) = delete;
  ~ZeroedWords();

  uint64_t &operator[](size_t i) { return words[i]; }
  const uint64_t &operator[](size_t i) const { return words[i]; }
  size_t size() const { return count; }
  /// To `newCount` >= size() words, the new ones zero.
  void grow(size_t newCount);

private:
  uint64_t *words = nullptr;
  size_t count = 0;
};

/// The cycles each directed link is taken in, from cycle 1: a bitmap per
/// link, grown as needed, a bit per full word of 64 cycles and per link a
/// cycle below which all are taken, so that the first free cycle after an
/// element's arrival is found in its word or, past a busy stretch, from
/// the first cycle that can be free, 4096 cycles a step.
class LinkCalendar {
public:
  /// `maxWords` caps the bitmaps (links x words of 64 cycles). Without
  /// `listTaken` the calendar does not list the links it takes cycles on,
  /// one test and store less a take, and cannot be cleared.
  LinkCalendar(size_t links, uint64_t cycleHint = 64,
               size_t maxWords = size_t(1) << 24, bool listTaken = true);

  /// Takes the first free cycle after `ready` (>= ready + 1) on `link` and
  /// returns it; 0 when the bitmaps would pass their cap. MayList false:
  /// a calendar without listTaken, known at compile time (no test a take).
  /// Inlined into the walks: the hop loop's one call.
  template <bool MayList = true>
  [[gnu::always_inline]] uint32_t takeAfter(size_t link, uint32_t ready) {
    assert((MayList || !listTaken) && "this calendar lists its links");
    uint32_t &below = takenBelow[link];
    const uint32_t from = std::max(ready + 1, below);
    // Mostly a cycle at or after `from` in its word is free: no scan.
    uint32_t c;
    if (takeInWord(link, from, c))
      return taken<MayList>(link, below, from, c);
    return takeByScan(link, below, from);
  }
  /// takeAfter<false>, tried first at ready + 1, the cycle an element
  /// that is not held up takes. That test reads one bit at an address
  /// known before this link's word is loaded, so when the branch goes as
  /// predicted the next hop's address does not wait for this load: a walk's
  /// hops overlap instead of queuing one load each (on a 31 x 33 mesh four
  /// hops in five go straight on). A cycle below `takenBelow` is taken, so
  /// a free ready + 1 is at or above it: the cycle takeAfter takes.
  [[gnu::always_inline]] uint32_t takeNextOrAfter(size_t link, uint32_t ready) {
    assert(!listTaken && "a calendar without its list of links");
    const uint32_t c = ready + 1;
    const size_t w = c >> 6;
    if (__builtin_expect(w < words, 1)) {
      uint64_t &word = bits[w * links + link];
      const uint64_t bit = uint64_t(1) << (c & 63);
      if (__builtin_expect(!(word & bit), 1)) {
        takeFree(link, w, word, bit, c);
        return c;
      }
    }
    return takeAfter<false>(link, ready);
  }
  /// takeTwoAfter, tried first at the cycles the two take when neither is
  /// held up: ready + 1 for the first, and for the second the cycle after
  /// its own arrival or after the first's, whichever is later (that is
  /// takeTwoAfter's cycle for it when free: every cycle between its
  /// arrival and the first's is taken, since the first took the first
  /// free one). As takeNextOrAfter, the addresses do not wait on loads.
  [[gnu::always_inline]] uint32_t
  takeTwoNextOrAfter(size_t link, uint32_t ready, uint32_t &second) {
    const uint32_t c = ready + 1, d = std::max(second + 1, c + 1);
    const size_t w = c >> 6, v = d >> 6;
    // A second that arrived before the first might take a cycle below the
    // first's: only takeTwoAfter finds it (the walks' pairs never do).
    if (__builtin_expect(v < words && second >= ready, 1)) {
      uint64_t &word = bits[w * links + link], &other = bits[v * links + link];
      const uint64_t bit = uint64_t(1) << (c & 63), otherBit = uint64_t(1)
                                                               << (d & 63);
      if (__builtin_expect(!(word & bit) && !(other & otherBit), 1)) {
        takeFree(link, w, word, bit, c);
        takeFree(link, v, bits[v * links + link], otherBit, d);
        second = d;
        return c;
      }
    }
    return takeTwoAfter(link, ready, second);
  }
  /// takeAfter<false> for short queues (a cube's links): the word of
  /// ready + 1 first, without the cycle below which all are taken, which
  /// only a scan past that word reads and keeps (it may lag: every cycle
  /// below it is still taken). The same cycle as takeAfter, a load, a
  /// compare and a store less when that word has room.
  [[gnu::always_inline]] uint32_t takeNear(size_t link, uint32_t ready) {
    assert(!listTaken && "a calendar without its list of links");
    assert(ready + 1 != 0 && "a cycle below the cap");
    const uint32_t from = ready + 1;
    uint32_t c;
    if (takeInWord(link, from, c)) {
      // A cycle at or after from >= 1 (ready is below the cap's 2^30
      // cycles): the walks' test for 0, past the cap, folds away here (2
      // of a cube hop's 42 instructions).
      if (c == 0)
        __builtin_unreachable();
      return c;
    }
    uint32_t &below = takenBelow[link];
    return takeByScan(link, below, std::max(from, below));
  }
  /// Frees every cycle taken since the last clear (keeps the memory).
  void clear();
  /// takeAfter<false> of two elements at one link, the second's key next
  /// after the first's: returns the first's cycle (after `ready`) and sets
  /// `second` (its arrival) to its cycle, taken after the first's. When
  /// the second's cycle falls in the first's word, the word is read once.
  /// 0 past the cap, as takeAfter.
  [[gnu::always_inline]] uint32_t takeTwoAfter(size_t link, uint32_t ready,
                                               uint32_t &second) {
    assert(!listTaken && "a calendar without its list of links");
    uint32_t &below = takenBelow[link];
    const uint32_t from = std::max(ready + 1, below);
    const size_t w = from >> 6;
    if (w < words) {
      uint64_t &word = bits[w * links + link];
      const uint64_t open = ~word & (~uint64_t(0) << (from & 63));
      if (open) {
        const uint64_t now = word | (open & (~open + 1));
        const uint32_t c = uint32_t((w << 6) + unsigned(__builtin_ctzll(open)));
        if (from == below)
          below = c + 1;
        const uint32_t next = std::max(second + 1, below);
        const uint64_t after =
            (next >> 6) == w ? ~now & (~uint64_t(0) << (next & 63)) : 0;
        word = now | (after & (~after + 1));
        noteIfFull(link, w, word);
        if (after) {
          second = uint32_t((w << 6) + unsigned(__builtin_ctzll(after)));
          if (next == below)
            below = second + 1;
        } else {
          second = takeAfter<false>(link, second);
        }
        return c;
      }
    }
    const uint32_t c = takeByScan(link, below, from);
    second = c ? takeAfter<false>(link, second) : 0;
    return c;
  }
  /// Frees cycle c of `link`, taken by takeAfter<false>: a walk that took
  /// a move's hops ahead gives them back (RouteWalk's same-path pairs).
  void untake(size_t link, uint32_t c) {
    assert(!listTaken && "a calendar without its list of links");
    bits[(c >> 6) * links + link] &= ~(uint64_t(1) << (c & 63));
    full[(c >> 12) * links + link] &= ~(uint64_t(1) << ((c >> 6) & 63));
    takenBelow[link] = std::min(takenBelow[link], c);
  }

private:
  /// Word w of `link` (`word`) just took a cycle: when it is full its
  /// summary bit is set, so that scans skip it.
  [[gnu::always_inline]] void noteIfFull(size_t link, size_t w, uint64_t word) {
    if (word == ~uint64_t(0))
      full[(w >> 6) * links + link] |= uint64_t(1) << (w & 63);
  }
  /// Marks free cycle c (bit `bit` of `word`, word w of `link`) taken: its
  /// word's summary bit when it fills, and the cycle below which all are
  /// taken when c was that cycle (a free cycle is never below it).
  [[gnu::always_inline]] void takeFree(size_t link, size_t w, uint64_t &word,
                                       uint64_t bit, uint32_t c) {
    word |= bit;
    noteIfFull(link, w, word);
    uint32_t &below = takenBelow[link];
    if (below == c)
      below = c + 1;
  }
  /// Takes into `c` the first free cycle at or after `from` within from's
  /// own word of `link`, if it has one: one load and one store, the word's
  /// address computed once and its bit the lowest open one (a word that
  /// fills gets its summary bit, so that scans skip it). A bool, not a
  /// sentinel cycle, so that the inlined callers branch on it for free.
  [[gnu::always_inline]] bool takeInWord(size_t link, uint32_t from,
                                         uint32_t &c) {
    const size_t w = from >> 6;
    if (w >= words)
      return false;
    uint64_t &word = bits[w * links + link];
    const uint64_t open = ~word & (~uint64_t(0) << (from & 63));
    if (!open)
      return false;
    word |= open & (~open + 1);
    noteIfFull(link, w, word);
    c = uint32_t((w << 6) + unsigned(__builtin_ctzll(open)));
    return true;
  }
  /// takeAfter's bookkeeping once cycle c (>= from) is marked on `link`.
  template <bool MayList = true>
  [[gnu::always_inline]] uint32_t taken(size_t link, uint32_t &below,
                                        uint32_t from, uint32_t c) {
    if (MayList && listTaken && !dirty[link])
      markDirty(link);
    // Every cycle from `below` to c was taken already: now c is too.
    if (from == below)
      below = c + 1;
    return c;
  }
  /// takeAfter past `from`'s word: the first free cycle by scanFrom,
  /// taken; 0 past the cap.
  uint32_t takeByScan(size_t link, uint32_t &below, uint32_t from);
  /// The first cycle >= c not taken on `link`, growing the bitmaps as
  /// needed; 0 past the cap.
  uint32_t scanFrom(size_t link, uint64_t c);
  void markDirty(size_t link);
  bool grow(size_t minWords);

  size_t links, maxWords;
  bool listTaken;
  size_t words; ///< of 64 cycles per link
  /// words x links, word-major: hops of a path in about the same cycles on
  /// neighbouring links often share a cache line, and growing appends.
  ZeroedWords bits;
  size_t fullWords; ///< words / 64, rounded up
  ZeroedWords full; ///< fullWords x links: a bit per full word
  /// Per link: every cycle below it is taken (where a take starts, so that
  /// a queue of elements waiting from early on costs no scan).
  std::vector<uint32_t> takenBelow;
  std::vector<uint8_t> dirty;    ///< per link: taken since the last clear
  std::vector<uint32_t> touched; ///< the dirty links
};

/// The cycles of `transfers` (paths checked by NetworkMachine::run), with
/// the hops moved and the most elements over one directed link. -1 when a
/// transfer's priority changes within one phase (the walk needs one key per
/// element and phase) or the links' bitmaps would pass `maxBitmapWords`.
int64_t timeByReservation(const NetworkShape &shape,
                          const std::vector<Transfer> &transfers,
                          uint64_t &hops, uint64_t &maxLoad,
                          size_t maxBitmapWords = size_t(1) << 24);

/// The same cycles by simulating every cycle (any transfers); -1 when the
/// simulation stalls, which cannot happen.
int64_t timeCycleByCycle(const NetworkShape &shape,
                         const std::vector<Transfer> &transfers, uint64_t &hops,
                         uint64_t &maxLoad);

/// The link slot of a hop at a node: a cube's dim, a mesh's 2 dim + (dir <
/// 0); there are linksPerNode(shape) per node.
inline unsigned linkSlot(const NetworkShape &shape, const Hop &h) {
  return shape.cube ? h.dim : 2u * h.dim + (h.dir < 0);
}
/// Each dim's step in node numbers (dim 0 fastest).
inline std::vector<int32_t> nodeStrides(const NetworkShape &shape) {
  std::vector<int32_t> strides;
  int32_t stride = 1;
  for (unsigned len : shape.dims) {
    strides.push_back(stride);
    stride *= int32_t(len);
  }
  return strides;
}
inline unsigned linksPerNode(const NetworkShape &shape) {
  return unsigned(shape.dims.size()) * (shape.cube ? 1 : 2);
}

} // namespace mapc::rt

#endif
