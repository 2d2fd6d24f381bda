//===- MoveCounts.h - what a general remap moves, counted without tables --===//
//
// Pricing a general remap (General.h) needs a few counts of the move from
// one layout to another: how many elements go from each source PE to each
// destination PE, how many keep their cell, whether slots map uniformly,
// and for the elements that keep their PE, whether every PE reads the same
// slot for each slot it writes. Element by element these come from the
// table of sources (sourcesOf), which costs time and 4 bytes per element.
//
// For a one-dimensional array (an HPF block, cyclic(k) or block(n)
// distribution lowered to a k-Tile, 003 7.1) each layout is piecewise
// linear in the index with a short period: the k-Tile digits below the top
// one repeat with period K (the product of their lengths), and the top
// digit adds a constant to the PE or to the slot every period (3.2.2's skmap
// per digit). A cyclic(k) layout on P PEs has period kP and P runs of k
// elements a period; a block layout has P periods of one run. So the move
// splits into a few families of elements, each a rectangle of
// (t, m) in [0, len) x [0, reps) whose source and destination PEs are
// fixed and whose slots are `a0 + sa t + da m` and `b0 + sb t + db m`:
// every count above is a sum over the families (a linear equation in t and
// m for the elements that keep their slot), so its cost depends on the PEs
// and the periods, not on the elements.
//
// An array of several data dims is counted per dim when both layouts feed
// each PE dim from the same data dim: PE pairs convolve, and a slot names
// every dim's memory part (one mixed-radix number), so slot uniformity
// holds when it holds in every dim. When the last dim's PE parts are
// multiples of a number every other part is below (a PE grid's place
// values), the pairs are kept as those two factors (PairFactors) and never
// listed: what the planner reads of them (totals per PE, the bound, the
// move's shape, product rounds) is a product of the factors'.
//
// countMoveByRuns returns nothing when a layout is not of that kind
// (replication, wrap-around offsets, digits that are not plain, PE dims
// fed from different data dims, periods too long, uniformity it cannot
// decide exactly); countMoveByElements is the general fallback and the
// reference the property test compares against.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_MOVECOUNTS_H
#define MAPC_RUNTIME_MOVECOUNTS_H

#include "mapc/runtime/TileMap.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace mapc::rt {

/// Elements sent from one PE to another (or kept, from == to).
struct PePairCount {
  uint32_t from = 0, to = 0;
  int64_t count = 0;
  bool operator==(const PePairCount &o) const {
    return from == o.from && to == o.to && count == o.count;
  }
};

/// Records `value` in `seen` (negative: nothing yet) and says whether it
/// is what was seen before: one pass decides whether a map is uniform.
inline bool sameAsBefore(int64_t &seen, int64_t value) {
  const bool same = seen < 0 || seen == value;
  seen = value;
  return same;
}

/// The pairs of a separable move (an HPF distribution of every dim onto a
/// PE grid, each PE dim fed by its own data dims): each PE number is a
/// `low` part below `modulus` plus a `high` part that is a multiple of it,
/// and the elements from PE l.from + h.from to PE l.to + h.to number
/// l.count * h.count for every entry l of `low` and h of `high` (each list
/// sorted by from, then to). Every PE splits one way only, so the pairs are
/// |low| x |high| distinct ones, and their totals per PE are products of
/// the factors' (31 + 33 entries a PE on 31 x 33 PEs, not 514k pairs).
struct PairFactors {
  int64_t modulus = 0;
  std::vector<PePairCount> low, high;
};

/// Per PE (as many as MoveCounts::stay): the elements it sends (to itself
/// too), receives, and keeps (its pair with itself).
struct PeTotals {
  std::vector<int64_t> sent, received, kept;
};

