//===- MixedRadix.cpp - general remaps (003 ch. 6) on the simulated MP-1 --===//
//
// A driver, not a test: it compiles small .map programs whose remaps are not
// radix-2 bit maps (index digit maps of mixed radix, HPF redistributions on
// PE counts that are not powers of two), plans every statement with the
// general planner (passes/GeneralPlanner.cpp), runs every plan on the
// simulated MasPar and checks every element, and prints per statement:
//
//   plan     simulated ticks of the chosen plan (--run's ticks)
//   bound    rt::generalLowerBound, and bound/plan
//   brute    the brute-force plan's ticks (003 6.3.3 with 6.3.8's skew, and
//            the copy back of an in-place remap), and plan/brute
//   r2       for digit maps: the radix-2 plan of the same digit pattern with
//            every base rounded to a power of two (a base-4 digit is two
//            bits), and the ratio of ticks per element held by a PE,
//            plan/r2 (003 6.2.2 claims aligned digit permutations within 3x)
//   ms       wall-clock milliseconds of planGeneralRemap alone on this host,
//            its CPU time, and the CPU time of the statement's first plan
//            in a fresh process (the bench runs itself with --first-plans)
//
// The problems: 003 6.2.1's memory, processor and combined digit
// permutations and its base-5 P/M exchange at MasPar size, digit swaps and
// random digit permutations (the workloads of 003 figs. 6.11-6.14), and HPF
// block <-> cyclic(k) redistributions of 10^6 elements on 7, 10, 3 x 5 and
// 31 x 33 PEs, and of 10^7 on 7 and 3 x 5; vectors replicated over all PEs
// (an all-gather, 003 6.2.1's data replication) on 30 to 1000 PEs.
//
// Run: build/bench/mapc-bench-mixed-radix [--quick]. --quick (CI's smoke
// test) runs the same code on small sizes in a few seconds. The table with
// its machine is in docs/cost-model.md.
//
//===----------------------------------------------------------------------===//
#include "HugePageHeap.h"
#include "ProgramRun.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "passes/GeneralPlanner.h"
#include "passes/NetworkGeneralPlanner.h"

#include "mapc/runtime/General.h"
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/NetworkReplication.h"

#include "BenchSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

using namespace mapc;

namespace {

using bench::Clock;
using bench::secondsSince;

[[noreturn]] void die(const std::string &msg) {
  bench::die("mapc-bench-mixed-radix", msg);
}

/// A digit of an index digit map: a0 is the data index's least significant.
struct Digit {
  unsigned index, base;
};
/// An index digit map: P digits and M digits, most significant first as
/// language.md writes them.
struct DigitLayout {
  std::vector<Digit> p, m;
};

std::string digitText(const DigitLayout &l) {
  std::string s = "digits [p:";
  for (const Digit &d : l.p)
    s += " a" + std::to_string(d.index) + ":" + std::to_string(d.base);
  s += " | m:";
  for (const Digit &d : l.m)
    s += " a" + std::to_string(d.index) + ":" + std::to_string(d.base);
  return s + "]";
}

uint64_t productOf(const std::vector<Digit> &ds) {
  uint64_t n = 1;
  for (const Digit &d : ds)
    n *= d.base;
  return n;
}

/// The nearest power of two to `b` (ties go down): the base a digit takes
/// in the radix-2 twin of a digit problem.
unsigned nearestPow2(unsigned b) {
  unsigned lo = 1;
  while (lo * 2 <= b)
    lo *= 2;
  return b - lo <= 2 * lo - b ? lo : 2 * lo;
}

DigitLayout roundBases(DigitLayout l) {
  for (auto *ds : {&l.p, &l.m})
    for (Digit &d : *ds)
      d.base = nearestPow2(d.base);
  return l;
}

/// A program that places A in `from` and remaps it to `to` on the MP-1.
std::string digitProgram(const DigitLayout &from, const DigitLayout &to) {
  uint64_t n = productOf(from.p) * productOf(from.m);
  uint64_t perPe = productOf(from.m);
  return "machine maspar(pes = [32, 32], cluster = 16, memory = " +
         std::to_string(std::max<uint64_t>(64, 3 * perPe)) + ");\narray A(" +
         std::to_string(n) + ") : u8;\nlayout S of A = " + digitText(from) +
         ";\nlayout D of A = " + digitText(to) +
         ";\nplace A in S;\nremap A to D;\n";
}

struct Problem {
  std::string group, name;
  std::string source;
  std::string radix2; ///< the radix-2 twin's program, or empty
  /// Run on the simulator (every element checked, prediction = simulation);
  /// the 10^8-element rows are only planned, their plan column predicted.
  bool simulate = true;
};

struct Compiled {
  llvm::SourceMgr srcMgr;
  Program program;
  ProgramPlans plans;
};

/// Parses, checks and plans `source`; dies on any diagnostic.
void compile(const std::string &label, const std::string &source, Compiled &c,
             const char *what = "--run") {
  std::string errors;
  llvm::raw_string_ostream es(errors);
  unsigned id = c.srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, label), llvm::SMLoc());
  bool ok;
  {
    Diagnostics diags(c.srcMgr, es);
    ast::Program ast = parseMap(id, diags);
    if (!diags.hadError())
      c.program = analyze(ast, diags);
    ok = !diags.hadError() &&
         planProgram(c.program, PlannerKind::Optimal, what, diags, c.plans);
  }
  if (!ok)
    die(label + ": does not compile:\n" + errors + "\n" + source);
}

