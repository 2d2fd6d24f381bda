//===- RemapPlanner.cpp ---------------------------------------------------===//
#include "passes/RemapPlanner.h"

#include "../runtime/lib/StepAnalysis.h"
#include "passes/SplitMemoryPermutation.h"

#include "mapc/runtime/Execute.h"
#include "mapc/runtime/MasPar.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mapc;
using rt::BitLayout;
using rt::BitMove;
using rt::Plan;
using rt::Step;
using rt::StepKind;

const char *mapc::plannerName(PlannerKind k) {
  switch (k) {
  case PlannerKind::Optimal:
    return "optimal";
  case PlannerKind::Atomic:
    return "atomic";
  case PlannerKind::BruteForce:
    return "brute-force";
  }
  return "?";
}

std::variant<BitLayout, std::string>
mapc::toRuntimeLayout(const IndexBitMap &map, unsigned mBits, unsigned pBits) {
  if (map.memoryBits > mBits || map.peBits > pBits)
    return std::string("the layout needs " + std::to_string(map.memoryBits) +
                       " memory and " + std::to_string(map.peBits) +
                       " PE bits but the machine has " + std::to_string(mBits) +
                       " and " + std::to_string(pBits));
  BitLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = map.dataBits;
  l.dataBit.assign(mBits + pBits, -1);
  l.value.assign(mBits + pBits, 0);
  auto put = [&](unsigned at, const DeviceBit &b) {
    l.dataBit[at] = b.enabled ? int(b.dataBit) : -1;
    l.value[at] = b.value;
  };
  for (unsigned i = 0; i < map.memoryBits; ++i)
    put(i, map.bits[i]);
  for (unsigned i = 0; i < map.peBits; ++i)
    put(mBits + i, map.bits[map.memoryBits + i]);
  return l;
}

std::variant<rt::AffineLayout, std::string>
mapc::toRuntimeAffine(const IndexBitMap &map, unsigned mBits, unsigned pBits) {
  if (map.memoryBits > mBits || map.peBits > pBits)
    return std::string("the layout needs " + std::to_string(map.memoryBits) +
                       " memory and " + std::to_string(map.peBits) +
                       " PE bits but the machine has " + std::to_string(mBits) +
                       " and " + std::to_string(pBits));
  rt::AffineLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = map.dataBits;
  l.row.assign(mBits + pBits, 0);
  l.disabled = (mBits + pBits >= 64 ? ~uint64_t(0)
                                    : (uint64_t(1) << (mBits + pBits)) - 1);
  auto put = [&](unsigned at, const DeviceBit &b) {
    uint64_t bit = uint64_t(1) << at;
    if (b.enabled) {
      l.disabled &= ~bit;
      l.row[at] = (uint64_t(1) << b.dataBit) | b.alsoXor;
    }
    if (b.value)
      l.constant |= bit;
  };
  for (unsigned i = 0; i < map.memoryBits; ++i)
    put(i, map.bits[i]);
  for (unsigned i = 0; i < map.peBits; ++i)
    put(mBits + i, map.bits[map.memoryBits + i]);
  return l;
}

namespace {

static bool fixedBit(const BitMove &m, unsigned i) {
  return m.to[i] == i && !((m.flip >> i) & 1);
}

static BitMove swapMove(unsigned n, unsigned a, unsigned b) {
  BitMove t = BitMove::identity(n);
  std::swap(t.to[a], t.to[b]);
  return t;
}

static bool memoryOnly(const BitMove &m, unsigned mB) {
  for (unsigned i = mB; i < m.bits(); ++i)
    if (!fixedBit(m, i))
      return false;
  return true;
}

class Planner {
public:
  Planner(const PlanRequest &r) : r(r), n(r.src.bits()), mB(r.src.mBits) {}

  std::variant<Plan, std::string> run(PlannerKind kind);

private:
  void priceWithDisabledBits(Plan &plan) const;

  const PlanRequest &r;
  unsigned n, mB;

  /// Low identity m-bits that fit one transfer of at most 64 bits.
  unsigned chunkFor(const BitMove &m) const {
    unsigned c = 0;
    while (c < mB && fixedBit(m, c) && (uint64_t(r.elemBytes) << (c + 1)) <= 8)
      ++c;
    return c;
  }

