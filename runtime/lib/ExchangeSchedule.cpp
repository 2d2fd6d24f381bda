//===- ExchangeSchedule.cpp - routing exchange sequences on a network ----===//

#include "mapc/runtime/ExchangeSchedule.h"

#include <algorithm>
#include <map>
#include <set>

namespace mapc::rt {

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

bool isRotated(ExchangeSchedule s) {
  return s == ExchangeSchedule::Rotated || s == ExchangeSchedule::RotatedDetour;
}

/// Node bits that some exchange of the group targets.
uint64_t targetedNodeBits(const ExchangeGroup &g) {
  uint64_t mask = 0;
  for (const auto &order : g.orders)
    for (const Exchange &e : order)
      if (e.bit >= g.mBits)
        mask |= uint64_t(1) << (e.bit - g.mBits);
  return mask;
}

/// Hops for one crossing of node bit j from a node whose bit j is `bit`,
/// over the detour h, j, h when `detour` >= 0 (cube only).
void appendCrossing(const NetworkShape &shape, unsigned j, unsigned bit,
                    int detour, uint32_t phase, uint32_t priority,
                    std::vector<Hop> &path) {
  if (shape.cube) {
    if (detour >= 0)
      path.push_back(Hop{uint8_t(detour), 1, phase, priority});
    path.push_back(Hop{uint8_t(j), 1, phase, priority});
    if (detour >= 0)
      path.push_back(Hop{uint8_t(detour), 1, phase, priority});
    return;
  }
  unsigned b = 0;
  unsigned dim = shape.nodeBitDim(j, &b);
  Hop run{uint8_t(dim), int8_t(bit ? -1 : 1), phase, priority};
  run.count = uint32_t(1) << b; // 2^b links along the dim, one run
  path.push_back(run);
}

/// Does the element of rank `rank` (by slot, among its node's elements of
/// its set) detour at node step `step`?
///
/// 001 thm 3 proof: in the first 2-cube ceil(K/(2 delta)) + 1 elements of a
/// set take the short path; in later ones as many take each path, the
/// detour starting two cycles before the previous step ends with elements
/// that arrived early, the set's first ones. Thm 4 discussion: the first
/// ceil(K/2) + delta elements of a node go the short way, the rest detour.
bool takesDetour(ExchangeSchedule s, const ExchangeGroup &g, uint64_t rank,
                 unsigned step, size_t exchangedBits) {
  uint64_t K = g.slots();
  if (s == ExchangeSchedule::RotatedDetour) {
    uint64_t half = ceilDiv(K, 2 * g.orders.size());
    return step == 0 ? rank > half : rank < half;
  }
  if (s == ExchangeSchedule::PipelinedDetour)
    return rank >= ceilDiv(K, 2) + exchangedBits;
  return false;
}

} // namespace

const char *exchangeScheduleName(ExchangeSchedule s) {
  switch (s) {
  case ExchangeSchedule::Sequential:
    return "sequential";
  case ExchangeSchedule::Pipelined:
    return "pipelined";
  case ExchangeSchedule::Rotated:
    return "rotated";
  case ExchangeSchedule::RotatedDetour:
    return "rotated-detour";
  case ExchangeSchedule::PipelinedDetour:
    return "pipelined-detour";
  }
  return "?";
}

std::optional<ExchangeSchedule> parseExchangeSchedule(const std::string &name) {
  for (ExchangeSchedule s :
       {ExchangeSchedule::Sequential, ExchangeSchedule::Pipelined,
        ExchangeSchedule::Rotated, ExchangeSchedule::RotatedDetour,
        ExchangeSchedule::PipelinedDetour})
    if (name == exchangeScheduleName(s))
      return s;
  return std::nullopt;
}

std::vector<unsigned> ExchangeGroup::exchangedNodeBits(size_t order) const {
  std::set<unsigned> bits;
  if (order < orders.size())
    for (const Exchange &e : orders[order])
      if (e.bit >= mBits)
        bits.insert(e.bit - mBits);
  return {bits.begin(), bits.end()};
}

int detourBit(const ExchangeGroup &group, const Exchange &e) {
  if (e.bit < group.mBits)
    return -1;
  unsigned j = e.bit - group.mBits;
  // Flipping h in the condition flips the condition, so across h the
  // j-links are idle (001 lemma 2 and 4); h must not be exchanged itself.
  uint64_t free = (e.condition >> group.mBits) & ~targetedNodeBits(group);
  if (group.pBits < 64)
    free &= (uint64_t(1) << group.pBits) - 1;
  uint64_t above = free & ~((uint64_t(2) << j) - 1);
  if (above)
    return __builtin_ctzll(above);
  return free ? __builtin_ctzll(free) : -1;
}

