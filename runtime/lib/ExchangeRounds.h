//===- ExchangeRounds.h - internal: in-place order of exchange rounds -----===//
#ifndef MAPC_RUNTIME_LIB_EXCHANGEROUNDS_H
#define MAPC_RUNTIME_LIB_EXCHANGEROUNDS_H

#include "mapc/runtime/FastDivide.h"
#include "mapc/runtime/General.h"

#include <algorithm>

namespace mapc::rt {

/// Walks the deliveries of a move (`sources` from sourcesOf, destination
/// of `toPes` PEs x `toSlots`, source of `fromSlots` slots and `fromCells`
/// cells) as exchangeSchedule groups them, so that its shortcuts read the
/// same groups (AllGatherPrice.h). The cells are walked PE by PE; a cell
/// whose element is on its PE is left out. An element bound for several
/// cells of one PE travels once (003 6.2.1, "Data replication"): its
/// later cells there go to fanOut(copy), the receiver's copy from the cell
/// it arrived in; each first one to deliver(list, send), deliveries grouped
/// by source cell, list numbered in the order the cells first appear (a new
/// list is the next number). The last PE each source cell went to, and the
/// slot it took there, tell a copy: no other PE comes between. False if a
/// source lies outside the source's cells.
template <typename FanOut, typename Deliver>
bool forEachGroupedDelivery(const std::vector<uint32_t> &sources, int64_t toPes,
                            int64_t toSlots, int64_t fromSlots,
                            uint64_t fromCells, FanOut &&fanOut,
                            Deliver &&deliver) {
  if (fromSlots < 1 || fromSlots > int64_t(UINT32_MAX) ||
      fromCells > uint64_t(UINT32_MAX) ||
      uint64_t(std::max<int64_t>(0, toPes * toSlots)) > sources.size())
    return false;
  constexpr uint32_t kNone = ~uint32_t(0);
  std::vector<uint32_t> lastPe(size_t(fromCells), kNone),
      lastSlot(size_t(fromCells), 0), listOf(size_t(fromCells), kNone);
  uint32_t lists = 0;
  const Divider32 bySlots{uint64_t(fromSlots)};
  size_t b = 0;
  for (uint32_t q = 0; q < uint64_t(toPes); ++q)
    for (uint32_t t = 0; t < uint64_t(toSlots); ++t, ++b) {
      const uint32_t a = sources[b];
      if (a == kNoSource)
        continue;
      if (a >= fromCells)
        return false;
      const uint32_t pe = bySlots.quotient(a);
      if (pe == q)
        continue;
      if (lastPe[a] == q) {
        fanOut(ExchangeSend{q, q, lastSlot[a], t});
        continue;
      }
      lastPe[a] = q;
      lastSlot[a] = t;
      if (listOf[a] == kNone)
        listOf[a] = lists++;
      deliver(listOf[a], ExchangeSend{pe, q, a - pe * uint32_t(fromSlots), t});
    }
  return true;
}

/// Groups of an exchange step's rounds, in the order to run them: group
/// g's rounds are rounds[starts[g], starts[g + 1]), in one list.
class RoundGroups {
public:
  /// The rounds of one group.
  struct Group {
    const uint32_t *first;
    size_t count;
    const uint32_t *begin() const { return first; }
    const uint32_t *end() const { return first + count; }
    size_t size() const { return count; }
    uint32_t operator[](size_t i) const { return first[i]; }
  };
  size_t size() const { return starts.size() - 1; }
  Group operator[](size_t g) const {
    return {rounds.data() + starts[g], size_t(starts[g + 1] - starts[g])};
  }
  Group back() const { return (*this)[size() - 1]; }
  void addGroup() { starts.push_back(uint32_t(rounds.size())); }
  /// Adds round r to the last group.
  void push(uint32_t r) {
    rounds.push_back(r);
    starts.back() = uint32_t(rounds.size());
  }

private:
  std::vector<uint32_t> rounds, starts{0};
};

/// The order in which an exchange step's rounds can run in place: a round
/// that stores into a cell must not come before the rounds that send the
/// element there, so each group loads the elements of all its rounds before
/// it stores any (function 6.1 pairs the diagonals k and b - k this way).
/// Rounds that need each other form one group (a strongly connected
/// component, Tarjan's algorithm), listed so that every need is met first.
/// `cellsPerPe` bounds the slots. False if a group would hold more than
/// `maxHeld` rounds per PE.
bool inPlaceGroups(const ExchangeRoundList &rounds, uint64_t cellsPerPe,
                   unsigned maxHeld, RoundGroups &groups);

} // namespace mapc::rt

#endif