  /// Builds the step, choosing the cheaper router connection mode.
  Step makeStep(StepKind kind, const BitMove &move, const BitLayout &before,
                bool copyFirst, const std::string &why) const {
    Step s;
    s.kind = kind;
    s.move = move;
    s.chunkBits = chunkFor(move);
    s.why = why;
    s.predictedTicks = rt::predictStepTicks(s, before, r.elemBytes, copyFirst,
                                            r.shape, r.cost);
    if (kind == StepKind::Router) {
      Step c = s;
      c.clustered = true;
      c.predictedTicks = rt::predictStepTicks(c, before, r.elemBytes, copyFirst,
                                              r.shape, r.cost);
      if (c.predictedTicks >= 0 &&
          (s.predictedTicks < 0 || c.predictedTicks < s.predictedTicks))
        s = c;
    }
    return s;
  }

  /// A candidate: moves with their kinds, turned into steps and priced.
  struct Candidate {
    std::vector<Step> steps;
    int64_t ticks = 0;
    bool ok = true;
    std::string failure;
  };
  Candidate build(const std::vector<std::pair<StepKind, BitMove>> &moves,
                  const std::vector<std::string> &whys) const {
    Candidate c;
    BitLayout now = r.src;
    auto emit = [&](StepKind kind, const BitMove &move,
                    const std::string &why) {
      Step s = makeStep(kind, move, now, r.copy && c.steps.empty(), why);
      if (s.predictedTicks < 0) {
        c.ok = false;
        rt::StepAnalysis an;
        rt::analyseStep(s, now, r.elemBytes, r.shape.width, an, &c.failure);
        c.failure = std::string(rt::stepKindName(s.kind)) + " step " +
                    rt::formatMove(s.move, now) + ": " + c.failure;
        return false;
      }
      c.ticks += s.predictedTicks;
      now = s.move.applyTo(now);
      c.steps.push_back(s);
      return true;
    };
    for (size_t i = 0; i < moves.size(); ++i) {
      auto [kind, move] = moves[i];
      // An identity move is a step only when a copy has nothing else to
      // read the source with; otherwise the next step does the copying.
      bool laterMoves =
          std::any_of(moves.begin() + std::ptrdiff_t(i) + 1, moves.end(),
                      [](const auto &m) { return !m.second.isIdentity(); });
      if (move.isIdentity() && !(r.copy && c.steps.empty() && !laterMoves))
        continue;
      if (kind == StepKind::Memory || kind == StepKind::Router) {
        // 003 4.4.5: the data-cycle list has one node per PE; larger (m*)
        // parts run first as memory permutations of their own.
        std::vector<BitMove> parts = splitMemoryPermutation(
            memoryCyclesOf(move, mB), rt::memoryPermutationLimit(r.src.pBits));
        BitMove done = BitMove::identity(n);
        for (size_t k = 0; k + 1 < parts.size(); ++k) {
          if (!emit(StepKind::Memory, parts[k],
                    "part of an (m*) permutation too large for one "
                    "data-cycle list (003 4.4.5)"))
            return c;
          done = done.then(parts[k]);
        }
        move = done.inverse().then(move);
      }
      if (!emit(kind, move, whys[i]))
        return c;
    }
    return c;
  }

  void factorMixed(const BitMove &g, BitMove &pre, BitMove &rest) const;
  BitMove makeRoom(const BitMove &b) const;
  bool xnetSteps(const BitMove &b, BitMove &arrange,
                 std::vector<BitMove> &exchanges) const;
  Candidate optimal(const BitMove &g) const;
  Candidate atomic(const BitMove &g) const;
};

} // namespace

