//===- Fig53.cpp - 003 fig. 5.3's remap problems on the simulated MP-1 ----===//
//
// A driver, not a test: it plans the in-place remap problems of 003 5.8.1
// (figs. 5.3 and 5.4) with the optimal planner and both baselines, runs
// every plan on the simulated 1024-PE MP-1 (32 x 32 PEs, clusters of 16),
// checks every element of the result, and prints simulated time, the lower
// bound and the thesis's measured time side by side. Then it times the
// planner itself and reproduces Fier's perfect shuffle (003 5.8.2).
//
// Every problem has 10 m-bits and 10 p-bits: 1024 elements per PE. As fig.
// 5.3's caption says, the 16-, 32- and 64-bit problems are the same bit
// permutation with a wider element (elemBytes 2, 4, 8); the thesis states
// them as 8-bit data with 1-3 identity low m-bits and the permuted m-bits
// moved up, and the benchmark checks that this form costs the same.
//
// Run: build/bench/mapc-bench-fig53 (about a minute). See
// docs/cost-model.md for the model behind the numbers.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Contents.h"
#include "passes/RemapPlanner.h"
#include "test/unit/RandomRemap.h"

#include "BenchSupport.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace mapc;
using rt::BitLayout;
using rt::BitMove;
using rt::Plan;

namespace {

using bench::Clock;
using bench::secondsSince;

[[noreturn]] void die(const std::string &msg) {
  bench::die("mapc-bench-fig53", msg);
}

double micros(int64_t ticks) {
  return double(ticks) * rt::kNanosecondsPerTick / 1000.0;
}

/// Data bit i at device bit i, nothing inverted or disabled.
BitLayout identityLayout(unsigned mBits, unsigned pBits) {
  BitLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = mBits + pBits;
  for (unsigned i = 0; i < l.dataBits; ++i) {
    l.dataBit.push_back(int(i));
    l.value.push_back(0);
  }
  return l;
}

/// 003 4.2.2's cycle notation: each bit is followed by the bit it moves
/// to, the last by the first; `!` marks a destination bit inverted after
/// the move (as rt::formatMove prints it). Unlisted bits stay.
BitMove parseCycles(const std::string &text, unsigned mBits, unsigned pBits) {
  unsigned n = mBits + pBits;
  BitMove move = BitMove::identity(n);
  std::vector<bool> used(n, false);
  size_t i = 0;
  auto bad = [&](const std::string &why) {
    die("cycle notation \"" + text + "\" at " + std::to_string(i) + ": " + why);
  };
  auto skipSpace = [&] {
    while (i < text.size() && std::isspace((unsigned char)text[i]))
      ++i;
  };
  for (skipSpace(); i < text.size(); skipSpace()) {
    if (text[i] != '(')
      bad("expected '('");
    ++i;
    skipSpace();
    if (i < text.size() && text[i] == ')') {
      ++i; // "()": formatMove's identity
      continue;
    }
    std::vector<unsigned> cycle;
    for (;;) {
      skipSpace();
      bool inverted = i < text.size() && text[i] == '!';
      if (inverted)
        ++i;
      if (i >= text.size() || (text[i] != 'm' && text[i] != 'p'))
        bad("expected a bit mN or pN");
      bool isM = text[i++] == 'm';
      if (i >= text.size() || !std::isdigit((unsigned char)text[i]))
        bad("expected a bit number");
      unsigned k = 0;
      while (i < text.size() && std::isdigit((unsigned char)text[i]))
        k = 10 * k + unsigned(text[i++] - '0');
      if (k >= (isM ? mBits : pBits))
        bad("no such bit");
      unsigned bit = isM ? k : mBits + k;
      if (used[bit])
        bad("bit listed twice");
      used[bit] = true;
      cycle.push_back(bit);
      if (inverted)
        move.flip |= uint64_t(1) << bit;
      skipSpace();
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == ')') {
        ++i;
        break;
      }
      bad("expected ',' or ')'");
    }
    for (size_t k = 0; k < cycle.size(); ++k)
      move.to[cycle[k]] = cycle[(k + 1) % cycle.size()];
  }
  return move;
}

/// The same move on `k` more m-bits, placed below it as identity bits.
BitMove widenLow(const BitMove &move, unsigned k) {
  BitMove w = BitMove::identity(move.bits() + k);
  for (unsigned i = 0; i < move.bits(); ++i)
    w.to[i + k] = move.to[i] + k;
  w.flip = move.flip << k;
  return w;
}

