//===- ProgramRun.cpp -----------------------------------------------------===//
#include "ProgramRun.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/Execute.h"
#include "passes/RemapCycles.h"

#include "llvm/Support/Format.h"

using namespace mapc;

namespace {

/// The simulated memory --run may allocate, over all PEs.
constexpr uint64_t kMaxSimulatedBytes = uint64_t(1) << 28;

unsigned log2Exact(int64_t v) {
  unsigned l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return (int64_t(1) << l) == v ? l : ~0u;
}

const char *kindWord(Statement::Kind k) {
  switch (k) {
  case Statement::Remap:
    return "remap";
  case Statement::Copy:
    return "copy";
  case Statement::Redistribute:
    return "redistribute";
  case Statement::Realign:
    return "realign";
  case Statement::Reshape:
    return "reshape";
  }
  return "?";
}

} // namespace

bool mapc::planProgram(const Program &program, PlannerKind kind,
                       const char *what, Diagnostics &diags,
                       ProgramPlans &out) {
  const Machine &mach = program.machine;
  llvm::SMLoc at =
      program.statements.empty() ? llvm::SMLoc() : program.statements[0].loc;
  if (mach.kind != Machine::MasPar) {
    diags.error(at,
                std::string(what) + " simulates the maspar machine only; '" +
                    mach.kindName() + "' machines come with Gray-code remaps",
                "use machine maspar(...) for now");
    return false;
  }
  unsigned pBits = log2Exact(mach.peCount());
  unsigned xBits = log2Exact(mach.pes.empty() ? 1 : mach.pes[0]);
  if (pBits == ~0u || xBits == ~0u || pBits > 20) {
    diags.error(at,
                std::string(what) + " needs a power-of-two PE grid of at most "
                                    "2^20 PEs",
                "radix-2 remapping (003 ch. 4) works on power-of-two devices");
    return false;
  }
  out.pBits = pBits;
  out.shape.width = 1u << xBits;
  out.shape.height = 1u << (pBits - xBits);
  unsigned cluster = unsigned(std::min<int64_t>(mach.cluster, 1 << 20));
  if (log2Exact(cluster) == ~0u) {
    diags.error(at, "the router cluster size must be a power of two",
                "write cluster = 16 as on the MP-1 (003 5.6.4)");
    return false;
  }
  out.shape.clusterSize = std::min<unsigned>(cluster, 1u << pBits);

  // Bit maps of every statement's layouts; one memory width for all.
  struct Pending {
    const Statement *st;
    IndexBitMap src, dst;
  };
  std::vector<Pending> pending;
  bool ok = true;
  for (const Statement &st : program.statements) {
    if (st.kind == Statement::Reshape)
      continue;
    auto maps = statementBitMaps(program, st);
    if (auto *why = std::get_if<std::string>(&maps)) {
      diags.error(st.loc, "cannot plan this statement: " + *why,
                  "the planner covers power-of-two layouts (003 4.2, 5.1); "
                  "general remaps come with digit maps (003 ch. 6)");
      ok = false;
      continue;
    }
    const StatementBitMaps &m = std::get<StatementBitMaps>(maps);
    pending.push_back({&st, m.src, m.dst});
    out.mBits = std::max({out.mBits, pending.back().src.memoryBits,
                          pending.back().dst.memoryBits});
  }
  if (!ok)
    return false;

  // One region per array, all the same size, then the scratch.
  uint64_t widest = 1;
  for (const ArrayInfo &a : program.arrays)
    widest = std::max<uint64_t>(widest, elemTypeBytes(a.type));
  uint64_t region = (uint64_t(1) << out.mBits) * widest;
  uint64_t base = 0;
  for (size_t i = 0; i < program.arrays.size(); ++i)
    out.arrayDataSet[program.arrays[i].name] = i + 1;
  for (const ArrayInfo &a : program.arrays) {
    bool used = false;
    for (const Pending &p : pending)
      used |= p.st->array == a.name || p.st->target == a.name;
    if (!used)
      continue;
    out.arrayBase[a.name] = base;
    base += region;
  }
  out.scratchBase = base;
  out.memoryBytes = base + region;
  bool simulating = std::string(what) == "--run";
  if (out.mBits > 30 || (simulating && out.memoryBytes > kMaxSimulatedBytes >>
                                           std::min(pBits, 28u))) {
    diags.error(at,
                std::string(what) + " would need " +
                    std::to_string(out.memoryBytes) + " bytes in each of " +
                    std::to_string(1u << pBits) +
                    " PEs; the simulator allows 256 MiB in all",
                out.mBits > 30 ? "at most 2^30 elements per PE can be planned"
                               : "run a smaller instance of the problem; "
                                 "--emit=plan has no such limit");
    return false;
  }

  unsigned counter = 0;
  for (const Pending &p : pending) {
    const Statement &st = *p.st;
    const ArrayInfo *arr = program.findArray(st.array);
    PlanRequest req;
    auto src = toRuntimeLayout(p.src, out.mBits, pBits);
    auto dst = toRuntimeLayout(p.dst, out.mBits, pBits);
    std::string why;
    if (auto *e = std::get_if<std::string>(&src))
      why = *e;
    else if (auto *e = std::get_if<std::string>(&dst))
      why = *e;
    StatementPlan sp;
    sp.statement = &st;
    const Layout &from = program.layouts[st.from];
    const Layout &to = program.layouts[st.to];
    sp.label = std::string(kindWord(st.kind)) + " " + st.array +
               (st.kind == Statement::Copy ? " to " + st.target : "") + ": " +
               from.name + " -> " + to.name;
    sp.function = std::string(kindWord(st.kind)) + "_" + st.array + "_" +
                  std::to_string(++counter);
    if (why.empty()) {
      req.src = std::get<rt::BitLayout>(src);
      req.dst = std::get<rt::BitLayout>(dst);
      req.elemBytes = arr ? elemTypeBytes(arr->type) : 1;
      req.copy = st.kind == Statement::Copy;
      req.shape = out.shape;
      auto planned = planRemap(req, kind);
      if (auto *e = std::get_if<std::string>(&planned))
        why = *e;
      else
        sp.plan = std::get<rt::Plan>(planned);
      auto cycles = remapCycles(p.src, p.dst);
      if (auto *c = std::get_if<std::vector<Cycle>>(&cycles))
        sp.cycles = formatCycles(p.src, *c);
    }
    if (!why.empty()) {
      diags.error(st.loc, "cannot plan this statement: " + why,
                  "both layouts must fit the machine's memory and PEs");
      ok = false;
      continue;
    }
    sp.srcBase = out.arrayBase[st.array];
    sp.dstBase =
        out.arrayBase[st.kind == Statement::Copy ? st.target : st.array];
    out.statements.push_back(std::move(sp));
  }
  return ok;
}

