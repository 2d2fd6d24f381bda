//===- Network.cpp - a simulated k-d mesh / Boolean cube network ---------===//

#include "mapc/runtime/Network.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mapc::rt {

namespace {

constexpr uint32_t None = ~uint32_t(0);

unsigned log2Exact(unsigned v) { return unsigned(__builtin_ctz(v)); }

} // namespace

NetworkShape NetworkShape::booleanCube(unsigned n) {
  return NetworkShape{std::vector<unsigned>(n, 2), true};
}

NetworkShape NetworkShape::mesh(std::vector<unsigned> dims) {
  return NetworkShape{std::move(dims), false};
}

uint32_t NetworkShape::nodeCount() const {
  uint64_t n = 1;
  for (unsigned d : dims)
    n = std::min<uint64_t>(n * d, uint64_t(1) << 32);
  return uint32_t(std::min<uint64_t>(n, ~uint32_t(0)));
}

unsigned NetworkShape::nodeBits() const {
  unsigned bits = 0;
  for (unsigned d : dims)
    bits += log2Exact(d);
  return bits;
}

bool NetworkShape::powerOfTwo() const {
  for (unsigned d : dims)
    if (d == 0 || (d & (d - 1)))
      return false;
  return true;
}

// Power-of-two sides keep the bit arithmetic the radix-2 schedules were
// written against (a coordinate is a field of the node's bits); any other
// side is a mixed-radix digit of the node number (003 6.1).
unsigned NetworkShape::coord(uint32_t node, unsigned dim) const {
  unsigned shift = 0;
  uint32_t stride = 1;
  bool bits = true;
  for (unsigned i = 0; i <= dim; ++i)
    bits &= (dims[i] & (dims[i] - 1)) == 0;
  if (bits) {
    for (unsigned i = 0; i < dim; ++i)
      shift += log2Exact(dims[i]);
    return (node >> shift) & (dims[dim] - 1);
  }
  for (unsigned i = 0; i < dim; ++i)
    stride *= dims[i];
  return (node / stride) % dims[dim];
}

uint32_t NetworkShape::withCoord(uint32_t node, unsigned dim,
                                 unsigned x) const {
  unsigned shift = 0;
  uint32_t stride = 1;
  bool bits = true;
  for (unsigned i = 0; i < dim; ++i) {
    bits &= (dims[i] & (dims[i] - 1)) == 0;
    shift += log2Exact(dims[i]);
    stride *= dims[i];
  }
  if (bits && (dims[dim] & (dims[dim] - 1)) == 0) {
    uint32_t mask = uint32_t(dims[dim] - 1) << shift;
    return (node & ~mask) | (uint32_t(x) << shift);
  }
  return node - coord(node, dim) * stride + x * stride;
}

unsigned NetworkShape::nodeBitDim(unsigned j, unsigned *bitInDim) const {
  for (unsigned i = 0; i < dims.size(); ++i) {
    unsigned b = log2Exact(dims[i]);
    if (j < b) {
      if (bitInDim)
        *bitInDim = j;
      return i;
    }
    j -= b;
  }
  return unsigned(dims.size());
}

unsigned NetworkShape::degree(uint32_t node) const {
  if (cube)
    return unsigned(dims.size());
  unsigned deg = 0;
  for (unsigned i = 0; i < dims.size(); ++i) {
    unsigned x = coord(node, i);
    deg += (x > 0) + (x + 1 < dims[i]);
  }
  return deg;
}

unsigned NetworkShape::distance(uint32_t a, uint32_t b) const {
  if (cube)
    return unsigned(__builtin_popcount(a ^ b));
  unsigned d = 0;
  for (unsigned i = 0; i < dims.size(); ++i) {
    int dx = int(coord(a, i)) - int(coord(b, i));
    d += unsigned(dx < 0 ? -dx : dx);
  }
  return d;
}

unsigned NetworkShape::diameter() const {
  unsigned d = 0;
  for (unsigned size : dims)
    d += size - 1; // a cube's dims have size 2
  return d;
}

bool NetworkShape::valid(std::string *why) const {
  auto fail = [&](const std::string &msg) {
    if (why)
      *why = msg;
    return false;
  };
  if (dims.size() > 255)
    return fail("too many dims");
  uint64_t nodes = 1;
  for (unsigned d : dims) {
    if (d == 0)
      return fail("a dim of size 0");
    if (cube && d != 2)
      return fail("a cube has dims of size 2");
    nodes *= d;
    if (nodes > (uint64_t(1) << 31))
      return fail("too many nodes");
  }
  return true;
}