struct Problem {
  const char *name;
  const char *cycles;
  /// 003 fig. 5.3, microseconds for 8/16/32/64-bit data; 0 = "-".
  double thesis[4];
  /// The thesis's xnet row (simple (mp*) only), used when our plan takes
  /// the xnet.
  double thesisXnet[4];
  /// 003 fig. 5.4's bound as a formula of fig. 5.2's prices, in ticks.
  int64_t (*fig54)(const rt::CostModel &c, unsigned w);
};

// 003 fig. 5.4, with T_x from fig. 5.2 and w = log2(element bytes).
int64_t fig54ShortM(const rt::CostModel &c, unsigned w) {
  return 992 * (c.load[w] + c.store(w));
}
int64_t fig54LongM(const rt::CostModel &c, unsigned w) {
  return 1024 * (c.load[w] + c.store(w));
}
int64_t fig54PKept(const rt::CostModel &c, unsigned w) {
  return 1024 * (c.load[w] + c.store(w)) + c.ropen +
         (int64_t(128) << w) * 16 * c.rsend[3];
}
int64_t fig54PNone(const rt::CostModel &c, unsigned w) {
  return 1024 * (c.load[w] + c.store(w)) +
         16 * (int64_t(128) << w) * (c.ropen + c.rsend[3]);
}
int64_t fig54SimpleMP(const rt::CostModel &c, unsigned w) {
  return 1024 * (c.loadIndirect[w] + c.storeIndirect(w)) +
         (int64_t(128) << w) * c.ropen + 16 * 1024 * c.rsend[w];
}
int64_t fig54LongMixed(const rt::CostModel &c, unsigned w) {
  return 1024 * (c.loadIndirect[w] + c.storeIndirect(w)) +
         (int64_t(128) << w) * (c.ropen + 16 * c.rsend[3]);
}

const Problem kProblems[] = {
    {"identity (m0)", "(m0)", {166, 0, 0, 0}, {0, 0, 0, 0}, nullptr},
    {"short (m*)",
     "(m0,m1)(m2,m3)(m4,m5)(m6,m7)(m8,m9)",
     {6222, 6536, 12232, 23797},
     {0, 0, 0, 0},
     fig54ShortM},
    {"long (m*)",
     "(!m0,m1,m2,m3,m4,m5,m6,m7,m8,m9)",
     {5251, 6660, 12629, 24572},
     {0, 0, 0, 0},
     fig54LongM},
    {"(p*) clusters kept",
     "(p0,p1)(p2,p3)(p4,p9)(p5,p6)(p7,p8)",
     {59228, 79916, 122262, 141475},
     {0, 0, 0, 0},
     fig54PKept},
    {"(p*) no clusters kept",
     "(p0,p3,p2,p1,p4,p9,p5,p7,p6,p8)",
     {82565, 102551, 145199, 187339},
     {0, 0, 0, 0},
     fig54PNone},
    {"simple (mp*)",
     "(m0,p0)(m1,p1)(m2,p2)(m3,p3)(m4,p4)(m5,p5)(m6,p6)(m7,p7)(m8,p8)(m9,p9)",
     {119756, 133103, 163282, 232268},
     {35837, 45470, 71465, 131340},
     fig54SimpleMP},
    {"long mixed cycle",
     "(m8,m6,m4,m0,p6,p4,m7,p5,p7,p3,m1,p0,p9,m3,p8,m9,p1,p2,m2,m5)",
     {38116, 68529, 127576, 253146},
     {0, 0, 0, 0},
     fig54LongMixed},
};

constexpr unsigned kMBits = 10, kPBits = 10;
const rt::MachineShape kMP1{32, 32, 16};

Plan planOrDie(const PlanRequest &req, PlannerKind kind,
               const std::string &label) {
  auto planned = planRemap(req, kind);
  if (auto *err = std::get_if<std::string>(&planned))
    die(label + " (" + plannerName(kind) + "): cannot plan: " + *err);
  return std::get<Plan>(std::move(planned));
}

