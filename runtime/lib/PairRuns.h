//===- PairRuns.h - internal: runs of sorted (cluster, cluster) pairs -----===//
//
// A router send's price (MasPar.h) counts, per cluster, its senders or
// receivers, its partner clusters and the most PEs bound for one partner.
// Listed as (cluster, partner) pairs and sorted, those are runs: the
// product rounds' pricing (ProductRounds.cpp) and the pricing of a send
// from its pairs (MasPar::cheaperRouterCostOfPairs) both read them here.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_PAIRRUNS_H
#define MAPC_RUNTIME_LIB_PAIRRUNS_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace mapc::rt {

/// The runs of equal `first` in sorted `e`: the longest, and the most
/// distinct `second` in one; and the longest run of one whole entry.
/// Sorts `e`.
inline void runsOf(std::vector<std::pair<uint32_t, uint32_t>> &e, int64_t &most,
                   int64_t &partners, int64_t &group) {
  std::sort(e.begin(), e.end());
  most = partners = group = 0;
  for (size_t i = 0; i < e.size();) {
    size_t j = i;
    int64_t distinct = 0;
    while (j < e.size() && e[j].first == e[i].first) {
      size_t k = j;
      while (k < e.size() && e[k] == e[j])
        ++k;
      group = std::max(group, int64_t(k - j));
      ++distinct;
      j = k;
    }
    most = std::max(most, int64_t(j - i));
    partners = std::max(partners, distinct);
    i = j;
  }
}

} // namespace mapc::rt

#endif
