//===- Exchange.cpp - 001's exchange schedules on simulated Boolean cubes -===//
//
// A driver, not a test: it builds 001's problems directly as affine layouts
// (reshapes of Gray coded arrays, Gray <-> binary conversion of the node
// part), factors each remap into exchanges (ExchangeDecomposition.h), times
// every schedule of ExchangeSchedule.h by simulation (NetworkExecute.h), asks
// planNetworkRemap which one it picks, and prints those times next to 001's
// bounds: thm 1's lower bound ceil(K/2) and the best published upper bound
// that applies (thm 2, thm 3 and thm 4 when their preconditions hold,
// pipelining's K + delta - 1).
//
// Layouts: data index bits d0 .. d(mBits+n-1) of a 1-d array, consecutive
// allocation: the low mBits in memory, binary (K = 2^mBits slots per node);
// the high n on the n node bits, split into axes, each axis Gray coded over
// its node bits (node bit j of an axis XORs d(mBits+j) and d(mBits+j+1),
// the axis's top bit alone). An axis boundary at node bit j (j the top of a
// lower axis) is a split; a reshape between two sets of boundaries exchanges
// in the node dims of their symmetric difference (001 lemma 2), delta of
// them.
//
// Run: build/bench/mapc-bench-exchange (about half a minute). See
// docs/cost-model.md, "Exchange schedules benchmark (001)".
//
//===----------------------------------------------------------------------===//
#include "passes/ExchangeDecomposition.h"
#include "passes/NetworkPlanner.h"

#include "mapc/runtime/ExchangeSchedule.h"
#include "mapc/runtime/NetworkExecute.h"

#include "BenchSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace mapc;
using rt::AffineLayout;
using rt::AffineMove;
using rt::ExchangeSchedule;

