//===- MasPar.cpp - a simulated MasPar-like SIMD machine ------------------===//
//
// The functional and timed model declared in MasPar.h. Every check that
// guards the machine's integrity (widths, sizes, addresses, colliding
// router destinations) stays on in release builds: a bad address in an
// emitted plan must stop the simulation, not corrupt another PE's memory.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/MasPar.h"

#include "PairRuns.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

using namespace mapc::rt;

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "mapc runtime: MasPar: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

void check(bool ok, const char *what) {
  if (!ok)
    fail(what);
}

bool isPowerOfTwo(uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

unsigned log2Exact(uint64_t n) {
  unsigned l = 0;
  while ((uint64_t(1) << l) < n)
    ++l;
  return l;
}

void checkWidth(unsigned bytes) {
  check(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8,
        "transfer width must be 1, 2, 4 or 8 bytes");
}

uint64_t widthMask(unsigned bytes) {
  return bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * bytes)) - 1;
}

bool anyActive(const Mask &active) {
  return std::find_if(active.begin(), active.end(),
                      [](uint8_t a) { return a != 0; }) != active.end();
}

// Fixed-width little-endian accesses; with B a constant the compiler folds
// the byte loop into one load or store, independent of the host's order.
template <unsigned B> uint64_t readLE(const uint8_t *p) {
  uint64_t v = 0;
  for (unsigned k = 0; k < B; ++k)
    v |= uint64_t(p[k]) << (8 * k);
  return v;
}

template <unsigned B> void writeLE(uint8_t *p, uint64_t v) {
  for (unsigned k = 0; k < B; ++k)
    p[k] = uint8_t(v >> (8 * k));
}

// Dispatches a width known only at run time to a loop instantiated for it,
// so that the per-PE body has no switch in it.
template <typename F> void withWidth(unsigned bytes, F &&f) {
  switch (bytes) {
  case 1:
    return f(std::integral_constant<unsigned, 1>());
  case 2:
    return f(std::integral_constant<unsigned, 2>());
  case 4:
    return f(std::integral_constant<unsigned, 4>());
  default:
    return f(std::integral_constant<unsigned, 8>());
  }
}

constexpr uint32_t kNoSender = ~uint32_t(0);

// Scratch reused across instructions: a plan issues millions of PE
// operations in loops, and these would otherwise be reallocated per send.
struct RouterScratch {
  std::vector<uint32_t> from;     // per PE: the PE that sends to it
  std::vector<uint32_t> clusters; // per cluster: partner clusters
  std::vector<uint32_t> copies;   // per cluster: zero between uses
};