/// Runs every plan of `c` with --run's code and returns each statement's
/// simulated ticks; dies unless every element of every statement is right.
std::vector<int64_t> runAll(const std::string &label, const Compiled &c) {
  std::string out;
  llvm::raw_string_ostream os(out);
  bool good = runPlans(c.plans, false, false, os);
  os.flush();
  if (!good)
    die(label + ": --run failed:\n" + out);
  std::vector<int64_t> ticks;
  size_t at = 0;
  const std::string key = ": verified, ticks=";
  while ((at = out.find(key, at)) != std::string::npos) {
    at += key.size();
    ticks.push_back(std::stoll(out.substr(at)));
  }
  if (ticks.size() != c.plans.statements.size())
    die(label + ": cannot read --run's report:\n" + out);
  return ticks;
}

/// The brute-force plan of a general statement, priced: 003 6.3.3's
/// brute_copy to the destination (and, in place, the copy back from the
/// scratch region), as the planner's own brute-force candidate.
int64_t bruteTicks(const rt::GeneralPlan &chosen,
                   const rt::MachineShape &shape) {
  rt::GeneralPlan p = chosen;
  p.steps.clear();
  rt::GeneralStep s;
  s.kind = rt::GeneralStepKind::BruteForce;
  s.to = p.dest;
  p.steps.push_back(s);
  if (!p.copy) {
    rt::GeneralStep back;
    back.kind = rt::GeneralStepKind::Local;
    back.to = p.dest;
    p.steps.push_back(back);
  }
  const std::vector<uint32_t> sources = rt::sourcesOf(p.source, p.dest);
  int64_t total = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    int64_t t = rt::predictGeneralStep(p, i, shape, rt::CostModel(),
                                       i == 0 ? &sources : nullptr);
    if (t < 0)
      die("the brute-force baseline cannot be priced");
    total += t;
  }
  return total;
}

/// Wall-clock milliseconds of planGeneralRemap for `plan`'s statement: the
/// least of a few calls (one when a call takes more than 0.2 s). `cpuMs`
/// gets the process CPU time of the same call, which a loaded host
/// inflates less. Those calls find the planner's per-thread caches (router
/// prices, searched rounds, the last priced move) filled by the plan made
/// before, and memory the process has touched: what a first plan costs is
/// firstPlans', in a fresh process.
double planningMs(const rt::GeneralPlan &plan, const ProgramPlans &plans,
                  double &cpuMs, bool byRuns = true) {
  GeneralPlanRequest req;
  req.src = plan.source;
  req.dst = plan.dest;
  req.elemBytes = plan.elemBytes;
  req.copy = plan.copy;
  req.shape = plans.shape;
  req.countByRuns = byRuns;
  NetworkGeneralPlanRequest nreq{plan.source, plan.dest, plan.elemBytes,
                                 plan.copy, plans.network};
  double best = 1e30;
  cpuMs = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto t = Clock::now();
    std::clock_t c0 = std::clock();
    auto planned =
        plans.onNetwork ? planNetworkGeneralRemap(nreq) : planGeneralRemap(req);
    double ms = secondsSince(t) * 1e3;
    cpuMs = std::min(cpuMs, double(std::clock() - c0) * 1e3 / CLOCKS_PER_SEC);
    if (planned.index() != 0)
      die("planning failed while timing");
    const rt::GeneralPlan &again = std::get<rt::GeneralPlan>(planned);
    if (again.predictedTicks != plan.predictedTicks)
      die("planning again gave another plan");
    best = std::min(best, ms);
    if (ms > 200)
      break;
  }
  return best;
}

/// CPU ms of the one exact pricing a network row's chosen plan needs,
/// however a planner finds it: the reservation walk of its route order, or
/// of its rounds when it replicates in rounds, with the moves listed before
/// and not timed (the least of three). -1 where the plan walks nothing: no
/// Route step, rounds counted from their trees (a spread's, a chain's), or
/// a walk past its memory cap (the planner then simulates the cycles).
/// Dies when the walk's ticks are not the plan's: it must be the plan's
/// own pricing.
double exactWalkMs(const rt::GeneralPlan &g, const ProgramPlans &plans) {
  if (!plans.onNetwork || g.steps.size() != 1 ||
      g.steps[0].kind != rt::GeneralStepKind::Route || g.predictedTicks == 0)
    return -1;
  const unsigned order = g.steps[0].routeOrder;
  if (order & (rt::kRouteSpread | rt::kRouteChain))
    return -1;
  const rt::NetworkShape &shape = plans.network;
  const std::vector<uint32_t> sources = rt::sourcesOf(g.source, g.dest);
  const bool rounds = order & rt::kRouteDoubling;
  std::vector<rt::RouteMove> moves;
  std::vector<std::pair<int64_t, int64_t>> cells;
  std::vector<std::vector<rt::RouteMove>> roundMoves;
  if (rounds) {
    cells = rt::replicaCells(g.dest, sources);
    roundMoves =
        rt::doublingRoundMoves(shape, g.source, g.dest, sources,
                               order & ~rt::kRouteFarthestFirst, &cells);
  } else {
    moves = rt::generalRouteMoves(shape, g.source, g.dest, sources);
  }
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const std::clock_t c0 = std::clock();
    int64_t ticks = 0;
    if (rounds)
      for (int64_t t :
           rt::timeDoublingRoundMoves(shape, roundMoves, g.source, g.dest,
                                      sources, &cells, g.elemBytes, order))
        ticks += t;
    else
      ticks = rt::timeRoute(shape, moves, order);
    best = std::min(best, double(std::clock() - c0) * 1e3 / CLOCKS_PER_SEC);
    if (ticks < 0)
      return -1; // past the walk's memory: not this walk's pricing
    if (ticks != g.predictedTicks)
      die("the exact walk of a plan gave " + std::to_string(ticks) +
          " ticks, the plan " + std::to_string(g.predictedTicks));
  }
  return best;
}

