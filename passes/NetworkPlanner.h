//===- NetworkPlanner.h - remaps on a Boolean cube or a k-d mesh (001) ----===//
//
// On a network machine a remap g = permutation o exchanges (Exchange-
// Decomposition.h) runs as
//   - the exchanges, under the cheapest of 001's schedules: sequential
//     (one step per exchange), pipelined, rotated (thm 2), rotated with
//     length-3 detours (thm 3) or pipelined with detours (thm 4), each timed
//     by simulating its transfers (NetworkExecute.h);
//   - then one Route step for the permutation left, dimension-order routed.
// The plan's lower bound is networkLowerBound's (ExchangeSchedule.h); the
// `why` of an exchange step lists every schedule's time, the theorems'
// bounds and 001 thm 1's K/2.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_NETWORKPLANNER_H
#define MAPC_PASSES_NETWORKPLANNER_H

#include "mapc/runtime/Network.h"
#include "mapc/runtime/Plan.h"

#include <optional>
#include <string>
#include <variant>

namespace mapc {

struct NetworkPlanRequest {
  rt::AffineLayout src, dst;
  unsigned elemBytes = 1;
  bool copy = false;
  rt::NetworkShape shape;
  /// 001 fig. 5: the node bit the exchanges start in (default: highest).
  std::optional<unsigned> exchangeStart;
};

std::variant<rt::Plan, std::string>
planNetworkRemap(const NetworkPlanRequest &request);

} // namespace mapc

#endif