std::vector<Transfer>
buildExchangeTransfers(const NetworkShape &shape, const ExchangeGroup &group,
                       ExchangeSchedule schedule, unsigned elemBytes,
                       uint64_t regionBase,
                       const std::function<bool(uint64_t)> &holds) {
  std::vector<Transfer> out;
  if (group.orders.empty())
    return out;
  uint64_t K = group.slots();
  uint64_t mMask = K - 1;
  uint64_t sets = isRotated(schedule) ? group.orders.size() : 1;
  uint64_t setSize = ceilDiv(K, sets);
  bool detours = shape.cube && (schedule == ExchangeSchedule::RotatedDetour ||
                                schedule == ExchangeSchedule::PipelinedDetour);
  bool barriers = schedule == ExchangeSchedule::Sequential ||
                  schedule == ExchangeSchedule::Rotated;
  uint32_t nodes = uint32_t(1) << group.pBits;
  // Elements seen so far per node in the current set: their rank.
  std::vector<uint64_t> seen(nodes, 0);
  // Per element these would cost a set and a scan each: computed once.
  size_t exchangedBits = group.exchangedNodeBits().size();
  std::vector<std::vector<int>> detourOf;
  for (const std::vector<Exchange> &order : group.orders) {
    detourOf.emplace_back();
    for (const Exchange &e : order)
      detourOf.back().push_back(detours ? detourBit(group, e) : -1);
  }

  for (uint64_t slot = 0; slot < K; ++slot) {
    uint64_t set = slot / setSize;
    if (slot % setSize == 0)
      std::fill(seen.begin(), seen.end(), 0);
    const std::vector<Exchange> &order = group.orders[set];
    for (uint32_t node = 0; node < nodes; ++node) {
      uint64_t a = slot | uint64_t(node) << group.mBits;
      if (!holds(a))
        continue;
      uint64_t rank = seen[node]++;
      Transfer t;
      t.node = node;
      t.byteAddr = regionBase + slot * elemBytes;
      uint64_t cur = a;
      unsigned nodeStep = 0;
      for (size_t step = 0; step < order.size(); ++step) {
        const Exchange &e = order[step];
        unsigned bit = unsigned(cur >> e.bit) & 1;
        bool flips = parity64(cur & e.condition);
        cur ^= uint64_t(flips) << e.bit;
        if (e.bit < group.mBits)
          continue; // a memory bit: local and free
        int h = detours && takesDetour(schedule, group, rank, nodeStep,
                                       exchangedBits)
                    ? detourOf[set][step]
                    : -1;
        ++nodeStep;
        if (flips)
          appendCrossing(shape, e.bit - group.mBits, bit, h,
                         barriers ? uint32_t(step) : 0, uint32_t(step), t.path);
      }
      t.destNode = uint32_t(cur >> group.mBits);
      t.destByteAddr = regionBase + (cur & mMask) * elemBytes;
      out.push_back(std::move(t));
    }
  }
  return out;
}

bool scheduleApplies(const NetworkShape &shape, const ExchangeGroup &group,
                     ExchangeSchedule schedule, std::string *why) {
  auto fail = [&](const std::string &msg) {
    if (why)
      *why = msg;
    return false;
  };
  std::string shapeWhy;
  if (!shape.valid(&shapeWhy))
    return fail(shapeWhy);
  if (shape.nodeBits() != group.pBits)
    return fail("the group's node bits do not match the network");
  if (group.orders.empty())
    return fail("no exchange order");
  for (const auto &order : group.orders)
    for (const Exchange &e : order)
      if (e.bit >= group.mBits + group.pBits || (e.condition >> e.bit & 1) ||
          (e.condition >> (group.mBits + group.pBits)))
        return fail("an exchange names bits outside the address");

  std::vector<unsigned> dims = group.exchangedNodeBits();
  unsigned delta = unsigned(dims.size());
  uint64_t K = group.slots();
  bool detour = schedule == ExchangeSchedule::RotatedDetour ||
                schedule == ExchangeSchedule::PipelinedDetour;
  if (detour && !shape.cube)
    return fail("detours need a Boolean cube");

  if (isRotated(schedule)) {
    // 001 thm 2: one set per exchanged dim, no two sets in one dim at the
    // same step.
    if (group.orders.size() != delta || delta == 0)
      return fail("rotated needs one order per exchanged node dim");
    for (size_t s = 1; s < group.orders.size(); ++s)
      if (group.exchangedNodeBits(s) != dims)
        return fail("the orders exchange different node dims");
    std::map<size_t, std::set<unsigned>> atStep;
    for (const auto &order : group.orders)
      for (size_t t = 0; t < order.size(); ++t)
        if (order[t].bit >= group.mBits &&
            !atStep[t].insert(order[t].bit).second)
          return fail("two sets cross one dim in the same step");
  }
  if (schedule == ExchangeSchedule::RotatedDetour) {
    // 001 thm 3: disjoint 2-cubes and some elements for the detours.
    for (size_t i = 1; i < dims.size(); ++i)
      if (dims[i] == dims[i - 1] + 1)
        return fail("two exchanged node dims are adjacent");
    if (!(K > 2 * uint64_t(delta)))
      return fail("needs K > 2 delta");
    for (const auto &order : group.orders)
      for (const Exchange &e : order)
        if (e.bit >= group.mBits && detourBit(group, e) < 0)
          return fail("an exchange has no detour dim");
  }
  if (schedule == ExchangeSchedule::PipelinedDetour) {
    // 001 thm 4: a more significant free dim per exchanged dim, each
    // detour its own.
    std::map<unsigned, int> detourOf;
    for (const Exchange &e : group.orders[0]) {
      if (e.bit < group.mBits)
        continue;
      int h = detourBit(group, e);
      if (h < int(e.bit - group.mBits))
        return fail("an exchange has no more significant detour dim");
      detourOf[e.bit - group.mBits] = h;
    }
    std::set<int> used;
    for (auto &[j, h] : detourOf)
      if (!used.insert(h).second)
        return fail("two exchanged dims share a detour dim");
    if (K < 2 * uint64_t(delta))
      return fail("needs K >= 2 delta");
  }
  return true;
}