namespace {

using bench::Clock;
using bench::secondsSince;

[[noreturn]] void die(const std::string &msg) {
  bench::die("mapc-bench-exchange", msg);
}

const ExchangeSchedule kSchedules[] = {
    ExchangeSchedule::Sequential, ExchangeSchedule::Pipelined,
    ExchangeSchedule::Rotated, ExchangeSchedule::RotatedDetour,
    ExchangeSchedule::PipelinedDetour};
constexpr size_t kScheduleCount = sizeof(kSchedules) / sizeof(kSchedules[0]);

/// The layout of a 1-d array of 2^(mBits+n) elements: memory bits binary,
/// node bits Gray coded per axis (an axis ends at every node bit in
/// `tops`, and at n - 1), or binary when `binaryNodes`.
AffineLayout cubeLayout(unsigned mBits, unsigned n, uint64_t tops,
                        bool binaryNodes) {
  AffineLayout l;
  l.mBits = mBits;
  l.pBits = n;
  l.dataBits = mBits + n;
  for (unsigned i = 0; i < mBits; ++i)
    l.row.push_back(uint64_t(1) << i);
  for (unsigned j = 0; j < n; ++j) {
    uint64_t r = uint64_t(1) << (mBits + j);
    bool top = j + 1 == n || (tops >> j & 1);
    if (!binaryNodes && !top)
      r |= uint64_t(1) << (mBits + j + 1);
    l.row.push_back(r);
  }
  std::string why;
  if (!l.valid(&why))
    die("invalid layout " + l.str() + ": " + why);
  return l;
}

struct Problem {
  std::string name;
  unsigned n = 0, mBits = 0;
  AffineLayout src, dst;
};

/// One problem measured.
struct Row {
  Problem p;
  unsigned delta = 0, exchanges = 0;
  bool adjacent = false;          ///< two exchanged node dims adjacent
  int64_t cycles[kScheduleCount]; ///< -1: cannot be built
  std::string picked;
  int64_t pickedCycles = 0, routeCycles = 0;
  int64_t thm1 = 0, published = 0;
  std::string publishedBy;
};

Row measure(const Problem &p) {
  Row row;
  row.p = p;
  rt::NetworkShape shape = rt::NetworkShape::booleanCube(p.n);
  uint64_t K = uint64_t(1) << p.mBits;
  unsigned bits = p.src.bits();

  // The planner's choice.
  NetworkPlanRequest req;
  req.src = p.src;
  req.dst = p.dst;
  req.shape = shape;
  auto planned = planNetworkRemap(req);
  if (auto *err = std::get_if<std::string>(&planned))
    die(p.name + ": " + *err);
  const rt::Plan &plan = std::get<rt::Plan>(planned);
  for (const rt::Step &st : plan.steps)
    if (st.kind == rt::StepKind::Exchange) {
      row.picked = st.schedule;
      row.pickedCycles += st.predictedTicks;
    } else {
      row.routeCycles += st.predictedTicks;
    }

  // The same exchanges under every schedule.
  AffineMove g;
  std::string why;
  if (!rt::affineRemapMove(p.src, p.dst, g, &why))
    die(p.name + ": " + why);
  AffineFactoring f = factorAffine(g);
  const std::vector<rt::Exchange> &ops = f.exchanges;
  row.exchanges = unsigned(ops.size());
  rt::ExchangeGroup group;
  group.mBits = p.mBits;
  group.pBits = p.n;
  group.orders = {ops};
  std::vector<unsigned> dims = group.exchangedNodeBits();
  row.delta = unsigned(dims.size());
  for (size_t i = 1; i < dims.size(); ++i)
    row.adjacent |= dims[i] == dims[i - 1] + 1;

  auto rot = rotatedOrders(ops, bits);
  for (size_t s = 0; s < kScheduleCount; ++s) {
    ExchangeSchedule sch = kSchedules[s];
    int64_t &c = row.cycles[s];
    c = -1;
    if (ops.empty())
      continue;
    if (sch == ExchangeSchedule::Sequential) {
      c = 0;
      AffineLayout now = p.src;
      for (const rt::Exchange &e : ops) {
        c += rt::simulateNetworkStep(
            shape,
            rt::Step::exchangeStep(bits, {{e}}, rt::exchangeScheduleName(sch)),
            now, 1);
        now = AffineMove::fromExchange(bits, e).applyTo(now);
      }
      continue;
    }
    bool rotated = sch == ExchangeSchedule::Rotated ||
                   sch == ExchangeSchedule::RotatedDetour;
    if (rotated && !rot)
      continue;
    c = rt::simulateNetworkStep(
        shape,
        rt::Step::exchangeStep(bits, rotated ? *rot : group.orders,
                               rt::exchangeScheduleName(sch)),
        p.src, 1);
  }

  // 001's bounds.
  unsigned d = row.delta;
  row.thm1 = rt::theorem1Bound(K, d);
  row.published = rt::pipelinedBound(K, d);
  row.publishedBy = "pipe";
  auto consider = [&](int64_t b, const char *by) {
    if (b < row.published) {
      row.published = b;
      row.publishedBy = by;
    }
  };
  if (d) {
    consider(rt::theorem2Bound(K, d), "thm2");
    rt::ExchangeGroup rg = group;
    if (rot)
      rg.orders = *rot;
    if (rt::scheduleApplies(shape, rg, ExchangeSchedule::RotatedDetour))
      consider(rt::theorem3Bound(K, d), "thm3");
    if (rt::scheduleApplies(shape, group, ExchangeSchedule::PipelinedDetour))
      consider(rt::theorem4Bound(K, d), "thm4");
  }
  return row;
}

std::string nodeDims(uint64_t mask, unsigned n) {
  std::string s;
  for (unsigned j = n; j-- > 0;)
    if (mask >> j & 1)
      s += (s.empty() ? "" : ",") + std::to_string(j);
  return s.empty() ? "-" : s;
}

/// Node bits that end an axis: `count` of them, gap apart, from n - 2
/// down (gap 1: adjacent; the block is centred).
uint64_t boundaries(unsigned n, unsigned count, bool adjacent) {
  uint64_t mask = 0;
  if (adjacent) {
    unsigned lo = (n - 1 - count) / 2;
    for (unsigned i = 0; i < count; ++i)
      mask |= uint64_t(1) << (lo + i);
    return mask;
  }
  unsigned gap = std::max(2u, (n - 1) / count);
  for (unsigned i = 0; i < count; ++i) {
    int b = int(n) - 2 - int(i * gap);
    if (b < 0)
      return 0;
    mask |= uint64_t(1) << b;
  }
  return mask;
}

std::vector<Problem> reshapeProblems() {
  std::vector<Problem> out;
  for (unsigned n = 6; n <= 10; ++n)
    for (unsigned mBits : {0u, 2u, 4u, 6u})
      for (unsigned delta = 1; delta <= 4; ++delta)
        for (bool adjacent : {false, true}) {
          if (delta == 1 && adjacent)
            continue;
          // delta <= 3: split the 1-d array into delta + 1 axes; delta 4: a
          // 2-axis array re-split into 4 axes (boundary sets disjoint).
          uint64_t all = boundaries(n, delta, adjacent);
          if (!all)
            continue;
          uint64_t from = 0;
          if (delta == 4)
            from = uint64_t(1) << (63 - __builtin_clzll(all));
          uint64_t to = all & ~from;
          for (bool merge : {false, true}) {
            Problem p;
            p.n = n;
            p.mBits = mBits;
            uint64_t a = merge ? to : from, b = merge ? from : to;
            p.name = "axes@" + nodeDims(a, n) + " -> axes@" + nodeDims(b, n);
            p.src = cubeLayout(mBits, n, a, false);
            p.dst = cubeLayout(mBits, n, b, false);
            out.push_back(p);
          }
        }
  return out;
}

std::vector<Problem> grayBinaryProblems() {
  std::vector<Problem> out;
  for (unsigned n = 4; n <= 10; ++n)
    for (unsigned mBits = 0; mBits <= 6; ++mBits)
      for (bool toBinary : {true, false}) {
        Problem p;
        p.n = n;
        p.mBits = mBits;
        p.name = toBinary ? "gray -> binary" : "binary -> gray";
        AffineLayout gray = cubeLayout(mBits, n, 0, false);
        AffineLayout bin = cubeLayout(mBits, n, 0, true);
        p.src = toBinary ? gray : bin;
        p.dst = toBinary ? bin : gray;
        out.push_back(p);
      }
  return out;
}

struct Totals {
  double sumThm1 = 0, sumPublished = 0;
  unsigned rows = 0;
  std::vector<std::string> warnings;
};

std::string cell(int64_t v) { return v < 0 ? "-" : std::to_string(v); }

void printTable(const char *title, const std::vector<Problem> &problems,
                Totals &total) {
  std::printf("\n%s\n\n", title);
  std::printf("%-32s %2s %3s %2s %3s | %5s %5s %5s %6s %6s | %-16s %5s | "
              "%4s %5s %-4s | %6s %6s\n",
              "problem", "n", "K", "dl", "adj", "seq", "pipe", "rot", "rotdet",
              "pipdet", "mapc picks", "cyc", "thm1", "publ", "by", "t1/pk",
              "pub/pk");
  Totals sub;
  for (const Problem &p : problems) {
    Row r = measure(p);
    uint64_t K = uint64_t(1) << p.mBits;
    double t1 = double(r.thm1) / double(r.pickedCycles);
    double pub = double(r.published) / double(r.pickedCycles);
    std::printf("%-32s %2u %3llu %2u %3s | %5s %5s %5s %6s %6s | %-16s %5lld "
                "| %4lld %5lld %-4s | %6.3f %6.3f\n",
                p.name.c_str(), p.n, (unsigned long long)K, r.delta,
                r.adjacent ? "yes" : "no", cell(r.cycles[0]).c_str(),
                cell(r.cycles[1]).c_str(), cell(r.cycles[2]).c_str(),
                cell(r.cycles[3]).c_str(), cell(r.cycles[4]).c_str(),
                r.picked.c_str(), (long long)r.pickedCycles, (long long)r.thm1,
                (long long)r.published, r.publishedBy.c_str(), t1, pub);
    std::string where = p.name + " (n " + std::to_string(p.n) + ", K " +
                        std::to_string(K) + ")";
    if (r.pickedCycles > r.published)
      total.warnings.push_back(
          "WARNING: " + where + ": mapc picks " + r.picked + " at " +
          std::to_string(r.pickedCycles) + " cycles, worse than " +
          r.publishedBy + "'s published bound " + std::to_string(r.published));
    if (r.pickedCycles < r.thm1)
      total.warnings.push_back(
          "WARNING: " + where + ": " + std::to_string(r.pickedCycles) +
          " cycles beat thm 1's lower bound " + std::to_string(r.thm1));
    int64_t best = -1;
    for (int64_t c : r.cycles)
      if (c >= 0 && (best < 0 || c < best))
        best = c;
    if (best != r.pickedCycles)
      total.warnings.push_back("WARNING: " + where + ": mapc picks " +
                               std::to_string(r.pickedCycles) +
                               " cycles, the cheapest schedule here takes " +
                               std::to_string(best));
    if (r.routeCycles)
      total.warnings.push_back("NOTE: " + where + ": plan adds a route step " +
                               std::to_string(r.routeCycles) + " cycles");
    for (Totals *t : {&sub, &total}) {
      t->sumThm1 += t1;
      t->sumPublished += pub;
      ++t->rows;
    }
  }
  std::printf("%u problems: mean thm1/picked %.3f, mean published/picked "
              "%.3f\n",
              sub.rows, sub.sumThm1 / sub.rows, sub.sumPublished / sub.rows);
}

} // namespace

int main() {
  auto t0 = Clock::now();
  std::printf("001's exchange schedules on simulated Boolean n-cubes: "
              "element transfers in sequence (cycles), elements of 1 "
              "byte.\ndl = delta, node dims exchanged; adj = two of them "
              "adjacent; '-' = the schedule cannot be built.\n");
  Totals total;
  printTable("(1) Reshapes of a Gray coded array (axes@j: an axis ends at "
             "node bit j)",
             reshapeProblems(), total);
  printTable("(2) Gray <-> binary conversion of the node part (001 thm 5)",
             grayBinaryProblems(), total);
  std::printf("\n");
  for (const std::string &w : total.warnings)
    std::printf("%s\n", w.c_str());
  std::printf("Summary: %u problems: mean thm1/picked %.3f, mean "
              "published/picked %.3f. Wall time %.0f s.\n",
              total.rows, total.sumThm1 / total.rows,
              total.sumPublished / total.rows, secondsSince(t0));
  return 0;
}