// 003 4.4.7: peel memory transpositions (and one inversion per odd-parity
// cycle) off the front until every cycle left is (m*), (p*) or an
// even-parity (mp*). `pre` runs first, then `rest`.
void Planner::factorMixed(const BitMove &g, BitMove &pre, BitMove &rest) const {
  pre = BitMove::identity(n);
  rest = g;
  for (unsigned guard = 0; guard < 4 * n + 4; ++guard) {
    bool changed = false;
    for (const std::vector<unsigned> &c : rest.cycles()) {
      unsigned ms = 0, flips = 0;
      for (unsigned b : c) {
        ms += b < mB;
        flips += unsigned((rest.flip >> b) & 1);
      }
      if (ms == 0 || ms == c.size())
        continue;
      BitMove t;
      if (ms >= 2) {
        // Rotate to start just after a p-bit, at the head of an m-run.
        size_t L = c.size(), start = 0;
        for (size_t k = 0; k < L; ++k)
          if (c[k] < mB && c[(k + L - 1) % L] >= mB) {
            start = k;
            break;
          }
        size_t runEnd = start;
        while (c[(runEnd + 1) % L] < mB)
          runEnd = (runEnd + 1) % L;
        unsigned a = c[start];
        if (runEnd != start) {
          // Isolating memory bits: (m_a, m_c) first.
          t = swapMove(n, a, c[runEnd]);
        } else {
          // Splitting: (m_a, m_b) with m_b the next m-bit along the cycle.
          size_t k = (start + 1) % L;
          while (c[k] >= mB)
            k = (k + 1) % L;
          t = swapMove(n, a, c[k]);
        }
      } else if (flips % 2) {
        unsigned a = 0;
        for (unsigned b : c)
          if (b < mB)
            a = b;
        t = BitMove::identity(n);
        t.flip = uint64_t(1) << a;
      } else {
        continue;
      }
      pre = pre.then(t);
      rest = t.then(rest); // t is its own inverse
      changed = true;
      break;
    }
    if (!changed)
      return;
  }
}

// A memory permutation that brings b's identity m-bits to the bottom so
// that they can ride in one wide transfer (003 5.6.3).
BitMove Planner::makeRoom(const BitMove &b) const {
  BitMove s = BitMove::identity(n);
  unsigned next = 0;
  for (unsigned i = 0; i < mB; ++i)
    if (fixedBit(b, i))
      s.to[i] = next++;
  for (unsigned i = 0; i < mB; ++i)
    if (!fixedBit(b, i))
      s.to[i] = next++;
  return s;
}

// 003 5.6.5: b exchanges m-bits with p-bits pairwise, nothing else. Arrange
// the m-bits so that each grid dimension's pairs are consecutive, with the
// identity m-bits below them for chunking.
bool Planner::xnetSteps(const BitMove &b, BitMove &arrange,
                        std::vector<BitMove> &exchanges) const {
  if (b.flip)
    return false;
  std::vector<int> partner(n, -1);
  for (unsigned i = 0; i < n; ++i) {
    if (b.to[i] == i)
      continue;
    unsigned j = b.to[i];
    if (b.to[j] != i || (i < mB) == (j < mB))
      return false;
    partner[i] = int(j);
  }
  unsigned xBits = 0;
  while ((1u << xBits) < r.shape.width)
    ++xBits;
  // Groups of consecutive p-bits in one dimension.
  std::vector<std::vector<unsigned>> groups; // p address bits
  for (unsigned p = mB; p < n; ++p) {
    if (partner[p] < 0)
      continue;
    bool sameDim = !groups.empty() && groups.back().back() + 1 == p &&
                   ((groups.back().back() - mB < xBits) == (p - mB < xBits));
    if (sameDim)
      groups.back().push_back(p);
    else
      groups.push_back({p});
  }
  if (groups.empty())
    return false;
  arrange = BitMove::identity(n);
  unsigned next = 0;
  for (unsigned i = 0; i < mB; ++i)
    if (partner[i] < 0)
      arrange.to[i] = next++;
  for (auto &g : groups)
    for (unsigned p : g)
      arrange.to[unsigned(partner[p])] = next++;
  exchanges.clear();
  for (auto &g : groups) {
    BitMove x = BitMove::identity(n);
    for (unsigned p : g) {
      unsigned m = arrange.to[unsigned(partner[p])];
      x.to[m] = p;
      x.to[p] = m;
    }
    exchanges.push_back(x);
  }
  return true;
}