/// Elements per PE of a plan's source layout: its memory slots.
double perPe(const StatementPlan &sp) {
  if (sp.general)
    return double(rt::slotsOf(sp.general->source));
  return double(uint64_t(1) << sp.plan.source.mBits);
}

struct Row {
  std::string group, name, method;
  int64_t plan = 0, bound = 0, brute = 0, r2 = -1;
  double r2Ratio = 0, ms = 0, cpuMs = 0;
  /// CPU ms of a first plan, in a fresh process (firstPlans).
  double firstMs = 0;
  /// --paired: CPU ms of planning element by element (countByRuns off).
  double walkCpuMs = -1;
  /// A network row's one exact walk (exactWalkMs), -1 where none.
  double exactWalkMs = -1;
  bool aligned = false; ///< an aligned digit permutation (003 6.2)
};

std::string ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

void printHead() {
  std::printf("%-10s %-34s %11s %11s %6s %11s %6s %10s %6s %8s %8s %8s  %s\n",
              "group", "problem", "plan", "bound", "b/plan", "brute", "p/bru",
              "r2", "p/r2", "plan ms", "cpu ms", "first ms", "method");
}

void printRow(const Row &r) {
  std::printf(
      "%-10s %-34s %11lld %11lld %6s %11s %6s %10s %6s %8.1f %8.1f %8.1f  "
      "%s\n",
      r.group.c_str(), r.name.c_str(), (long long)r.plan, (long long)r.bound,
      r.plan ? ratio(double(r.bound) / double(r.plan)).c_str() : "-",
      r.brute >= 0 ? std::to_string(r.brute).c_str() : "-",
      r.brute > 0 ? ratio(double(r.plan) / double(r.brute)).c_str() : "-",
      r.r2 >= 0 ? std::to_string(r.r2).c_str() : "-",
      r.r2 >= 0 ? ratio(r.r2Ratio).c_str() : "-", r.ms, r.cpuMs, r.firstMs,
      r.method.c_str());
  std::fflush(stdout);
}

std::string methodOf(const rt::GeneralPlan &p) {
  std::string s;
  for (const rt::GeneralStep &st : p.steps) {
    if (!s.empty())
      s += "+";
    s += rt::generalStepKindName(st.kind);
    if (st.inPlace)
      s += "[in place]";
  }
  return s.empty() ? "(nothing moves)" : s;
}

/// A statement's plan in a fresh process: its ticks and the CPU ms of
/// planning it (StatementPlan::planningCpuMs).
struct FirstPlan {
  int64_t ticks = 0;
  double cpuMs = 0;
};

/// --first-plans=FILE [--as=WHAT]: this benchmark run afresh by
/// firstPlansOf. Sets the heap up as mapc does, compiles FILE as `mapc
/// FILE WHAT` plans it (the statements in order, each after those before
/// it, as in mapc) and prints a line per statement: its ticks and the CPU
/// ms of its plan, or "- 0" for a statement the general planner did not
/// plan.
int printFirstPlans(const std::string &file, const std::string &what) {
  auto buf = llvm::MemoryBuffer::getFile(file);
  if (!buf)
    die("cannot read " + file);
  Compiled c;
  compile(file, (*buf)->getBuffer().str(), c, what.c_str());
  for (const StatementPlan &sp : c.plans.statements)
    if (sp.general)
      std::printf("%lld %.3f\n", (long long)sp.general->predictedTicks,
                  sp.planningCpuMs);
    else
      std::printf("- 0\n");
  return 0;
}

/// Every statement's first plan (printFirstPlans), from this benchmark's
/// executable run on `source` in a process of its own: a first plan there
/// finds no memory touched and empty per-thread caches, as in mapc. The
/// least CPU time of three such processes: one alone varied 1.4-2.7x here
/// (7.6 to 21 ms on the 31 x 33 broadcast, with the same page faults).
std::vector<FirstPlan> firstPlansOf(const std::string &source,
                                    const std::string &what) {
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("mapc-bench-first", "map", fd, path))
    die("cannot create a temporary file");
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << source;
  }
  static const std::string self =
      llvm::sys::fs::getMainExecutable(nullptr, (void *)&firstPlansOf);
  const std::string command =
      "'" + self + "' --first-plans='" + std::string(path) + "' --as=" + what;
  std::vector<FirstPlan> least;
  for (int run = 0; run < 3; ++run) {
    std::FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
      die("cannot run " + command);
    std::vector<FirstPlan> plans;
    char line[128];
    while (std::fgets(line, sizeof line, pipe)) {
      FirstPlan p;
      long long ticks = 0;
      p.ticks =
          std::sscanf(line, "%lld %lf", &ticks, &p.cpuMs) == 2 ? ticks : -1;
      plans.push_back(p);
    }
    if (pclose(pipe) != 0)
      die(command + " failed");
    if (run == 0) {
      least = plans;
      continue;
    }
    if (plans.size() != least.size())
      die(command + " planned another number of statements");
    for (size_t i = 0; i < plans.size(); ++i) {
      if (plans[i].ticks != least[i].ticks)
        die(command + " planned other ticks");
      least[i].cpuMs = std::min(least[i].cpuMs, plans[i].cpuMs);
    }
  }
  llvm::sys::fs::remove(path);
  return least;
}

