//===- DigitTile.h - index digit maps over one data dim, for unit tests ---===//
#ifndef MAPC_TEST_UNIT_DIGITTILE_H
#define MAPC_TEST_UNIT_DIGITTILE_H

#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/MasPar.h"
#include "passes/GeneralPlanner.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace mapc::test {

/// The planner's request for `src -> dst` (`maxSlots` 0: the larger of the
/// two maps' slots).
inline GeneralPlanRequest
planRequest(const rt::TileMap &src, const rt::TileMap &dst, unsigned elemBytes,
            bool copy, const rt::MachineShape &shape, int64_t maxSlots = 0) {
  GeneralPlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = elemBytes;
  req.copy = copy;
  req.shape = shape;
  req.maxSlots = maxSlots;
  return req;
}

/// A vector of n elements, element i on PE i, replicated over all `pes` PEs
/// of a 1-d machine (each PE holds the whole vector): an all-gather of small
/// sources (003 6.2.1, "Data replication").
inline void replicatedVector(int64_t n, int64_t pes, KTile &src, KTile &dst) {
  src = KTile();
  src.data = {SpaceDim::plain(n)};
  src.kdims = {KDim::plain(n), KDim::plain(1)};
  src.groups = {1, 1};
  src.m = {{1}, {0}};
  src.device = {SpaceDim::plain(1), SpaceDim::plain(n)};
  src.device[1].tlen = pes; // PEs n.. hold nothing
  dst = KTile();
  dst.data = {SpaceDim::plain(n)};
  dst.kdims = {KDim::plain(n), KDim::plain(pes)};
  dst.kdims[1].ok = kReplicated;
  dst.groups = {1, 1};
  dst.m = {{0}, {1}};
  dst.device = {SpaceDim::plain(n), SpaceDim::plain(pes)};
}

/// Digits 0 .. n - 1 shuffled and cut in two non-empty device dims.
inline void randomPlaces(std::mt19937_64 &rng, unsigned n,
                         std::vector<unsigned> &mem,
                         std::vector<unsigned> &pe) {
  std::vector<unsigned> all(n);
  for (unsigned l = 0; l < n; ++l)
    all[l] = l;
  std::shuffle(all.begin(), all.end(), rng);
  const unsigned cut = 1 + unsigned(rng() % (n - 1));
  mem.assign(all.begin(), all.begin() + cut);
  pe.assign(all.begin() + cut, all.end());
}

/// Trades some pairs of digits of equal base between the memory and PE
/// places, then shuffles each side at random: another placement of the
/// same digits (a random aligned digit permutation).
template <typename Rng>
inline void tradeAndShuffle(Rng &rng, const std::vector<int64_t> &bases,
                            std::vector<unsigned> &mem,
                            std::vector<unsigned> &pe) {
  for (unsigned &x : mem)
    for (unsigned &y : pe)
      if (bases[x] == bases[y] && rng() % 2)
        std::swap(x, y);
  if (rng() % 2)
    std::shuffle(mem.begin(), mem.end(), rng);
  if (rng() % 2)
    std::shuffle(pe.begin(), pe.end(), rng);
}

/// A digit map (003 6.1) over the linear index of an array of prod(bases)
/// elements: data digit i has base bases[i]; `mem` and `pe` list the digits
/// of the two device dims, least significant first.
inline KTile digitTile(const std::vector<int64_t> &bases,
                       const std::vector<unsigned> &mem,
                       const std::vector<unsigned> &pe) {
  KTile t;
  int64_t n = 1;
  for (int64_t b : bases) {
    t.kdims.push_back(KDim::plain(b));
    n *= b;
  }
  t.data = {SpaceDim::plain(n)};
  t.groups = {unsigned(bases.size())};
  t.m = {mem, pe};
  int64_t dm = 1, dp = 1;
  for (unsigned l : mem)
    dm *= bases[l];
  for (unsigned l : pe)
    dp *= bases[l];
  t.device = {SpaceDim::plain(dm), SpaceDim::plain(dp)};
  return t;
}

/// A random aligned pair of digit maps: 2-5 digits of base 2-6 (`bases`),
/// shuffled and cut in two non-empty device dims, and another placement of
/// the same digits (tradeAndShuffle).
template <typename Rng>
inline std::pair<KTile, KTile>
randomAlignedDigitPair(Rng &rng, std::vector<int64_t> &bases) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const unsigned n = unsigned(pick(2, 5));
  bases.assign(n, 0);
  for (int64_t &b : bases)
    b = pick(2, 6);
  std::vector<unsigned> order(n);
  for (unsigned i = 0; i < n; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const unsigned split = unsigned(pick(1, int(n) - 1));
  std::vector<unsigned> mem(order.begin(), order.begin() + split),
      pe(order.begin() + split, order.end());
  std::vector<unsigned> mem2 = mem, pe2 = pe;
  tradeAndShuffle(rng, bases, mem2, pe2);
  return {digitTile(bases, mem, pe), digitTile(bases, mem2, pe2)};
}

