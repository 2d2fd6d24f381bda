//===- NetworkExecute.h - running plans on the simulated cube or mesh -----===//
//
// Plans for network machines have two step kinds (Plan.h): Exchange steps,
// routed by 001's schedules (ExchangeSchedule.h), and Route steps, every
// element sent to its destination node by dimension-order routing. Both
// become one list of element transfers that NetworkMachine::run moves and
// times: element transfers in sequence, link contention counted (001 sec. 2).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_NETWORKEXECUTE_H
#define MAPC_RUNTIME_NETWORKEXECUTE_H

#include "mapc/runtime/Execute.h"
#include "mapc/runtime/Network.h"

namespace mapc::rt {

/// The transfers of one step, reading at `readBase` and writing at
/// `writeBase` (they differ in the first step of a copy). `before` is the
/// layout the step starts from: only addresses holding data move.
std::vector<Transfer>
networkStepTransfers(const NetworkShape &shape, const Step &step,
                     const AffineLayout &before, unsigned elemBytes,
                     uint64_t readBase, uint64_t writeBase);

/// The cycles a step takes: the same transfers, timed on an empty machine.
int64_t simulateNetworkStep(const NetworkShape &shape, const Step &step,
                            const AffineLayout &before, unsigned elemBytes);

/// Called after each step with the step's number (from 1).
using NetworkStepObserver = std::function<void(unsigned step)>;

/// Carries out `plan` (Exchange and Route steps only). In-place plans work
/// in `dst`; copy plans read `src` in the first step.
bool executeNetworkPlan(NetworkMachine &machine, const Plan &plan,
                        Regions regions,
                        const NetworkStepObserver &observer = {},
                        std::string *why = nullptr);

} // namespace mapc::rt

#endif
