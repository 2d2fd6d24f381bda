//===- DigitCountTest.cpp - the values a digit permutation keeps ----------===//
//
// rt::valuesKeptInPlace (DigitCount.h) against a walk of every value, on
// random digit permutations of mixed radix: the digits in two random
// orders (their weights the products of the digits below), some digits
// left out of both (the high parts of a digit exchange), some kept in
// place, small bases and a few large ones (HPF digits of 10^5 values).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/DigitCount.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace mapc;

namespace {

/// The weights of `bases` placed in `order`, least significant first.
std::vector<int64_t> weightsIn(const std::vector<int64_t> &bases,
                               const std::vector<unsigned> &order) {
  std::vector<int64_t> w(bases.size(), 0);
  int64_t place = 1;
  for (unsigned l : order) {
    w[l] = place;
    place *= bases[l];
  }
  return w;
}

/// A random digit permutation: n digits of random bases (now and then a
/// large one), each at a place in two random orders, and now and then a
/// digit of either order dropped from both (its value fixed at 0).
std::vector<rt::DigitPlace> randomPermutation(std::mt19937_64 &rng) {
  const unsigned n = 1 + unsigned(rng() % 7);
  std::vector<int64_t> bases(n);
  for (int64_t &b : bases)
    b = rng() % 8 == 0 ? 100 + int64_t(rng() % 3000) : 1 + int64_t(rng() % 7);
  // At most 10^5 values, for the walk: the largest bases made small.
  for (;;) {
    int64_t values = 1;
    for (int64_t b : bases)
      values *= b;
    if (values <= 100000)
      break;
    *std::max_element(bases.begin(), bases.end()) = 1 + int64_t(rng() % 7);
  }
  std::vector<unsigned> from(n), to;
  for (unsigned l = 0; l < n; ++l)
    from[l] = l;
  std::shuffle(from.begin(), from.end(), rng);
  to = from;
  // Shuffle all, or a window, or swap two digits: permutations that keep
  // some digits in place as well as ones that keep none.
  if (rng() % 2)
    std::shuffle(to.begin(), to.end(), rng);
  else if (n > 1)
    std::swap(to[rng() % n], to[rng() % n]);
  const std::vector<int64_t> wf = weightsIn(bases, from),
                             wt = weightsIn(bases, to);
  std::vector<rt::DigitPlace> out;
  for (unsigned l = 0; l < n; ++l)
    if (rng() % 6 != 0)
      out.push_back({bases[l], wf[l], wt[l]});
  return out;
}

/// The walk: every value of the digits, as an odometer.
int64_t keptByWalking(const std::vector<rt::DigitPlace> &digits) {
  std::vector<int64_t> v(digits.size(), 0);
  int64_t kept = 0;
  for (;;) {
    int64_t before = 0, after = 0;
    for (size_t i = 0; i < digits.size(); ++i) {
      before += v[i] * digits[i].from;
      after += v[i] * digits[i].to;
    }
    kept += before == after;
    size_t i = 0;
    while (i < digits.size() && ++v[i] == digits[i].base)
      v[i++] = 0;
    if (i == digits.size())
      return kept;
  }
}

TEST(DigitCount, EqualsTheWalk) {
  std::mt19937_64 rng(20261128);
  int all = 0, none = 0, some = 0, large = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const std::vector<rt::DigitPlace> digits = randomPermutation(rng);
    int64_t values = 1;
    bool big = false;
    for (const rt::DigitPlace &d : digits) {
      values *= d.base;
      big |= d.base >= 100;
    }
    const int64_t walked = keptByWalking(digits);
    const std::optional<int64_t> counted = rt::valuesKeptInPlace(digits);
    ASSERT_TRUE(counted) << "trial " << trial;
    ASSERT_EQ(*counted, walked) << "trial " << trial;
    all += walked == values;
    none += walked == 1;
    some += walked > 1 && walked < values;
    large += big;
  }
  // The draws cover permutations that keep every value, only 0, and some.
  EXPECT_GT(all, 500);
  EXPECT_GT(none, 500);
  EXPECT_GT(some, 1000);
  EXPECT_GT(large, 200);
}

TEST(DigitCount, GivesUpBeyondItsSums) {
  // Two digits of 1000 values traded (weights 1 and 1000 become 1000 and
  // 1): after the first, 1000 partial sums are open, more than 100.
  const std::vector<rt::DigitPlace> swap = {{1000, 1, 1000}, {1000, 1000, 1}};
  EXPECT_FALSE(rt::valuesKeptInPlace(swap, 100));
  EXPECT_EQ(rt::valuesKeptInPlace(swap), 1000);
}

} // namespace
