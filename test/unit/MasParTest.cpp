//===- MasParTest.cpp - the simulated MasPar and its prices ---------------===//
//
// Prices are those of 003 fig. 5.2; the router model is the one spelled out
// in MasPar.h (003 5.6.4, 6.4).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/MasPar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

using namespace mapc::rt;

namespace {

const unsigned kWidths[] = {1, 2, 4, 8};

// Fig. 5.2, transcribed independently of CostModel's defaults.
const int64_t kRopen = 42;
const int64_t kRsend[] = {25, 33, 49, 81};
const int64_t kXnetBase[] = {13, 15, 19, 27};
const int64_t kXnetHop[] = {10, 18, 34, 66};
const int64_t kLoad[] = {20, 38, 74, 146};
const int64_t kLoadIndirect[] = {55, 103, 199, 391};

Plural iota(unsigned n, uint64_t from = 0) {
  Plural p(n);
  std::iota(p.begin(), p.end(), from);
  return p;
}

template <typename F> Plural mapPes(unsigned n, F f) {
  Plural p(n);
  for (unsigned i = 0; i < n; ++i)
    p[i] = f(i);
  return p;
}

// Checks that every received value is the sender's, and nothing else came.
void expectDelivered(const Plural &values, const Plural &dest,
                     const Mask &active, const Plural &got,
                     const Mask &received, unsigned bytes) {
  uint64_t mask = bytes == 8 ? ~uint64_t(0) : (uint64_t(1) << 8 * bytes) - 1;
  Mask expect(dest.size(), 0);
  for (size_t i = 0; i < dest.size(); ++i) {
    if (!active[i])
      continue;
    expect[dest[i]] = 1;
    EXPECT_EQ(got[dest[i]], values[i] & mask) << "from PE " << i;
  }
  for (size_t i = 0; i < dest.size(); ++i) {
    EXPECT_EQ(received[i], expect[i]) << "PE " << i;
    if (!expect[i]) {
      EXPECT_EQ(got[i], 0u) << "PE " << i;
    }
  }
}

// The cluster of PE i, worked out independently of clusterOf: start from a
// 4 x 4-style block (as wide as high, or twice as wide) and halve whichever
// side overhangs the grid while doubling the other (003 5.6.4).
unsigned refCluster(unsigned width, unsigned height, unsigned clusterSize,
                    uint64_t i) {
  unsigned c = 0;
  while ((2u << c) <= std::min(clusterSize, width * height))
    ++c;
  unsigned bw = 1u << (c - c / 2), bh = 1u << (c / 2);
  while (bw > width)
    bw /= 2, bh *= 2;
  while (bh > height)
    bh /= 2, bw *= 2;
  unsigned x = unsigned(i % width), y = unsigned(i / width);
  return (y / bh) * (width / bw) + x / bw;
}

// An independent, literal transcription of MasPar.h's router model.
int64_t referenceRouterCost(unsigned width, unsigned height,
                            unsigned clusterSize, unsigned bytes,
                            const Plural &dest, const Mask &active,
                            bool clustered, unsigned extraBytes) {
  const unsigned peCount = width * height;
  auto cluster = [&](uint64_t i) {
    return refCluster(width, height, clusterSize, i);
  };
  bool leaves = false;
  for (unsigned i = 0; i < peCount; ++i)
    leaves |= active[i] && dest[i] != i;
  if (!leaves)
    return 0;
  int64_t send = kRsend[widthIndex(bytes)];
  int64_t extra = extraBytes ? kRsend[widthIndex(extraBytes)] : 0;
  unsigned clusters = peCount / clusterSize;
  if (!clustered) {
    std::vector<int64_t> senders(clusters), receivers(clusters);
    for (unsigned i = 0; i < peCount; ++i)
      if (active[i]) {
        ++senders[cluster(i)];
        ++receivers[cluster(dest[i])];
      }
    int64_t rounds =
        std::max(*std::max_element(senders.begin(), senders.end()),
                 *std::max_element(receivers.begin(), receivers.end()));
    return rounds * (kRopen + send) + (extraBytes ? rounds * extra : 0);
  }
  std::vector<std::set<unsigned>> to(clusters), from(clusters);
  std::map<std::pair<unsigned, unsigned>, int64_t> pair;
  for (unsigned i = 0; i < peCount; ++i)
    if (active[i]) {
      unsigned s = cluster(i), d = cluster(dest[i]);
      to[s].insert(d);
      from[d].insert(s);
      ++pair[{s, d}];
    }
  int64_t partners = 0, group = 0;
  for (unsigned c = 0; c < clusters; ++c)
    partners = std::max<int64_t>(
        {partners, int64_t(to[c].size()), int64_t(from[c].size())});
  for (auto &[key, count] : pair)
    group = std::max(group, count);
  return partners * (kRopen + group * (send + extra));
}

} // namespace

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

TEST(MasParTest, Shape) {
  MasPar m(32, 32, 64);
  EXPECT_EQ(m.peCount(), 1024u);
  EXPECT_EQ(m.clusterSize(), 16u);
  EXPECT_EQ(m.memoryBytes(), 64u);
  for (unsigned pe = 0; pe < m.peCount(); ++pe)
    for (unsigned a = 0; a < 64; ++a)
      ASSERT_EQ(m.memoryOf(pe)[a], 0) << pe << " " << a;
  EXPECT_EQ(m.ledger().total(), 0);
  EXPECT_EQ(m.allActive(), Mask(1024, 1));
}