/// --paired: also time planning element by element (GeneralPlanRequest's
/// countByRuns off), alternating with the default, for a before/after
/// table in one run.
bool pairedTimes = false;

std::vector<Row> runProblem(const Problem &pb) {
  Compiled c;
  // A row that is not simulated is planned as --emit=plan plans, without
  // the simulator's memory limit.
  const char *what = pb.simulate ? "--run" : "--emit=plan";
  compile(pb.name, pb.source, c, what);
  const std::vector<FirstPlan> first = firstPlansOf(pb.source, what);
  if (first.size() != c.plans.statements.size())
    die(pb.name + ": a fresh process planned " + std::to_string(first.size()) +
        " statements, this one " + std::to_string(c.plans.statements.size()));
  std::vector<int64_t> ticks;
  if (pb.simulate)
    ticks = runAll(pb.name, c);
  else
    for (const StatementPlan &sp : c.plans.statements)
      ticks.push_back(sp.general ? sp.general->predictedTicks : 0);
  std::vector<int64_t> r2Ticks;
  Compiled twin;
  if (!pb.radix2.empty()) {
    compile(pb.name + " (radix-2 twin)", pb.radix2, twin);
    r2Ticks = runAll(pb.name + " (radix-2 twin)", twin);
    for (const StatementPlan &sp : twin.plans.statements)
      if (sp.general)
        die(pb.name + ": the radix-2 twin took the general planner");
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < c.plans.statements.size(); ++i) {
    const StatementPlan &sp = c.plans.statements[i];
    if (!sp.general)
      die(pb.name + ": " + sp.label + " is not a general remap");
    const rt::GeneralPlan &g = *sp.general;
    if (g.predictedTicks != ticks[i])
      die(pb.name + ": " + sp.label + ": predicted " +
          std::to_string(g.predictedTicks) + " ticks, simulated " +
          std::to_string(ticks[i]));
    Row r;
    r.group = pb.group;
    r.name = c.plans.statements.size() > 1
                 ? pb.name + " #" + std::to_string(i + 1)
                 : pb.name;
    r.method = methodOf(g) + (pb.simulate ? "" : " (predicted, not run)");
    r.plan = ticks[i];
    r.bound = g.lowerBound;
    // A network has one method (Route): no brute-force baseline.
    r.brute = c.plans.onNetwork || !pb.simulate ? -1
              : g.steps.empty()                 ? 0
                                                : bruteTicks(g, c.plans.shape);
    r.ms = planningMs(g, c.plans, r.cpuMs);
    if (first[i].ticks != g.predictedTicks)
      die(pb.name + ": " + sp.label + ": a fresh process planned " +
          std::to_string(first[i].ticks) + " ticks, this one " +
          std::to_string(g.predictedTicks));
    r.firstMs = first[i].cpuMs;
    r.exactWalkMs = exactWalkMs(g, c.plans);
    if (pairedTimes && pb.simulate) {
      // Alternating, so that both see the same load: by runs, element by
      // element, by runs again (the least of each kept).
      double again;
      planningMs(g, c.plans, r.walkCpuMs, false);
      planningMs(g, c.plans, again);
      r.cpuMs = std::min(r.cpuMs, again);
    }
    if (i < r2Ticks.size()) {
      const StatementPlan &tp = twin.plans.statements[i];
      r.r2 = r2Ticks[i];
      r.aligned = true;
      // Ticks per element held by a PE: the twin's sizes differ.
      double mine = double(r.plan) / perPe(sp);
      double theirs = double(r.r2) / perPe(tp);
      r.r2Ratio = theirs > 0 ? mine / theirs : 0;
    }
    printRow(r);
    rows.push_back(r);
  }
  return rows;
}

/// A problem of remapping `from` to `to` and its radix-2 twin.
Problem digitProblem(std::string group, std::string name,
                     const DigitLayout &from, const DigitLayout &to) {
  return {std::move(group), std::move(name), digitProgram(from, to),
          digitProgram(roundBases(from), roundBases(to))};
}

/// 003 6.2.1's four components at MasPar size: 1000 PEs (10 x 10 x 10 as
/// digits 10, 5, 2, 10) of 90 or 150 elements.
std::vector<Problem> examples621(bool quick) {
  // Digits a5..a0: P = a5:10 a4:10 a3:10, M = a2:6 a1:3 a0:5 (quick: P =
  // a5:3 a4:5 a3:2).
  std::vector<Digit> p = quick ? std::vector<Digit>{{5, 3}, {4, 5}, {3, 2}}
                               : std::vector<Digit>{{5, 10}, {4, 10}, {3, 10}};
  std::vector<Digit> m = {{2, 6}, {1, 3}, {0, 5}};
  DigitLayout s{p, m};
  DigitLayout mem{p, {m[2], m[0], m[1]}};
  DigitLayout proc{{p[2], p[0], p[1]}, m};
  DigitLayout both{{p[1], p[2], p[0]}, {m[1], m[2], m[0]}};
  std::vector<Problem> out = {
      digitProblem("6.2.1", "memory permutation", s, mem),
      digitProblem("6.2.1", "processor permutation", s, proc),
      digitProblem("6.2.1", "combined permutation", s, both),
  };
  // The base-5 P/M exchange: the last P digit and the last M digit, both
  // of base 5, trade places.
  std::vector<Digit> p5 =
      quick ? std::vector<Digit>{{4, 2}, {3, 3}, {2, 5}}
            : std::vector<Digit>{{5, 5}, {4, 5}, {3, 5}, {2, 5}};
  std::vector<Digit> m5 = {{1, 6}, {0, 5}};
  DigitLayout x{p5, m5};
  DigitLayout y = x;
  std::swap(y.p.back(), y.m.back());
  out.push_back(digitProblem("6.2.1", "base-5 P/M exchange", x, y));
  return out;
}

