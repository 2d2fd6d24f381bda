//===- CountingSortTest.cpp - the shared counting sort vs std::stable_sort ===//
//
// runtime/lib/CountingSort.h orders items by a small key keeping their order
// within a key, and leaves the buckets' starts. On random keys (few and many
// buckets, keys at the top of the range, one bucket, no items), with scratch
// reused from draw to draw, the order must equal std::stable_sort's and the
// starts the counts' prefix sums; items carry their index, so a sort that
// is not stable fails.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/lib/CountingSort.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using mapc::rt::CountingSort;
using mapc::rt::countingSort;
using mapc::rt::countingSortInPlace;
using mapc::rt::permuteInPlace;

namespace {

using Item = std::pair<uint32_t, uint32_t>; // key, index

/// Checks countingSort and CountingSort's starts on `keys` below `buckets`
/// against std::stable_sort and the counts.
void expectSortsStably(const std::vector<uint32_t> &keys, size_t buckets,
                       std::vector<uint32_t> &start, std::vector<Item> &out) {
  std::vector<Item> items;
  for (uint32_t i = 0; i < keys.size(); ++i)
    items.push_back({keys[i], i});
  std::vector<Item> expected = items;
  std::stable_sort(
      expected.begin(), expected.end(),
      [](const Item &a, const Item &b) { return a.first < b.first; });
  countingSort(
      items, buckets, [](const Item &x) { return x.first; }, start, out);
  ASSERT_EQ(out, expected) << keys.size() << " keys below " << buckets;
  // The starts left by placing: each bucket's first position, then the
  // total.
  std::vector<uint32_t> first(buckets + 1, 0);
  for (uint32_t k : keys)
    ++first[k + 1];
  for (size_t k = 0; k < buckets; ++k)
    first[k + 1] += first[k];
  ASSERT_EQ(start.size(), buckets + 2);
  for (size_t k = 0; k <= buckets; ++k)
    ASSERT_EQ(start[k], first[k]) << "bucket " << k << " of " << buckets;
}

TEST(CountingSort, EqualsStableSortOnRandomKeys) {
  std::mt19937_64 rng(7);
  std::vector<uint32_t> start; // reused, as the planners reuse it
  std::vector<Item> out;
  for (int draw = 0; draw < 3000; ++draw) {
    const size_t buckets = 1 + rng() % (draw % 3 ? 16 : 2000);
    const size_t n = rng() % (draw % 5 ? 64 : 5000);
    std::vector<uint32_t> keys(n);
    for (uint32_t &k : keys)
      // A third of the draws crowd the top key.
      k = draw % 3 == 0 && rng() % 2 ? uint32_t(buckets - 1)
                                     : uint32_t(rng() % buckets);
    expectSortsStably(keys, buckets, start, out);
  }
}

TEST(CountingSort, EmptyInputAndOneBucket) {
  std::vector<uint32_t> start = {5, 6, 7}; // stale scratch is cleared
  std::vector<Item> out = {{1, 1}};
  expectSortsStably({}, 4, start, out);
  EXPECT_TRUE(out.empty());
  expectSortsStably({}, 1, start, out);
  expectSortsStably({0, 0, 0, 0, 0}, 1, start, out);
  expectSortsStably({3, 3, 3}, 4, start, out);
}

TEST(CountingSort, CountsManyAtOnceAndSizeTStarts) {
  // Known counts per key (a pair's elements), placed in index order.
  std::vector<size_t> start;
  CountingSort<size_t> sort(start, 3);
  sort.count(2, 4);
  sort.count(0, 1);
  sort.count(1, 0);
  sort.sum();
  EXPECT_EQ(sort.total(), 5u);
  EXPECT_EQ(sort.place(2), 1u);
  EXPECT_EQ(sort.place(0), 0u);
  EXPECT_EQ(sort.place(2), 2u);
  EXPECT_EQ(sort.place(2), 3u);
  EXPECT_EQ(sort.place(2), 4u);
  EXPECT_EQ(start, (std::vector<size_t>{0, 1, 1, 5, 5}));
}

TEST(CountingSort, InPlaceEqualsTheCopy) {
  // permuteInPlace follows the cycles of random permutations (fixed
  // points, one long cycle, many short ones), and countingSortInPlace
  // gives countingSort's order without the second list.
  std::mt19937 rng(7);
  std::vector<uint32_t> start;
  for (int draw = 0; draw < 300; ++draw) {
    const size_t n = rng() % 200;
    std::vector<uint32_t> to(n);
    for (uint32_t i = 0; i < n; ++i)
      to[i] = i;
    std::shuffle(to.begin(), to.end(), rng);
    if (draw % 3 == 0) // mostly fixed points
      for (uint32_t i = 0; i < n; ++i)
        if (rng() % 4)
          std::swap(to[i], to[std::find(to.begin(), to.end(), i) - to.begin()]);
    std::vector<Item> items(n), want(n);
    for (uint32_t i = 0; i < n; ++i) {
      items[i] = {uint32_t(rng() % 5), i};
      want[to[i]] = items[i];
    }
    std::vector<uint32_t> moved = to;
    permuteInPlace(items, moved);
    EXPECT_EQ(items, want) << "draw " << draw;
    for (uint32_t i = 0; i < n; ++i)
      EXPECT_EQ(moved[i], i) << "left as the identity";
    const size_t buckets = 1 + rng() % 6;
    for (Item &x : items)
      x.first %= buckets;
    std::vector<Item> copy;
    auto key = [](const Item &x) { return x.first; };
    countingSort(items, buckets, key, start, copy);
    countingSortInPlace(items, buckets, key, start);
    EXPECT_EQ(items, copy) << "draw " << draw;
  }
}

} // namespace
