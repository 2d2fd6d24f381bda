//===- ExchangePrice.h - internal: an exchange step priced from pairs -----===//
#ifndef MAPC_RUNTIME_LIB_EXCHANGEPRICE_H
#define MAPC_RUNTIME_LIB_EXCHANGEPRICE_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/MoveCounts.h"
#include "mapc/runtime/PairColouring.h"

namespace mapc::rt {

/// The PE grid two layouts share (their PE dims' template lengths, first
/// fastest), empty when they differ: the diagonals PairSchedule.h takes.
std::vector<int64_t> sharedPeGrid(const TileMap &from, const TileMap &to);

/// Charges `m` the rounds of an out-of-place exchange step from `from` to
/// `to` (`sources` from sourcesOf) exactly as runExchange's rounds would
/// cost, without building them: when the destination does not replicate
/// (no element is bound for two cells) and the executor schedules the
/// sends from their pair counts (PairSchedule.h), every round of a
/// matching used `times` times costs the same (a schedule-table load, then
/// per transfer an indirect load, one router send from the matching's
/// senders to its receivers, an indirect store; 003 6.2.1, 6.4), so each
/// matching is priced once. The elements
/// that keep their PE are not charged here. False, charging nothing, when
/// the executor would colour the sends element by element instead.
bool chargeExchangeByPairs(MasPar &m, const TileMap &from, const TileMap &to,
                           const uint32_t *sources, unsigned elemBytes);

/// The same from the pairs themselves: `pairs` (sender != receiver, in any
/// order) carrying `sends` elements in all, e.g. from MoveCounts.
bool chargeExchangeFromPairs(MasPar &m, const TileMap &from, const TileMap &to,
                             std::vector<PairCount> pairs, uint64_t sends,
                             unsigned elemBytes);

/// The same for a separable move (ProductRounds.h), straight from its
/// counts without listing its pairs again; `sends` and `moving` are the
/// elements and pairs between different PEs. False, charging nothing,
/// when it is not one, its pair counts would not schedule it, or the
/// machine's clusters do not factor as its PE grid.
bool chargeExchangeByFactors(MasPar &m, const TileMap &from, const TileMap &to,
                             const MoveCounts &counts, uint64_t sends,
                             size_t moving, unsigned elemBytes);

} // namespace mapc::rt

#endif
