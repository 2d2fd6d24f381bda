//===- Predict.cpp - the ticks a step will cost, without running it -------===//
//
// Counts the instructions Execute.cpp would issue and adds up their prices,
// without walking the slots: memory and router steps in closed form
// (products over loop, (m*) and parity bits), so that planning a 30-bit
// remap costs microseconds. Router sends in one step share their linear
// part (only XOR constants differ from slot to slot), so they all cost what
// one representative send costs (MasPar.h's router model).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Execute.h"

#include "ExchangeStep.h"
#include "StepAnalysis.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

using namespace mapc::rt;

namespace {
struct MValid {
  uint64_t disabled = 0, constants = 0;
  MValid(const BitLayout &l) {
    for (unsigned i = 0; i < l.mBits; ++i)
      if (l.dataBit[i] < 0) {
        disabled |= uint64_t(1) << i;
        constants |= uint64_t(l.value[i]) << i;
      }
  }
  /// Some PE holds data at `off` when the bits in `ignore` vary by PE.
  bool holds(uint64_t off, uint64_t ignore = 0) const {
    return ((off ^ constants) & disabled & ~ignore) == 0;
  }
};
} // namespace

/// A machine with no memory for pricing router sends, and the prices of
/// the sends already asked for; kept between calls because the planner
/// prices many candidate steps on one machine shape.
namespace {
class RouterPricer {
public:
  static RouterPricer &forMachine(const MachineShape &shape,
                                  const CostModel &cost) {
    thread_local RouterPricer cached;
    if (!cached.probe_ || cached.shape_.width != shape.width ||
        cached.shape_.height != shape.height ||
        cached.shape_.clusterSize != shape.clusterSize ||
        cached.cost_ != cost) {
      cached.probe_ = std::make_unique<MasPar>(shape.width, shape.height, 0,
                                               shape.clusterSize, cost);
      cached.shape_ = shape;
      cached.cost_ = cost;
      cached.sends_.clear();
    }
    return cached;
  }
  const MasPar &probe() const { return *probe_; }

  /// Ticks of one send from every PE p to dest0 XOR columns[j] over the
  /// set bits j of p.
  int64_t affineSend(unsigned dest0, const std::vector<unsigned> &columns,
                     unsigned bytes, bool clustered) {
    std::vector<unsigned> key = columns;
    key.push_back(dest0);
    key.push_back(bytes);
    key.push_back(clustered);
    auto found = sends_.find(key);
    if (found != sends_.end())
      return found->second;
    unsigned pes = probe_->peCount();
    Plural dest(pes);
    dest[0] = dest0;
    for (unsigned p = 1; p < pes; ++p)
      dest[p] = dest[p & (p - 1)] ^ columns[__builtin_ctz(p)];
    int64_t ticks = probe_->routerCost(bytes, dest, Mask(pes, 1), clustered);
    if (sends_.size() > 4096) // many shapes of plan: keep memory bounded
      sends_.clear();
    sends_.emplace(std::move(key), ticks);
    return ticks;
  }

private:
  MachineShape shape_;
  CostModel cost_;
  std::unique_ptr<MasPar> probe_;
  std::map<std::vector<unsigned>, int64_t> sends_;
};
} // namespace

/// Which offsets hold data before and after the step: only m-bits are
/// checked, and bits inside a chunk not at all (chunks travel whole).
static std::pair<MValid, MValid>
heldOffsets(const Step &step, const StepAnalysis &an, const BitLayout &before) {
  MValid vb(before), va(step.move.applyTo(before));
  vb.disabled &= ~an.chunkMask;
  va.disabled &= ~an.chunkMask;
  return {vb, va};
}

/// How many offsets over the bits of `mask` a layout holds data at: each
/// disabled bit among them admits one value, each other bit two.
static uint64_t heldCount(uint64_t mask, const MValid &v) {
  return uint64_t(1) << __builtin_popcountll(mask & ~v.disabled);
}

/// How many offsets over the (m*) bits are fixed points of the step's
/// data permutation and held by the layout (003 4.4.5: such offsets form
/// data cycles of length one, which an in-place step skips). Along each
/// bit cycle b[to[i]] = b[i] ^ flip[to[i]]: an odd number of flips leaves
/// no fixed point, otherwise the first bit's value fixes the rest, and
/// each disabled bit on the cycle pins that value.
static uint64_t heldFixedPoints(const BitMove &mv, uint64_t starMask,
                                const MValid &v) {
  uint64_t count = 1, seen = 0;
  for (unsigned i = 0; i < mv.bits() && count; ++i) {
    if (!((starMask >> i) & 1) || ((seen >> i) & 1))
      continue;
    // offset[j]: b[j] = b[i] ^ offset[j].
    unsigned offset = 0;
    bool allowed[2] = {true, true};
    unsigned j = i;
    do {
      seen |= uint64_t(1) << j;
      if ((v.disabled >> j) & 1) // b[i] must be constant[j] ^ offset[j]
        allowed[1 ^ ((v.constants >> j) & 1) ^ offset] = false;
      unsigned next = mv.to[j];
      offset ^= unsigned((mv.flip >> next) & 1);
      j = next;
    } while (j != i);
    if (offset)
      return 0;
    count *= unsigned(allowed[0]) + unsigned(allowed[1]);
  }
  return count;
}