/// A random factorisation: P digits whose product is at most `maxPes`, M
/// digits whose product is at most `maxSlots`, bases from a mixed set.
DigitLayout randomDigits(std::mt19937_64 &rng, uint64_t maxPes,
                         uint64_t maxSlots) {
  static const unsigned kBases[] = {2, 3, 3, 5, 5, 6, 7, 10};
  DigitLayout l;
  unsigned next = 0;
  auto fill = [&](std::vector<Digit> &ds, uint64_t cap, unsigned minDigits) {
    uint64_t n = 1;
    for (int tries = 0; tries < 40; ++tries) {
      unsigned b = kBases[rng() % (sizeof kBases / sizeof *kBases)];
      if (n * b > cap) {
        if (ds.size() >= minDigits)
          break;
        continue;
      }
      n *= b;
      ds.push_back({0, b});
    }
  };
  fill(l.m, maxSlots, 2);
  fill(l.p, maxPes, 2);
  // Number the digits a0 upwards from the last M digit.
  for (auto it = l.m.rbegin(); it != l.m.rend(); ++it)
    it->index = next++;
  for (auto it = l.p.rbegin(); it != l.p.rend(); ++it)
    it->index = next++;
  return l;
}

/// Lays `all` (P digits then M digits) back into a layout of `like`'s shape.
DigitLayout reshapeLike(const DigitLayout &like,
                        const std::vector<Digit> &all) {
  DigitLayout out;
  out.p.assign(all.begin(), all.begin() + long(like.p.size()));
  out.m.assign(all.begin() + long(like.p.size()), all.end());
  return out;
}

/// Digit swaps (figs. 6.12, 6.14): two digits of one base trade places, an
/// identity M digit kept so that every PE communicates (003 6.4.2); and
/// random permutations of all digits (figs. 6.11, 6.13) that keep the P and
/// M products.
std::vector<Problem> randomDigitProblems(bool quick) {
  std::vector<Problem> out;
  std::mt19937_64 rng(6112);
  const uint64_t maxPes = quick ? 64 : 1024, maxSlots = quick ? 32 : 256;
  const int count = quick ? 2 : 6;
  for (int made = 0, tries = 0; made < count && tries < 1000; ++tries) {
    DigitLayout s = randomDigits(rng, maxPes, maxSlots);
    std::vector<Digit> all = s.p;
    all.insert(all.end(), s.m.begin(), s.m.end());
    // Candidate pairs of equal base, not both the last (identity) M digit.
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t i = 0; i + 1 < all.size(); ++i)
      for (size_t j = i + 1; j + 1 < all.size(); ++j)
        if (all[i].base == all[j].base)
          pairs.push_back({i, j});
    if (pairs.empty())
      continue;
    auto [i, j] = pairs[rng() % pairs.size()];
    auto where = [&](size_t k) {
      return std::string(k < s.p.size() ? "P " : "M ") + "a" +
             std::to_string(all[k].index);
    };
    std::string name = "swap " + where(i) + "/" + where(j) + " b" +
                       std::to_string(all[i].base) + " (" +
                       std::to_string(productOf(s.p)) + "x" +
                       std::to_string(productOf(s.m)) + ")";
    std::swap(all[i], all[j]);
    out.push_back(digitProblem("swap", name, s, reshapeLike(s, all)));
    ++made;
  }
  for (int k = 0; k < count; ++k) {
    DigitLayout s;
    std::vector<Digit> all;
    // Permutations that keep the P product: shuffle until it matches.
    for (int tries = 0;; ++tries) {
      s = randomDigits(rng, maxPes, maxSlots);
      all = s.p;
      all.insert(all.end(), s.m.begin(), s.m.end());
      bool found = false;
      for (int t = 0; t < 200 && !found; ++t) {
        std::shuffle(all.begin(), all.end(), rng);
        found = productOf(reshapeLike(s, all).p) == productOf(s.p);
      }
      if (found)
        break;
      if (tries > 100)
        die("no random digit permutation found");
    }
    std::string name = "random #" + std::to_string(k + 1) + " (" +
                       std::to_string(productOf(s.p)) + "x" +
                       std::to_string(productOf(s.m)) + ")";
    out.push_back(digitProblem("random", name, s, reshapeLike(s, all)));
  }
  return out;
}

/// Adds every spec of `small` (--quick) or of `full` with `add`.
template <typename Spec, size_t Small, size_t Full, typename Add>
void forSizes(bool quick, const Spec (&small)[Small], const Spec (&full)[Full],
              Add &&add) {
  if (quick)
    for (const Spec &s : small)
      add(s);
  else
    for (const Spec &s : full)
      add(s);
}

