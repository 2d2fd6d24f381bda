//===- TileWalkTest.cpp - incremental addresses agree with g_K^-1 ---------===//
//
// rt::TileWalk against TileMap::firstAddressOf on random k-Tile formats
// (data, k-Tile and device templates and offsets, senses, Gray dims, empty
// dims), every index, walks that keep the address as a sum (no wrap-around)
// and walks that compose it; and rt::sourcesOf, which walks both layouts when
// neither replicates, against the cell-by-cell definition.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/TileWalk.h"
#include "RandomTile.h"
#include "mapc/runtime/General.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <random>

using namespace mapc;

namespace {

std::vector<int64_t> randomShape(std::mt19937 &rng) {
  std::vector<int64_t> shape(std::uniform_int_distribution<int>(1, 3)(rng));
  for (int64_t &s : shape)
    s = std::uniform_int_distribution<int>(1, 12)(rng);
  return shape;
}

} // namespace

TEST(TileWalk, EveryAddressOfRandomTiles) {
  std::mt19937 rng(3226);
  unsigned walked = 0, linear = 0;
  for (int run = 0; run < 5000; ++run) {
    KTile t = test::randomTileFor(rng, randomShape(rng), {});
    ASSERT_TRUE(t.verify().empty());
    if (!rt::TileWalk::walkable(t))
      continue;
    ++walked;
    rt::TileWalk w(t);
    linear += w.linear();
    for (int64_t d = 0; d < t.dataSize(); ++d, w.next()) {
      ASSERT_EQ(w.index(), d);
      ASSERT_EQ(w.address(), t.firstAddressOf(d))
          << "run " << run << ", index " << d;
    }
  }
  EXPECT_GT(walked, 2000u);
  // Both ways of reading the address: kept as a sum of digit terms (no
  // device dim can wrap) and composed per index.
  std::printf("%u of %u walks linear\n", linear, walked);
  EXPECT_GT(linear, 500u);
  EXPECT_GT(walked - linear, 500u);
}

TEST(TileWalk, SourcesAgreeCellByCell) {
  std::mt19937 rng(3227);
  for (int run = 0; run < 3000; ++run) {
    std::vector<int64_t> shape = randomShape(rng);
    KTile a = test::randomTileFor(rng, shape, {});
    KTile b = run % 5 == 0 ? a : test::randomTileFor(rng, shape, {});
    std::vector<uint32_t> got = rt::sourcesOf(a, b);
    ASSERT_EQ(got.size(), size_t(b.deviceSize()));
    for (int64_t c = 0; c < b.deviceSize(); ++c) {
      int64_t d = b.dataAt(c);
      if (d < 0) {
        ASSERT_EQ(got[size_t(c)], rt::kNoSource) << "run " << run;
        continue;
      }
      ASSERT_NE(got[size_t(c)], rt::kNoSource) << "run " << run;
      // A replicated source may be read at any of its copies.
      EXPECT_EQ(a.dataAt(got[size_t(c)]), d) << "run " << run << ", cell " << c;
      if (!a.replicates()) {
        EXPECT_EQ(int64_t(got[size_t(c)]), a.firstAddressOf(d));
      }
    }
    if (HasFailure())
      return;
  }
}

// --emit=plan's moved and held cells of a move from a layout to itself
// (identityMoveFigures, no table) are analyseMove's of its table.
TEST(TileWalk, IdentityMoveFiguresAreAnalyseMoves) {
  std::mt19937 rng(3228);
  unsigned shortcut = 0;
  for (int run = 0; run < 4000; ++run) {
    std::vector<int64_t> shape = randomShape(rng);
    KTile a = test::randomTileFor(rng, shape, {});
    KTile b = run % 4 == 0 ? test::randomTileFor(rng, shape, {}) : a;
    const rt::MoveShape m = rt::analyseMove(a, b, rt::sourcesOf(a, b));
    if (auto f = rt::identityMoveFigures(a, b)) {
      ++shortcut;
      ASSERT_EQ(f->first, m.moved) << "run " << run;
      ASSERT_EQ(f->second, m.held) << "run " << run;
    } else {
      EXPECT_TRUE(!(a == b) || !rt::TileWalk::walkable(a)) << "run " << run;
    }
  }
  EXPECT_GT(shortcut, 1500u);
}
