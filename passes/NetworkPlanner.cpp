//===- NetworkPlanner.cpp -------------------------------------------------===//
#include "passes/NetworkPlanner.h"
#include "passes/AffinePlanner.h"
#include "passes/ExchangeDecomposition.h"

#include "mapc/runtime/ExchangeSchedule.h"
#include "mapc/runtime/NetworkExecute.h"

#include <algorithm>

using namespace mapc;
using rt::AffineLayout;
using rt::AffineMove;
using rt::ExchangeSchedule;

namespace {

/// One way to run the exchanges: its steps and their total cycles
/// (-1: pruned, not simulated).
struct ScheduleCandidate {
  ExchangeSchedule schedule;
  std::vector<rt::Step> steps;
  int64_t cycles = 0;
};

/// The schedules in 001's order, each simulated, until one reaches `floor`
/// (a lower bound of every schedule, networkLowerBound of the exchanges'
/// map): none after it can be cheaper, so they are listed as pruned and
/// not simulated. The choice is the one a full search makes (the first of
/// the cheapest).
std::vector<ScheduleCandidate>
scheduleCandidates(const std::vector<rt::Exchange> &ops,
                   const NetworkPlanRequest &r, const AffineLayout &before,
                   int64_t floor) {
  unsigned n = before.bits();
  std::vector<ScheduleCandidate> out;
  bool done = false; // a candidate reached the floor
  // Sequential: one step per exchange, so --trace shows each (001 fig. 4).
  ScheduleCandidate seq{ExchangeSchedule::Sequential, {}, 0};
  AffineLayout now = before;
  for (const rt::Exchange &e : ops) {
    rt::Step st = rt::Step::exchangeStep(
        n, {{e}}, rt::exchangeScheduleName(ExchangeSchedule::Sequential));
    st.predictedTicks = rt::simulateNetworkStep(r.shape, st, now, r.elemBytes);
    seq.cycles += st.predictedTicks;
    seq.steps.push_back(st);
    now = AffineMove::fromExchange(n, e).applyTo(now);
  }
  out.push_back(seq);
  if (ops.size() < 2 && before.mBits == 0)
    return out;
  done = seq.cycles <= floor;
  auto one = [&](ExchangeSchedule s,
                 std::vector<std::vector<rt::Exchange>> orders) {
    ScheduleCandidate c{s,
                        {rt::Step::exchangeStep(n, std::move(orders),
                                                rt::exchangeScheduleName(s))},
                        0};
    if (done) {
      c.cycles = -1;
      out.push_back(c);
      return;
    }
    c.cycles =
        rt::simulateNetworkStep(r.shape, c.steps[0], before, r.elemBytes);
    done = c.cycles >= 0 && c.cycles <= floor;
    c.steps[0].predictedTicks = c.cycles;
    if (c.cycles >= 0)
      out.push_back(c);
  };
  one(ExchangeSchedule::Pipelined, {ops});
  if (auto rot = rotatedOrders(ops, n)) {
    one(ExchangeSchedule::Rotated, *rot);
    if (r.shape.cube)
      one(ExchangeSchedule::RotatedDetour, *rot);
  }
  if (r.shape.cube)
    one(ExchangeSchedule::PipelinedDetour, {ops});
  return out;
}

std::string scheduleWhy(const std::vector<ScheduleCandidate> &all,
                        const ScheduleCandidate &best,
                        const std::vector<rt::Exchange> &ops,
                        const AffineLayout &before,
                        const rt::NetworkShape &shape, unsigned lowerBound) {
  uint64_t K = uint64_t(1) << before.mBits;
  unsigned delta = 0;
  std::vector<unsigned> seen;
  for (const rt::Exchange &e : ops)
    if (e.bit >= before.mBits &&
        std::find(seen.begin(), seen.end(), e.bit) == seen.end()) {
      seen.push_back(e.bit);
      ++delta;
    }
  std::string s = std::to_string(ops.size()) +
                  (ops.size() == 1 ? " exchange" : " exchanges") +
                  " (at least " + std::to_string(lowerBound) + " needed), " +
                  std::to_string(delta) +
                  " in node dims, K = " + std::to_string(K) + "; " +
                  rt::exchangeScheduleName(best.schedule) + " is cheapest:";
  for (const ScheduleCandidate &c : all)
    s += std::string(" ") + rt::exchangeScheduleName(c.schedule) + " " +
         (c.cycles < 0 ? std::string("pruned") : std::to_string(c.cycles));
  if (all.back().cycles < 0)
    s += " (pruned: not simulated, as " +
         std::string(rt::exchangeScheduleName(best.schedule)) +
         " meets the lower bound)";
  if (delta && shape.cube) { // 001's bounds are for cubes
    s += "; 001 bounds: thm 2 " + std::to_string(rt::theorem2Bound(K, delta));
    rt::ExchangeGroup g;
    g.mBits = before.mBits;
    g.pBits = before.pBits;
    // Thm 3 is about the rotated orders (one per exchanged dim).
    for (const ScheduleCandidate &c : all)
      if (c.schedule == ExchangeSchedule::RotatedDetour)
        g.orders = c.steps[0].exchanges;
    if (!g.orders.empty() &&
        rt::scheduleApplies(shape, g, ExchangeSchedule::RotatedDetour))
      s += ", thm 3 " + std::to_string(rt::theorem3Bound(K, delta));
    g.orders = {ops};
    if (rt::scheduleApplies(shape, g, ExchangeSchedule::PipelinedDetour))
      s += ", thm 4 " + std::to_string(rt::theorem4Bound(K, delta));
    s += ", thm 1 lower bound " + std::to_string(rt::theorem1Bound(K, delta));
  }
  return s;
}

} // namespace

