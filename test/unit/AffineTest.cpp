//===- AffineTest.cpp - affine layouts and their exchange factoring -------===//
#include "passes/ExchangeDecomposition.h"

#include <gtest/gtest.h>

#include <random>

using namespace mapc;
using namespace mapc::rt;

namespace {

/// n address bits, all PE bits (K = 1), data i at G(i) (001 def. 2).
AffineLayout grayLayout(unsigned n) {
  AffineLayout l;
  l.pBits = l.dataBits = n;
  for (unsigned j = 0; j < n; ++j)
    l.row.push_back((uint64_t(1) << j) |
                    (j + 1 < n ? uint64_t(1) << (j + 1) : 0));
  return l;
}

AffineLayout binaryLayout(unsigned n) {
  AffineLayout l;
  l.pBits = l.dataBits = n;
  for (unsigned j = 0; j < n; ++j)
    l.row.push_back(uint64_t(1) << j);
  return l;
}

AffineMove compose(const AffineFactoring &f, unsigned n) {
  AffineMove m = AffineMove::identity(n);
  for (const Exchange &e : f.exchanges)
    m = m.then(AffineMove::fromExchange(n, e));
  return m.then(AffineMove::fromBitMove(f.permutation));
}

/// A random invertible n x n matrix: a product of random transvections
/// and a random permutation.
AffineMove randomMove(unsigned n, std::mt19937_64 &rng) {
  AffineMove m = AffineMove::identity(n);
  unsigned steps = rng() % (2 * n + 1);
  for (unsigned s = 0; s < steps; ++s) {
    unsigned j = rng() % n;
    uint64_t cond = rng() & ((uint64_t(1) << n) - 1) & ~(uint64_t(1) << j);
    m = m.then(AffineMove::fromExchange(n, Exchange{j, cond}));
  }
  BitMove p = BitMove::identity(n);
  std::shuffle(p.to.begin(), p.to.end(), rng);
  p.flip = rng() & ((uint64_t(1) << n) - 1);
  return m.then(AffineMove::fromBitMove(p));
}

} // namespace

TEST(Affine, GrayLayoutHoldsFig4) {
  AffineLayout g = grayLayout(4);
  ASSERT_TRUE(g.valid());
  // 001 fig. 4: data 4 at 0110, data 8 at 1100, data 15 at 1000.
  EXPECT_EQ(g.addressOf(4), 0b0110u);
  EXPECT_EQ(g.addressOf(8), 0b1100u);
  EXPECT_EQ(g.addressOf(15), 0b1000u);
  AffineDecoder dec(g);
  for (uint64_t d = 0; d < 16; ++d)
    EXPECT_EQ(dec.dataAt(g.addressOf(d)), d);
  EXPECT_EQ(g.str(), "[p: a3 a3^a2 a2^a1 a1^a0 | m:]");
}

TEST(Affine, GrayToBinaryIsFig4) {
  AffineMove g;
  ASSERT_TRUE(affineRemapMove(grayLayout(4), binaryLayout(4), g));
  AffineFactoring f = factorAffine(g);
  // 001 thm 5 and fig. 4: dims 2, 1, 0, each controlled by the bit above.
  ASSERT_EQ(f.exchanges.size(), 3u);
  EXPECT_EQ(f.lowerBound, 3u);
  for (unsigned k = 0; k < 3; ++k) {
    EXPECT_EQ(f.exchanges[k].bit, 2 - k);
    EXPECT_EQ(f.exchanges[k].condition, uint64_t(1) << (3 - k));
  }
  EXPECT_TRUE(f.permutation.isIdentity());
  EXPECT_EQ(compose(f, 4), g);
}

TEST(Affine, GrayToBinaryFromAnyStart) {
  // 001 fig. 5: start in dim m, then m-1 .. 0, then n-2 .. m+1.
  AffineMove g;
  ASSERT_TRUE(affineRemapMove(grayLayout(4), binaryLayout(4), g));
  for (unsigned m = 0; m < 3; ++m) {
    AffineFactoring f = factorAffine(g, m);
    ASSERT_EQ(f.exchanges.size(), 3u);
    std::vector<unsigned> dims;
    for (const Exchange &e : f.exchanges)
      dims.push_back(e.bit);
    std::vector<unsigned> want;
    for (unsigned k = 0; k < 3; ++k)
      want.push_back((m + 3 - k) % 3);
    EXPECT_EQ(dims, want) << "start " << m;
    // The first exchange is controlled by g_(n-1) ^ ... ^ g_(m+1).
    uint64_t above = 0;
    for (unsigned b = m + 1; b < 4; ++b)
      above |= uint64_t(1) << b;
    EXPECT_EQ(f.exchanges[0].condition, above);
    EXPECT_EQ(compose(f, 4), g);
  }
}

TEST(Affine, BinaryToGrayAndBack) {
  for (unsigned n = 1; n <= 12; ++n) {
    AffineMove g;
    ASSERT_TRUE(affineRemapMove(binaryLayout(n), grayLayout(n), g));
    AffineFactoring f = factorAffine(g);
    EXPECT_EQ(f.exchanges.size(), n - 1) << n;
    EXPECT_EQ(compose(f, n), g);
  }
}