Planner::Candidate Planner::optimal(const BitMove &g) const {
  BitMove pre, rest;
  factorMixed(g, pre, rest);
  std::vector<Candidate> cands;
  auto add = [&](std::vector<std::pair<StepKind, BitMove>> moves,
                 std::vector<std::string> whys) {
    Candidate c = build(moves, whys);
    if (c.ok)
      cands.push_back(c);
  };
  if (memoryOnly(rest, mB)) {
    add({{StepKind::Memory, pre.then(rest)}},
        {"(m*) cycles through data-cycle lists (003 4.4.5)"});
  } else {
    // Split rest into its (m*) cycles and the cycles that move PEs.
    BitMove restM = memoryCyclesOf(rest, mB);
    BitMove restP = restM.inverse().then(rest);
    const std::string memWhy = "memory permutation before the router "
                               "(003 4.4.7)";
    const std::string routeWhy = "router step: (p*) and even-parity (mp*) "
                                 "cycles (003 4.4.4-4.4.8)";
    const std::string roomWhy = "memory permutation that moves identity "
                                "m-bits down for wider transfers (003 5.6.3)";
    add({{StepKind::Memory, pre}, {StepKind::Router, rest}},
        {memWhy, restM.isIdentity() ? routeWhy
                                    : routeWhy + " with (m*) in step (4.4.6)"});
    add({{StepKind::Memory, pre.then(restM)}, {StepKind::Router, restP}},
        {memWhy + ", with the (m*) cycles", routeWhy});
    for (int variant = 0; variant < 2; ++variant) {
      const BitMove &b = variant == 0 ? rest : restP;
      BitMove head = variant == 0 ? pre : pre.then(restM);
      BitMove s = makeRoom(b);
      BitMove inner = s.inverse().then(b).then(s);
      add({{StepKind::Memory, head.then(s)},
           {StepKind::Router, inner},
           {StepKind::Memory, s.inverse()}},
          {memWhy + ", identity m-bits moved down (003 5.6.3)", routeWhy,
           roomWhy + ": moving them back"});
      BitMove arrange;
      std::vector<BitMove> ex;
      if (xnetSteps(b, arrange, ex)) {
        std::vector<std::pair<StepKind, BitMove>> moves{
            {StepKind::Memory, head.then(arrange)}};
        std::vector<std::string> whys{memWhy +
                                      ", exchange m-bits lined up (003 5.6.5)"};
        for (const BitMove &x : ex) {
          moves.push_back({StepKind::Xnet, x});
          whys.push_back("P/M exchange over the xnet (003 5.6.5, 6.2.1)");
        }
        moves.push_back({StepKind::Memory, arrange.inverse()});
        whys.push_back("memory permutation back after the xnet");
        add(moves, whys);
      }
    }
  }
  // Small remaps can be cheaper sent element by element (003 6.3.3); the
  // estimate walks every chunk, so only offer it where that is quick.
  if (n <= 16)
    add({{StepKind::BruteForce, g}},
        {"every element sent with its address (003 6.3.3): cheapest here"});
  if (cands.empty()) {
    Candidate none;
    none.ok = false;
    none.failure = "no candidate plan";
    return none;
  }
  return *std::min_element(
      cands.begin(), cands.end(),
      [](const Candidate &a, const Candidate &b) { return a.ticks < b.ticks; });
}

// 003 5.5's order: moves (chains, with disabled bits) first, then p-bits
// from the most significant down, then m-bits, then inversions.
Planner::Candidate Planner::atomic(const BitMove &g) const {
  std::vector<std::pair<StepKind, BitMove>> moves;
  std::vector<std::string> whys;
  BitMove rest = g;
  auto kindFor = [&](unsigned a, unsigned b) {
    return a < mB && b < mB ? StepKind::Memory : StepKind::Router;
  };
  auto place = [&](unsigned t, const char *what) {
    unsigned s = 0;
    while (rest.to[s] != t)
      ++s;
    if (s == t)
      return;
    BitMove sw = swapMove(n, s, t);
    moves.push_back({kindFor(s, t), sw});
    whys.push_back(std::string(what) + " " + r.src.bitName(s) + " <-> " +
                   r.src.bitName(t) + " (003 4.3.2)");
    rest = sw.then(rest);
  };
  for (unsigned t = 0; t < n; ++t)
    if (r.src.dataBit[t] < 0 || r.dst.dataBit[t] < 0)
      place(t, "move");
  for (unsigned t = n; t-- > mB;)
    place(t, "swap");
  for (unsigned t = 0; t < mB; ++t)
    place(t, "swap");
  for (unsigned t = 0; t < n; ++t)
    if ((rest.flip >> t) & 1) {
      BitMove inv = BitMove::identity(n);
      inv.flip = uint64_t(1) << t;
      bool disabled = r.dst.dataBit[t] < 0;
      moves.push_back({t < mB ? StepKind::Memory : StepKind::Router, inv});
      whys.push_back(std::string(disabled ? "flip " : "invert ") +
                     r.src.bitName(t) + " (003 4.3.2)");
      rest = inv.then(rest);
    }
  if (moves.empty() && r.copy) {
    moves.push_back({StepKind::Memory, BitMove::identity(n)});
    whys.push_back("copy");
  }
  return build(moves, whys);
}

