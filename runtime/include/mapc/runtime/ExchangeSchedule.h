//===- ExchangeSchedule.h - routing exchange sequences on a network ------===//
//
// 001 sec. 3: a reshape of Gray coded axes is a sequence of exchanges
// (Affine.h's Exchange: x_bit ^= parity(x & condition) on device addresses),
// delta of them in node dims. How the K = 2^mBits elements of every node are
// routed through them decides the time:
//
//   sequential        one exchange after the other, barriers: delta * K
//   pipelined         one order, no barriers (001 ref. [6]): K + delta - 1
//   rotated           delta data sets with rotated orders, a barrier per
//                     step (001 thm 2): delta * ceil(K / delta)
//   rotated-detour    rotated, part of each set over the length-3 detour
//                     h, j, h (001 thm 3): delta * ceil(K / (2 delta)) + 1
//   pipelined-detour  pipelined, part over detours (001 thm 4):
//                     ceil(K / 2) + 2 delta - 1
//
// Exchange bits below mBits change only the slot (free, local); bit j >=
// mBits is node bit j - mBits. On a mesh node bit j is bit b of mesh dim i
// (NetworkShape::nodeBitDim) and a crossing is 2^b unit hops along dim i.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_EXCHANGESCHEDULE_H
#define MAPC_RUNTIME_EXCHANGESCHEDULE_H

#include "mapc/runtime/Affine.h"
#include "mapc/runtime/Network.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mapc::rt {

enum class ExchangeSchedule {
  Sequential,
  Pipelined,
  Rotated,
  RotatedDetour,
  PipelinedDetour
};

const char *exchangeScheduleName(ExchangeSchedule s);
std::optional<ExchangeSchedule> parseExchangeSchedule(const std::string &name);

struct ExchangeGroup {
  unsigned mBits = 0, pBits = 0;
  /// orders[s]: the exchange sequence data set s follows; every order
  /// realises the same map. Sequential and the pipelined schedules use
  /// orders[0]; the rotated ones split the K slots of a node into
  /// orders.size() sets of ceil(K / orders.size()) consecutive slots.
  std::vector<std::vector<Exchange>> orders;

  uint64_t slots() const { return uint64_t(1) << mBits; }
  /// Distinct node bits (0-based) exchanged in `order`, ascending.
  std::vector<unsigned> exchangedNodeBits(size_t order = 0) const;
};

/// One transfer per held address, from it to its address after the
/// exchanges of its set, on the path the schedule picks; element slot s of
/// a node lives at byte regionBase + s * elemBytes. Transfers are listed slot
/// by slot (all nodes' slot 0 first), which is their priority.
std::vector<Transfer>
buildExchangeTransfers(const NetworkShape &shape, const ExchangeGroup &group,
                       ExchangeSchedule schedule, unsigned elemBytes,
                       uint64_t regionBase,
                       const std::function<bool(uint64_t)> &holds);

/// The detour bit (node bit) for exchange `e` of `group`, or -1: a node bit
/// in the condition that no exchange of the group targets, the smallest one
/// above e's bit if any (001 lemma 4), else the smallest.
int detourBit(const ExchangeGroup &group, const Exchange &e);

/// Do the preconditions of the schedule's theorem hold? (Every schedule is
/// correct; this says whether its bound below is promised.)
bool scheduleApplies(const NetworkShape &shape, const ExchangeGroup &group,
                     ExchangeSchedule schedule, std::string *why = nullptr);

/// 001's bounds in element transfers in sequence, K elements per node and
/// delta node dims exchanged.
int64_t theorem1Bound(uint64_t K, unsigned delta); ///< lower: ceil(K/2)
int64_t theorem2Bound(uint64_t K, unsigned delta);
int64_t theorem3Bound(uint64_t K, unsigned delta);
int64_t theorem4Bound(uint64_t K, unsigned delta);
int64_t pipelinedBound(uint64_t K, unsigned delta);
int64_t sequentialBound(uint64_t K, unsigned delta);
int64_t scheduleBound(ExchangeSchedule s, uint64_t K, unsigned delta);

/// A sound lower bound, in cycles, for moving every held device address a
/// (node = a >> mBits) to destOf(a) on `shape`, whatever the routing.
int64_t networkLowerBound(const NetworkShape &shape, unsigned mBits,
                          const std::function<uint64_t(uint64_t)> &destOf,
                          const std::function<bool(uint64_t)> &holds);

} // namespace mapc::rt

#endif