TEST(Affine, RandomMovesFactorExactly) {
  std::mt19937_64 rng(4);
  unsigned atBound = 0, total = 0;
  for (unsigned trial = 0; trial < 10000; ++trial) {
    unsigned n = 1 + rng() % 16;
    AffineMove g = randomMove(n, rng);
    AffineFactoring f = factorAffine(
        g, trial % 3 ? std::nullopt : std::optional<unsigned>(rng() % n));
    ASSERT_EQ(compose(f, n), g) << "trial " << trial;
    ASSERT_GE(f.exchanges.size(), f.lowerBound);
    for (const Exchange &e : f.exchanges)
      ASSERT_FALSE((e.condition >> e.bit) & 1);
    atBound += f.exchanges.size() == f.lowerBound;
    ++total;
  }
  // Most random maps factor at the bound; the test fails if the greedy
  // order breaks down.
  EXPECT_GT(atBound * 10, total * 7) << atBound << " of " << total;
}

TEST(Affine, ExchangesInGivenOrders) {
  // Reshape-like map: three independent splits (001 lemma 2); every order
  // of the three targets works (001: "ordered arbitrarily").
  AffineMove g = AffineMove::identity(8);
  g.row[1] |= 0b11111100; // b_1 <- g_1 ^ (g_2 .. g_7) style controls
  g.row[3] |= 0b11110000;
  g.row[5] |= 0b11000000;
  std::vector<unsigned> t{1, 3, 5};
  do {
    auto ops = exchangesInOrder(g, t);
    ASSERT_TRUE(ops.has_value());
    AffineMove m = AffineMove::identity(8);
    for (const Exchange &e : *ops)
      m = m.then(AffineMove::fromExchange(8, e));
    EXPECT_EQ(m, g);
    EXPECT_EQ(ops->size(), 3u);
  } while (std::next_permutation(t.begin(), t.end()));
}

#include "RandomTile.h"
#include "ir/BitMap.h"
#include "passes/RemapPlanner.h"

TEST(Affine, BitMapsAgreeWithKTileIndexMaps) {
  // Every k-Tile format with an affine bit map (Gray dims, senses, empty
  // dims, half-length data offsets) must hold the same data index at every
  // device address as the k-Tile's own index map (003 3.2.6, 001 def. 2).
  std::mt19937 rng(7);
  unsigned checked = 0, gray = 0, halfOffsets = 0;
  for (unsigned trial = 0; trial < 20000 && checked < 2000; ++trial) {
    mapc::test::TileOptions opt;
    opt.replicate = false;
    opt.templates = false;
    KTile t = mapc::test::randomTile(rng, opt);
    // Give some data dims the half-length offset that is an XOR.
    for (SpaceDim &s : t.data)
      if (s.tlen == s.len && s.toff == 0 && s.len >= 2 && rng() % 2)
        s.off = s.len / 2;
    if (!t.verify().empty())
      continue;
    Layout l;
    l.tile = t;
    auto map = toAffineBitMap(l);
    if (!std::holds_alternative<IndexBitMap>(map))
      continue;
    const IndexBitMap &bm = std::get<IndexBitMap>(map);
    auto rl = toRuntimeAffine(bm, bm.memoryBits, bm.peBits);
    ASSERT_TRUE(std::holds_alternative<AffineLayout>(rl));
    const AffineLayout &a = std::get<AffineLayout>(rl);
    ASSERT_TRUE(a.valid());
    AffineDecoder dec(a);
    for (int64_t addr = 0; addr < t.deviceSize(); ++addr) {
      int64_t want = t.dataAt(addr);
      bool holds = a.holds(uint64_t(addr));
      ASSERT_EQ(holds, want >= 0) << "trial " << trial << " addr " << addr;
      if (holds) {
        ASSERT_EQ(int64_t(dec.dataAt(uint64_t(addr))), want)
            << "trial " << trial << " addr " << addr << " " << a.str();
      }
    }
    ++checked;
    gray += !bm.isPermutation();
    for (const SpaceDim &s : t.data)
      halfOffsets += s.off != 0;
  }
  EXPECT_GT(checked, 500u);
  EXPECT_GT(gray, 100u);
  EXPECT_GT(halfOffsets, 100u);
}

TEST(Affine, CountMovedMatchesAWalk) {
  std::mt19937_64 rng(11);
  for (unsigned trial = 0; trial < 3000; ++trial) {
    unsigned n = 1 + rng() % 10;
    AffineLayout l;
    l.mBits = rng() % (n + 1);
    l.pBits = n - l.mBits;
    l.row.assign(n, 0);
    l.disabled = rng() & ((uint64_t(1) << n) - 1) & rng();
    l.constant = rng() & ((uint64_t(1) << n) - 1);
    AffineMove g = randomMove(n, rng);
    if (rng() % 4 == 0)
      g = AffineMove::identity(n);
    uint64_t walked = 0;
    for (uint64_t a = 0; a < (uint64_t(1) << n); ++a)
      walked += l.holds(a) && g.apply(a) != a;
    ASSERT_EQ(countMoved(l, g), walked) << "trial " << trial;
  }
}
