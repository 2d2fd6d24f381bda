//===- ReplicationRounds.h - internal: an all-gather's rounds -------------===//
#ifndef MAPC_RUNTIME_LIB_REPLICATIONROUNDS_H
#define MAPC_RUNTIME_LIB_REPLICATIONROUNDS_H

#include "mapc/runtime/General.h"

namespace mapc::rt {

/// 003 6.2.1's data replication built, not searched, for an all-gather:
/// n elements on n distinct PEs, each bound for every other of the `pes`
/// PEs (`lists[i]`: element i's deliveries, the source in srcPe/srcSlot,
/// as exchangeSchedule groups them). Recursive doubling fills each
/// element's class of PEs, then the classes rotate (a shift per round, a
/// ring all-gather per row of n PEs). Its rounds are the fewest possible
/// when n divides `pes`, one more otherwise (ReplicationRounds.cpp).
/// False, and `rounds` untouched, when the deliveries are not such an
/// all-gather.
bool allGatherRounds(
    const std::vector<const std::vector<ExchangeSend> *> &lists, unsigned pes,
    std::vector<std::vector<ExchangeSend>> &rounds);

} // namespace mapc::rt

#endif // MAPC_RUNTIME_LIB_REPLICATIONROUNDS_H
