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

#include "llvm/Support/Format.h"

using namespace mapc;

namespace {

uint64_t networkDigest(const rt::NetworkMachine &m) {
  uint64_t h = 0xcbf29ce484222325u;
  for (uint32_t node = 0; node < m.shape().nodeCount(); ++node) {
    const uint8_t *mem = m.memory(node);
    for (uint64_t i = 0; i < m.memoryBytes(); ++i)
      h = (h ^ mem[i]) * 0x100000001b3u;
  }
  return h;
}

/// Runs `p` again on a twin whose elements are their data indices and
/// prints the array after every step.
void traceNetworkPlan(const ProgramPlans &plans, const StatementPlan &sp,
                      llvm::raw_ostream &os) {
  const rt::Plan &p = sp.plan;
  const std::string &array = sp.statement->array;
  uint64_t cells = uint64_t(plans.network.nodeCount()) << p.source.mBits;
  if (cells > (uint64_t(1) << 16)) {
    os << "trace " << array << ": " << cells
       << " device cells, too many to trace (at most 65536)\n";
    return;
  }
  uint64_t scale = 8 / std::min(8u, p.elemBytes);
  rt::NetworkMachine twin(plans.network, plans.memoryBytes * scale);
  rt::Plan wide = p;
  wide.elemBytes = 8;
  rt::Regions r{{sp.srcBase * scale}, {sp.dstBase * scale}, {0}};
  auto show = [&](unsigned step) {
    os << "trace " << array << " step " << step << "\n";
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
  auto memoryOf = [&](unsigned node) { return machine.memory(node); };
  auto constMemoryOf = [&](unsigned node) -> const uint8_t * {
    return machine.memory(node);
  };
  std::map<std::string, uint64_t> tag = plans.arrayDataSet;
  std::map<std::string, bool> filled;
  bool allGood = true;
  for (const StatementPlan &sp : plans.statements) {
    const rt::Plan &p = sp.plan;
    const std::string &array = sp.statement->array;
    if (!filled[array]) {
      rt::storePattern(memoryOf, p.affineSource, p.elemBytes, sp.srcBase,
                       tag[array]);
      filled[array] = true;
    }
    if (trace)
      traceNetworkPlan(plans, sp, os);
    int64_t before = machine.ledger().cycles;
    std::string why;
    rt::Regions regions{{sp.srcBase}, {sp.dstBase}, {0}};
    bool ran = rt::executeNetworkPlan(machine, p, regions, {}, &why);
    int64_t ticks = machine.ledger().cycles - before;
    if (sp.statement->kind == Statement::Copy)
      tag[sp.statement->target] = tag[array];
    const std::string &holder =
        sp.statement->kind == Statement::Copy ? sp.statement->target : array;
    filled[holder] = true;
    uint64_t total = uint64_t(1) << p.affineDest.dataBits;
    uint64_t bad =
        ran ? rt::countMismatches(constMemoryOf, p.affineDest, p.elemBytes,
                                  sp.dstBase, tag[holder])
            : 0;
    os << sp.label << ": ";
    if (!ran) {
      os << "MISMATCH, the plan failed: " << why << "\n";
      allGood = false;
    } else if (bad) {
      os << "MISMATCH, " << bad << " of " << total
         << " elements wrong, ticks=" << ticks
         << ", lower_bound=" << p.lowerBound << "\n";
      allGood = false;
    } else {
      os << "verified, ticks=" << ticks << ", lower_bound=" << p.lowerBound
         << "\n";
    }
  }
  if (memoryDigest)
    os << "memory: " << machine.memoryBytes() << " bytes per node, fnv1a64="
       << llvm::format_hex(networkDigest(machine), 18) << "\n";
  return allGood;
}