TEST(MasParTest, ClusterClampedToMachine) {
  MasPar m(4, 2, 8, 64);
  EXPECT_EQ(m.clusterSize(), 8u);
  MasPar one(1, 1, 8);
  EXPECT_EQ(one.peCount(), 1u);
  EXPECT_EQ(one.clusterSize(), 1u);
}

TEST(MasParTest, ClustersAreFourByFourBlocks) {
  // 003 5.6.4: an MP-1 cluster is 16 PEs in a 4 x 4 block of the grid; on
  // a 32 x 32 grid, PEs 0-3, 32-35, 64-67 and 96-99 share a connection.
  MasPar m(32, 32, 8);
  ClusterBlock b = clusterBlock(32, 32, 16);
  EXPECT_EQ(b.width, 4u);
  EXPECT_EQ(b.height, 4u);
  EXPECT_EQ(m.clusterCount(), 64u);
  std::set<unsigned> zero;
  for (unsigned y = 0; y < 4; ++y)
    for (unsigned x = 0; x < 4; ++x) {
      unsigned pe = 32 * y + x;
      zero.insert(pe);
      EXPECT_EQ(clusterOf(32, 32, 16, pe), 0u) << pe;
      EXPECT_EQ(m.clusterOfPe(pe), 0u) << pe;
    }
  EXPECT_EQ(std::set<unsigned>(m.clusterPes(0), m.clusterPes(0) + 16), zero);
  EXPECT_NE(clusterOf(32, 32, 16, 4), 0u);
  EXPECT_EQ(clusterOf(32, 32, 16, 4), 1u);   // the next block to the right
  EXPECT_EQ(clusterOf(32, 32, 16, 128), 8u); // the first of the next row
  EXPECT_NE(clusterOf(32, 32, 16, 15), 0u);  // not PE iproc / 16
  EXPECT_EQ(clusterOf(32, 32, 16, 1023), 63u);
  // Odd powers: 2 x 1 and 8 x 4 blocks.
  EXPECT_EQ(clusterBlock(32, 32, 2).width, 2u);
  EXPECT_EQ(clusterBlock(32, 32, 2).height, 1u);
  EXPECT_EQ(clusterBlock(32, 32, 32).width, 8u);
  EXPECT_EQ(clusterBlock(32, 32, 32).height, 4u);
  // Narrow or low grids: the block takes the whole width (or height).
  EXPECT_EQ(clusterBlock(2, 64, 16).width, 2u);
  EXPECT_EQ(clusterBlock(2, 64, 16).height, 8u);
  EXPECT_EQ(clusterBlock(64, 2, 16).width, 8u);
  EXPECT_EQ(clusterBlock(64, 2, 16).height, 2u);
  EXPECT_EQ(clusterOf(2, 64, 16, 15), 0u);
  EXPECT_EQ(clusterOf(2, 64, 16, 16), 1u);
  EXPECT_EQ(clusterOf(64, 2, 16, 64 + 7), 0u);
  EXPECT_EQ(clusterOf(64, 2, 16, 8), 1u);
  // A grid one PE high (pes = [N]) has runs of consecutive PEs.
  for (unsigned pe = 0; pe < 256; ++pe)
    EXPECT_EQ(clusterOf(256, 1, 16, pe), pe / 16) << pe;
  // Clusters larger than the machine are the machine.
  EXPECT_EQ(clusterOf(4, 2, 64, 7), 0u);
  // Every cluster is clusterSize PEs and every table agrees with clusterOf.
  const unsigned grids[][3] = {{32, 32, 16}, {16, 8, 8},  {8, 2, 4},
                               {4, 1, 2},    {2, 64, 16}, {64, 2, 32}};
  for (const auto &g : grids) {
    MasPar k(g[0], g[1], 1, g[2]);
    std::vector<unsigned> size(k.clusterCount(), 0);
    for (unsigned pe = 0; pe < k.peCount(); ++pe) {
      unsigned cl = clusterOf(g[0], g[1], g[2], pe);
      ASSERT_LT(cl, k.clusterCount());
      EXPECT_EQ(k.clusterOfPe(pe), cl);
      EXPECT_EQ(cl, refCluster(g[0], g[1], g[2], pe));
      ++size[cl];
    }
    for (unsigned cl = 0; cl < k.clusterCount(); ++cl) {
      EXPECT_EQ(size[cl], k.clusterSize());
      for (unsigned j = 0; j < k.clusterSize(); ++j)
        EXPECT_EQ(k.clusterOfPe(k.clusterPes(cl)[j]), cl);
    }
  }
}

TEST(MasParDeathTest, BadShapes) {
  EXPECT_DEATH(MasPar(0, 1, 8), "empty");
  EXPECT_DEATH(MasPar(4, 4, 8, 3), "clusterSize");
  EXPECT_DEATH(MasPar(4, 4, 8, 0), "clusterSize");
}

