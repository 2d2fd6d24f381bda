//===- ExchangeRounds.h - internal: in-place order of exchange rounds -----===//
#ifndef MAPC_RUNTIME_LIB_EXCHANGEROUNDS_H
#define MAPC_RUNTIME_LIB_EXCHANGEROUNDS_H

#include "mapc/runtime/General.h"

namespace mapc::rt {

/// The order in which an exchange step's rounds can run in place: a round
/// that stores into a cell must not come before the rounds that send the
/// element there, so each group loads the elements of all its rounds before
/// it stores any (function 6.1 pairs the diagonals k and b - k this way).
/// Rounds that need each other form one group (a strongly connected
/// component, Tarjan's algorithm), listed so that every need is met first.
/// `cellsPerPe` bounds the slots. False if a group would hold more than
/// `maxHeld` rounds per PE.
bool inPlaceGroups(const std::vector<std::vector<ExchangeSend>> &rounds,
                   uint64_t cellsPerPe, unsigned maxHeld,
                   std::vector<std::vector<uint32_t>> &groups);

} // namespace mapc::rt

#endif