int64_t theorem1Bound(uint64_t K, unsigned delta) {
  return delta ? int64_t(ceilDiv(K, 2)) : 0;
}
int64_t theorem2Bound(uint64_t K, unsigned delta) {
  return delta ? int64_t(delta * ceilDiv(K, delta)) : 0;
}
int64_t theorem3Bound(uint64_t K, unsigned delta) {
  return delta ? int64_t(delta * ceilDiv(K, 2 * uint64_t(delta)) + 1) : 0;
}
int64_t theorem4Bound(uint64_t K, unsigned delta) {
  return delta ? int64_t(ceilDiv(K, 2) + 2 * delta - 1) : 0;
}
int64_t pipelinedBound(uint64_t K, unsigned delta) {
  return delta ? int64_t(K + delta - 1) : 0;
}
int64_t sequentialBound(uint64_t K, unsigned delta) {
  return int64_t(delta * K);
}

int64_t scheduleBound(ExchangeSchedule s, uint64_t K, unsigned delta) {
  switch (s) {
  case ExchangeSchedule::Sequential:
    return sequentialBound(K, delta);
  case ExchangeSchedule::Pipelined:
    return pipelinedBound(K, delta);
  case ExchangeSchedule::Rotated:
    return theorem2Bound(K, delta);
  case ExchangeSchedule::RotatedDetour:
    return theorem3Bound(K, delta);
  case ExchangeSchedule::PipelinedDetour:
    return theorem4Bound(K, delta);
  }
  return 0;
}

int64_t networkLowerBound(const NetworkShape &shape, unsigned mBits,
                          const std::function<uint64_t(uint64_t)> &destOf,
                          const std::function<bool(uint64_t)> &holds) {
  unsigned pBits = shape.nodeBits();
  uint32_t nodes = shape.nodeCount();
  unsigned D = unsigned(shape.dims.size());
  std::vector<uint64_t> out(nodes, 0), in(nodes, 0);
  // cross[i][c]: net +direction crossings of the cut after coordinate c of
  // dim i (as a difference array); back[i][c] the same for -direction.
  std::vector<std::vector<int64_t>> fwd(D), back(D);
  for (unsigned i = 0; i < D; ++i) {
    fwd[i].assign(shape.dims[i] + 1, 0);
    back[i].assign(shape.dims[i] + 1, 0);
  }
  int64_t bound = 0;
  for (uint64_t a = 0; a < (uint64_t(1) << (mBits + pBits)); ++a) {
    if (!holds(a))
      continue;
    uint32_t p = uint32_t(a >> mBits), q = uint32_t(destOf(a) >> mBits);
    if (p == q)
      continue;
    // (a) every hop takes a cycle: the longest shortest path.
    bound = std::max<int64_t>(bound, shape.distance(p, q));
    ++out[p];
    ++in[q];
    for (unsigned i = 0; i < D; ++i) {
      unsigned x = shape.coord(p, i), y = shape.coord(q, i);
      if (x < y) {
        ++fwd[i][x];
        --fwd[i][y];
      } else if (y < x) {
        ++back[i][y];
        --back[i][x];
      }
    }
  }
  // (b) a cut (all links of dim i between coordinates c and c + 1; on a
  // cube, dim i itself) is crossed one way by every element that starts on
  // one side and ends on the other, and carries nodes / P_i elements that
  // way per cycle.
  for (unsigned i = 0; i < D; ++i) {
    uint64_t links = nodes / shape.dims[i];
    int64_t f = 0, b = 0;
    for (unsigned c = 0; c + 1 < shape.dims[i]; ++c) {
      f += fwd[i][c];
      b += back[i][c];
      bound = std::max<int64_t>(bound, int64_t(ceilDiv(uint64_t(f), links)));
      bound = std::max<int64_t>(bound, int64_t(ceilDiv(uint64_t(b), links)));
    }
  }
  // (c) a node sends (receives) at most one element per port per cycle.
  for (uint32_t n = 0; n < nodes; ++n) {
    uint64_t deg = shape.degree(n);
    if (deg == 0)
      continue;
    bound = std::max<int64_t>(bound, int64_t(ceilDiv(out[n], deg)));
    bound = std::max<int64_t>(bound, int64_t(ceilDiv(in[n], deg)));
  }
  return bound;
}

} // namespace mapc::rt