// Grids of any side (003 6.1.4): a machine smaller than one cluster is one
// cluster; blocks at the edges of a grid the block does not divide are
// partial, and every PE is in exactly one cluster.
TEST(MasParTest, MixedRadixGridsHavePartialClusters) {
  MasPar seven(7, 1, 8);
  EXPECT_EQ(seven.clusterCount(), 1u);
  EXPECT_EQ(seven.clusterPeCount(0), 7u);
  MasPar odd(31, 33, 8);
  EXPECT_EQ(odd.clusterCount(), 8u * 9u);
  std::vector<unsigned> seen(odd.peCount(), 0);
  for (unsigned cl = 0; cl < odd.clusterCount(); ++cl) {
    EXPECT_LE(odd.clusterPeCount(cl), 16u);
    for (unsigned j = 0; j < odd.clusterPeCount(cl); ++j) {
      unsigned pe = odd.clusterPes(cl)[j];
      ++seen[pe];
      EXPECT_EQ(odd.clusterOfPe(pe), cl);
      EXPECT_EQ(clusterOf(31, 33, 16, pe), cl);
    }
  }
  for (unsigned pe = 0; pe < odd.peCount(); ++pe)
    EXPECT_EQ(seen[pe], 1u) << pe;
  // The last block of a row holds 3 x 4 PEs, the bottom-right one 3 x 1.
  EXPECT_EQ(odd.clusterPeCount(7), 12u);
  EXPECT_EQ(odd.clusterPeCount(8 * 9 - 1), 3u);
}

//===----------------------------------------------------------------------===//
// Fig. 5.2 prices, one instruction each
//===----------------------------------------------------------------------===//

TEST(MasParTest, DefaultCostModelIsFigure52) {
  CostModel c;
  EXPECT_EQ(c.ropen, kRopen);
  for (unsigned w = 0; w < 4; ++w) {
    EXPECT_EQ(c.rsend[w], kRsend[w]);
    EXPECT_EQ(c.load[w], kLoad[w]);
    EXPECT_EQ(c.loadIndirect[w], kLoadIndirect[w]);
    EXPECT_EQ(c.store(w), kLoad[w]);
    EXPECT_EQ(c.storeIndirect(w), kLoadIndirect[w]);
    for (int64_t d = 0; d < 40; ++d)
      EXPECT_EQ(c.xnet(w, d), kXnetBase[w] + d * kXnetHop[w]);
  }
  EXPECT_EQ(widthIndex(1), 0u);
  EXPECT_EQ(widthIndex(2), 1u);
  EXPECT_EQ(widthIndex(4), 2u);
  EXPECT_EQ(widthIndex(8), 3u);
}

// CostModel's == compares every price: the caches of the pricing machine
// key on it (GeneralExecute.cpp, Predict.cpp).
TEST(MasParTest, CostModelsCompareEveryPrice) {
  const CostModel base;
  EXPECT_TRUE(base == CostModel{});
  EXPECT_FALSE(base != CostModel{});
  // Every price, one at a time.
  CostModel other = base;
  std::vector<int64_t *> prices = {&other.ropen, &other.divmod};
  for (int64_t *row : {other.rsend, other.xnetBase, other.xnetHop, other.load,
                       other.loadIndirect})
    for (unsigned w = 0; w < 4; ++w)
      prices.push_back(row + w);
  ASSERT_EQ(prices.size(), sizeof(CostModel) / sizeof(int64_t));
  for (size_t k = 0; k < prices.size(); ++k) {
    ++*prices[k];
    EXPECT_FALSE(base == other) << "price " << k;
    EXPECT_TRUE(base != other) << "price " << k;
    --*prices[k];
    EXPECT_TRUE(base == other) << "price " << k;
  }
}

// A ledger's difference and sum, field by field.
TEST(MasParTest, LedgerDifferenceAndSum) {
  Ledger a{10, 20, 30, 40, 5}, b{1, 2, 3, 4, 1};
  const Ledger d = a - b;
  EXPECT_EQ(d.memory, 9);
  EXPECT_EQ(d.router, 18);
  EXPECT_EQ(d.xnet, 27);
  EXPECT_EQ(d.arith, 36);
  EXPECT_EQ(d.routerSends, 4);
  b += d;
  EXPECT_EQ(b.memory, a.memory);
  EXPECT_EQ(b.router, a.router);
  EXPECT_EQ(b.xnet, a.xnet);
  EXPECT_EQ(b.arith, a.arith);
  EXPECT_EQ(b.routerSends, a.routerSends);
}

TEST(MasParTest, MemoryPrices) {
  MasPar m(8, 8, 64);
  Mask all = m.allActive();
  Plural addr(m.peCount(), 8), vals = iota(m.peCount());
  for (unsigned w = 0; w < 4; ++w) {
    unsigned bytes = kWidths[w];
    int64_t before = m.ledger().memory;
    m.load(bytes, 0, all);
    EXPECT_EQ(m.ledger().memory - before, kLoad[w]) << "ld" << 8 * bytes;
    before = m.ledger().memory;
    m.loadIndirect(bytes, addr, all);
    EXPECT_EQ(m.ledger().memory - before, kLoadIndirect[w])
        << "ld" << 8 * bytes << "*";
    before = m.ledger().memory;
    m.store(bytes, 0, vals, all);
    EXPECT_EQ(m.ledger().memory - before, kLoad[w]) << "st" << 8 * bytes;
    before = m.ledger().memory;
    m.storeIndirect(bytes, addr, vals, all);
    EXPECT_EQ(m.ledger().memory - before, kLoadIndirect[w])
        << "st" << 8 * bytes << "*";
  }
  EXPECT_EQ(m.ledger().router, 0);
  EXPECT_EQ(m.ledger().xnet, 0);
  EXPECT_EQ(m.ledger().total(), m.ledger().memory);
}

