//===- FastDivideTest.cpp - Divider32 against the divide instruction ------===//
#include "mapc/runtime/FastDivide.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using mapc::rt::Divider32;

namespace {

TEST(FastDivide, EqualsDivisionOnEdgesAndRandomNumbers) {
  std::mt19937_64 rng(32);
  std::vector<uint32_t> divisors = {1,
                                    2,
                                    3,
                                    5,
                                    7,
                                    10,
                                    641,
                                    1u << 16,
                                    (1u << 16) + 1,
                                    1u << 31,
                                    UINT32_MAX - 1,
                                    UINT32_MAX};
  for (int i = 0; i < 2000; ++i)
    divisors.push_back(uint32_t(1 + rng() % (i % 2 ? 1u << 12 : UINT32_MAX)));
  for (uint32_t d : divisors) {
    const Divider32 div(d);
    std::vector<uint32_t> as = {0, 1, d - 1, d, UINT32_MAX, UINT32_MAX - 1};
    if (d < UINT32_MAX / 3)
      for (uint32_t k : {2u, 3u})
        as.insert(as.end(), {k * d - 1, k * d, k * d + 1});
    for (int i = 0; i < 200; ++i)
      as.push_back(uint32_t(rng()));
    for (uint32_t a : as) {
      ASSERT_EQ(div.quotient(a), a / d) << a << " / " << d;
      ASSERT_EQ(div.remainder(a), a % d) << a << " % " << d;
    }
  }
}

} // namespace
