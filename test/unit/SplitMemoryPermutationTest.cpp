//===- SplitMemoryPermutationTest.cpp - (m*) permutations in parts --------===//
#include "passes/SplitMemoryPermutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace mapc;
using rt::BitMove;

static BitMove cycle(unsigned n, const std::vector<unsigned> &c) {
  BitMove m = BitMove::identity(n);
  for (size_t k = 0; k < c.size(); ++k)
    m.to[c[k]] = c[(k + 1) % c.size()];
  return m;
}

static BitMove product(unsigned n, const std::vector<BitMove> &parts) {
  BitMove m = BitMove::identity(n);
  for (const BitMove &p : parts)
    m = m.then(p);
  return m;
}

// 003 4.4.5's example with |P| = 10: a 10-bit and a 5-bit part sharing
// one bit. The thesis starts at m0, which leaves no low bit in place in
// either part; starting at m3 leaves m0 .. m2 (a 64-bit chunk of bytes) in
// place in the first.
TEST(SplitMemoryPermutation, ThesisExample) {
  const unsigned n = 15;
  BitMove star = cycle(n, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14});
  std::vector<BitMove> parts = splitMemoryPermutation(star, 10);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], cycle(n, {3, 4, 5, 6, 7, 8, 9, 10, 12, 13}));
  EXPECT_EQ(parts[1], cycle(n, {3, 14, 0, 1, 2}));
  EXPECT_EQ(product(n, parts), star);
}

// With no low bit to keep, the thesis's own split.
TEST(SplitMemoryPermutation, ThesisSplitWhenNothingToGain) {
  const unsigned n = 18;
  BitMove star = cycle(n, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17});
  std::vector<BitMove> parts = splitMemoryPermutation(star, 10);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], cycle(n, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(parts[1], cycle(n, {3, 13, 15, 16, 17}));
}

TEST(SplitMemoryPermutation, SmallEnoughIsKept) {
  BitMove star = cycle(6, {0, 2, 4});
  star.flip = 0b100;
  std::vector<BitMove> parts = splitMemoryPermutation(star, 3);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0], star);
  EXPECT_TRUE(splitMemoryPermutation(BitMove::identity(6), 3).empty());
}

// Whole cycles are packed into as few parts as first fit finds.
TEST(SplitMemoryPermutation, PacksWholeCycles) {
  const unsigned n = 8;
  BitMove star =
      cycle(n, {0, 1, 2}).then(cycle(n, {3, 4})).then(cycle(n, {5, 6, 7}));
  std::vector<BitMove> parts = splitMemoryPermutation(star, 5);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(product(n, parts), star);
}

// Random permutations with inversions: the parts compose to the whole and
// none changes more bits than allowed.
TEST(SplitMemoryPermutation, RandomPermutations) {
  std::mt19937_64 rng(445);
  for (int trial = 0; trial < 3000; ++trial) {
    unsigned n = 1 + unsigned(rng() % 20);
    unsigned limit = 2 + unsigned(rng() % 8);
    BitMove star = BitMove::identity(n);
    std::shuffle(star.to.begin(), star.to.end(), rng);
    star.flip = rng() & ((uint64_t(1) << n) - 1);
    std::vector<BitMove> parts = splitMemoryPermutation(star, limit);
    EXPECT_EQ(product(n, parts), star) << "trial " << trial;
    for (const BitMove &p : parts) {
      EXPECT_LE(movingBitCount(p), limit) << "trial " << trial;
      EXPECT_FALSE(p.isIdentity()) << "trial " << trial;
    }
  }
}

TEST(SplitMemoryPermutation, MemoryCyclesOf) {
  // (m0, m1)(m2, p0) with m0..m2 in memory: only (m0, m1) is (m*).
  BitMove m = cycle(4, {0, 1}).then(cycle(4, {2, 3}));
  m.flip = 0b1011;
  BitMove star = memoryCyclesOf(m, 3);
  BitMove want = cycle(4, {0, 1});
  want.flip = 0b0011;
  EXPECT_EQ(star, want);
}