/// `t` with a constant digit of `base` holding `value` (an empty dim, 003
/// 3.2.5) added to device dim `dim` at position `pos` (least significant
/// first; past the end: on top).
inline void addConstant(KTile &t, int64_t base, int64_t value, unsigned dim,
                        size_t pos) {
  t.kdims.push_back(KDim::plain(base));
  t.kdims.back().ok = value;
  if (t.groups.size() == 1)
    t.groups.push_back(0);
  ++t.groups[1];
  std::vector<unsigned> &ds = t.m[dim];
  ds.insert(ds.begin() + std::ptrdiff_t(std::min(pos, ds.size())),
            unsigned(t.kdims.size() - 1));
  t.device[dim] = SpaceDim::plain(t.device[dim].len * base);
}

/// The compact form of a digitTile (003 6.1.3): neighbouring data digits
/// that sit next to each other, in order, in one device dim become one
/// digit, as the language's digit maps lower. The planner must re-factorise
/// it to align it with the other layout (fig. 6.1).
inline KTile compact(const KTile &t) {
  std::vector<unsigned> runOf(t.kdims.size(), 0);
  std::vector<std::pair<unsigned, int64_t>> runs; // first digit, base
  for (const auto &dim : t.m)
    for (size_t i = 0; i < dim.size(); ++i) {
      if (i > 0 && dim[i] == dim[i - 1] + 1) {
        runOf[dim[i]] = runOf[dim[i - 1]];
        runs[runOf[dim[i]]].second *= t.kdims[dim[i]].k;
        continue;
      }
      runOf[dim[i]] = unsigned(runs.size());
      runs.push_back({dim[i], t.kdims[dim[i]].k});
    }
  std::vector<unsigned> order(runs.size()), rank(runs.size());
  for (unsigned r = 0; r < runs.size(); ++r)
    order[r] = r;
  std::sort(order.begin(), order.end(), [&](unsigned x, unsigned y) {
    return runs[x].first < runs[y].first;
  });
  KTile c = t;
  c.kdims.clear();
  for (unsigned i = 0; i < order.size(); ++i) {
    rank[order[i]] = i;
    c.kdims.push_back(KDim::plain(runs[order[i]].second));
  }
  c.groups = {unsigned(c.kdims.size())};
  for (auto &dim : c.m) {
    std::vector<unsigned> out;
    for (size_t i = 0; i < dim.size(); ++i)
      if (i == 0 || dim[i] != dim[i - 1] + 1)
        out.push_back(rank[runOf[dim[i]]]);
    dim = out;
  }
  return c;
}

/// A plan of one step of `kind` from `from` to `to` (tests that run or
/// price a single step).
inline rt::GeneralPlan oneStepPlan(const rt::TileMap &from,
                                   const rt::TileMap &to,
                                   rt::GeneralStepKind kind, bool inPlace,
                                   unsigned elemBytes = 1) {
  rt::GeneralPlan plan;
  plan.source = from;
  plan.dest = to;
  plan.elemBytes = elemBytes;
  rt::GeneralStep s;
  s.kind = kind;
  s.to = to;
  s.inPlace = inPlace;
  plan.steps = {s};
  return plan;
}

/// What running a general plan on a simulated MasPar gave.
struct PlanRun {
  bool ran = false;   ///< every step's method applied to its move
  std::string why;    ///< why not, when it did not
  int64_t ticks = 0;  ///< the machine's ledger
  uint64_t wrong = 0; ///< destination cells without their element
};

/// Runs `plan` on a MasPar of `shape` with room for its source, destination
/// and scratch, the source filled with `pattern`'s values.
inline PlanRun simulatePlan(const rt::GeneralPlan &plan,
                            const rt::MachineShape &shape, uint32_t pattern) {
  int64_t slots = std::max(rt::slotsOf(plan.source), rt::slotsOf(plan.dest));
  for (const rt::GeneralStep &s : plan.steps)
    slots = std::max(slots, rt::slotsOf(s.to));
  const uint64_t region = uint64_t(slots) * plan.elemBytes;
  rt::MasPar m(shape.width, shape.height, 3 * region, shape.clusterSize);
  rt::Regions regions{{plan.copy ? 0 : region}, {region}, {2 * region}};
  auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
  auto readOf = [&](unsigned pe) -> const uint8_t * { return m.memoryOf(pe); };
  rt::storePattern(memoryOf, plan.source, plan.elemBytes, regions.src.base,
                   pattern);
  PlanRun run;
  run.ran = rt::executeGeneralPlan(m, plan, regions, {}, &run.why);
  if (!run.ran)
    return run;
  run.wrong = rt::countMismatches(readOf, plan.dest, plan.elemBytes,
                                  regions.dst.base, pattern);
  run.ticks = m.ledger().total();
  return run;
}

} // namespace mapc::test

#endif // MAPC_TEST_UNIT_DIGITTILE_H
