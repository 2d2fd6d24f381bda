//===- RadixSortTest.cpp - the 64-bit radix sort vs std::sort -------------===//
//
// runtime/lib/RadixSort.h orders (key, value) pairs by key, keeping the
// order of equal keys, so that pairs listed by increasing value end as
// std::sort of the pairs leaves them (the partial-rounds search relies on
// it). Keys are drawn to vary in few bytes, in every byte, in one byte
// only, with many ties, at both ends of the range and all equal, and the
// scratch is reused from draw to draw.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/lib/RadixSort.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using mapc::rt::radixSortByKey;

namespace {

using Item = std::pair<uint64_t, uint32_t>;

std::vector<Item> listed(const std::vector<uint64_t> &keys) {
  std::vector<Item> items;
  for (uint32_t i = 0; i < keys.size(); ++i)
    items.push_back({keys[i], i});
  return items;
}

TEST(RadixSort, EqualsStdSortOfThePairs) {
  std::mt19937_64 rng(7);
  std::vector<Item> scratch;
  // Each draw's keys: a random mask of the bytes that vary, over a random
  // base, with ties from a small pool half of the time.
  for (int draw = 0; draw < 2000; ++draw) {
    const size_t n = rng() % 900;
    uint64_t mask = 0;
    for (unsigned d = 0; d < 8; ++d)
      if (rng() % 3 == 0)
        mask |= uint64_t(0xff) << (8 * d);
    if (draw % 7 == 0)
      mask = ~uint64_t(0);
    const uint64_t base = draw % 5 == 0 ? ~uint64_t(0) : rng();
    const bool ties = rng() % 2;
    std::vector<uint64_t> pool;
    for (int i = 0; i < 5; ++i)
      pool.push_back(base ^ (rng() & mask));
    std::vector<uint64_t> keys;
    for (size_t i = 0; i < n; ++i)
      keys.push_back(ties ? pool[rng() % pool.size()] : base ^ (rng() & mask));
    std::vector<Item> items = listed(keys), expected = items;
    std::sort(expected.begin(), expected.end());
    radixSortByKey(items, scratch);
    ASSERT_EQ(items, expected) << "draw " << draw << ", " << n << " keys";
  }
}

TEST(RadixSort, KeepsTheOrderOfEqualKeys) {
  // Values listed out of their order: equal keys keep the listing's.
  std::vector<Item> items = {{5, 9}, {1, 3}, {5, 2}, {1, 8}, {0, 7}, {5, 1}};
  std::vector<Item> scratch;
  radixSortByKey(items, scratch);
  const std::vector<Item> expected = {{0, 7}, {1, 3}, {1, 8},
                                      {5, 9}, {5, 2}, {5, 1}};
  EXPECT_EQ(items, expected);
}

TEST(RadixSort, SmallAndUniformInputs) {
  std::vector<Item> scratch;
  std::vector<Item> none;
  radixSortByKey(none, scratch);
  EXPECT_TRUE(none.empty());
  std::vector<Item> one = {{42, 0}};
  radixSortByKey(one, scratch);
  EXPECT_EQ(one, (std::vector<Item>{{42, 0}}));
  std::vector<Item> same = listed(std::vector<uint64_t>(100, 0x1234));
  const std::vector<Item> expected = same;
  radixSortByKey(same, scratch);
  EXPECT_EQ(same, expected);
}

} // namespace
