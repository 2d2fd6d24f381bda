//===- DigitCount.cpp - the values a digit permutation keeps, counted -----===//
#include "mapc/runtime/DigitCount.h"

#include <algorithm>
#include <cstdlib>

using namespace mapc::rt;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return q * b > a ? q - 1 : q;
}

int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

} // namespace

std::optional<int64_t>
mapc::rt::valuesKeptInPlace(const std::vector<DigitPlace> &digits,
                            size_t maxSums) {
  // Digits that keep their weight multiply the count; the others, the
  // largest difference first.
  int64_t kept = 1;
  std::vector<std::pair<int64_t, int64_t>> moved; // base, to - from
  for (const DigitPlace &d : digits) {
    if (d.base < 2)
      continue;
    if (d.to == d.from)
      kept *= d.base;
    else
      moved.push_back({d.base, d.to - d.from});
  }
  std::sort(moved.begin(), moved.end(), [](const auto &x, const auto &y) {
    return std::llabs(x.second) > std::llabs(y.second);
  });
  // reach[i]: the most that digits i.. add to or take from a sum.
  std::vector<int64_t> reach(moved.size() + 1, 0);
  for (size_t i = moved.size(); i-- > 0;)
    reach[i] =
        reach[i + 1] + (moved[i].first - 1) * std::llabs(moved[i].second);
  // Partial sums that the digits left can bring back to 0, with the number
  // of ways to reach each.
  std::vector<std::pair<int64_t, int64_t>> sums{{0, 1}}, next;
  for (size_t i = 0; i < moved.size(); ++i) {
    const auto [base, diff] = moved[i];
    const int64_t r = reach[i + 1], step = std::llabs(diff);
    next.clear();
    for (const auto &[s, ways] : sums) {
      // The values v with |s + v diff| <= r.
      const int64_t lo =
          diff > 0 ? ceilDiv(-r - s, step) : ceilDiv(s - r, step);
      const int64_t hi =
          diff > 0 ? floorDiv(r - s, step) : floorDiv(s + r, step);
      for (int64_t v = std::max<int64_t>(lo, 0);
           v <= std::min<int64_t>(hi, base - 1); ++v) {
        next.push_back({s + v * diff, ways});
        if (next.size() > maxSums)
          return std::nullopt;
      }
    }
    std::sort(next.begin(), next.end());
    sums.clear();
    for (const auto &[s, ways] : next)
      if (!sums.empty() && sums.back().first == s)
        sums.back().second += ways;
      else
        sums.push_back({s, ways});
  }
  // reach is 0 after the last digit: only the sum 0 is left, if any.
  return sums.empty() ? 0 : kept * sums.front().second;
}
