//===- NetworkCycleSim.cpp - element transfers timed cycle by cycle -------===//
//
// The reference timing of NetworkTiming.h: every cycle, every directed link
// moves the smallest (phase, priority, index) of the elements waiting for it.
// NetworkMachine::run uses it for transfers whose priority changes within a
// phase; the tests check timeByReservation against it.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkTiming.h"

#include <algorithm>
#include <utility>

namespace mapc::rt {

namespace {

constexpr uint32_t None = ~uint32_t(0);

} // namespace

namespace {

/// The cycle-by-cycle link arbitration. Each directed link has a pairing
/// heap of the elements waiting for it, threaded through the transfers
/// themselves (an element waits for one link at a time), so memory is
/// O(transfers + links) and work O(hops log + cycles * busy links).
class LinkSimulator {
public:
  LinkSimulator(const NetworkShape &shape,
                const std::vector<Transfer> &transfers);

  int64_t run(uint64_t &hops, uint64_t &maxLoad);

private:
  /// A run of a path as the simulation reads it: every path copied into
  /// one array, with its phase already ranked among the distinct phases.
  struct Run {
    uint32_t count;    ///< unit steps
    uint32_t rank;     ///< index of the run's phase in `phases`
    uint32_t priority; ///< hop priority (smaller goes first)
    uint32_t link;     ///< link slot at the node: 2 dim + (dir < 0); a cube dim
    int32_t step;      ///< node-number change of one unit step on a mesh
  };
  /// What the simulation reads and writes of an element on every hop, in
  /// one place: the heap's pops touch elements at random, and separate
  /// arrays cost a cache miss each.
  struct Element {
    uint32_t at = 0;                       ///< the node it is on
    uint32_t next = 0;                     ///< its current run in `runs`
    uint32_t end = 0;                      ///< one past its last run
    uint32_t stepsLeft = 0;                ///< steps of that run to go
    uint32_t child = None, sibling = None; ///< pairing-heap links
    uint32_t priority = 0;                 ///< runs[next].priority
  };

  size_t linkOf(uint32_t t) const {
    return size_t(el[t].at) * linksPerNode + runs[el[t].next].link;
  }
  /// Waiting elements all share the current phase: (priority, index).
  bool before(uint32_t a, uint32_t b) const {
    return el[a].priority != el[b].priority ? el[a].priority < el[b].priority
                                            : a < b;
  }
  uint32_t meld(uint32_t a, uint32_t b) {
    if (before(b, a))
      std::swap(a, b);
    el[b].sibling = el[a].child;
    el[a].child = b;
    return a;
  }
  uint32_t popMin(size_t link);
  void enqueue(uint32_t t);
  void hop(uint32_t t);