TEST(MasParTest, OneRouterConnectionPrice) {
  // One PE to one PE in another cluster: one ropen and one rsend.
  for (bool clustered : {false, true})
    for (unsigned w = 0; w < 4; ++w) {
      MasPar m(32, 32, 8);
      Mask active(m.peCount(), 0), got;
      active[5] = 1;
      Plural dest = iota(m.peCount());
      dest[5] = 700;
      m.routerSend(kWidths[w], iota(m.peCount()), dest, active, clustered, got);
      EXPECT_EQ(m.ledger().router, kRopen + kRsend[w]);
      EXPECT_EQ(m.ledger().routerSends, 1);
      EXPECT_EQ(m.ledger().total(), kRopen + kRsend[w]);
    }
}

TEST(MasParTest, XnetPrices) {
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned d : {1u, 2u, 5u, 16u}) {
      MasPar m(32, 32, 8);
      Mask got;
      m.xnetSend(kWidths[w], XnetDir::E, d, iota(m.peCount()), m.allActive(),
                 got);
      EXPECT_EQ(m.ledger().xnet, kXnetBase[w] + int64_t(d) * kXnetHop[w]);
      EXPECT_EQ(m.ledger().total(), m.ledger().xnet);
    }
  // 003 fig. 5.2: xnet8 = 13 + d * 10.
  MasPar m(16, 16, 8);
  Mask got;
  m.xnetSend(1, XnetDir::NW, 3, iota(m.peCount()), m.allActive(), got);
  EXPECT_EQ(m.ledger().xnet, 13 + 3 * 10);
}

//===----------------------------------------------------------------------===//
// Memory semantics
//===----------------------------------------------------------------------===//

TEST(MasParTest, LittleEndianWidths) {
  MasPar m(2, 2, 16);
  m.store(8, 4, Plural(4, 0x0807060504030201ull), m.allActive());
  for (unsigned pe = 0; pe < 4; ++pe)
    for (unsigned k = 0; k < 8; ++k)
      EXPECT_EQ(m.memoryOf(pe)[4 + k], k + 1);
  EXPECT_EQ(m.load(1, 4, m.allActive())[0], 0x01u);
  EXPECT_EQ(m.load(2, 5, m.allActive())[1], 0x0302u);
  EXPECT_EQ(m.load(4, 6, m.allActive())[2], 0x06050403u);
  EXPECT_EQ(m.load(8, 4, m.allActive())[3], 0x0807060504030201ull);
  // A narrow store writes only its own bytes, and only the low bits.
  m.store(2, 6, Plural(4, 0xAABBCCDDull), m.allActive());
  EXPECT_EQ(m.load(8, 4, m.allActive())[0], 0x08070605CCDD0201ull);
  // The last bytes of memory are reachable.
  m.store(8, 8, Plural(4, 0x1122334455667788ull), m.allActive());
  EXPECT_EQ(m.load(1, 15, m.allActive())[2], 0x11u);
}

TEST(MasParTest, DirectAndIndirect) {
  MasPar m(4, 4, 64);
  unsigned n = m.peCount();
  Mask all = m.allActive();
  // Direct: every PE writes at the same address; indirect: each at its own.
  m.store(4, 0, iota(n, 100), all);
  Plural addr(n), vals(n);
  for (unsigned i = 0; i < n; ++i) {
    addr[i] = 8 + 2 * i;
    vals[i] = 0xBEEF1000u + i; // a 16-bit store keeps 0x1000 + i
  }
  m.storeIndirect(2, addr, vals, all);
  for (unsigned i = 0; i < n; ++i) {
    uint32_t direct = m.memoryOf(i)[0] | m.memoryOf(i)[1] << 8;
    EXPECT_EQ(direct, 100 + i);
    for (unsigned a = 8; a < 64; ++a) {
      uint8_t want = a == 8 + 2 * i ? uint8_t(i) : a == 9 + 2 * i ? 0x10 : 0;
      EXPECT_EQ(m.memoryOf(i)[a], want) << "PE " << i << " byte " << a;
    }
  }
  Plural direct = m.load(4, 0, all);
  Plural indirect = m.loadIndirect(2, addr, all);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(direct[i], 100 + i);
    EXPECT_EQ(indirect[i], 0x1000u + i);
  }
  // An indirect load reads each PE's own memory: only PE 0 wrote byte 9.
  Plural nine = m.loadIndirect(1, Plural(n, 9), all);
  EXPECT_EQ(nine[0], 0x10u);
  for (unsigned i = 1; i < n; ++i)
    EXPECT_EQ(nine[i], 0u) << i;
  EXPECT_EQ(m.ledger().memory, kLoad[2] + kLoadIndirect[1] + kLoad[2] +
                                   kLoadIndirect[1] + kLoadIndirect[0]);
}

TEST(MasParTest, InactivePesUntouched) {
  MasPar m(4, 4, 16);
  unsigned n = m.peCount();
  for (unsigned i = 0; i < n; ++i)
    std::fill(m.memoryOf(i), m.memoryOf(i) + 16, uint8_t(0x5A));
  Mask odd(n, 0);
  for (unsigned i = 1; i < n; i += 2)
    odd[i] = 1;
  m.store(8, 0, Plural(n, 0), odd);
  Plural addr(n, 8);
  m.storeIndirect(8, addr, Plural(n, 0), odd);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned a = 0; a < 16; ++a)
      EXPECT_EQ(m.memoryOf(i)[a], odd[i] ? 0 : 0x5A) << i << " " << a;
  Plural got = m.load(8, 0, odd);
  Plural gotInd = m.loadIndirect(1, Plural(n, 3), odd);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(got[i], 0u); // odd PEs read zeros; even ones are inactive
    EXPECT_EQ(gotInd[i], 0u);
  }
  // Inactive PEs may hold addresses that would be out of range.
  Plural wild(n, 1000);
  for (unsigned i = 1; i < n; i += 2)
    wild[i] = 0;
  Plural even = m.loadIndirect(1, wild, odd);
  EXPECT_EQ(even[0], 0u);
}

