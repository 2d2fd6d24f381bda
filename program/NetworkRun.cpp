//===- NetworkRun.cpp - --run on the simulated hypercube or mesh ----------===//
//
// The network twin of runPlans: every array in one region of node memory,
// every plan run on rt::NetworkMachine, every element checked against the
// destination layout, ticks = element transfers in sequence (001's cost).
//
//===----------------------------------------------------------------------===//
#include "ProgramRun.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/NetworkExecute.h"

using namespace mapc;

namespace {

/// Runs `p` again on a twin whose elements are their data indices and
/// prints the array after every step.
/// A later stage numbers its steps after `stepOffset` and leaves out the
/// state before them (`showStart`).
void traceNetworkPlan(const ProgramPlans &plans, const StatementPlan &sp,
                      unsigned stepOffset, bool showStart,
                      llvm::raw_ostream &os) {
  const rt::Plan &p = sp.plan;
  const std::string &array = sp.statement->array;
  uint64_t scale = 8 / std::min(8u, p.elemBytes);
  rt::NetworkMachine twin(plans.network, plans.memoryBytes * scale);
  rt::Plan wide = p;
  wide.elemBytes = 8;
  rt::Regions r{{sp.srcBase * scale}, {sp.dstBase * scale}, {0}};
  auto show = [&](unsigned step) {
    if (step == 0 && !showStart)
      return;
    os << "trace " << array << " step " << step + stepOffset << "\n";
    uint64_t base = step == 0 ? r.src.base : r.dst.base;
    printTraceRows(
        p.affineAfter(int(step) - 1), plans.network.nodeCount(),
        [&](unsigned node, uint64_t m) {
          return twin.read(node, base + m * 8, 8);
        },
        os);
  };
  rt::forEachElement(p.affineAfter(-1), 8, r.src.base,
                     [&](uint64_t d, unsigned node, uint64_t at) {
                       twin.write(node, at, 8, d);
                     });
  show(0);
  std::string why;
  if (!rt::executeNetworkPlan(twin, wide, r, show, &why))
    os << "trace " << array << ": the traced run stopped: " << why << "\n";
}

} // namespace

bool mapc::runNetworkPlans(const ProgramPlans &plans, bool trace,
                           bool memoryDigest, llvm::raw_ostream &os) {
  rt::NetworkMachine machine(plans.network, plans.memoryBytes);
  RunBook book(
      plans, [&](unsigned node) { return machine.memory(node); }, os);
  for (const StatementPlan &statement : plans.statements) {
    setStatementInProgress(statement.statement);
    book.before(statement);
    if (trace && book.traceable(statement, plans.network.nodeCount()))
      traceStages(plans, statement, os,
                  [&](const StatementPlan &sp, unsigned offset, bool first) {
                    traceNetworkPlan(plans, sp, offset, first, os);
                  });
    int64_t before = machine.ledger().cycles;
    std::string why;
    bool ran = true;
    for (const StatementPlan &sp : stagesOf(statement)) {
      rt::Regions regions{{sp.srcBase}, {sp.dstBase}, {0}};
      ran =
          sp.general
              ? rt::executeGeneralPlan(machine, *sp.general, regions, {}, &why)
              : rt::executeNetworkPlan(machine, sp.plan, regions, {}, &why);
      if (!ran)
        break;
    }
    book.after(statement, ran, why, machine.ledger().cycles - before);
  }
  if (memoryDigest)
    book.digest(machine.memoryBytes(), "node", rt::memoryDigest(machine));
  return book.allGood();
}
