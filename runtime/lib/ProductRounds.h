//===- ProductRounds.h - internal: exchange rounds of a separable move ----===//
//
// An HPF redistribution of a 2-D array on a 2-D PE grid moves each data
// dim within its own PE dim: the elements from PE (x, r) to PE (y, s) are
// A(x, y) * B(r, s), A and B the moves of the two dims (the Kronecker
// product of two small matrices). Its rounds can then be products of
// rounds of the factors: a matching x -> sigma(x) of A and r -> tau(r) of
// B give the matching (x, r) -> (sigma(x), tau(r)), used as often as both.
// Colouring A and B (a few dozen PEs each) replaces colouring the product
// (10^6 single edges on 31 x 33 PEs), and a product round's router price
// follows from its factors' (003 5.6.4: a cluster is a block of the grid,
// so its senders, receivers and partner clusters are products too).
//
// The elements that keep their PE are A's diagonal times B's: each
// factor's diagonal goes in rounds of its own ("stay" rounds, which keep
// every coordinate they name), so that no product round but stay x stay,
// which is skipped, keeps a PE. The product takes as many rounds as the
// busiest PE's degree whenever that is (stay rounds of A + A's other
// rounds) x (B's) - (A's stay rounds x B's): else it is not used.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_PRODUCTROUNDS_H
#define MAPC_RUNTIME_LIB_PRODUCTROUNDS_H

#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/MoveCounts.h"
#include "mapc/runtime/PairColouring.h"

#include <optional>

namespace mapc::rt {

/// A matching of one factor's coordinates, from[i] -> to[i], used `times`
/// rounds in a row; a `stay` round has to[i] == from[i].
struct FactorRound {
  std::vector<uint32_t> from, to;
  uint64_t times = 1;
  bool stay = false;
};

/// The rounds of a separable exchange: PE = x + inner * r, every pair of
/// an inner round and an outer round but two stay rounds is a round used
/// `scale * times * times` times.
struct ProductRounds {
  uint32_t inner = 0, outer = 0;
  uint64_t scale = 1;
  std::vector<FactorRound> innerRounds, outerRounds;
  /// The rounds all told: the busiest PE's degree.
  uint64_t rounds() const;
};

/// Exchanges of fewer pairs are coloured as they are (PairSchedule.h):
/// quick enough there, and their rounds are pinned by tests.
constexpr size_t kProductRoundsFrom = 4096;

/// The product rounds of `pairs` (distinct (sender, receiver) pairs; a
/// PE's pair with itself is left out) on `grid` (the PE dims, first fastest;
/// the first is the inner factor, the others together the outer), or nothing
/// when the grid has one dim, the pairs are fewer than `from` or not a product
/// of the two factors, or the product would take more rounds than the busiest
/// PE's degree.
std::optional<ProductRounds> productRounds(const std::vector<PairCount> &pairs,
                                           const std::vector<int64_t> &grid,
                                           size_t from = kProductRoundsFrom);

/// The same from a move's counts (MoveCounts.h: sorted by sender, then
/// receiver), whose pairs of a PE with itself are left out.
std::optional<ProductRounds>
productRounds(const std::vector<PePairCount> &pairs,
              const std::vector<int64_t> &grid,
              size_t from = kProductRoundsFrom);

/// The same from a move's factors (MoveCounts.h), without listing its
/// pairs when the factors split the PEs as `grid` does (the low parts its
/// first dim, the high parts multiples of it); else from the pairs listed.
std::optional<ProductRounds> productRounds(const PairFactors &factors,
                                           const std::vector<int64_t> &grid,
                                           size_t from = kProductRoundsFrom);

/// The product's rounds as matchings of `pairs` (the pairs it was made
/// from), each used `times` rounds in a row.
std::vector<PairRound> expandProductRounds(const ProductRounds &p,
                                           const std::vector<PairCount> &pairs);

/// Router ticks of each product round of `p` on `m` (of `bytes` a send),
/// the cheaper of plain and clustered connections as
/// MasPar::cheaperRouterCost prices them, computed from the factors:
/// `ticks[i * p.outerRounds.size() + j]` for inner round i and outer round
/// j (stay x stay: 0). The grid's rows must be the inner factor
/// (m.width() == p.inner, the outer within m.height()): else false.
bool productRouterTicks(const MasPar &m, unsigned bytes, const ProductRounds &p,
                        std::vector<int64_t> &ticks);

} // namespace mapc::rt

#endif