/// One router step for the whole move, for the problems whose optimal plan
/// takes the xnet: the thesis's "without the xnet" time. Built by hand
/// because the planner cannot be told to leave the xnet out.
Plan routerOnlyPlan(const PlanRequest &req, const std::string &label) {
  BitMove g;
  std::string why;
  if (!rt::remapMove(req.src, req.dst, g, &why))
    die(label + ": " + why);
  rt::Step best;
  best.predictedTicks = -1;
  for (bool clustered : {false, true}) {
    rt::Step s;
    s.kind = rt::StepKind::Router;
    s.move = g;
    s.clustered = clustered;
    while (s.chunkBits < req.src.mBits && g.to[s.chunkBits] == s.chunkBits &&
           !((g.flip >> s.chunkBits) & 1) &&
           (uint64_t(req.elemBytes) << (s.chunkBits + 1)) <= 8)
      ++s.chunkBits;
    s.why = "one router step, built by the benchmark";
    s.predictedTicks = rt::predictStepTicks(s, req.src, req.elemBytes, req.copy,
                                            req.shape, req.cost);
    if (s.predictedTicks < 0)
      die(label + ": no single router step can carry this move");
    if (best.predictedTicks < 0 || s.predictedTicks < best.predictedTicks)
      best = s;
  }
  Plan p;
  p.source = req.src;
  p.dest = req.dst;
  p.elemBytes = req.elemBytes;
  p.copy = req.copy;
  p.planner = "router-only";
  p.steps = {best};
  p.predictedTicks = best.predictedTicks;
  p.lowerBound = rt::lowerBound(req.src, req.dst, req.elemBytes, req.copy,
                                req.shape, req.cost);
  return p;
}

std::string describeSteps(const Plan &plan) {
  std::string s;
  for (const rt::Step &step : plan.steps) {
    if (!s.empty())
      s += "+";
    s += rt::stepKindName(step.kind);
    if (step.kind == rt::StepKind::Router && step.clustered)
      s += "[c]";
  }
  return s.empty() ? "(none)" : s;
}

bool usesXnet(const Plan &plan) {
  for (const rt::Step &step : plan.steps)
    if (step.kind == rt::StepKind::Xnet)
      return true;
  return false;
}

struct Miss {
  std::string label;
  int64_t predicted, simulated;
};
std::vector<Miss> predictionMisses;
int plansChecked = 0;

/// Runs `plan` on a fresh machine of `shape`, checks every element of the
/// destination (aborting on any error) and returns the ticks spent.
int64_t runAndCheck(const Plan &plan, const rt::MachineShape &shape,
                    const std::string &label) {
  uint64_t bytes = plan.source.memorySize() * plan.elemBytes;
  rt::MasPar m(shape.width, shape.height, 3 * bytes, shape.clusterSize);
  rt::Regions regions{{0}, {plan.copy ? bytes : 0}, {2 * bytes}};
  const uint64_t tag = 0x5e3;
  rt::storePattern(m, plan.source, plan.elemBytes, regions.src.base, tag);
  std::string why;
  if (!rt::executePlan(m, plan, regions, {}, &why))
    die(label + " (" + plan.planner + "): execution failed: " + why);
  uint64_t bad =
      rt::countMismatches(m, plan.dest, plan.elemBytes, regions.dst.base, tag);
  if (bad)
    die(label + " (" + plan.planner + "): " + std::to_string(bad) +
        " elements wrong after " + std::to_string(plan.steps.size()) +
        " steps: " + plan.source.str() + " -> " + plan.dest.str());
  int64_t ticks = m.ledger().total();
  ++plansChecked;
  // No bit is disabled in any problem here, so Execute.h promises that
  // the prediction is exact.
  bool anyDisabled = false;
  for (int d : plan.source.dataBit)
    anyDisabled |= d < 0;
  if (!anyDisabled && plan.predictedTicks != ticks)
    predictionMisses.push_back(
        {label + " (" + plan.planner + ")", plan.predictedTicks, ticks});
  return ticks;
}

std::string fmtMicros(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string fmtRatio(int64_t lower, int64_t sim) {
  if (lower <= 0 || sim <= 0)
    return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * double(lower) / double(sim));
  return buf;
}

/// A brute-force run (planning and simulation) longer than this makes the
/// wider widths of the same problem report the planner's prediction, which
/// is exact here, instead of simulating.
constexpr double kBruteBudgetSeconds = 3.0;

struct Sums {
  double lower = 0, sim = 0;
  void add(int64_t l, int64_t s) {
    if (l > 0) {
      lower += double(l);
      sim += double(s);
    }
  }
  double pct() const { return sim > 0 ? 100.0 * lower / sim : 0; }
};

void printTableHead() {
  std::printf("%-22s %4s %9s %9s %7s %9s %9s %9s %10s %7s  %s\n", "problem",
              "bits", "sim", "lower", "low/sim", "fig5.4", "thesis", "atomic",
              "brute", "plan", "steps");
}