/// Xnet exchange (003 5.6.5, 6.2.1): K/2 rounds of two shifts per loop
/// value, every PE sending in each.
static int64_t predictXnetStep(const StepAnalysis &an, bool copyFirst,
                               const MachineShape &shape,
                               const CostModel &cost) {
  unsigned w = widthIndex(an.xferBytes);
  uint64_t loops = uint64_t(1) << an.loopBits.size();
  unsigned K = 1u << an.xnetBits, xBits = 0;
  while ((1u << xBits) < shape.width)
    ++xBits;
  bool inX = an.xnetP + an.xnetBits <= xBits;
  unsigned stride = inX ? 1u << an.xnetP : 1u << (an.xnetP - xBits);
  unsigned dimLen = inX ? shape.width : shape.height;
  bool wraps = uint64_t(K) * stride == dimLen;
  int64_t per = 0;
  for (unsigned i = 1; i <= K / 2; ++i) {
    unsigned sends = 2 * i == K ? 1 : 2;
    per += sends * (cost.loadIndirect[w] + cost.storeIndirect(w));
    int64_t x = wraps
                    ? cost.xnet(w, std::min(i, K - i) * stride)
                    : cost.xnet(w, i * stride) + cost.xnet(w, (K - i) * stride);
    per += sends * x;
  }
  if (copyFirst)
    per += cost.loadIndirect[w] + cost.storeIndirect(w);
  return int64_t(loops) * per * an.xfers;
}

/// Brute-force router copy (003 6.3.3): every held offset sent in as
/// many rounds as the busiest receiver needs.
static int64_t predictBruteForceStep(const Step &step, const StepAnalysis &an,
                                     const BitLayout &before, bool copyFirst,
                                     const MachineShape &shape,
                                     const CostModel &cost) {
  auto [vb, va] = heldOffsets(step, an, before);
  unsigned w = widthIndex(an.xferBytes);
  unsigned pes = shape.peCount();
  unsigned mB = an.mBits;
  int64_t t = 0;
  const MasPar &probe = RouterPricer::forMachine(shape, cost).probe();
  unsigned cBits = step.chunkBits;
  uint64_t count = uint64_t(1) << (mB - cBits);
  Plural dproc(pes);
  Mask active(pes);
  std::vector<unsigned> rank(pes), load(pes);
  for (uint64_t c = 0; c < count; ++c) {
    uint64_t off = c << cBits;
    if (!vb.holds(off))
      continue;
    std::fill(load.begin(), load.end(), 0);
    unsigned rounds = 0;
    for (unsigned p = 0; p < pes; ++p) {
      dproc[p] = step.move.apply(off | (uint64_t(p) << mB)) >> mB;
      rank[p] = load[dproc[p]]++;
      rounds = std::max(rounds, rank[p] + 1);
    }
    int64_t per = cost.load[w];
    for (unsigned r = 0; r < rounds; ++r) {
      for (unsigned p = 0; p < pes; ++p)
        active[p] = rank[p] == r;
      per += probe.routerCost(an.xferBytes, dproc, active, false, 4) +
             cost.storeIndirect(w);
    }
    t += per * an.xfers;
  }
  if (!copyFirst)
    for (uint64_t c = 0; c < count; ++c)
      if (va.holds(c << cBits))
        t += (cost.load[w] + cost.store(w)) * an.xfers;
  return t;
}