/// predictStepTicks prices every PE and slot as holding data. With a
/// disabled bit some hold none and send nothing, and the price is only an
/// upper bound: the chosen plan is then run on a machine that keeps the
/// ledger alone (rt::MasPar::pricing, every instruction priced as --run
/// prices it), and its ticks, step by step, are the prediction.
void Planner::priceWithDisabledBits(Plan &plan) const {
  auto disabled = [](const rt::BitLayout &l) {
    return llvm::is_contained(l.dataBit, -1);
  };
  if (!disabled(r.src) && !disabled(r.dst))
    return;
  // The run walks every slot of every PE: some 0.25 s at 2^22 cells, the
  // most it is done for.
  if (r.src.bits() > kMaxLedgerPricedBits) {
    plan.ticksAreBound = true;
    return;
  }
  rt::MasPar machine = rt::MasPar::pricing(r.shape.width, r.shape.height,
                                           r.shape.clusterSize, r.cost);
  std::vector<int64_t> after;
  const bool ran = rt::executePlan(machine, plan, rt::Regions{{0}, {0}, {0}},
                                   [&](unsigned, const rt::BitLayout &) {
                                     after.push_back(machine.ledger().total());
                                   });
  if (!ran || after.size() != plan.steps.size()) {
    plan.ticksAreBound = true; // --run reports the step that cannot run
    return;
  }
  int64_t before = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    plan.steps[i].predictedTicks = after[i] - before;
    before = after[i];
  }
  plan.predictedTicks = before;
}

std::variant<Plan, std::string> Planner::run(PlannerKind kind) {
  BitMove g;
  std::string why;
  if (!rt::remapMove(r.src, r.dst, g, &why))
    return why;
  if (r.src.pBits > 24 || n > 48)
    return std::string("too many device bits to plan (at most 24 PE bits)");
  Plan plan;
  plan.source = r.src;
  plan.dest = r.dst;
  plan.elemBytes = r.elemBytes;
  plan.copy = r.copy;
  plan.planner = plannerName(kind);
  Candidate c;
  switch (kind) {
  case PlannerKind::Optimal:
    c = g.isIdentity() && r.copy
            ? build({{StepKind::Memory, g}}, {"copy (no bit moves)"})
            : optimal(g);
    break;
  case PlannerKind::Atomic:
    c = atomic(g);
    break;
  case PlannerKind::BruteForce:
    // Brute force is priced by walking every device cell (its collisions
    // depend on the data): refuse, before any work, what would take
    // minutes or never end.
    if (r.src.bits() > kMaxBruteForceBits)
      return "the brute-force planner prices every element, and this remap "
             "spans 2^" +
             std::to_string(r.src.bits()) + " device cells, more than 2^" +
             std::to_string(kMaxBruteForceBits) +
             "; use the optimal planner (the default)";
    c = build({{StepKind::BruteForce, g}},
              {"every element sent with its address (003 6.3.3)"});
    break;
  }
  if (!c.ok)
    return "internal: no executable plan for this remap: " + c.failure;
  plan.steps = std::move(c.steps);
  plan.predictedTicks = c.ticks;
  priceWithDisabledBits(plan);
  plan.lowerBound =
      rt::lowerBound(r.src, r.dst, r.elemBytes, r.copy, r.shape, r.cost);
  return plan;
}

std::variant<Plan, std::string> mapc::planRemap(const PlanRequest &request,
                                                PlannerKind kind) {
  Planner p(request);
  return p.run(kind);
}