  const NetworkShape &shape;
  std::vector<Run> runs;
  std::vector<Element> el;
  unsigned linksPerNode;
  std::vector<uint32_t> root, load;
  std::vector<uint32_t> pairs;               ///< popMin's scratch
  std::vector<uint32_t> phases;              ///< distinct phases, ascending
  std::vector<uint64_t> remaining;           ///< hops left per phase rank
  std::vector<std::vector<uint32_t>> parked; ///< waiting for a barrier
  size_t current = 0;                        ///< the phase rank now moving
  std::vector<size_t> active, nextActive;
  uint64_t hopCount = 0;
};

LinkSimulator::LinkSimulator(const NetworkShape &shape,
                             const std::vector<Transfer> &transfers)
    : shape(shape), el(transfers.size()),
      linksPerNode(unsigned(shape.dims.size()) * (shape.cube ? 1 : 2)),
      root(size_t(shape.nodeCount()) * linksPerNode, None),
      load(root.size(), 0) {
  // A mesh hop moves the node number by the dim's stride (node = x0 +
  // P0 * (x1 + ...)); walkPath has checked that no run leaves the mesh.
  std::vector<int32_t> strides;
  int32_t stride = 1;
  for (unsigned len : shape.dims) {
    strides.push_back(stride);
    stride *= int32_t(len);
  }
  // Unit steps per distinct phase: one entry per run, not per step.
  std::vector<std::pair<uint32_t, uint64_t>> perPhase;
  for (const Transfer &t : transfers)
    for (const Hop &h : t.path)
      perPhase.push_back({t.phase + h.phase, h.count});
  std::sort(perPhase.begin(), perPhase.end());
  for (const auto &[p, n] : perPhase) {
    if (phases.empty() || phases.back() != p) {
      phases.push_back(p);
      remaining.push_back(0);
    }
    remaining.back() += n;
    hopCount += n;
  }
  std::vector<std::pair<uint32_t, uint64_t>>().swap(perPhase);
  parked.resize(phases.size());

  for (uint32_t i = 0; i < transfers.size(); ++i) {
    const Transfer &t = transfers[i];
    el[i].at = t.node;
    el[i].next = uint32_t(runs.size());
    for (const Hop &h : t.path) {
      Run r;
      r.count = h.count;
      r.rank = uint32_t(
          std::lower_bound(phases.begin(), phases.end(), t.phase + h.phase) -
          phases.begin());
      r.priority = h.priority;
      r.link = shape.cube ? h.dim : 2 * h.dim + (h.dir < 0);
      r.step = shape.cube ? 0 : h.dir * strides[h.dim];
      runs.push_back(r);
    }
    el[i].end = uint32_t(runs.size());
  }
}

uint32_t LinkSimulator::popMin(size_t link) {
  uint32_t top = root[link];
  // Two-pass pairing of the children.
  pairs.clear();
  for (uint32_t c = el[top].child; c != None;) {
    uint32_t a = c, b = el[c].sibling;
    c = b == None ? None : el[b].sibling;
    el[a].sibling = None;
    if (b != None) {
      el[b].sibling = None;
      a = meld(a, b);
    }
    pairs.push_back(a);
  }
  uint32_t r = None;
  for (size_t i = pairs.size(); i-- > 0;)
    r = r == None ? pairs[i] : meld(r, pairs[i]);
  root[link] = r;
  el[top].child = el[top].sibling = None;
  return top;
}

void LinkSimulator::enqueue(uint32_t t) {
  const Run &r = runs[el[t].next];
  if (r.rank != current) {
    parked[r.rank].push_back(t);
    return;
  }
  size_t link = linkOf(t);
  el[t].priority = r.priority;
  if (root[link] == None) {
    root[link] = t;
    nextActive.push_back(link);
  } else {
    root[link] = meld(root[link], t);
  }
}

void LinkSimulator::hop(uint32_t t) {
  Element &e = el[t];
  const Run &r = runs[e.next];
  if (shape.cube)
    e.at ^= uint32_t(1) << r.link; // a cube's link slot is its dim
  else
    e.at = uint32_t(int64_t(e.at) + r.step);
  --remaining[r.rank];
  if (--e.stepsLeft == 0 && ++e.next < e.end)
    e.stepsLeft = runs[e.next].count;
}

int64_t LinkSimulator::run(uint64_t &hops, uint64_t &maxLoad) {
  hops = hopCount;
  for (uint32_t t = 0; t < el.size(); ++t) {
    if (el[t].next < el[t].end) {
      el[t].stepsLeft = runs[el[t].next].count;
      enqueue(t);
    }
  }
  uint64_t left = hops;
  int64_t cycle = 0;
  std::vector<uint32_t> moved;
  while (left > 0) {
    active.swap(nextActive);
    nextActive.clear();
    if (active.empty())
      return -1; // cannot happen: a barrier always releases someone
    ++cycle;
    moved.clear();
    for (size_t link : active) {
      uint32_t t = popMin(link);
      maxLoad = std::max<uint64_t>(maxLoad, ++load[link]);
      hop(t);
      moved.push_back(t);
      if (root[link] != None)
        nextActive.push_back(link);
    }
    left -= moved.size();
    // Arrivals leave next cycle at the earliest; a finished phase releases
    // the elements parked at its barrier for the next cycle too.
    while (current < phases.size() && remaining[current] == 0) {
      ++current;
      if (current < phases.size())
        for (uint32_t t : std::exchange(parked[current], {}))
          enqueue(t);
    }
    for (uint32_t t : moved)
      if (el[t].next < el[t].end)
        enqueue(t);
  }
  return cycle;
}

} // namespace

int64_t timeCycleByCycle(const NetworkShape &shape,
                         const std::vector<Transfer> &transfers, uint64_t &hops,
                         uint64_t &maxLoad) {
  maxLoad = 0;
  return LinkSimulator(shape, transfers).run(hops, maxLoad);
}

} // namespace mapc::rt
