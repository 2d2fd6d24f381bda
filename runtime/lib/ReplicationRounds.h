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
    ExchangeRoundList &rounds);

/// The built schedule's rounds for n elements over `pes` PEs (2 <= n <=
/// pes): ceil(log2(pes / n + (pes % n > 0))) doubling rounds, then n - 1
/// rotations and one more when n does not divide `pes`.
uint32_t allGatherRoundCount(uint32_t n, uint32_t pes);

/// Calls send(round, element, from, to) for every send of the built
/// schedule of n elements over `pes` PEs (2 <= n <= pes), round by round,
/// `from` and `to` positions of the grid of ReplicationRounds.cpp (element
/// i's source at position i, the other PEs after in order). allGatherRounds
/// builds its rounds from it, and AllGatherPrice.cpp prices them.
template <typename Send>
void forEachAllGatherSend(uint32_t n, uint32_t pes, Send &&send) {
  const uint32_t g = pes / n, r = pes % n;
  uint32_t round = 0;
  // 1. Doubling down each column (members m = 0 .. g (+1) at i + m n).
  const uint32_t tallest = g + (r > 0);
  for (uint32_t held = 1; held < tallest; held *= 2, ++round)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t members = g + (i < r);
      for (uint32_t h = 0; h < held && held + h < members; ++h)
        send(round, i, i + h * n, i + (held + h) * n);
    }
  // 2. Rotation.
  for (uint32_t k = 1; k < n + (r > 0); ++k, ++round) {
    if (k < n)
      for (uint32_t j = 0; j < g; ++j)
        for (uint32_t c = 0; c < n; ++c) {
          const uint32_t i = (c + n - k) % n;
          const uint32_t row = j == 0 && i < r ? g : j;
          send(round, i, row * n + i, j * n + c);
        }
    if (k >= 2)
      for (uint32_t i = 0; i < r; ++i)
        send(round, (i + n - (k - 1)) % n, i, g * n + i);
  }
}

} // namespace mapc::rt

#endif // MAPC_RUNTIME_LIB_REPLICATIONROUNDS_H