TEST(MasParTest, NoActivePeIsFree) {
  MasPar m(4, 4, 16);
  unsigned n = m.peCount();
  Mask none(n, 0), got;
  m.load(8, 0, none);
  m.loadIndirect(8, Plural(n, 0), none);
  m.store(8, 0, Plural(n, 7), none);
  m.storeIndirect(8, Plural(n, 0), Plural(n, 7), none);
  Plural r =
      m.routerSend(8, iota(n), mapPes(n, [](uint64_t i) { return i ^ 1; }),
                   none, false, got);
  EXPECT_EQ(got, Mask(n, 0));
  EXPECT_EQ(r, Plural(n, 0));
  m.xnetSend(8, XnetDir::E, 1, iota(n), none, got);
  EXPECT_EQ(got, Mask(n, 0));
  EXPECT_EQ(m.ledger().total(), 0);
  EXPECT_EQ(m.ledger().routerSends, 0);
  for (unsigned i = 0; i < n; ++i)
    EXPECT_EQ(m.memoryOf(i)[0], 0);
}

TEST(MasParDeathTest, MemoryOutOfRange) {
  MasPar m(2, 2, 16);
  Mask all = m.allActive();
  EXPECT_DEATH(m.load(8, 9, all), "load: address out of range");
  EXPECT_DEATH(m.load(1, 16, all), "load: address out of range");
  EXPECT_DEATH(m.store(4, ~uint64_t(0) - 1, Plural(4, 0), all),
               "store: address out of range");
  EXPECT_DEATH(m.loadIndirect(2, Plural{0, 0, 15, 0}, all),
               "loadIndirect: address out of range");
  EXPECT_DEATH(m.storeIndirect(1, Plural{0, 16, 0, 0}, Plural(4, 0), all),
               "storeIndirect: address out of range");
  EXPECT_DEATH(m.load(3, 0, all), "width");
}

//===----------------------------------------------------------------------===//
// Router
//===----------------------------------------------------------------------===//

TEST(MasParTest, ClusterPreservingPermutation) {
  // dest = i ^ 16 swaps whole clusters of 16 (5.6.4): clustered mode opens
  // one connection per cluster and drains all 16 PEs through it.
  Plural dest = mapPes(1024, [](uint64_t i) { return i ^ 16; });
  for (unsigned w = 0; w < 4; ++w) {
    unsigned bytes = kWidths[w];
    for (bool clustered : {false, true}) {
      MasPar m(32, 32, 8);
      Mask got, all = m.allActive();
      Plural vals = mapPes(1024, [](uint64_t i) {
        return i * 0x0101010101010101ull + 0x0102030405060708ull;
      });
      int64_t predicted = m.routerCost(bytes, dest, all, clustered);
      EXPECT_EQ(m.ledger().router, 0); // routerCost only predicts
      Plural out = m.routerSend(bytes, vals, dest, all, clustered, got);
      int64_t want =
          clustered ? 1 * (kRopen + 16 * kRsend[w]) : 16 * (kRopen + kRsend[w]);
      EXPECT_EQ(m.ledger().router, want) << bytes << " " << clustered;
      EXPECT_EQ(predicted, want);
      EXPECT_EQ(m.ledger().routerSends, 1);
      expectDelivered(vals, dest, all, out, got, bytes);
    }
  }
}

// routerSendCheaper takes the cheaper mode and charges cheaperRouterCost:
// clustered for whole-cluster swaps (one connection per cluster), plain
// for a bit reversal (every cluster pair carries one PE's value, so
// clustered mode saves no connection).
TEST(MasParTest, CheaperModeChosenAndCharged) {
  const Plural swap = mapPes(1024, [](uint64_t i) { return i ^ 16; });
  // Bit reversal of the PE number: the 16 PEs of a cluster go to 16
  // different clusters.
  const Plural reversed = mapPes(1024, [](uint64_t i) {
    uint64_t r = 0;
    for (int b = 0; b < 10; ++b)
      r |= ((i >> b) & 1) << (9 - b);
    return r;
  });
  for (const Plural *dest : {&swap, &reversed})
    for (unsigned bytes : kWidths) {
      MasPar m(32, 32, 8);
      Mask got, all = m.allActive();
      const int64_t plain = m.routerCost(bytes, *dest, all, false);
      const int64_t clustered = m.routerCost(bytes, *dest, all, true);
      if (dest == &swap)
        EXPECT_LT(clustered, plain) << bytes;
      else
        EXPECT_LE(plain, clustered) << bytes;
      EXPECT_EQ(m.cheaperRouterCost(bytes, *dest, all),
                std::min(plain, clustered));
      Plural vals = mapPes(1024, [](uint64_t i) { return i + 7; });
      Plural out = m.routerSendCheaper(bytes, vals, *dest, all, got);
      EXPECT_EQ(m.ledger().router, std::min(plain, clustered)) << bytes;
      expectDelivered(vals, *dest, all, out, got, bytes);
    }
}