void printRow(const char *name, unsigned bits, int64_t sim, int64_t lower,
              int64_t fig54, double thesis, bool thesisXnet,
              const std::string &atomic, const std::string &brute,
              const std::string &planMicros, const std::string &steps) {
  std::string th = thesis > 0 ? fmtMicros(thesis) + (thesisXnet ? "x" : " ")
                              : std::string("- ");
  std::printf("%-22s %4u %9s %9s %7s %9s %10s %9s %10s %7s  %s\n", name, bits,
              fmtMicros(micros(sim)).c_str(), fmtMicros(micros(lower)).c_str(),
              fmtRatio(lower, sim).c_str(),
              fig54 > 0 ? fmtMicros(micros(fig54)).c_str() : "-", th.c_str(),
              atomic.c_str(), brute.c_str(), planMicros.c_str(), steps.c_str());
  std::fflush(stdout);
}

void fig53Table() {
  const rt::CostModel cost;
  const BitLayout src = identityLayout(kMBits, kPBits);
  std::printf(
      "== 003 fig. 5.3 on the simulated MasPar MP-1 ==\n"
      "32 x 32 PEs, clusters of 16 (4 x 4 blocks, 003 5.6.4); 10 m-bits (1024 "
      "elements per PE)\nand 10 p-bits; in place; 1 tick = %.0f ns.\n\n",
      rt::kNanosecondsPerTick);
  std::printf(
      "Columns (times in microseconds):\n"
      "  sim      simulated time of the optimal plan (PlannerKind::Optimal)\n"
      "  lower    plan.lowerBound (runtime/lib/LowerBound.cpp); low/sim = "
      "lower / sim\n"
      "  fig5.4   the thesis's bound formula (003 fig. 5.4) priced with "
      "fig. 5.2\n"
      "  thesis   measured on the MP-1 (003 fig. 5.3); 'x' = its xnet row, "
      "shown when\n"
      "           our plan takes the xnet too\n"
      "  atomic, brute  simulated time of the baseline planners; '~' = the "
      "planner's\n"
      "           prediction (exact here) instead of a simulation\n"
      "  plan     mean wall time of one planRemap(Optimal) call on this host "
      "(1000 calls)\n"
      "  steps    the optimal plan's steps; [c] = one router connection per "
      "cluster pair\n"
      "Every plan is executed and every element of the result checked.\n\n");
  printTableHead();

  Sums all, noXnet, thesisStyle;
  double sumThesis = 0, sumSimThesis = 0;
  std::vector<std::string> notes, equivalentMisses;
  int equivalentRows = 0;
  for (const Problem &pb : kProblems) {
    BitMove move = parseCycles(pb.cycles, kMBits, kPBits);
    if (!(parseCycles(rt::formatMove(move, src), kMBits, kPBits) == move))
      die(std::string("cycle notation does not round-trip: ") + pb.cycles);
    bool bruteSimulate = true;
    for (unsigned w = 0; w < 4; ++w) {
      unsigned bytes = 1u << w;
      std::string label =
          std::string(pb.name) + ", " + std::to_string(8 * bytes) + " bit";
      PlanRequest req;
      req.src = src;
      req.dst = move.applyTo(src);
      req.elemBytes = bytes;
      req.shape = kMP1;
      req.cost = cost;

      Plan opt = planOrDie(req, PlannerKind::Optimal, label);
      int64_t sim = runAndCheck(opt, kMP1, label);
      Plan atomic = planOrDie(req, PlannerKind::Atomic, label);
      int64_t atomicTicks = runAndCheck(atomic, kMP1, label);
      auto tb = Clock::now();
      Plan brute = planOrDie(req, PlannerKind::BruteForce, label);
      std::string bruteText;
      if (bruteSimulate) {
        bruteText = fmtMicros(micros(runAndCheck(brute, kMP1, label))) + " ";
        double took = secondsSince(tb);
        if (took > kBruteBudgetSeconds && w < 3) {
          bruteSimulate = false;
          char buf[200];
          std::snprintf(buf, sizeof buf,
                        "brute force on \"%s\" took %.1f s to plan and "
                        "simulate; its wider widths show the prediction",
                        label.c_str(), took);
          notes.push_back(buf);
        }
      } else {
        bruteText = fmtMicros(micros(brute.predictedTicks)) + "~";
      }

      // Fig. 5.3's caption: the wider problems are 8-bit data with w
      // identity low m-bits and the permuted bits moved up.
      if (w > 0) {
        PlanRequest eq = req;
        eq.src = identityLayout(kMBits + w, kPBits);
        eq.dst = widenLow(move, w).applyTo(eq.src);
        eq.elemBytes = 1;
        Plan p = planOrDie(eq, PlannerKind::Optimal, label + " (8-bit form)");
        int64_t t = runAndCheck(p, kMP1, label + " (8-bit form)");
        ++equivalentRows;
        if (t != sim || p.lowerBound != opt.lowerBound)
          equivalentMisses.push_back(
              label + ": " + fmtMicros(micros(t)) + " us, bound " +
              fmtMicros(micros(p.lowerBound)) + " us as 8-bit data");
      }

      const int planReps = 1000;
      auto tp = Clock::now();
      for (int r = 0; r < planReps; ++r)
        if (planRemap(req, PlannerKind::Optimal).index() != 0)
          die(label + ": planning failed while timing");
      double planMicros = secondsSince(tp) * 1e6 / planReps;

      bool x = usesXnet(opt);
      double thesis = x ? pb.thesisXnet[w] : pb.thesis[w];
      int64_t fig54 = pb.fig54 ? pb.fig54(cost, w) : 0;
      printRow(pb.name, 8 * bytes, sim, opt.lowerBound, fig54, thesis, x,
               fmtMicros(micros(atomicTicks)) + " ", bruteText,
               fmtMicros(planMicros), describeSteps(opt));

      all.add(opt.lowerBound, sim);
      if (!x)
        noXnet.add(opt.lowerBound, sim);
      if (thesis > 0 && opt.lowerBound > 0) {
        sumThesis += thesis;
        sumSimThesis += micros(sim);
      }
      if (!x) {
        thesisStyle.add(opt.lowerBound, sim);
        continue;
      }
      // The thesis's router row for this problem.
      Plan router = routerOnlyPlan(req, label);
      int64_t routerTicks = runAndCheck(router, kMP1, label + " router-only");
      printRow("  same, router only", 8 * bytes, routerTicks, router.lowerBound,
               fig54, pb.thesis[w], false, "", "", "",
               describeSteps(router) + " (one step, built by hand)");
      thesisStyle.add(router.lowerBound, routerTicks);
    }
  }

  std::printf("\nCumulative sum(lower) / sum(sim), identity excluded (bound "
              "0):\n");
  std::printf("  all rows, the optimal plans as chosen (xnet where taken): "
              "%5.1f%%   003: 77%% with the xnet\n",
              all.pct());
  std::printf("  only rows whose plan has no xnet step:                    "
              "%5.1f%%\n",
              noXnet.pct());
  std::printf("  xnet rows replaced by their router-only plan:             "
              "%5.1f%%   003: 64%% without the xnet\n",
              thesisStyle.pct());
  std::printf("Cumulative sum(sim) / sum(thesis) over rows with a thesis "
              "time: %.1f%%\n",
              100.0 * sumSimThesis / sumThesis);
  for (const std::string &n : notes)
    std::printf("Note: %s.\n", n.c_str());
  if (equivalentMisses.empty())
    std::printf("Check: the %d rows of 16-64 bits cost the same, bound "
                "included, as 8-bit data with\n1-3 identity low m-bits "
                "(fig. 5.3's caption).\n",
                equivalentRows);
  for (const std::string &s : equivalentMisses)
    std::printf("DIFFERS as 8-bit data: %s\n", s.c_str());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void planningTimes() {
  std::printf("\n== Planning time for random remaps (not executed) ==\n");
  const int count = 50;
  const rt::MachineShape shape{128, 128, 16};
  std::mt19937_64 rng(5300);
  double sum = 0, worst = 0;
  std::vector<double> times;
  size_t steps = 0;
  for (int i = 0; i < count; ++i) {
    auto [a, b] = test::randomRemap(rng, 16, 14);
    PlanRequest req;
    req.src = a;
    req.dst = b;
    req.elemBytes = 1u << (rng() % 4);
    req.copy = rng() % 2;
    req.shape = shape;
    auto t = Clock::now();
    Plan p = planOrDie(req, PlannerKind::Optimal,
                       "random remap #" + std::to_string(i));
    double us = secondsSince(t) * 1e6;
    sum += us;
    worst = std::max(worst, us);
    times.push_back(us);
    steps += p.steps.size();
  }
  std::printf("%d random remaps of 30 device bits (16 m-bits, 14 p-bits; "
              "test/unit/RandomRemap.h),\n128 x 128 PEs, clusters of 16, "
              "random element width and in-place/copy:\n"
              "  planRemap(Optimal): mean %.0f us, median %.0f us, max %.0f us "
              "per call (the first\n  call also builds the router model of "
              "the machine); %.1f steps per plan on average\n",
              count, sum / count, median(times), worst, double(steps) / count);
}

void fierShuffle() {
  std::printf(
      "\n== Fier's perfect shuffle (003 5.8.2) ==\n"
      "(m0)(m1)(m2,m3,m4,m5,m6,m7,m8,p0,...,p13) on 128 x 128 PEs, clusters "
      "of 16: 128 32-bit\nvalues per PE. The thesis counts m-bits in bytes: "
      "m0 and m1 pick the byte of a 32-bit\nvalue, so the literal problem is "
      "9 m-bits of 8-bit data with m0, m1 identity. The\nsame remap as "
      "elemBytes 4 has 7 m-bits: (m0,...,m6,p0,...,p13). (9 m-bits with\n"
      "elemBytes 4 would be 512 values per PE, four times Fier's data.) "
      "Both forms are run.\n"
      "003 reports: Fier's hand code (copy) 37441 us; PMFs 26299 us in "
      "place, 26883 us copying.\n\n");
  const rt::MachineShape shape{128, 128, 16};
  const rt::CostModel cost;
  struct Form {
    const char *name;
    unsigned mBits, elemBytes;
    std::string cycles;
  };
  std::string ps;
  for (unsigned i = 0; i < 14; ++i)
    ps += ",p" + std::to_string(i);
  const Form forms[] = {
      {"8-bit, 9 m-bits", 9, 1, "(m0)(m1)(m2,m3,m4,m5,m6,m7,m8" + ps + ")"},
      {"32-bit, 7 m-bits", 7, 4, "(m0,m1,m2,m3,m4,m5,m6" + ps + ")"},
  };
  for (const Form &f : forms)
    for (bool copy : {false, true}) {
      BitLayout src = identityLayout(f.mBits, 14);
      PlanRequest req;
      req.src = src;
      req.dst = parseCycles(f.cycles, f.mBits, 14).applyTo(src);
      req.elemBytes = f.elemBytes;
      req.copy = copy;
      req.shape = shape;
      req.cost = cost;
      std::string label =
          std::string("Fier, ") + f.name + (copy ? ", copy" : ", in place");
      auto t = Clock::now();
      Plan p = planOrDie(req, PlannerKind::Optimal, label);
      double planUs = secondsSince(t) * 1e6;
      int64_t sim = runAndCheck(p, shape, label);
      std::printf("%-28s sim %6s us  lower %6s us  (%s)  planned in %.0f "
                  "us\n",
                  label.c_str() + 6, fmtMicros(micros(sim)).c_str(),
                  fmtMicros(micros(p.lowerBound)).c_str(),
                  fmtRatio(p.lowerBound, sim).c_str(), planUs);
      for (const rt::Step &s : p.steps) {
        std::string kind = rt::stepKindName(s.kind);
        if (s.kind == rt::StepKind::Router && s.clustered)
          kind += "[c]";
        std::printf("    %-10s %6s us  chunk %2u B  %s\n", kind.c_str(),
                    fmtMicros(micros(s.predictedTicks)).c_str(),
                    f.elemBytes << s.chunkBits,
                    rt::formatMove(s.move, src).c_str());
      }
    }
}

} // namespace

int main(int argc, char **argv) {
  // `mapc-bench-fig53 planning` times the planner alone (for profiling).
  if (argc > 1 && std::string(argv[1]) == "planning") {
    planningTimes();
    return 0;
  }
  auto t0 = Clock::now();
  fig53Table();
  planningTimes();
  fierShuffle();
  for (const Miss &m : predictionMisses)
    std::printf("PREDICTION MISSED: %s: predicted %lld, simulated %lld "
                "ticks\n",
                m.label.c_str(), (long long)m.predicted,
                (long long)m.simulated);
  if (predictionMisses.empty())
    std::printf("\nAll %d plans run: every element right, predicted ticks = "
                "simulated ticks.\n",
                plansChecked);
  std::printf("Total wall time %.0f s.\n", secondsSince(t0));
  return 0;
}