std::variant<rt::Plan, std::string>
mapc::planNetworkRemap(const NetworkPlanRequest &r) {
  auto factored = factorRemap(r.src, r.dst, r.exchangeStart);
  if (auto *why = std::get_if<std::string>(&factored))
    return *why;
  const AffineMove &g = std::get<AffineRemap>(factored).move;
  const AffineFactoring &f = std::get<AffineRemap>(factored).factoring;
  unsigned n = r.src.bits();

  rt::Plan plan =
      emptyAffinePlan(r.src, r.dst, r.elemBytes, r.copy, f.lowerBound);
  plan.planner = r.shape.cube ? "hypercube" : "mesh";
  AffineLayout now = r.src;
  if (!f.exchanges.empty()) {
    AffineMove exchanges = AffineMove::fromExchanges(n, f.exchanges);
    int64_t floor = rt::networkLowerBound(
        r.shape, r.src.mBits, [&](uint64_t a) { return exchanges.apply(a); },
        [&](uint64_t a) { return r.src.holds(a); });
    auto all = scheduleCandidates(f.exchanges, r, r.src, floor);
    const ScheduleCandidate *best = &all[0];
    for (const ScheduleCandidate &c : all)
      if (c.cycles >= 0 && c.cycles < best->cycles)
        best = &c;
    std::string reason =
        scheduleWhy(all, *best, f.exchanges, r.src, r.shape, f.lowerBound);
    for (rt::Step st : best->steps) {
      st.why =
          plan.steps.empty() ? reason : "the next exchange of the sequence";
      plan.predictedTicks += st.predictedTicks;
      plan.steps.push_back(st);
    }
    now = AffineMove::fromExchanges(n, f.exchanges).applyTo(now);
  }
  plan.source = virtualBitLayout(now);
  plan.dest = f.permutation.applyTo(plan.source);
  if (!f.permutation.isIdentity() || (r.copy && plan.steps.empty())) {
    rt::Step st;
    st.kind = rt::StepKind::Route;
    st.move = f.permutation;
    st.predictedTicks = rt::simulateNetworkStep(r.shape, st, now, r.elemBytes);
    st.why = "the bit permutation left, dimension-order routed (" +
             std::string(r.shape.cube ? "e-cube" : "mesh dim 0 first") + ")";
    plan.predictedTicks += st.predictedTicks;
    plan.steps.push_back(st);
  }
  plan.lowerBound = rt::networkLowerBound(
      r.shape, r.src.mBits, [&](uint64_t a) { return g.apply(a); },
      [&](uint64_t a) { return r.src.holds(a); });
  return plan;
}