/// Memory and router steps in closed form. Every slot's address is
/// loop value | (m*) offset | parity bits | PE; which slots hold data
/// factors over those bit sets, and whether a slot's data moves or leaves
/// its PE depends on the PE and the parity phase only (loop bits stay,
/// (m*) bits stay in memory), so the counts are products (003 4.4.3-4.4.8).
static int64_t predictCycleStep(const Step &step, const StepAnalysis &an,
                                const BitLayout &before, bool copyFirst,
                                const MachineShape &shape,
                                const CostModel &cost) {
  auto [vb, va] = heldOffsets(step, an, before);
  uint64_t loopMask = 0;
  for (unsigned b : an.loopBits)
    loopMask |= uint64_t(1) << b;
  const uint64_t readsAll =
      heldCount(loopMask, vb) * heldCount(an.starMask, vb);
  const uint64_t writesAll =
      heldCount(loopMask, va) * heldCount(an.starMask, va);
  const uint64_t readsFixed =
      heldCount(loopMask, vb) * heldFixedPoints(step.move, an.starMask, vb);
  const uint64_t writesFixed =
      heldCount(loopMask, va) * heldFixedPoints(step.move, an.starMask, va);
  unsigned w = widthIndex(an.xferBytes);

  if (step.kind == StepKind::Memory) {
    uint64_t reads = readsAll - (copyFirst ? 0 : readsFixed);
    uint64_t writes = writesAll - (copyFirst ? 0 : writesFixed);
    return (cost.load[w] * int64_t(reads) + cost.store(w) * int64_t(writes)) *
           an.xfers;
  }

  // Router: D(p, phase) = g(a) ^ a is affine in (p, phase) jointly. Its
  // part linear in p is the same in every phase; its value at p = 0 is
  // affine in the phase.
  const unsigned mB = an.mBits;
  const uint64_t keep = ~an.starMask; // the (m*) offset is accounted apart
  auto diff = [&](uint64_t p, uint64_t phase) {
    uint64_t pa = p << mB;
    uint64_t a = an.parityBits(pa, phase) | pa;
    return (step.move.apply(a) ^ a) & keep;
  };
  const uint64_t d00 = diff(0, 0);
  bool linearMoves = false, linearLeaves = false;
  for (unsigned j = 0; j < an.pBits; ++j) {
    uint64_t lin = diff(uint64_t(1) << j, 0) ^ d00;
    linearMoves |= lin != 0;
    linearLeaves |= (lin >> mB) != 0;
  }
  std::vector<uint64_t> phaseColumn(an.mps.size());
  for (size_t k = 0; k < an.mps.size(); ++k)
    phaseColumn[k] = diff(0, uint64_t(1) << k) ^ d00;

  // Phases by (data moves at some PE, data leaves some PE), walked in
  // Gray-code order so each costs one XOR.
  uint64_t phasesOf[2][2] = {{0, 0}, {0, 0}};
  uint64_t sendPhase = 0; // a phase in which data leaves, if any
  uint64_t d = d00;
  const uint64_t phases = uint64_t(1) << an.mps.size();
  for (uint64_t i = 0; i < phases; ++i) {
    if (i)
      d ^= phaseColumn[__builtin_ctzll(i)];
    bool leaves = linearLeaves || (d >> mB) != 0;
    bool moves = linearMoves || d != 0;
    if (leaves && !phasesOf[0][1] && !phasesOf[1][1])
      sendPhase = i ^ (i >> 1);
    ++phasesOf[moves][leaves];
  }

  bool indirect = !an.mps.empty();
  int64_t ld = indirect ? cost.loadIndirect[w] : cost.load[w];
  int64_t st = indirect ? cost.storeIndirect(w) : cost.store(w);
  int64_t sendCost = 0;
  if (phasesOf[0][1] + phasesOf[1][1]) {
    // Sends differ only in XOR constants, which permute whole clusters and
    // the PEs inside them; one representative among the sends in which data
    // leaves prices them all (MasPar.h's router model).
    auto destOf = [&](uint64_t p) {
      uint64_t pa = p << mB;
      return unsigned(step.move.apply(an.parityBits(pa, sendPhase) | pa) >> mB);
    };
    std::vector<unsigned> columns(an.pBits);
    unsigned dest0 = destOf(0);
    for (unsigned j = 0; j < an.pBits; ++j)
      columns[j] = destOf(uint64_t(1) << j) ^ dest0;
    sendCost = RouterPricer::forMachine(shape, cost)
                   .affineSend(dest0, columns, an.xferBytes, step.clustered);
  }
  int64_t t = 0;
  for (int moves = 0; moves < 2; ++moves)
    for (int leaves = 0; leaves < 2; ++leaves) {
      int64_t n = int64_t(phasesOf[moves][leaves]);
      if (!n)
        continue;
      // A fixed (m*) offset in a phase where nothing moves is skipped
      // unless the step copies.
      bool skipFixed = !copyFirst && !moves;
      int64_t reads = int64_t(readsAll - (skipFixed ? readsFixed : 0));
      int64_t writes = int64_t(writesAll - (skipFixed ? writesFixed : 0));
      t += n * (reads * (ld + (leaves ? sendCost : 0)) + writes * st);
    }
  return t * an.xfers;
}

int64_t mapc::rt::predictStepTicks(const Step &step, const BitLayout &before,
                                   unsigned elemBytes, bool copyFirst,
                                   const MachineShape &shape,
                                   const CostModel &cost) {
  if (step.kind == StepKind::Exchange)
    return predictExchangeStep(step, AffineLayout::fromBits(before), elemBytes,
                               copyFirst, shape, cost);
  StepAnalysis an;
  if (!analyseStep(step, before, elemBytes, shape.width, an, nullptr,
                   /*listDataCycles=*/false))
    return -1;
  switch (step.kind) {
  case StepKind::Memory:
  case StepKind::Router:
    return predictCycleStep(step, an, before, copyFirst, shape, cost);
  case StepKind::Xnet:
    return predictXnetStep(an, copyFirst, shape, cost);
  case StepKind::BruteForce:
    return predictBruteForceStep(step, an, before, copyFirst, shape, cost);
  case StepKind::Exchange:
  case StepKind::Route:
    break;
  }
  return -1;
}
