//===- NetworkExecute.cpp -------------------------------------------------===//
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/ExchangeSchedule.h"

#include <algorithm>

using namespace mapc::rt;

std::vector<Transfer>
mapc::rt::networkStepTransfers(const NetworkShape &shape, const Step &step,
                               const AffineLayout &before, unsigned elemBytes,
                               uint64_t readBase, uint64_t writeBase) {
  auto holds = [&](uint64_t a) { return before.holds(a); };
  std::vector<Transfer> out;
  if (step.kind == StepKind::Exchange) {
    ExchangeGroup group;
    group.mBits = before.mBits;
    group.pBits = before.pBits;
    group.orders = step.exchanges;
    ExchangeSchedule schedule = parseExchangeSchedule(step.schedule)
                                    .value_or(ExchangeSchedule::Sequential);
    out = buildExchangeTransfers(shape, group, schedule, elemBytes, writeBase,
                                 holds);
    for (Transfer &t : out)
      t.byteAddr = t.byteAddr - writeBase + readBase;
    return out;
  }
  // Route: dimension-order routing of every held element.
  uint64_t slots = uint64_t(1) << before.mBits, mMask = slots - 1;
  for (uint64_t s = 0; s < slots; ++s)
    for (uint32_t node = 0; node < shape.nodeCount(); ++node) {
      uint64_t a = s | (uint64_t(node) << before.mBits);
      if (!holds(a))
        continue;
      uint64_t g = step.move.apply(a);
      Transfer t;
      t.node = node;
      t.byteAddr = readBase + s * elemBytes;
      t.destNode = uint32_t(g >> before.mBits);
      t.destByteAddr = writeBase + (g & mMask) * elemBytes;
      t.path = dimensionOrderPath(shape, node, t.destNode);
      out.push_back(std::move(t));
    }
  return out;
}

int64_t mapc::rt::simulateNetworkStep(const NetworkShape &shape,
                                      const Step &step,
                                      const AffineLayout &before,
                                      unsigned elemBytes) {
  uint64_t bytes = (uint64_t(1) << before.mBits) * elemBytes;
  NetworkMachine probe(shape, bytes);
  // Only the timing matters here, and elements that stay on their node
  // cost no cycle: leave them out (often half of an exchange's elements).
  std::vector<Transfer> moving =
      networkStepTransfers(shape, step, before, elemBytes, 0, 0);
  moving.erase(std::remove_if(moving.begin(), moving.end(),
                              [](const Transfer &t) { return t.path.empty(); }),
               moving.end());
  return probe.run(moving, elemBytes);
}

bool mapc::rt::executeNetworkPlan(NetworkMachine &machine, const Plan &plan,
                                  Regions regions,
                                  const NetworkStepObserver &observer,
                                  std::string *why) {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  AffineLayout now = plan.affineAfter(-1);
  if (uint64_t(1) << now.pBits != machine.shape().nodeCount())
    return fail("the plan is for " + std::to_string(1u << now.pBits) +
                " nodes but the machine has " +
                std::to_string(machine.shape().nodeCount()));
  uint64_t need = (uint64_t(1) << now.mBits) * plan.elemBytes;
  for (const Region &r : {regions.src, regions.dst})
    if (r.base + need > machine.memoryBytes())
      return fail("the array does not fit in node memory");
  if (plan.copy && plan.steps.empty())
    return fail("a copy plan needs at least one step");
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (step.kind != StepKind::Exchange && step.kind != StepKind::Route)
      return fail("step " + std::to_string(i + 1) + ": a " +
                  stepKindName(step.kind) + " step needs the maspar machine");
    bool copyFirst = plan.copy && i == 0;
    std::string reason;
    auto transfers = networkStepTransfers(
        machine.shape(), step, now, plan.elemBytes,
        copyFirst ? regions.src.base : regions.dst.base, regions.dst.base);
    if (machine.run(transfers, plan.elemBytes, &reason) < 0)
      return fail("step " + std::to_string(i + 1) + ": " + reason);
    now = plan.affineAfter(int(i));
    if (observer)
      observer(unsigned(i + 1));
  }
  return true;
}
