//===- NetworkReplicationPlanner.h - doubling against the one route -------===//
//
// considerNetworkDoubling prices a replicated destination filled by
// recursive doubling along the network's dims (runtime/NetworkReplication.h,
// 003 6.2.1) against the one dimension-order route planNetworkGeneralRemap
// chose, and keeps the cheaper by predicted cycles, its `why` giving both.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_NETWORKREPLICATIONPLANNER_H
#define MAPC_PASSES_NETWORKREPLICATIONPLANNER_H

#include "passes/NetworkGeneralPlanner.h"

namespace mapc {

/// `plan` is planNetworkGeneralRemap's for `req`, `sources` sourcesOf(src,
/// dst). When the destination replicates and the plan routes between
/// nodes, its step becomes the doubling route if that takes fewer cycles
/// (both dims-up orders tried); either way the step's `why` says what the
/// other candidate takes.
void considerNetworkDoubling(const NetworkGeneralPlanRequest &req,
                             const std::vector<uint32_t> &sources,
                             rt::GeneralPlan &plan);

} // namespace mapc

#endif