uint64_t pathLength(const std::vector<Hop> &path) {
  uint64_t n = 0;
  for (const Hop &h : path)
    n += h.count;
  return n;
}

bool walkPath(const NetworkShape &shape, uint32_t from,
              const std::vector<Hop> &path, uint32_t &to, std::string *why) {
  uint32_t node = from;
  for (size_t k = 0; k < path.size(); ++k) {
    const Hop &h = path[k];
    if (h.dim >= shape.dims.size()) {
      if (why)
        *why = "hop " + std::to_string(k) + " in no dim";
      return false;
    }
    if (h.count == 0) {
      if (why)
        *why = "hop " + std::to_string(k) + " has no steps";
      return false;
    }
    if (shape.cube) {
      node ^= uint32_t(h.count & 1) << h.dim;
      continue;
    }
    // A run is monotone: it stays on the mesh if its end does.
    int64_t x = int64_t(shape.coord(node, h.dim)) + int64_t(h.dir) * h.count;
    if ((h.dir != 1 && h.dir != -1) || x < 0 ||
        x >= int64_t(shape.dims[h.dim])) {
      if (why)
        *why = "hop " + std::to_string(k) + " leaves the mesh";
      return false;
    }
    node = shape.withCoord(node, h.dim, unsigned(x));
  }
  to = node;
  return true;
}

std::vector<Hop> dimensionOrderPath(const NetworkShape &shape, uint32_t from,
                                    uint32_t to) {
  std::vector<Hop> path;
  for (unsigned i = 0; i < shape.dims.size(); ++i) {
    int x = int(shape.coord(from, i)), y = int(shape.coord(to, i));
    if (x == y)
      continue;
    Hop h{uint8_t(i), int8_t(y > x ? 1 : -1), 0};
    h.count = uint32_t(y > x ? y - x : x - y);
    path.push_back(h);
  }
  return path;
}

NetworkMachine::NetworkMachine(NetworkShape shape, uint64_t memoryBytes)
    : netShape(std::move(shape)), memBytes(memoryBytes),
      mem(size_t(netShape.nodeCount()) * memoryBytes) {}

uint64_t NetworkMachine::read(uint32_t node, uint64_t byteAddr,
                              unsigned bytes) const {
  uint64_t v = 0;
  std::memcpy(&v, memory(node) + byteAddr, bytes);
  return v;
}

void NetworkMachine::write(uint32_t node, uint64_t byteAddr, unsigned bytes,
                           uint64_t v) {
  std::memcpy(memory(node) + byteAddr, &v, bytes);
}

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

int64_t NetworkMachine::run(const std::vector<Transfer> &transfers,
                            unsigned elemBytes, std::string *why) {
  auto fail = [&](size_t i, const std::string &msg) -> int64_t {
    if (why)
      *why = "transfer " + std::to_string(i) + ": " + msg;
    return -1;
  };
  uint32_t nodes = netShape.nodeCount();
  for (size_t i = 0; i < transfers.size(); ++i) {
    const Transfer &t = transfers[i];
    if (t.node >= nodes || t.destNode >= nodes)
      return fail(i, "no such node");
    if (t.byteAddr + elemBytes > memBytes ||
        t.destByteAddr + elemBytes > memBytes)
      return fail(i, "outside node memory");
    uint32_t end = 0;
    std::string pathWhy;
    if (!walkPath(netShape, t.node, t.path, end, &pathWhy))
      return fail(i, pathWhy);
    if (end != t.destNode)
      return fail(i, "path does not end at the destination node");
    for (size_t k = 1; k < t.path.size(); ++k)
      if (t.path[k].phase < t.path[k - 1].phase)
        return fail(i, "phase decreases along the path");
  }

  // Functional: a permutation of elements; reads see the state before.
  std::vector<uint8_t> buf(transfers.size() * elemBytes);
  for (size_t i = 0; i < transfers.size(); ++i)
    std::memcpy(&buf[i * elemBytes],
                memory(transfers[i].node) + transfers[i].byteAddr, elemBytes);
  for (size_t i = 0; i < transfers.size(); ++i)
    std::memcpy(memory(transfers[i].destNode) + transfers[i].destByteAddr,
                &buf[i * elemBytes], elemBytes);

  uint64_t hops = 0, maxLoad = 0;
  int64_t cycles = LinkSimulator(netShape, transfers).run(hops, maxLoad);
  if (cycles < 0)
    return fail(0, "internal: the simulation stalled");
  led.cycles += cycles;
  led.linkTransfers += hops;
  led.maxLinkLoad = maxLoad;
  return cycles;
}

} // namespace mapc::rt
