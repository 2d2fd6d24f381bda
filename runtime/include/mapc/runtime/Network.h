//===- Network.h - a simulated k-d mesh / Boolean cube network -----------===//
//
// A functional and timed model of a distributed-memory machine whose nodes
// sit on a k-d mesh (002 2.1) or a Boolean n-cube (001 sec. 2), each node
// with a byte memory of its own.
//
// Node numbering: node = x0 + P0 * (x1 + P1 * (x2 + ...)), dim 0 fastest.
// When every size is a power of two (always on a cube), the node number's
// bits are the device address's p-bits (BitLayout), dim 0's bits lowest:
// node bit j is bit b of the coordinate of the mesh dim that holds it
// (nodeBitDim); radix-2 plans need such a shape. A mesh side of any other
// length makes its coordinate a mixed-radix digit of the node number, which
// general plans (runtime/NetworkExecute.h, 003 ch. 6) route. A Boolean
// n-cube is n dims of size 2 with `cube` set: a hop in dim j flips node bit
// j, and there is no direction.
//
// Timing (001's model): store-and-forward, synchronous cycles. Every
// directed link carries at most one element per cycle; the two directions of
// a link are independent and all ports of a node work in the same cycle. An
// element that arrives at a node in cycle c may leave in cycle c + 1. When
// several elements wait for one link, the one with the smallest (phase,
// hop priority, index in the transfer vector) goes first. Phases are barriers:
// a hop of phase t is not taken before every hop of every phase < t has been
// taken. The result is the number of cycles, i.e. element transfers in
// sequence.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_NETWORK_H
#define MAPC_RUNTIME_NETWORK_H

#include <cstdint>
#include <string>
#include <vector>

namespace mapc::rt {

struct NetworkShape {
  std::vector<unsigned> dims; ///< size per mesh dim, any length >= 1
  bool cube = false;          ///< a Boolean cube: dims are all 2

  static NetworkShape booleanCube(unsigned n);
  static NetworkShape mesh(std::vector<unsigned> dims);

  uint32_t nodeCount() const;
  /// log2 of nodeCount() when powerOfTwo().
  unsigned nodeBits() const;
  /// Every side a power of two: the shapes radix-2 plans run on.
  bool powerOfTwo() const;
  unsigned coord(uint32_t node, unsigned dim) const;
  uint32_t withCoord(uint32_t node, unsigned dim, unsigned x) const;
  /// Mesh dim holding node bit j, and the bit's position in that coordinate.
  unsigned nodeBitDim(unsigned j, unsigned *bitInDim = nullptr) const;
  /// Number of nodes one link away from `node`.
  unsigned degree(uint32_t node) const;
  /// Shortest path length: Hamming distance on a cube, sum |dx| on a mesh.
  unsigned distance(uint32_t a, uint32_t b) const;
  /// The longest shortest path: n on an n-cube, sum (P_i - 1) on a mesh.
  unsigned diameter() const;
  bool valid(std::string *why = nullptr) const;
};

/// `count` unit steps along one dim in one direction (a run, so a path
/// across a long mesh dim costs one Hop, not one per link: memory stays
/// linear in the transfers, not in elements x path length). On a cube
/// `dir` is ignored (each step flips bit `dim`).
/// `phase` is added to the transfer's phase: a multi-leg route labels its
/// later legs with later phases (non-decreasing along the path).
/// `priority` orders elements of one phase without a barrier: at a link the
/// smallest (phase, priority, index) goes first (a schedule's step number,
/// so that late elements do not hold up the next step's early ones).
struct Hop {
  uint8_t dim = 0;
  int8_t dir = 1;
  uint32_t phase = 0;
  uint32_t priority = 0;
  uint32_t count = 1; ///< unit steps in this run, at least 1
};

/// Unit steps of `path` (the sum of its runs' counts).
uint64_t pathLength(const std::vector<Hop> &path);

struct Transfer {
  uint32_t node = 0;
  uint64_t byteAddr = 0;
  uint32_t destNode = 0;
  uint64_t destByteAddr = 0;
  std::vector<Hop> path;
  uint32_t phase = 0;
};

struct NetworkLedger {
  int64_t cycles = 0;         ///< total over runs
  uint64_t linkTransfers = 0; ///< hops, total over runs
  uint64_t maxLinkLoad = 0;   ///< most elements over one directed link, one run
};

class NetworkMachine {
public:
  NetworkMachine(NetworkShape shape, uint64_t memoryBytes);

  const NetworkShape &shape() const { return netShape; }
  uint64_t memoryBytes() const { return memBytes; }
  uint8_t *memory(uint32_t node) { return &mem[node * memBytes]; }
  const uint8_t *memory(uint32_t node) const { return &mem[node * memBytes]; }
  /// Little-endian element of 1..8 bytes.
  uint64_t read(uint32_t node, uint64_t byteAddr, unsigned bytes) const;
  void write(uint32_t node, uint64_t byteAddr, unsigned bytes, uint64_t v);

  /// Moves one element of `elemBytes` per transfer: every source is read
  /// before any destination is written. Returns the cycles taken (adding
  /// them to the ledger), or -1 with `why` set when a transfer leaves the
  /// mesh or memory, does not end at its destNode, or lowers its phase.
  int64_t run(const std::vector<Transfer> &transfers, unsigned elemBytes,
              std::string *why = nullptr);

  const NetworkLedger &ledger() const { return led; }
  void resetLedger() { led = {}; }

private:
  NetworkShape netShape;
  uint64_t memBytes;
  std::vector<uint8_t> mem;
  NetworkLedger led;
};

/// The most unit hops (device cells x diameter) a network simulation is
/// given: about 10 s per statement on one core of the 2-core machine in
/// docs/cost-model.md, since hops are simulated one by one.
constexpr uint64_t kMaxSimulatedHops = uint64_t(1) << 28;

/// Dimension-order routing: dim 0 first, one run per dim. On a cube e-cube
/// routing (differing bits ascending); on a mesh no wrap-around.
std::vector<Hop> dimensionOrderPath(const NetworkShape &shape, uint32_t from,
                                    uint32_t to);

/// Where `path` leads from `from`; false (and why) when it leaves the mesh.
bool walkPath(const NetworkShape &shape, uint32_t from,
              const std::vector<Hop> &path, uint32_t &to,
              std::string *why = nullptr);

} // namespace mapc::rt

#endif