// One send from every PE of a 32 x 32 machine (clusters of 16) to `dest`,
// at every width and in both modes: the router's ticks are want(width
// index, clustered), and every value arrives.
void expectSendTicks32x32(const Plural &dest,
                          const std::function<int64_t(unsigned, bool)> &want) {
  for (unsigned w = 0; w < 4; ++w)
    for (bool clustered : {false, true}) {
      MasPar m(32, 32, 8);
      Mask got, all = m.allActive();
      Plural vals = iota(1024, 3);
      Plural out = m.routerSend(kWidths[w], vals, dest, all, clustered, got);
      EXPECT_EQ(m.ledger().router, want(w, clustered))
          << kWidths[w] << " " << clustered;
      expectDelivered(vals, dest, all, out, got, kWidths[w]);
    }
}

TEST(MasParTest, TransposeKeepsClusters) {
  // 003 5.6.4: transposing the grid maps each 4 x 4 block onto a 4 x 4
  // block, so clustered mode needs one connection per cluster. (Were
  // clusters runs of 16 PEs, each would scatter to 16 clusters and cost
  // 16 * (ropen + rsend) either way.)
  Plural dest = mapPes(1024, [](uint64_t i) { return (i % 32) * 32 + i / 32; });
  expectSendTicks32x32(dest, [](unsigned w, bool clustered) {
    return clustered ? kRopen + 16 * kRsend[w] : 16 * (kRopen + kRsend[w]);
  });
}

TEST(MasParTest, ClusterScatteringBitSwap) {
  // Swapping the intra-cluster bits p0 p1 p5 p6 with p2 p3 p7 p8 sends the
  // 16 PEs of each block to 16 different blocks: no connection can be
  // shared. (With clusters of 16 consecutive PEs this swap would keep
  // clusters and cost ropen + 16 rsend clustered.)
  auto swapBits = [](uint64_t i, unsigned a, unsigned b) {
    uint64_t d = ((i >> a) ^ (i >> b)) & 1;
    return i ^ (d << a) ^ (d << b);
  };
  Plural dest = mapPes(1024, [&](uint64_t i) {
    return swapBits(swapBits(swapBits(swapBits(i, 0, 2), 1, 3), 5, 7), 6, 8);
  });
  expectSendTicks32x32(
      dest, [](unsigned w, bool) { return 16 * (kRopen + kRsend[w]); });
}

TEST(MasParTest, PartialActivity) {
  Plural dest = mapPes(1024, [](uint64_t i) { return i ^ 16; });
  // Four active PEs per cluster (the top row of each 4 x 4 block): four
  // rounds plain, one group of four.
  Mask four(1024, 0);
  for (unsigned i = 0; i < 1024; ++i)
    four[i] = (i / 32) % 4 == 0;
  for (bool clustered : {false, true}) {
    MasPar m(32, 32, 8);
    Mask got;
    Plural vals = iota(1024, 1);
    Plural out = m.routerSend(4, vals, dest, four, clustered, got);
    EXPECT_EQ(m.ledger().router,
              clustered ? kRopen + 4 * kRsend[2] : 4 * (kRopen + kRsend[2]));
    expectDelivered(vals, dest, four, out, got, 4);
  }
  // A single active cluster that fans out to 16 clusters, each of which
  // receives one value: the sender's 16 connections dominate.
  const MasPar grid(32, 32, 0);
  Plural fan = iota(1024);
  Mask one(1024, 0);
  for (unsigned j = 0; j < 16; ++j) {
    unsigned pe = grid.clusterPes(0)[j];
    one[pe] = 1;
    fan[pe] = grid.clusterPes(j + 1)[j];
  }
  for (bool clustered : {false, true}) {
    MasPar m(32, 32, 8);
    Mask got;
    m.routerSend(8, iota(1024), fan, one, clustered, got);
    EXPECT_EQ(m.ledger().router, 16 * (kRopen + kRsend[3]));
  }
  // Fan-in: PE 0 of clusters 1..8 all send into cluster 0; the receiving
  // cluster's 8 partners set the cost (plain: its 8 receivers).
  Plural in = iota(1024);
  Mask eight(1024, 0);
  for (unsigned c = 1; c <= 8; ++c) {
    eight[grid.clusterPes(c)[0]] = 1;
    in[grid.clusterPes(c)[0]] = grid.clusterPes(0)[c];
  }
  for (bool clustered : {false, true}) {
    MasPar m(32, 32, 8);
    Mask got;
    Plural vals = iota(1024, 7);
    Plural out = m.routerSend(1, vals, in, eight, clustered, got);
    EXPECT_EQ(m.ledger().router, 8 * (kRopen + kRsend[0]));
    expectDelivered(vals, in, eight, out, got, 1);
  }
}

TEST(MasParTest, ExtraBytes) {
  // Brute force sends an address with each datum (6.3.3).
  Plural dest = mapPes(1024, [](uint64_t i) { return i ^ 16; });
  MasPar m(32, 32, 8);
  Mask all = m.allActive();
  EXPECT_EQ(m.routerCost(1, dest, all, false, 4),
            16 * (kRopen + kRsend[0]) + 16 * kRsend[2]);
  EXPECT_EQ(m.routerCost(1, dest, all, true, 4),
            kRopen + 16 * (kRsend[0] + kRsend[2]));
  EXPECT_EQ(m.routerCost(8, dest, all, true, 0), kRopen + 16 * kRsend[3]);
}

