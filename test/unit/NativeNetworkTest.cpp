//===- NativeNetworkTest.cpp - register networks of dense affine tiles ----===//
//
// planTileNetwork and runTileNetwork (runtime/native/lib/AffineNetwork.h)
// on random invertible maps T of 6 and 8 bits, singular ones included among
// the draws: the planner's symbolic check must accept every planned
// network and reject every corrupted one, and the vector code must put
// every cell where T says, for every tile constant, streamed or not.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/native/lib/AffineNetwork.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>
#include <vector>

using namespace mapc::native;

namespace {

uint32_t applyCols(const uint32_t *cols, unsigned count, uint32_t v) {
  uint32_t out = 0;
  for (unsigned q = 0; q < count; ++q)
    if ((v >> q) & 1)
      out ^= cols[q];
  return out;
}

bool invertible(const uint32_t *cols, unsigned count) {
  std::vector<bool> seen(size_t(1) << count);
  for (uint32_t v = 0; v < (1u << count); ++v) {
    uint32_t w = applyCols(cols, count, v);
    if (seen[w])
      return false;
    seen[w] = true;
  }
  return true;
}

/// Random 2n x 2n matrices, some singular; about half have a singular
/// register block A (so the planner needs its lane permute Q first).
void randomMatrix(std::mt19937_64 &rng, unsigned n, uint32_t *cols) {
  const uint32_t all = (1u << (2 * n)) - 1;
  for (unsigned q = 0; q < 2 * n; ++q)
    cols[q] = uint32_t(rng()) & all;
  if (rng() % 2)
    for (unsigned q = n; q < 2 * n; ++q)
      cols[q] &= rng() % 2 ? all : ((1u << n) - 1) | (1u << (2 * n - 1));
}

TEST(NativeNetwork, PlansAndChecksEveryInvertibleMap) {
  std::mt19937_64 rng(1213);
  unsigned planned = 0, singular = 0, withPre = 0;
  for (unsigned run = 0; run < 3000; ++run) {
    unsigned n = run % 2 ? 4 : 3;
    uint32_t cols[8];
    randomMatrix(rng, n, cols);
    auto net = planTileNetwork(n, cols);
    if (!invertible(cols, 2 * n)) {
      EXPECT_EQ(net, nullptr);
      ++singular;
      continue;
    }
    ASSERT_NE(net, nullptr) << "run " << run;
    EXPECT_TRUE(checkTileNetwork(*net, cols)) << "run " << run;
    EXPECT_LE(net->stages(), n);
    withPre += net->hasPre;
    ++planned;
  }
  EXPECT_GT(planned, 500u);
  EXPECT_GT(singular, 100u);
  EXPECT_GT(withPre, 100u);
  uint32_t bad[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  EXPECT_EQ(planTileNetwork(5, bad), nullptr);
  bad[7] = 256; // an image outside the tile
  EXPECT_EQ(planTileNetwork(4, bad), nullptr);
}

TEST(NativeNetwork, CheckRejectsCorruptedNetworks) {
  // Each kind of corruption moves at least one cell elsewhere, so the
  // symbolic check must fail on every one (a check that cannot fail would
  // let a wrong planner through).
  std::mt19937_64 rng(1214);
  unsigned corrupted = 0;
  for (unsigned run = 0; run < 400; ++run) {
    unsigned n = run % 2 ? 4 : 3, lanes = 1u << n;
    uint32_t cols[8];
    do
      randomMatrix(rng, n, cols);
    while (!invertible(cols, 2 * n));
    auto good = planTileNetwork(n, cols);
    ASSERT_NE(good, nullptr);
    ASSERT_TRUE(checkTileNetwork(*good, cols));
    for (unsigned kind = 0; kind < 7; ++kind) {
      TileNetwork bad = *good;
      unsigned r = unsigned(rng() % lanes), l = unsigned(rng() % lanes);
      switch (kind) {
      case 0: // a butterfly lane
        bad.mask[rng() % n] ^= uint16_t(1u << l);
        break;
      case 1: // a final permute index
        bad.setPost(r, l,
                    bad.postIndex(r, l) ^ (1u + unsigned(rng() % (lanes - 1))));
        break;
      case 2: // two lines' stores swapped
        std::swap(bad.to[r], bad.to[(r + 1 + rng() % (lanes - 1)) % lanes]);
        break;
      case 3: // a tile constant's line shift
        bad.regXor[l] ^= uint8_t(1u + rng() % (lanes - 1));
        break;
      case 4: // a tile constant's lane shift
        bad.laneXor[l] ^= uint8_t(1u + rng() % (lanes - 1));
        break;
      case 5: { // the first permute: two lanes of one register swapped
        unsigned m = (l + 1 + unsigned(rng() % (lanes - 1))) % lanes;
        uint32_t a = bad.preIndex(r, l), b = bad.preIndex(r, m);
        bad.setPre(r, l, b);
        bad.setPre(r, m, a);
        bad.hasPre = true;
        break;
      }
      case 6: // the first permute dropped or added
        if (bad.hasPre)
          bad.hasPre = false;
        else {
          for (unsigned j = 0; j < lanes; ++j)
            bad.setPre(r, j, j ^ 1u);
          bad.hasPre = true;
        }
        break;
      }
      EXPECT_FALSE(checkTileNetwork(bad, cols))
          << "run " << run << ", corruption " << kind;
      ++corrupted;
    }
  }
  EXPECT_EQ(corrupted, 2800u);
}

TEST(NativeNetwork, VectorCodeMovesEveryCell) {
  // runTileNetwork against T itself: the cell loaded at line r, lane
  // o xor b must be stored at T(r, o), on lines scattered in one buffer at
  // unaligned (and, for streaming, aligned) addresses; nothing else is
  // written.
  if (!hostRunsTileNetworks())
    GTEST_SKIP() << "no AVX-512 here (or MAPC_NATIVE_NETWORK=off)";
  std::mt19937_64 rng(1215);
  for (unsigned run = 0; run < 600; ++run) {
    const unsigned n = run % 2 ? 4 : 3, lanes = 1u << n, cell = n == 4 ? 4 : 8;
    uint32_t cols[8];
    do
      randomMatrix(rng, n, cols);
    while (!invertible(cols, 2 * n));
    auto net = planTileNetwork(n, cols);
    ASSERT_NE(net, nullptr);
    const bool stream = run % 3 == 0;
    const size_t stride = 64 * (1 + rng() % 3) + (stream ? 0 : rng() % 64);
    alignas(64) static uint8_t src[16 * 256 + 64], dst[16 * 256 + 128];
    for (uint8_t &c : src)
      c = uint8_t(rng());
    std::memset(dst, 0xa5, sizeof dst);
    const uint8_t *in[16];
    uint8_t *out[16];
    const size_t start = stream ? 64 : 1 + rng() % 63;
    for (unsigned r = 0; r < lanes; ++r) {
      in[r] = src + r * stride + (stream ? 0 : rng() % 8);
      out[r] = dst + start + r * stride;
    }
    const unsigned b = unsigned(rng() % lanes);
    runTileNetwork(*net, in, out, b, stream);
    std::vector<bool> written(sizeof dst);
    for (uint32_t p = 0; p < lanes * lanes; ++p) {
      uint32_t r = p >> n, o = p & (lanes - 1);
      uint32_t t = applyCols(cols, 2 * n, p);
      const uint8_t *want = in[r] + (o ^ b) * cell;
      uint8_t *got = out[t >> n] + (t & (lanes - 1)) * cell;
      ASSERT_EQ(std::memcmp(want, got, cell), 0)
          << "run " << run << ", cell " << p << " of " << lanes * lanes;
      for (unsigned c = 0; c < cell; ++c)
        written[size_t(got - dst) + c] = true;
    }
    for (size_t i = 0; i < sizeof dst; ++i) {
      if (!written[i]) {
        ASSERT_EQ(dst[i], 0xa5) << "run " << run << ", byte " << i;
      }
    }
  }
}

} // namespace