RouterScratch &routerScratch() {
  thread_local RouterScratch s;
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Clusters (003 5.6.4: the MP-1's cluster of 16 PEs is a 4 x 4 block)
//===----------------------------------------------------------------------===//

ClusterBlock mapc::rt::clusterBlock(unsigned width, unsigned height,
                                    unsigned clusterSize) {
  const uint64_t n = uint64_t(width) * height;
  // A machine smaller than one cluster is one cluster (of any size: grids
  // of mixed radix, 003 ch. 6, need not have power-of-two sides).
  if (clusterSize >= n)
    return {width, height};
  const unsigned c = log2Exact(clusterSize);
  ClusterBlock b;
  b.width = 1u << ((c + 1) / 2);
  b.height = 1u << (c / 2);
  // A grid narrower (or lower) than the block gets a block as wide (high)
  // as the grid and correspondingly higher (wider).
  if (b.width > width) {
    b.width = width;
    b.height = std::max(1u, clusterSize / width);
  } else if (b.height > height) {
    b.height = height;
    b.width = std::max(1u, clusterSize / height);
  }
  return b;
}

unsigned mapc::rt::clusterOf(unsigned width, unsigned height,
                             unsigned clusterSize, unsigned iproc) {
  const ClusterBlock b = clusterBlock(width, height, clusterSize);
  const unsigned x = iproc % width, y = iproc / width;
  // Blocks at the right and bottom edges of a grid whose sides the block
  // does not divide are partial.
  return (y / b.height) * ((width + b.width - 1) / b.width) + x / b.width;
}

MasPar::MasPar(unsigned width, unsigned height, uint64_t memoryBytes,
               unsigned clusterSize, CostModel cost)
    : width_(width), height_(height), clusterSize_(clusterSize),
      memoryBytes_(memoryBytes), cost_(cost) {
  check(width >= 1 && height >= 1, "the PE grid must not be empty");
  check(uint64_t(width) * height <= (uint64_t(1) << 31),
        "the PE grid is too large");
  check(isPowerOfTwo(clusterSize), "clusterSize must be a power of two");
  // A machine smaller than one cluster is one cluster.
  if (clusterSize_ > peCount())
    clusterSize_ = peCount();
  memory_.assign(size_t(peCount()) * memoryBytes_, 0);

  // The router's view of the grid, precomputed: routerTicks walks it for
  // every send. Clusters are listed PE by PE, each from clusterStart_.
  const unsigned n = peCount();
  const ClusterBlock b = clusterBlock(width_, height_, clusterSize_);
  const unsigned blocksPerRow = (width_ + b.width - 1) / b.width;
  const unsigned blockRows = (height_ + b.height - 1) / b.height;
  clusterOf_.resize(n);
  clusterPes_.resize(n);
  clusterStart_.assign(size_t(blocksPerRow) * blockRows + 1, 0);
  for (unsigned pe = 0; pe < n; ++pe) {
    const unsigned x = pe % width_, y = pe / width_;
    const unsigned cl = (y / b.height) * blocksPerRow + x / b.width;
    clusterOf_[pe] = cl;
    ++clusterStart_[cl + 1];
  }
  for (size_t cl = 1; cl < clusterStart_.size(); ++cl)
    clusterStart_[cl] += clusterStart_[cl - 1];
  std::vector<uint32_t> filled(clusterStart_.begin(), clusterStart_.end() - 1);
  for (unsigned pe = 0; pe < n; ++pe)
    clusterPes_[filled[clusterOf_[pe]]++] = pe;
}

MasPar MasPar::pricing(unsigned width, unsigned height, unsigned clusterSize,
                       CostModel cost) {
  MasPar m(width, height, 0, clusterSize, cost);
  m.pricing_ = true;
  return m;
}

void MasPar::tableLoad(unsigned bytes, const Mask &active) {
  checkWidth(bytes);
  check(active.size() == peCount(), "tableLoad: mask size != peCount");
  if (anyActive(active))
    ledger_.memory += cost_.load[widthIndex(bytes)];
}

void MasPar::arith(unsigned divmods, const Mask &active) {
  check(active.size() == peCount(), "arith: mask size != peCount");
  if (divmods && anyActive(active))
    ledger_.arith += int64_t(divmods) * cost_.divmod;
}

//===----------------------------------------------------------------------===//
// Memory (003 fig. 5.2: ld, ld*, and stores priced as loads)
//===----------------------------------------------------------------------===//

Plural MasPar::load(unsigned bytes, uint64_t address, const Mask &active) {
  checkWidth(bytes);
  check(active.size() == peCount(), "load: mask size != peCount");
  Plural out(peCount(), 0);
  if (!anyActive(active))
    return out;
  if (pricing_) {
    ledger_.memory += cost_.load[widthIndex(bytes)];
    return out;
  }
  check(address <= memoryBytes_ && bytes <= memoryBytes_ - address,
        "load: address out of range");
  withWidth(bytes, [&](auto b) {
    constexpr unsigned B = decltype(b)::value;
    const uint8_t *mem = memory_.data() + address;
    for (unsigned pe = 0, n = peCount(); pe < n; ++pe)
      if (active[pe])
        out[pe] = readLE<B>(mem + size_t(pe) * memoryBytes_);
  });
  ledger_.memory += cost_.load[widthIndex(bytes)];
  return out;
}

Plural MasPar::loadIndirect(unsigned bytes, const Plural &addresses,
                            const Mask &active) {
  checkWidth(bytes);
  check(active.size() == peCount(), "loadIndirect: mask size != peCount");
  check(addresses.size() == peCount(),
        "loadIndirect: address count != peCount");
  Plural out(peCount(), 0);
  if (!anyActive(active))
    return out;
  if (pricing_) {
    ledger_.memory += cost_.loadIndirect[widthIndex(bytes)];
    return out;
  }
  const uint64_t last = memoryBytes_ < bytes ? 0 : memoryBytes_ - bytes + 1;
  withWidth(bytes, [&](auto b) {
    constexpr unsigned B = decltype(b)::value;
    const uint8_t *mem = memory_.data();
    for (unsigned pe = 0, n = peCount(); pe < n; ++pe) {
      if (!active[pe])
        continue;
      check(addresses[pe] < last, "loadIndirect: address out of range");
      out[pe] = readLE<B>(mem + size_t(pe) * memoryBytes_ + addresses[pe]);
    }
  });
  ledger_.memory += cost_.loadIndirect[widthIndex(bytes)];
  return out;
}

void MasPar::store(unsigned bytes, uint64_t address, const Plural &values,
                   const Mask &active) {
  checkWidth(bytes);
  check(active.size() == peCount(), "store: mask size != peCount");
  check(values.size() == peCount(), "store: value count != peCount");
  if (!anyActive(active))
    return;
  if (pricing_) {
    ledger_.memory += cost_.store(widthIndex(bytes));
    return;
  }
  check(address <= memoryBytes_ && bytes <= memoryBytes_ - address,
        "store: address out of range");
  withWidth(bytes, [&](auto b) {
    constexpr unsigned B = decltype(b)::value;
    uint8_t *mem = memory_.data() + address;
    for (unsigned pe = 0, n = peCount(); pe < n; ++pe)
      if (active[pe])
        writeLE<B>(mem + size_t(pe) * memoryBytes_, values[pe]);
  });
  ledger_.memory += cost_.store(widthIndex(bytes));
}

void MasPar::storeIndirect(unsigned bytes, const Plural &addresses,
                           const Plural &values, const Mask &active) {
  checkWidth(bytes);
  check(active.size() == peCount(), "storeIndirect: mask size != peCount");
  check(addresses.size() == peCount(),
        "storeIndirect: address count != peCount");
  check(values.size() == peCount(), "storeIndirect: value count != peCount");
  if (!anyActive(active))
    return;
  if (pricing_) {
    ledger_.memory += cost_.storeIndirect(widthIndex(bytes));
    return;
  }
  const uint64_t last = memoryBytes_ < bytes ? 0 : memoryBytes_ - bytes + 1;
  withWidth(bytes, [&](auto b) {
    constexpr unsigned B = decltype(b)::value;
    uint8_t *mem = memory_.data();
    for (unsigned pe = 0, n = peCount(); pe < n; ++pe) {
      if (!active[pe])
        continue;
      check(addresses[pe] < last, "storeIndirect: address out of range");
      writeLE<B>(mem + size_t(pe) * memoryBytes_ + addresses[pe], values[pe]);
    }
  });
  ledger_.memory += cost_.storeIndirect(widthIndex(bytes));
}

//===----------------------------------------------------------------------===//
// Router (003 5.6.4, 6.4; the model is spelled out in MasPar.h)
//===----------------------------------------------------------------------===//

namespace {

// Number of distinct values in v[0, n) and the most copies of one value,
// counted in `copies` (zero at every value, and left so): no sort, as the
// clustered price asks it of every cluster of a send.
void distinctAndMostCopies(const uint32_t *v, size_t n,
                           std::vector<uint32_t> &copies, int64_t &distinct,
                           int64_t &most) {
  distinct = 0;
  uint32_t top = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t &c = copies[v[i]];
    distinct += c == 0;
    top = std::max(top, ++c);
  }
  for (size_t i = 0; i < n; ++i)
    copies[v[i]] = 0;
  most = top;
}

// Fills `from` with each receiver's sender (kNoSender elsewhere) and says
// whether any element leaves its PE.
bool routerSenders(const MasPar &m, unsigned bytes, const Plural &dest,
                   const Mask &active, unsigned extraBytes,
                   std::vector<uint32_t> &from) {
  checkWidth(bytes);
  check(extraBytes == 0 || extraBytes == 1 || extraBytes == 2 ||
            extraBytes == 4 || extraBytes == 8,
        "routerSend: extraBytes must be 0, 1, 2, 4 or 8");
  const unsigned n = m.peCount();
  check(active.size() == n, "routerSend: mask size != peCount");
  check(dest.size() == n, "routerSend: destination count != peCount");

  from.assign(n, kNoSender);
  bool leaves = false;
  for (unsigned pe = 0; pe < n; ++pe) {
    if (!active[pe])
      continue;
    check(dest[pe] < n, "routerSend: destination PE out of range");
    uint32_t &slot = from[dest[pe]];
    check(slot == kNoSender, "routerSend: two active PEs send to one PE");
    slot = pe;
    leaves |= dest[pe] != pe;
  }
  return leaves;
}

// The ticks of a send whose senders routerSenders listed, in plain or
// clustered mode.
int64_t routerModeTicks(const MasPar &m, unsigned bytes, const Plural &dest,
                        const Mask &active, bool clustered, unsigned extraBytes,
                        const std::vector<uint32_t> &from) {
  const CostModel &c = m.cost();
  const int64_t send = c.rsend[widthIndex(bytes)];
  const int64_t extra = extraBytes ? c.rsend[widthIndex(extraBytes)] : 0;
  const unsigned clusterCount = m.clusterCount();

  if (!clustered) {
    // Each round every cluster opens one connection for one of its PEs;
    // with 6.4's contention-free order the busiest cluster sets the count.
    int64_t rounds = 0;
    for (unsigned cl = 0; cl < clusterCount; ++cl) {
      int64_t senders = 0, receivers = 0;
      const uint32_t *pes = m.clusterPes(cl);
      for (unsigned k = 0, cs = m.clusterPeCount(cl); k < cs; ++k) {
        senders += active[pes[k]] != 0;
        receivers += from[pes[k]] != kNoSender;
      }
      rounds = std::max({rounds, senders, receivers});
    }
    return rounds * (c.ropen + send + extra);
  }

  // Clustered (5.6.4): one connection per talking cluster pair, drained by
  // every PE of the pair. A cluster's partner count is the larger of its
  // outgoing and incoming pair counts: sending and receiving use different
  // ends of its connection, so they overlap.
  std::vector<uint32_t> &buf = routerScratch().clusters;
  std::vector<uint32_t> &copies = routerScratch().copies;
  buf.resize(m.clusterSize());
  if (copies.size() < clusterCount)
    copies.resize(clusterCount, 0);
  int64_t partners = 0, group = 0;
  for (unsigned cl = 0; cl < clusterCount; ++cl) {
    const uint32_t *pes = m.clusterPes(cl);
    const unsigned cs = m.clusterPeCount(cl);
    size_t k = 0;
    for (unsigned j = 0; j < cs; ++j)
      if (active[pes[j]])
        buf[k++] = m.clusterOfPe(unsigned(dest[pes[j]]));
    int64_t distinct, longest;
    distinctAndMostCopies(buf.data(), k, copies, distinct, longest);
    partners = std::max(partners, distinct);
    group = std::max(group, longest);

    k = 0;
    for (unsigned j = 0; j < cs; ++j)
      if (from[pes[j]] != kNoSender)
        buf[k++] = m.clusterOfPe(from[pes[j]]);
    distinctAndMostCopies(buf.data(), k, copies, distinct, longest);
    partners = std::max(partners, distinct);
  }
  return partners * (c.ropen + group * (send + extra));
}

// The ticks of one router send; fills `from` with each receiver's sender
// (kNoSender elsewhere). Shared by routerCost and routerSend so the two can
// never disagree.
int64_t routerTicks(const MasPar &m, unsigned bytes, const Plural &dest,
                    const Mask &active, bool clustered, unsigned extraBytes,
                    std::vector<uint32_t> &from) {
  // Nothing leaves its PE: no router instruction is needed at all.
  if (!routerSenders(m, bytes, dest, active, extraBytes, from))
    return 0;
  return routerModeTicks(m, bytes, dest, active, clustered, extraBytes, from);
}

} // namespace

int64_t MasPar::routerCost(unsigned bytes, const Plural &dest,
                           const Mask &active, bool clustered,
                           unsigned extraBytes) const {
  return routerTicks(*this, bytes, dest, active, clustered, extraBytes,
                     routerScratch().from);
}

int64_t MasPar::cheaperRouterCost(unsigned bytes, const Plural &dest,
                                  const Mask &active) const {
  // The senders listed once for both modes.
  std::vector<uint32_t> &from = routerScratch().from;
  if (!routerSenders(*this, bytes, dest, active, 0, from))
    return 0;
  return std::min(routerModeTicks(*this, bytes, dest, active, true, 0, from),
                  routerModeTicks(*this, bytes, dest, active, false, 0, from));
}

int64_t MasPar::cheaperRouterCostOfPairs(
    unsigned bytes,
    const std::vector<std::pair<uint32_t, uint32_t>> &pairs) const {
  checkWidth(bytes);
  bool leaves = false;
  for (const auto &[p, q] : pairs) {
    check(p < peCount() && q < peCount(), "router pair out of range");
    leaves |= p != q;
  }
  if (!leaves)
    return 0;
  const CostModel &c = cost();
  const int64_t send = c.rsend[widthIndex(bytes)];
  // Per pair its clusters (sender's, receiver's), sorted both ways: runs of
  // one cluster count its senders or receivers (plain) and its partner
  // clusters (clustered), runs of one cluster pair its group (routerTicks'
  // cluster by cluster walk, from the pairs).
  std::vector<std::pair<uint32_t, uint32_t>> out, in;
  out.reserve(pairs.size());
  in.reserve(pairs.size());
  for (const auto &[p, q] : pairs) {
    out.push_back({clusterOfPe(p), clusterOfPe(q)});
    in.push_back({clusterOfPe(q), clusterOfPe(p)});
  }
  {
    // routerTicks' checks: one send a PE, one receive a PE.
    std::vector<uint32_t> ends;
    for (int side = 0; side < 2; ++side) {
      ends.clear();
      for (const auto &pq : pairs)
        ends.push_back(side ? pq.second : pq.first);
      std::sort(ends.begin(), ends.end());
      check(std::adjacent_find(ends.begin(), ends.end()) == ends.end(),
            side ? "routerSend: two active PEs send to one PE"
                 : "router pairs: a PE sends twice in one send");
    }
  }
  int64_t busiest, partners, group, receivers, sources, unused;
  runsOf(out, busiest, partners, group);
  runsOf(in, receivers, sources, unused);
  busiest = std::max(busiest, receivers);
  partners = std::max(partners, sources);
  return std::min(partners * (c.ropen + group * send),
                  busiest * (c.ropen + send));
}

Plural MasPar::routerSendCheaper(unsigned bytes, const Plural &values,
                                 const Plural &dest, const Mask &active,
                                 Mask &received) {
  const bool clustered = routerCost(bytes, dest, active, true) <
                         routerCost(bytes, dest, active, false);
  return routerSend(bytes, values, dest, active, clustered, received);
}

Plural MasPar::routerSend(unsigned bytes, const Plural &values,
                          const Plural &dest, const Mask &active,
                          bool clustered, Mask &received, unsigned extraBytes) {
  check(values.size() == peCount(), "routerSend: value count != peCount");
  std::vector<uint32_t> &from = routerScratch().from;
  int64_t ticks =
      routerTicks(*this, bytes, dest, active, clustered, extraBytes, from);

  const uint64_t mask = widthMask(bytes);
  const unsigned n = peCount();
  Plural out(n, 0);
  received.assign(n, 0);
  for (unsigned pe = 0; pe < n; ++pe) {
    if (from[pe] == kNoSender)
      continue;
    out[pe] = values[from[pe]] & mask;
    received[pe] = 1;
  }
  if (ticks > 0) {
    ledger_.router += ticks;
    ++ledger_.routerSends;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Xnet (003 2.4, 5.6.5)
//===----------------------------------------------------------------------===//

Plural MasPar::xnetSend(unsigned bytes, XnetDir dir, unsigned distance,
                        const Plural &values, const Mask &active,
                        Mask &received) {
  checkWidth(bytes);
  const unsigned n = peCount();
  check(active.size() == n, "xnetSend: mask size != peCount");
  check(values.size() == n, "xnetSend: value count != peCount");

  int dx = 0, dy = 0;
  switch (dir) {
  case XnetDir::N:
    dy = -1;
    break;
  case XnetDir::NE:
    dx = 1, dy = -1;
    break;
  case XnetDir::E:
    dx = 1;
    break;
  case XnetDir::SE:
    dx = 1, dy = 1;
    break;
  case XnetDir::S:
    dy = 1;
    break;
  case XnetDir::SW:
    dx = -1, dy = 1;
    break;
  case XnetDir::W:
    dx = -1;
    break;
  case XnetDir::NW:
    dx = -1, dy = -1;
    break;
  }
  // Offsets as non-negative shifts on the torus.
  const unsigned w = width_, h = height_;
  const unsigned ox = (dx >= 0 ? distance % w : w - distance % w) % w;
  const unsigned oy = (dy >= 0 ? distance % h : h - distance % h) % h;
  const unsigned sx = dx ? ox : 0, sy = dy ? oy : 0;

  const uint64_t mask = widthMask(bytes);
  Plural out(n, 0);
  received.assign(n, 0);
  bool any = false;
  for (unsigned y = 0; y < h; ++y) {
    const unsigned ty = (y + sy) % h;
    for (unsigned x = 0; x < w; ++x) {
      const unsigned pe = x + w * y;
      if (!active[pe])
        continue;
      const unsigned to = (x + sx) % w + w * ty;
      out[to] = values[pe] & mask;
      received[to] = 1;
      any = true;
    }
  }
  if (any)
    ledger_.xnet += cost_.xnet(widthIndex(bytes), distance);
  return out;
}