/// HPF block <-> cyclic(k) on 7, 10, 3 x 5 and 31 x 33 PEs (10^6 elements),
/// on 7 and 3 x 5 (10^7), and on 7 and 10 (10^8, planned from the runs and
/// periods of the layouts, MoveCounts.h, and not simulated).
std::vector<Problem> hpfProblems(bool quick) {
  struct Spec {
    const char *name, *pes, *procs, *array, *from, *to;
    uint64_t memory;
    bool simulate = true;
  };
  // Full: 10^6 f32 elements; quick: 10^4.
  const Spec full[] = {
      {"1e6 on 7: block<->cyclic(3)", "7", "7", "1000000", "block", "cyclic(3)",
       4u << 20},
      {"1e6 on 10: block<->cyclic(5)", "10", "10", "1000000", "block",
       "cyclic(5)", 3u << 20},
      {"1e6 on 3x5: bb<->c,c(3)", "3, 5", "3, 5", "1000, 1000", "block, block",
       "cyclic, cyclic(3)", 2u << 20},
      {"1e6 on 31x33: bb<->c(2),c", "31, 33", "31, 33", "1000, 1000",
       "block, block", "cyclic(2), cyclic", 64u << 10},
      // 10^7: planning walks the elements in a few seconds here.
      {"1e7 on 7: block<->cyclic(3)", "7", "7", "10000000", "block",
       "cyclic(3)", 28u << 20},
      {"1e7 on 3x5: bb<->c,c(3)", "3, 5", "3, 5", "2500, 4000", "block, block",
       "cyclic, cyclic(3)", 12u << 20},
      // 10^8: copies planned without walking the elements (on 10 PEs 003
      // 6.2.2's candidates price their intermediate moves from their
      // digits); the simulation would take minutes and gigabytes.
      {"1e8 on 7: block<->cyclic(3) copy", "7", "7", "100000000", "block",
       "cyclic(3)", 240u << 20, false},
      {"1e8 on 10: block<->cyclic(5) copy", "10", "10", "100000000", "block",
       "cyclic(5)", 170u << 20, false},
  };
  const Spec small[] = {
      {"1e4 on 7: block<->cyclic(3)", "7", "7", "10000", "block", "cyclic(3)",
       64u << 10},
      {"1e4 on 3x5: bb<->c,c(3)", "3, 5", "3, 5", "100, 100", "block, block",
       "cyclic, cyclic(3)", 32u << 10},
      {"1e4 on 31x33: bb<->c(2),c", "31, 33", "31, 33", "100, 100",
       "block, block", "cyclic(2), cyclic", 4u << 10},
      {"1e6 on 7: block<->cyclic(3) copy", "7", "7", "1000000", "block",
       "cyclic(3)", 4u << 20, false},
  };
  std::vector<Problem> out;
  auto add = [&](const Spec &s) {
    std::string src = std::string("machine maspar(pes = [") + s.pes +
                      "], cluster = 16, memory = " + std::to_string(s.memory) +
                      ");\nprocessors P(" + s.procs + ");\narray A(" + s.array +
                      ") : f32;\n";
    if (s.simulate)
      src += std::string("distribute A(") + s.from +
             ") onto P;\nredistribute A(" + s.to +
             ") onto P;\nredistribute A(" + s.from + ") onto P;\n";
    else // Copies there and back: an in-place remap of this size would
         // find no room for the scratch region within the simulator's
         // memory and be planned in place (brute force) instead.
      src += std::string("array B(") + s.array + ") : f32;\ndistribute A(" +
             s.from + ") onto P;\ndistribute B(" + s.to +
             ") onto P;\ncopy A to B;\ncopy B to A;\n";
    out.push_back({"hpf", s.name, src, "", s.simulate});
  };
  forSizes(quick, small, full, add);
  return out;
}

/// 003 6.2.1's data replication: a vector of n f32 elements, element i on
/// PE i, realigned to be replicated over all PEs (an all-gather of small
/// sources: the exchange step's replication rounds).
std::vector<Problem> replicationProblems(bool quick) {
  struct Spec {
    int n, pes;
  };
  const Spec full[] = {{8, 30}, {30, 30}, {64, 100}, {200, 1000}};
  const Spec small[] = {{8, 30}, {30, 30}};
  std::vector<Problem> out;
  auto add = [&](const Spec &s) {
    const std::string n = std::to_string(s.n), p = std::to_string(s.pes);
    std::string src = "machine maspar(pes = [" + p +
                      "], cluster = 16, memory = 65536);\nprocessors P(" + p +
                      ");\narray A(" + p + ") : f32;\narray B(" + n + ", " + p +
                      ") : f32;\narray V(" + n +
                      ") : f32;\ndistribute A(block) onto P;\n"
                      "distribute B(*, block) onto P;\nalign V(i) with "
                      "A(i);\nrealign V(i) with B(i, *);\n";
    out.push_back({"replicate", n + " over " + p + ": all-gather", src, ""});
  };
  forSizes(quick, small, full, add);
  return out;
}