TEST(MasParTest, SelfSendsAreFree) {
  MasPar m(32, 32, 8);
  Mask got, all = m.allActive();
  Plural vals = iota(1024, 11);
  Plural self = iota(1024);
  for (bool clustered : {false, true}) {
    EXPECT_EQ(m.routerCost(8, self, all, clustered), 0);
    Plural out = m.routerSend(8, vals, self, all, clustered, got);
    expectDelivered(vals, self, all, out, got, 8);
  }
  EXPECT_EQ(m.ledger().router, 0);
  EXPECT_EQ(m.ledger().routerSends, 0);
  // One PE leaving makes it a real send; staying PEs still take part.
  Plural almost = self;
  almost[0] = 1;
  almost[1] = 0;
  Plural out = m.routerSend(2, vals, almost, all, false, got);
  EXPECT_EQ(m.ledger().router, 16 * (kRopen + kRsend[1]));
  EXPECT_EQ(m.ledger().routerSends, 1);
  expectDelivered(vals, almost, all, out, got, 2);
}

TEST(MasParDeathTest, RouterMisuse) {
  MasPar m(4, 4, 8, 4);
  Mask got, all = m.allActive();
  Plural clash = iota(16);
  clash[3] = 5;
  EXPECT_DEATH(m.routerSend(1, iota(16), clash, all, false, got),
               "two active PEs send to one PE");
  EXPECT_DEATH(m.routerCost(1, clash, all, true),
               "two active PEs send to one PE");
  Plural far = iota(16);
  far[2] = 16;
  EXPECT_DEATH(m.routerSend(1, iota(16), far, all, true, got),
               "destination PE out of range");
  // Inactive PEs' destinations are ignored.
  Mask some = all;
  some[3] = 0;
  some[2] = 0;
  EXPECT_EQ(m.routerCost(1, clash, some, false), 0);
  EXPECT_EQ(m.routerCost(1, far, some, false), 0);
}

TEST(MasParTest, RouterCostMatchesSendOnRandomPermutations) {
  std::mt19937_64 rng(20240603);
  const unsigned grids[][2] = {{32, 32}, {16, 8}, {64, 64}, {8, 2},
                               {4, 1},   {2, 64}, {128, 2}};
  for (int trial = 0; trial < 420; ++trial) {
    const unsigned *g = grids[trial % 7];
    unsigned cluster = 1u << (rng() % 7); // 1 .. 64, clamped
    MasPar m(g[0], g[1], 8, cluster);
    unsigned n = m.peCount();
    Plural dest = iota(n);
    // Mix full permutations with ones that keep or swap clusters.
    switch (trial % 4) {
    case 0:
      std::shuffle(dest.begin(), dest.end(), rng);
      break;
    case 1: { // permute within each cluster
      for (unsigned c = 0; c < m.clusterCount(); ++c) {
        const uint32_t *pes = m.clusterPes(c);
        std::vector<uint32_t> to(pes, pes + m.clusterSize());
        std::shuffle(to.begin(), to.end(), rng);
        for (unsigned j = 0; j < m.clusterSize(); ++j)
          dest[pes[j]] = to[j];
      }
      break;
    }
    case 2: { // xor with a random PE mask
      uint64_t x = rng() % n;
      for (unsigned i = 0; i < n; ++i)
        dest[i] = i ^ x;
      break;
    }
    default: // a few transpositions: mostly self-sends
      for (int k = 0; k < 3; ++k)
        std::swap(dest[rng() % n], dest[rng() % n]);
      break;
    }
    Mask active(n);
    unsigned density = rng() % 4; // 0: all, else 1/2, 1/4, 1/8 of PEs
    for (unsigned i = 0; i < n; ++i)
      active[i] = density == 0 || rng() % (1u << density) == 0;
    bool clustered = rng() % 2;
    unsigned bytes = kWidths[rng() % 4];
    unsigned extra = rng() % 3 == 0 ? kWidths[rng() % 4] : 0;

    int64_t predicted = m.routerCost(bytes, dest, active, clustered, extra);
    EXPECT_EQ(predicted, referenceRouterCost(g[0], g[1], m.clusterSize(), bytes,
                                             dest, active, clustered, extra))
        << "trial " << trial;
    Plural vals(n);
    for (auto &v : vals)
      v = rng();
    Mask got;
    Plural out = m.routerSend(bytes, vals, dest, active, clustered, got, extra);
    EXPECT_EQ(m.ledger().router, predicted) << "trial " << trial;
    EXPECT_EQ(m.ledger().routerSends, predicted ? 1 : 0);
    expectDelivered(vals, dest, active, out, got, bytes);
    if (HasFailure())
      break;
  }
}

//===----------------------------------------------------------------------===//
// Xnet
//===----------------------------------------------------------------------===//