/// Why a plan can come in under the lower bound, which (like 003 fig. 5.4)
/// bounds plans that send every element once through the router.
static const char *underBoundReason(const rt::Plan &p) {
  for (const rt::Step &s : p.steps)
    if (s.kind == rt::StepKind::Xnet)
      return "its xnet steps beat it";
  for (const rt::Step &s : p.steps)
    if (s.kind == rt::StepKind::BruteForce)
      return "brute force beats it";
  return "it moves mixed cycles with direct addressing, which the bound "
         "prices as indirect";
}

void mapc::printPlans(const ProgramPlans &plans, llvm::raw_ostream &os) {
  for (const StatementPlan &sp : plans.statements) {
    const rt::Plan &p = sp.plan;
    os << sp.label << " (" << p.planner << " planner, " << p.elemBytes * 8
       << "-bit elements, " << (p.copy ? "copy" : "in place") << ")\n";
    os << "  cycles: " << (sp.cycles.empty() ? "(none)" : sp.cycles) << "\n";
    rt::BitLayout now = p.source;
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const rt::Step &s = p.steps[i];
      os << "  step " << (i + 1) << ": " << rt::stepKindName(s.kind) << " "
         << rt::formatMove(s.move, now);
      os << ", " << (p.elemBytes << s.chunkBits) * 8 << "-bit chunks";
      if (s.kind == rt::StepKind::Router)
        os << (s.clustered ? ", one connection per cluster pair"
                           : ", one connection per PE");
      os << ", " << s.predictedTicks << " ticks\n";
      os << "    why: " << s.why << "\n";
      now = s.move.applyTo(now);
    }
    if (p.steps.empty())
      os << "  no data moves\n";
    double ratio =
        p.predictedTicks ? double(p.lowerBound) / p.predictedTicks : 1.0;
    os << "  total: " << p.predictedTicks << " ticks ("
       << llvm::format("%.1f",
                       p.predictedTicks * rt::kNanosecondsPerTick / 1000.0)
       << " us), lower bound " << p.lowerBound << " ticks, bound/plan "
       << llvm::format("%.2f", ratio) << "\n";
    if (p.predictedTicks < p.lowerBound)
      os << "  note: the bound covers plans that send every element once "
            "through the router (003 fig. 5.4); "
         << underBoundReason(p) << " (docs/cost-model.md)\n";
  }
}

