//===- AllGatherPrice.h - internal: an all-gather priced by its shape -----===//
//
// The pricing machine's shortcut for the exchange step of an all-gather
// (ReplicationRounds.h): when exchangeSchedule would take the built
// rounds, their ticks follow from the elements' source PEs alone, without
// building the rounds, their deliveries or the recursive-doubling waves
// they are weighed against (AllGatherPrice.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_ALLGATHERPRICE_H
#define MAPC_RUNTIME_LIB_ALLGATHERPRICE_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/SourceRow.h"

#include <optional>

namespace mapc::rt {

/// An exchange step's move read as exchangeSchedule groups it: n elements,
/// element i from `sourcePe[i]` (in the order exchangeSchedule lists them),
/// each bound for every other of the `pes` PEs, and the copies receivers
/// make within their memory (exchangeSchedule's fan-out, in its order).
struct AllGatherMove {
  unsigned pes = 0;
  std::vector<uint32_t> sourcePe;
  std::vector<ExchangeSend> fanOut;
};

/// Reads the move of `sources` (sourcesOf(from, to)) on a machine of `pes`
/// PEs as an all-gather that allGatherRounds accepts: at least 2 and at
/// most `pes` elements on distinct PEs, `to` spanning the machine's PEs.
/// Nullopt otherwise.
std::optional<AllGatherMove> readAllGather(const TileMap &from,
                                           const TileMap &to,
                                           const std::vector<uint32_t> &sources,
                                           unsigned pes);

/// The same from the move's row (sourceRowOf), without its table: the
/// lists and fan-out the table's walk would give, from one pass over the
/// row and the copies per PE.
std::optional<AllGatherMove> readAllGather(const TileMap &from,
                                           const TileMap &to,
                                           const SourceRow &row, unsigned pes);

/// The floor exchangeSchedule puts on recursive doubling's waves (each
/// wave's busiest PE, summed), in closed form for an all-gather: each
/// element's receivers sorted by their shift from its source are the PEs
/// after it in turn, so in wave w it goes from the 2^w - 1 PEs after its
/// source (and the source) to the next as many, two runs of PEs.
uint64_t allGatherWavesFloor(const std::vector<uint32_t> &sourcePe,
                             unsigned pes);

/// Whether exchangeSchedule, forwarding, takes the built rounds for `move`:
/// true or false when that follows from the move's shape, nullopt when it
/// hangs on the joint search (gatherTogether), which would have to run.
std::optional<bool> builtAllGatherChosen(const AllGatherMove &move);

/// Charges pricing machine `m` what GeneralStepRunner::runExchange charges
/// for the built rounds of `move` out of place (a schedule-table load, then
/// per transfer an indirect load, the cheaper router send and an indirect
/// store, each round), without the fan-out's copies.
void chargeBuiltAllGather(MasPar &m, const AllGatherMove &move,
                          unsigned xferBytes, unsigned xfers);

} // namespace mapc::rt

#endif // MAPC_RUNTIME_LIB_ALLGATHERPRICE_H
