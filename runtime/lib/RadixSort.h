//===- RadixSort.h - internal: a stable LSD radix sort by a 64-bit key ----===//
//
// The partial-rounds search (DigitExchangeRounds.cpp) orders some hundreds
// of cluster pairs by a 64-bit key a round, twice: std::sort took half of
// its time. A byte-wise LSD radix sort counts every byte's buckets in one
// pass and skips the bytes that every key shares (a key's high bytes mostly
// are), so it places each item a few times instead of comparing it a dozen.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_RADIXSORT_H
#define MAPC_RUNTIME_LIB_RADIXSORT_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mapc::rt {

/// Stably sorts `items` by their `first` (ascending), with `scratch` kept by
/// the caller: items of equal keys keep their order, so items listed by
/// increasing `second` end as std::sort of the pairs would leave them.
template <class Value>
void radixSortByKey(std::vector<std::pair<uint64_t, Value>> &items,
                    std::vector<std::pair<uint64_t, Value>> &scratch) {
  const size_t n = items.size();
  if (n < 2)
    return;
  std::array<std::array<uint32_t, 256>, 8> count{};
  for (const auto &item : items)
    for (unsigned d = 0; d < 8; ++d)
      ++count[d][(item.first >> (8 * d)) & 0xff];
  scratch.resize(n);
  auto *from = &items, *to = &scratch;
  for (unsigned d = 0; d < 8; ++d) {
    std::array<uint32_t, 256> &c = count[d];
    // A byte every key shares leaves the order as it is.
    if (c[(items[0].first >> (8 * d)) & 0xff] == n)
      continue;
    uint32_t at = 0;
    for (uint32_t &x : c) {
      const uint32_t k = x;
      x = at;
      at += k;
    }
    for (const auto &item : *from)
      (*to)[c[(item.first >> (8 * d)) & 0xff]++] = item;
    std::swap(from, to);
  }
  if (from != &items)
    items.swap(scratch);
}

} // namespace mapc::rt

#endif // MAPC_RUNTIME_LIB_RADIXSORT_H