/// HPF redistributions on meshes whose sides are not powers of two and on
/// a hypercube: general plans of one Route step (NetworkExecute.h), ticks
/// in element transfers in sequence (001's model), no brute force.
std::vector<Problem> networkProblems(bool quick) {
  struct Spec {
    const char *name, *machine, *procs, *array, *from, *to;
  };
  const Spec full[] = {
      {"1e5 on mesh 7: block<->cyclic(3)", "mesh(pes = [7]", "7", "100000",
       "block", "cyclic(3)"},
      {"1e5 on mesh 3x5: bb<->c,c(3)", "mesh(pes = [3, 5]", "3, 5", "316, 316",
       "block, block", "cyclic, cyclic(3)"},
      {"1e5 on mesh 31x33: bb<->c(2),c", "mesh(pes = [31, 33]", "31, 33",
       "316, 316", "block, block", "cyclic(2), cyclic"},
      {"1e5 on 10-cube: bb<->c(2),c", "hypercube(dims = 10", "31, 33",
       "316, 316", "block, block", "cyclic(2), cyclic"},
  };
  const Spec small[] = {
      {"1e3 on mesh 3x5: bb<->c,c(3)", "mesh(pes = [3, 5]", "3, 5", "40, 25",
       "block, block", "cyclic, cyclic(3)"},
      {"1e3 on 5-cube: bb<->c(2),c", "hypercube(dims = 5", "5, 6", "40, 25",
       "block, block", "cyclic(2), cyclic"},
  };
  std::vector<Problem> out;
  auto add = [&](const Spec &s) {
    std::string src = std::string("machine ") + s.machine +
                      ", memory = 65536);\nprocessors P(" + s.procs +
                      ");\narray A(" + s.array + ") : f32;\ndistribute A(" +
                      s.from + ") onto P;\nredistribute A(" + s.to +
                      ") onto P;\nredistribute A(" + s.from + ") onto P;\n";
    out.push_back({"network", s.name, src, ""});
  };
  forSizes(quick, small, full, add);
  // A replicated realign: a vector on one column of the nodes (an HPF
  // V(i) with A(i, 1)), then copied to every column (V(i) with A(i, *)),
  // the broadcast recursive doubling is for (NetworkReplication.h).
  struct Broadcast {
    const char *name, *machine, *procs;
    int rows, cols;
  };
  const Broadcast fullCasts[] = {
      {"9e3 on mesh 31x33: V(i) A(i,1)->A(i,*)", "mesh(pes = [31, 33]",
       "31, 33", 9300, 33},
      {"9e3 on 10-cube: V(i) A(i,1)->A(i,*)", "hypercube(dims = 10", "31, 33",
       9300, 33},
      // Rows of 5-subcubes: a spread (NetworkReplication.h).
      {"9e3 on 10-cube 32x32: V(i) A(i,1)->A(i,*)", "hypercube(dims = 10",
       "32, 32", 9600, 32},
  };
  const Broadcast smallCasts[] = {
      {"600 on mesh 3x7: V(i) A(i,1)->A(i,*)", "mesh(pes = [3, 7]", "3, 7", 600,
       7},
      {"600 on 5-cube: V(i) A(i,1)->A(i,*)", "hypercube(dims = 5", "3, 7", 600,
       7},
  };
  auto addCast = [&](const Broadcast &b) {
    const std::string rows = std::to_string(b.rows);
    std::string src = std::string("machine ") + b.machine +
                      ", memory = 65536);\nprocessors P(" + b.procs +
                      ");\narray A(" + rows + ", " + std::to_string(b.cols) +
                      ") : f32;\narray V(" + rows +
                      ") : f32;\ndistribute A(block, block) onto P;\nalign "
                      "V(i) with A(i, 1);\nrealign V(i) with A(i, *);\n";
    out.push_back({"network", b.name, src, ""});
  };
  forSizes(quick, smallCasts, fullCasts, addCast);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  // The heap as mapc sets it up (HugePageHeap.h), before any thread: the
  // first plans (firstPlansOf) and the warm ones see mapc's memory.
  useHugePageHeap();
  bool quick = false;
  std::string firstPlansFile, as = "--run";
  std::string only;     // --only=GROUP: one group of problems (for profiling)
  std::string named;    // --problem=TEXT: the problems whose names hold TEXT
  std::string writeDir; // --write=DIR: each problem's program, not run
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--paired")
      pairedTimes = true;
    else if (a.rfind("--only=", 0) == 0)
      only = a.substr(7);
    else if (a.rfind("--problem=", 0) == 0)
      named = a.substr(10);
    else if (a.rfind("--write=", 0) == 0)
      writeDir = a.substr(8);
    else if (a.rfind("--first-plans=", 0) == 0)
      firstPlansFile = a.substr(14);
    else if (a.rfind("--as=", 0) == 0)
      as = a.substr(5);
    else {
      std::fprintf(stderr, "usage: mapc-bench-mixed-radix [--quick] [--paired] "
                           "[--only=6.2.1|swap|random|hpf|network|replicate] "
                           "[--problem=TEXT] "
                           "[--write=DIR]\n");
      return 2;
    }
  }
  if (!firstPlansFile.empty())
    return printFirstPlans(firstPlansFile, as);
  auto t0 = Clock::now();
  std::printf(
      "== General remaps (003 ch. 6) on the simulated MasPar%s ==\n"
      "Digit problems: 32 x 32 PEs, clusters of 16, u8 elements; HPF: the "
      "PEs named, f32.\nTicks are simulated (every element checked, "
      "prediction = simulation), except on the rows marked\n"
      "\"predicted, not run\" (10^8 elements: planned only). Columns:\n"
      "  plan   ticks of the general planner's plan;  bound  "
      "rt::generalLowerBound;  b/plan = bound/plan\n"
      "  brute  ticks of the brute-force plan (003 6.3.3, 6.3.8);  p/bru = "
      "plan/brute\n"
      "  r2     ticks of the radix-2 plan of the same digit pattern, bases "
      "rounded to powers\n"
      "         of two;  p/r2 = plan/r2 per element held by a PE (003 6.2.2: "
      "within 3x)\n"
      "  plan ms  wall clock of planGeneralRemap alone (least of up to 5 "
      "calls); cpu ms: its\n"
      "         process CPU time;  first ms: CPU time of its plan in a fresh "
      "process, after\n         the statements before it, as mapc plans "
      "it\n\n",
      quick ? " (--quick: small sizes)" : "");
  printHead();
  std::vector<Problem> problems = examples621(quick);
  for (Problem &p : randomDigitProblems(quick))
    problems.push_back(std::move(p));
  for (Problem &p : hpfProblems(quick))
    problems.push_back(std::move(p));
  for (Problem &p : networkProblems(quick))
    problems.push_back(std::move(p));
  for (Problem &p : replicationProblems(quick))
    problems.push_back(std::move(p));

  auto chosen = [&](const Problem &pb) {
    return (only.empty() || only == pb.group) &&
           pb.name.find(named) != std::string::npos;
  };
  // The programs as .map files, to profile `mapc FILE --emit=plan` on them.
  if (!writeDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(writeDir))
      die("cannot create " + writeDir + ": " + ec.message());
    for (const Problem &pb : problems) {
      if (!chosen(pb))
        continue;
      std::string file = pb.group + "-" + pb.name;
      for (char &ch : file)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' &&
            ch != '-')
          ch = '_';
      std::FILE *f = std::fopen((writeDir + "/" + file + ".map").c_str(), "w");
      if (!f)
        die("cannot write into " + writeDir);
      std::fputs(pb.source.c_str(), f);
      std::fclose(f);
    }
    return 0;
  }
  std::vector<Row> rows;
  for (const Problem &pb : problems)
    for (Row &r : chosen(pb) ? runProblem(pb) : std::vector<Row>{})
      rows.push_back(std::move(r));

  // The goals of issue 11.
  int fastCpu = 0, fastCold = 0;
  int slower = 0, moved = 0, alignedRows = 0, within3 = 0, halfBound = 0,
      fast = 0;
  double worstR2 = 0, worstBound = 1e9, worstMs = 0;
  std::vector<double> msAll, cpuAll, coldAll;
  for (const Row &r : rows) {
    if (r.plan == 0)
      continue;
    ++moved;
    slower += r.brute >= 0 && r.plan > r.brute;
    msAll.push_back(r.ms);
    cpuAll.push_back(r.cpuMs);
    coldAll.push_back(r.firstMs);
    worstMs = std::max(worstMs, r.ms);
    fast += r.ms < 10;
    fastCpu += r.cpuMs < 10;
    fastCold += r.firstMs < 10;
    if (r.aligned) {
      ++alignedRows;
      within3 += r.r2Ratio <= 3;
      halfBound += 2 * r.bound >= r.plan;
      worstR2 = std::max(worstR2, r.r2Ratio);
      worstBound = std::min(worstBound, double(r.bound) / double(r.plan));
    }
  }
  std::printf("\nGoals over %d statements that move data:\n", moved);
  std::printf("  never slower than brute force:        %s (%d slower)\n",
              slower ? "MISSED" : "met", slower);
  std::printf("  aligned digit perms within 3x of r2:  %d of %d (worst "
              "%.2fx)\n",
              within3, alignedRows, worstR2);
  std::printf("  aligned digit perms >= 0.5 of bound:  %d of %d (worst "
              "%.2f)\n",
              halfBound, alignedRows, alignedRows ? worstBound : 0.0);
  std::printf("  planning < 10 ms per statement:       %d of %d wall clock "
              "(median %.1f ms, worst %.1f ms),\n"
              "                                        %d of %d CPU time "
              "(median %.1f ms),\n"
              "                                        %d of %d CPU time of a "
              "first plan (median %.1f ms)\n",
              fast, moved, median(msAll), worstMs, fastCpu, moved,
              median(cpuAll), fastCold, moved, median(coldAll));
  // What a planner that prices its pick by the reservation walk spends at
  // least on each network row that walks: under 10 ms cannot be met by
  // such a planner where this is near or over it.
  std::printf("\nNetwork rows: CPU ms of the one exact walk of the chosen "
              "plan alone (its route\norder's, or its rounds'), against the "
              "CPU ms of a first plan:\n%-10s %-42s %8s %8s\n",
              "group", "problem", "walk ms", "first ms");
  for (const Row &r : rows)
    if (r.exactWalkMs >= 0)
      std::printf("%-10s %-42s %8.1f %8.1f\n", r.group.c_str(), r.name.c_str(),
                  r.exactWalkMs, r.firstMs);
  if (pairedTimes) {
    std::printf("\nCPU ms of planGeneralRemap, element by element (the "
                "table of sources) and by runs\n(MoveCounts.h), alternating "
                "in this run:\n%-10s %-34s %10s %10s %8s\n",
                "group", "problem", "by elems", "by runs", "ratio");
    for (const Row &r : rows)
      if (r.walkCpuMs >= 0)
        std::printf("%-10s %-34s %10.1f %10.1f %7.1fx\n", r.group.c_str(),
                    r.name.c_str(), r.walkCpuMs, r.cpuMs,
                    r.walkCpuMs / std::max(r.cpuMs, 0.01));
  }
  std::printf("Total wall time %.1f s.\n", secondsSince(t0));
  return 0;
}