/// The counts of a move between two layouts that replicate nothing.
struct MoveCounts {
  int64_t elements = 0;
  /// Every (source PE, destination PE) pair that carries elements, sorted
  /// by source, then destination; pairs with from == to keep their PE.
  /// Empty when `factors` holds them: read them through pairs() and the
  /// totals below, which take either form.
  std::vector<PePairCount> listed;
  std::optional<PairFactors> factors;
  /// Per PE (as many as the larger layout spans): its elements that keep
  /// their cell.
  std::vector<int64_t> stay;
  int64_t sameSlot = 0;        ///< elements that keep their slot
  bool slotUniformTo = true;   ///< each destination slot reads one slot
  bool slotUniformFrom = true; ///< each source slot feeds one slot
  /// Among the elements that keep their PE: whether each destination slot
  /// reads one source slot in every PE, and (then) how many destination
  /// slots they fill; GeneralExecute's moveLocal prices them so.
  bool localUniform = true;
  int64_t localSlots = 0;

  /// Every pair, sorted by source, then destination (listed from the
  /// factors when factored).
  std::vector<PePairCount> pairs() const;
  /// How many pairs carry elements, and how many of them join two PEs.
  size_t pairCount() const;
  size_t pairsBetweenPes() const;
  /// Elements that change PE.
  uint64_t sendsBetweenPes() const;
  /// Elements sent, received and kept per PE.
  PeTotals peTotals() const;
  /// Elements that keep their PE but change slot.
  int64_t localMoves() const;
  /// The pairs of a PE with itself, by PE.
  std::vector<PePairCount> keptPairs() const;
  bool operator==(const MoveCounts &o) const;
};

/// The counts from the table of sources (sourcesOf(from, to)), element by
/// element. Both layouts must replicate nothing.
MoveCounts countMoveByElements(const TileMap &from, const TileMap &to,
                               const std::vector<uint32_t> &sources);

/// The same counts from the layouts' runs and periods (above), or nothing
/// when they are not of that kind or would take too many families.
/// `listLimit`: the most runs a layout is listed by one by one before it
/// must be taken period by period (tests lower it to reach those paths).
/// `minPerFamily`: nothing either when the families hold fewer elements
/// than this on average (digit maps of small digits), where the table of
/// sources is the quicker way (the planner passes kCountingMinPerFamily).
std::optional<MoveCounts> countMoveByRuns(const TileMap &from,
                                          const TileMap &to,
                                          int64_t listLimit = int64_t(1) << 16,
                                          int64_t minPerFamily = 0);

/// The planner's `minPerFamily`: measured on 003 6.2.1's digit
/// permutations (90,000 elements on 1000 PEs), which plan in 2 ms from the
/// table and took 36-149 ms counted by families.
constexpr int64_t kCountingMinPerFamily = 256;

/// The most runs the planner lists a layout of `elements` by one by one:
/// more than one per kCountingMinPerFamily elements cannot pay.
inline int64_t countingListLimit(int64_t elements) {
  return std::max<int64_t>(
      64,
      std::min<int64_t>(int64_t(1) << 16, elements / kCountingMinPerFamily));
}

/// Why no digit exchange (DigitExchange.h) can make a move of these counts
/// between layouts of `slots` slots on `pes` PEs, or null when the counts
/// do not rule one out. In a digit exchange of base b every PE sends its
/// elements of each of the b values of the exchanged memory digit (slots /
/// b cells each) to a PE that receives only that value, so every PE sends
/// to exactly b PEs, itself perhaps among them, at most slots / b elements
/// each, and b >= 2 divides the slots and the PEs; a memory permutation
/// folded in moves elements within a PE, so that alone refuses nothing.
const char *digitExchangeRefusal(const MoveCounts &counts, int64_t slots,
                                 int64_t pes);

/// Whether an exchange step of `sends` elements between other PEs over
/// `pairs` (sender, receiver) pairs is priced from its pair counts
/// (ExchangePrice.h) rather than by building its rounds.
bool exchangePairsApply(uint64_t sends, size_t pairs);

/// The memory slots some PE of `l` holds an element in, from its runs and
/// periods; nothing when `l` is not of that kind.
std::optional<int64_t> heldSlotsByRuns(const TileMap &l);

} // namespace mapc::rt

#endif