bool mapc::runPlans(const ProgramPlans &plans, bool trace, bool memoryDigest,
                    llvm::raw_ostream &os) {
  rt::MasPar machine(plans.shape.width, plans.shape.height, plans.memoryBytes,
                     plans.shape.clusterSize);
  // Which data each array holds: arrays start with their own, a copy
  // hands the source's over.
  std::map<std::string, uint64_t> tag = plans.arrayDataSet;
  std::map<std::string, bool> filled;
  bool allGood = true;
  for (const StatementPlan &sp : plans.statements) {
    const rt::Plan &p = sp.plan;
    const std::string &array = sp.statement->array;
    if (!filled[array]) {
      rt::storePattern(machine, p.source, p.elemBytes, sp.srcBase, tag[array]);
      filled[array] = true;
    }
    rt::Regions regions{{sp.srcBase}, {sp.dstBase}, {plans.scratchBase}};
    uint64_t cells = uint64_t(machine.peCount()) << p.source.mBits;
    if (trace && cells > (uint64_t(1) << 16)) {
      os << "trace " << array << ": " << cells
         << " device cells, too many to trace (at most 65536)\n";
    } else if (trace) {
      // Run the plan again on a twin machine whose elements are their own
      // data indices, and print it after every step.
      rt::Plan twin = p;
      twin.elemBytes = 8;
      uint64_t scale = 8 / std::min(8u, p.elemBytes);
      rt::MasPar shadow(plans.shape.width, plans.shape.height,
                        plans.memoryBytes * scale, plans.shape.clusterSize);
      rt::Regions r2{{sp.srcBase * scale},
                     {sp.dstBase * scale},
                     {plans.scratchBase * scale}};
      auto show = [&](unsigned step, const rt::BitLayout &now) {
        os << "trace " << array << " step " << step << "\n";
        uint64_t base = step == 0 ? r2.src.base : r2.dst.base;
        for (unsigned pe = 0; pe < shadow.peCount(); ++pe) {
          const uint8_t *mem = shadow.memoryOf(pe);
          for (uint64_t m = 0; m < now.memorySize(); ++m) {
            if (m)
              os << " ";
            uint64_t a = m | (uint64_t(pe) << now.mBits);
            if (!now.holds(a)) {
              os << ".";
              continue;
            }
            uint64_t v = 0;
            for (unsigned k = 0; k < 8; ++k)
              v |= uint64_t(mem[base + m * 8 + k]) << (8 * k);
            os << v;
          }
          os << "\n";
        }
      };
      rt::forEachElement(
          p.source, 8, r2.src.base, [&](uint64_t d, unsigned pe, uint64_t at) {
            for (unsigned k = 0; k < 8; ++k)
              shadow.memoryOf(pe)[at + k] = uint8_t(d >> (8 * k));
          });
      show(0, p.source);
      std::string why;
      if (!rt::executePlan(shadow, twin, r2, show, &why))
        os << "trace " << array << ": the traced run stopped: " << why << "\n";
    }
    int64_t before = machine.ledger().total();
    std::string why;
    bool ran = rt::executePlan(machine, p, regions, {}, &why);
    int64_t ticks = machine.ledger().total() - before;
    if (sp.statement->kind == Statement::Copy)
      tag[sp.statement->target] = tag[array];
    const std::string &holder =
        sp.statement->kind == Statement::Copy ? sp.statement->target : array;
    filled[holder] = true;
    uint64_t total = uint64_t(1) << p.dest.dataBits;
    uint64_t bad = ran ? rt::countMismatches(machine, p.dest, p.elemBytes,
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
    os << "memory: " << machine.memoryBytes() << " bytes per PE, fnv1a64="
       << llvm::format_hex(rt::memoryDigest(machine), 18) << "\n";
  return allGood;
}
