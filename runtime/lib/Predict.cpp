//===- Predict.cpp - the ticks a step will cost, without running it -------===//
//
// Walks the same slots as Execute.cpp and adds up the prices of the
// instructions it would issue. Router sends in one step share their linear
// part (only XOR constants differ from slot to slot), so they all cost what
// one representative send costs (MasPar.h's router model).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Execute.h"

#include "StepAnalysis.h"

#include <algorithm>

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

int64_t mapc::rt::predictStepTicks(const Step &step, const BitLayout &before,
                                   unsigned elemBytes, bool copyFirst,
                                   const MachineShape &shape,
                                   const CostModel &cost) {
  StepAnalysis an;
  if (!analyseStep(step, before, elemBytes, shape.width, an, nullptr))
    return -1;
  BitLayout after = step.move.applyTo(before);
  MValid vb(before), va(after);
  vb.disabled &= ~an.chunkMask; // chunks travel whole
  va.disabled &= ~an.chunkMask;
  unsigned w = widthIndex(an.xferBytes);
  unsigned pes = shape.peCount();
  unsigned mB = an.mBits;
  int64_t t = 0;
  uint64_t loops = uint64_t(1) << an.loopBits.size();

  switch (step.kind) {
  case StepKind::Memory: {
    int64_t ld = cost.load[w], st = cost.store(w);
    for (uint64_t li = 0; li < loops; ++li) {
      uint64_t lv = an.loopValue(li);
      for (size_t c = 0; c < an.starCycleCount(); ++c) {
        const uint64_t *q = &an.starOrder[an.starCycleStart[c]];
        size_t len = an.starCycleStart[c + 1] - an.starCycleStart[c];
        if (len == 1 && !copyFirst)
          continue;
        for (size_t k = 0; k < len; ++k) {
          if (vb.holds(lv | q[k]))
            t += ld * an.xfers;
          if (va.holds(lv | q[(k + 1) % len]))
            t += st * an.xfers;
        }
      }
    }
    return t;
  }
  case StepKind::Router: {
    bool indirect = !an.mps.empty();
    int64_t ld = indirect ? cost.loadIndirect[w] : cost.load[w];
    int64_t st = indirect ? cost.storeIndirect(w) : cost.store(w);
    MasPar probe(shape.width, shape.height, 0, shape.clusterSize, cost);
    int64_t sendCost = -1;
    uint64_t phases = uint64_t(1) << an.mps.size();
    uint64_t parityMask = 0;
    for (const MpCycle &c : an.mps)
      parityMask |= uint64_t(1) << c.mBit;
    Mask all(pes, 1);
    auto addrOf = [&](uint64_t lv, uint64_t q, uint64_t ph, uint64_t p) {
      uint64_t pa = p << mB;
      return lv | q | an.parityBits(pa, ph) | pa;
    };
    // g(a(p)) xor a(p) is affine in p: zero everywhere iff zero at p = 0
    // and at every unit vector.
    auto slotShape = [&](uint64_t lv, uint64_t q, uint64_t ph, bool &moves,
                         bool &leaves) {
      moves = leaves = false;
      for (unsigned j = 0; j <= an.pBits; ++j) {
        uint64_t p = j == 0 ? 0 : uint64_t(1) << (j - 1);
        uint64_t a = addrOf(lv, q, ph, p);
        uint64_t g = step.move.apply(a);
        if (g != a)
          moves = true;
        if ((g >> mB) != p)
          leaves = true;
      }
    };
    auto send = [&](uint64_t lv, uint64_t q, uint64_t ph) {
      if (sendCost < 0) {
        Plural dproc(pes);
        for (unsigned p = 0; p < pes; ++p)
          dproc[p] = step.move.apply(addrOf(lv, q, ph, p)) >> mB;
        sendCost = probe.routerCost(an.xferBytes, dproc, all, step.clustered);
      }
      return sendCost;
    };
    for (uint64_t li = 0; li < loops; ++li) {
      uint64_t lv = an.loopValue(li);
      for (uint64_t ph = 0; ph < phases; ++ph)
        for (size_t c = 0; c < an.starCycleCount(); ++c) {
          const uint64_t *q = &an.starOrder[an.starCycleStart[c]];
          size_t len = an.starCycleStart[c + 1] - an.starCycleStart[c];
          for (size_t k = 0; k < len; ++k) {
            bool moves, leaves;
            slotShape(lv, q[k], ph, moves, leaves);
            if (len == 1 && !moves && !copyFirst)
              continue;
            // With (mp*) cycles the parity bits differ from PE to PE, so
            // only the other m-bits decide whether any PE holds data.
            uint64_t vary = indirect ? parityMask : 0;
            bool readable = vb.holds((lv | q[k]) & ~vary, vary);
            bool writable = va.holds((lv | q[(k + 1) % len]) & ~vary, vary);
            if (readable) {
              t += ld * an.xfers;
              if (leaves)
                t += send(lv, q[k], ph) * an.xfers;
            }
            if (writable)
              t += st * an.xfers;
          }
        }
    }
    return t;
  }
  case StepKind::Xnet: {
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
      int64_t x =
          wraps ? cost.xnet(w, std::min(i, K - i) * stride)
                : cost.xnet(w, i * stride) + cost.xnet(w, (K - i) * stride);
      per += sends * x;
    }
    if (copyFirst)
      per += cost.loadIndirect[w] + cost.storeIndirect(w);
    return int64_t(loops) * per * an.xfers;
  }
  case StepKind::BruteForce: {
    MasPar probe(shape.width, shape.height, 0, shape.clusterSize, cost);
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
  }
  return t;
}
