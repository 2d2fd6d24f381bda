//===- PairSchedule.h - internal: exchange rounds from pair counts --------===//
#ifndef MAPC_RUNTIME_LIB_PAIRSCHEDULE_H
#define MAPC_RUNTIME_LIB_PAIRSCHEDULE_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/PairColouring.h"

namespace mapc::rt {

/// Exchange steps of more sends than this may be scheduled from their pair
/// counts (colourByShift, ExchangeRounds.cpp).
constexpr size_t kPairScheduleFrom = 1024;

/// Whether `sends` elements over `pairs` (sender, receiver) pairs are
/// scheduled from their pair counts: not when they are few and spread over
/// many pairs (fewer than 64 a pair, at most 2^18 in all).
bool pairScheduleApplies(size_t sends, size_t pairs);

/// Sorts `pairs` by sender, then by shift (receiver - sender modulo `span`,
/// the order colourByShift sorts the sends in), in linear time (two
/// counting passes). Pairs of one (sender, receiver) must be unique: then
/// the order is the one any sort by these keys gives.
void sortPairsByShift(std::vector<PairCount> &pairs, uint32_t span);

/// The rounds of the multigraph `pairs` on `pes` PEs as matchings used
/// `times` rounds each (scheduleByPairs below, without the elements): the
/// products of its factors' rounds when it is a large separable move
/// (ProductRounds.h), else first whole diagonals of `grid`, then
/// colourPairs on what remains (always, without `byFactors`). Pair
/// indices refer to `pairs`.
std::vector<PairRound> planPairRounds(const std::vector<PairCount> &pairs,
                                      unsigned pes,
                                      const std::vector<int64_t> &grid,
                                      bool byFactors = true);

/// The rounds of an exchange step's `sends` on `pes` PEs, in as many rounds
/// as the busiest PE's degree, built from the traffic between each
/// (sender, receiver) pair rather than element by element (003 6.2.1,
/// fig. 6.3): first whole diagonals (receiver = sender + a shift in every
/// dim of `grid`, the PE grid both layouts share, first dim fastest; empty
/// when they differ) as long as each covers every PE of the current largest
/// degree, then colourPairs on what remains. The elements of one pair go
/// in the order `sends` lists them. Appends to `rounds`, moving the sends
/// there (`sends` is left empty); false, appending nothing and leaving
/// `sends` as it was, when the sends are few and spread over many pairs
/// (fewer than 64 a pair, at most 2^18), which element colouring does as
/// well (its shift order suits the router clusters of digit exchanges
/// better).
bool scheduleByPairs(std::vector<ExchangeSend> &sends, unsigned pes,
                     const std::vector<int64_t> &grid,
                     ExchangeRoundList &rounds);

} // namespace mapc::rt

#endif