TEST(MasParTest, XnetWrapsInAllDirections) {
  struct Case {
    XnetDir dir;
    int dx, dy;
  } cases[] = {{XnetDir::N, 0, -1}, {XnetDir::NE, 1, -1}, {XnetDir::E, 1, 0},
               {XnetDir::SE, 1, 1}, {XnetDir::S, 0, 1},   {XnetDir::SW, -1, 1},
               {XnetDir::W, -1, 0}, {XnetDir::NW, -1, -1}};
  const unsigned w = 8, h = 4;
  for (const Case &c : cases)
    for (unsigned d : {0u, 1u, 3u, 5u, 9u}) {
      MasPar m(w, h, 8);
      unsigned n = m.peCount();
      Plural vals = iota(n, 0x100);
      // Only even PEs send; odd (inactive) receivers still receive.
      Mask active(n, 0), got;
      for (unsigned i = 0; i < n; i += 2)
        active[i] = 1;
      Plural out = m.xnetSend(1, c.dir, d, vals, active, got);
      Plural dest(n);
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          int tx = ((int(x) + c.dx * int(d)) % int(w) + int(w)) % int(w);
          int ty = ((int(y) + c.dy * int(d)) % int(h) + int(h)) % int(h);
          dest[x + w * y] = unsigned(tx) + w * unsigned(ty);
        }
      expectDelivered(vals, dest, active, out, got, 1);
      EXPECT_EQ(m.ledger().xnet, 13 + int64_t(d) * 10);
      EXPECT_EQ(m.ledger().router, 0);
    }
}

TEST(MasParTest, XnetNeighbours) {
  // Spot checks by hand on a 4 x 4 grid, PE 5 = (1, 1).
  MasPar m(4, 4, 8);
  Mask one(16, 0), got;
  one[5] = 1;
  auto target = [&](XnetDir dir, unsigned d) {
    Plural out = m.xnetSend(8, dir, d, iota(16, 40), one, got);
    unsigned to = unsigned(std::find(got.begin(), got.end(), 1) - got.begin());
    EXPECT_EQ(std::count(got.begin(), got.end(), 1), 1);
    EXPECT_EQ(out[to], 45u);
    return to;
  };
  EXPECT_EQ(target(XnetDir::N, 1), 1u);
  EXPECT_EQ(target(XnetDir::NE, 1), 2u);
  EXPECT_EQ(target(XnetDir::E, 1), 6u);
  EXPECT_EQ(target(XnetDir::SE, 1), 10u);
  EXPECT_EQ(target(XnetDir::S, 1), 9u);
  EXPECT_EQ(target(XnetDir::SW, 1), 8u);
  EXPECT_EQ(target(XnetDir::W, 1), 4u);
  EXPECT_EQ(target(XnetDir::NW, 1), 0u);
  EXPECT_EQ(target(XnetDir::N, 2), 13u); // wraps to the bottom row
  EXPECT_EQ(target(XnetDir::W, 2), 7u);  // wraps to the right column
  EXPECT_EQ(target(XnetDir::SE, 3), 0u); // (4, 4) = (0, 0)
  EXPECT_EQ(target(XnetDir::E, 4), 5u);  // once around
  EXPECT_EQ(m.ledger().xnet,
            8 * (27 + 66) + 2 * (27 + 2 * 66) + (27 + 3 * 66) + (27 + 4 * 66));
}

// cheaperRouterCostOfPairs counts a send from its pairs; it must charge
// what cheaperRouterCost charges from the planes, on any grid and cluster
// size, for sends of few and of many pairs (some staying on their PE).
TEST(MasParTest, RouterCostOfPairsIsThePlanesCost) {
  std::mt19937 rng(20261201);
  const unsigned shapes[][3] = {{7, 1, 16},  {31, 33, 16}, {32, 32, 16},
                                {16, 1, 4},  {10, 10, 8},  {3, 5, 16},
                                {64, 2, 16}, {1, 1, 16}};
  for (const auto &shape : shapes) {
    MasPar m(shape[0], shape[1], 64, shape[2]);
    const unsigned n = m.peCount();
    for (int trial = 0; trial < 200; ++trial) {
      // A random partial permutation: distinct senders, distinct receivers.
      std::vector<uint32_t> senders(n), receivers(n);
      std::iota(senders.begin(), senders.end(), 0);
      std::iota(receivers.begin(), receivers.end(), 0);
      std::shuffle(senders.begin(), senders.end(), rng);
      std::shuffle(receivers.begin(), receivers.end(), rng);
      const unsigned k = trial % 4 == 0 ? n : unsigned(rng() % (n + 1));
      std::vector<std::pair<uint32_t, uint32_t>> pairs;
      Plural dest(n, 0);
      Mask active(n, 0);
      for (unsigned i = 0; i < k; ++i) {
        // Some pairs stay on their PE, as a slotwise step's may.
        const uint32_t q =
            trial % 3 == 0 && i % 5 == 0 ? senders[i] : receivers[i];
        if (trial % 3 == 0 && i % 5 != 0 &&
            std::find(senders.begin(), senders.begin() + k, receivers[i]) !=
                senders.begin() + k)
          continue; // keep receivers distinct when some stay
        pairs.push_back({senders[i], q});
      }
      {
        // Receivers distinct after the staying ones: drop repeats.
        std::set<uint32_t> seen;
        std::vector<std::pair<uint32_t, uint32_t>> kept;
        for (const auto &pq : pairs)
          if (seen.insert(pq.second).second)
            kept.push_back(pq);
        pairs.swap(kept);
      }
      for (const auto &[p, q] : pairs) {
        active[p] = 1;
        dest[p] = q;
      }
      for (unsigned bytes : {1u, 4u, 8u})
        ASSERT_EQ(m.cheaperRouterCostOfPairs(bytes, pairs),
                  m.cheaperRouterCost(bytes, dest, active))
            << shape[0] << "x" << shape[1] << " clusters of " << shape[2]
            << ", " << pairs.size() << " pairs, " << bytes << " bytes";
    }
  }
}
