//===- StepAnalysis.cpp ---------------------------------------------------===//
#include "StepAnalysis.h"

using namespace mapc::rt;

static uint64_t bitOf(uint64_t v, unsigned i) { return (v >> i) & 1; }

static unsigned parity(uint64_t v) { return __builtin_parityll(v); }

uint64_t StepAnalysis::loopValue(uint64_t i) const {
  uint64_t v = 0;
  for (size_t k = 0; k < loopBits.size(); ++k)
    v |= bitOf(i, unsigned(k)) << loopBits[k];
  return v;
}

uint64_t StepAnalysis::parityBits(uint64_t peAddressBits,
                                  uint64_t phase) const {
  uint64_t v = 0;
  for (size_t k = 0; k < mps.size(); ++k)
    v |= uint64_t(bitOf(phase, unsigned(k)) ^
                  parity(peAddressBits & mps[k].pMask))
         << mps[k].mBit;
  return v;
}

static unsigned log2u(uint64_t v) {
  unsigned l = 0;
  while ((uint64_t(1) << l) < v)
    ++l;
  return l;
}

bool mapc::rt::analyseStep(const Step &step, const BitLayout &before,
                           unsigned elemBytes, unsigned peWidth,
                           StepAnalysis &out, std::string *why,
                           bool listDataCycles) {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  const BitMove &mv = step.move;
  unsigned n = before.bits(), mB = before.mBits;
  if (mv.bits() != n)
    return fail("the step's move has " + std::to_string(mv.bits()) +
                " bits but the layout has " + std::to_string(n));
  out = StepAnalysis();
  out.mBits = mB;
  out.pBits = before.pBits;
  auto isFixed = [&](unsigned i) {
    return mv.to[i] == i && !bitOf(mv.flip, i);
  };
  if (step.chunkBits > mB)
    return fail("chunk of more bits than memory has");
  for (unsigned i = 0; i < step.chunkBits; ++i)
    if (!isFixed(i))
      return fail("chunk bit " + before.bitName(i) + " is not an identity bit");
  if (elemBytes == 0 || (elemBytes & (elemBytes - 1)) || step.chunkBits > 40)
    return fail("element size must be a power of two");
  out.chunkBytes = elemBytes << step.chunkBits;
  out.xferBytes = out.chunkBytes < 8 ? out.chunkBytes : 8;
  out.xfers = out.chunkBytes / out.xferBytes;
  out.chunkMask = (uint64_t(1) << step.chunkBits) - 1;

  // Cycle types (003 4.4.2).
  for (const std::vector<unsigned> &cyc : mv.cycles()) {
    const unsigned i = cyc[0];
    unsigned mCount = 0, flips = 0;
    uint64_t pMask = 0, mMask = 0;
    for (unsigned b : cyc) {
      flips += unsigned(bitOf(mv.flip, b));
      if (b < mB) {
        ++mCount;
        mMask |= uint64_t(1) << b;
      } else {
        pMask |= uint64_t(1) << b;
      }
    }
    if (mCount == cyc.size()) {
      if (cyc.size() == 1 && !flips) {
        if (i >= step.chunkBits)
          out.loopBits.push_back(i);
      } else {
        out.starMask |= mMask;
      }
      continue;
    }
    if (mCount == 0) {
      if (cyc.size() > 1 || flips)
        out.movesPEs = true;
      continue;
    }
    // Brute force and the xnet do not walk cycles.
    if (step.kind == StepKind::BruteForce || step.kind == StepKind::Xnet) {
      out.movesPEs = true;
      continue;
    }
    if (mCount > 1)
      return fail("a mixed cycle with " + std::to_string(mCount) +
                  " m-bits must be factored first (003 4.4.7)");
    if (flips % 2)
      return fail("an odd-parity (mp*) cycle must be made even first "
                  "(003 4.4.7)");
    MpCycle c;
    c.mBit = 0;
    for (unsigned b : cyc)
      if (b < mB)
        c.mBit = b;
    c.pMask = pMask;
    out.mps.push_back(c);
    out.movesPEs = true;
  }

  switch (step.kind) {
  case StepKind::Memory:
    if (out.movesPEs)
      return fail("a memory step cannot move p-bits");
    break;
  case StepKind::Router:
  case StepKind::BruteForce:
    break;
  case StepKind::Exchange:
  case StepKind::Route:
    return fail(std::string(stepKindName(step.kind)) +
                " steps are not cycle steps");
  case StepKind::Xnet: {
    // Pairs (m(a+j), p(b+j)), nothing else moving (003 5.6.5).
    unsigned a = n, b = n, k = 0;
    for (unsigned i = 0; i < mB; ++i) {
      if (isFixed(i))
        continue;
      if (a == n)
        a = i;
      if (i != a + k)
        return fail("xnet exchange m-bits must be consecutive");
      ++k;
    }
    if (k == 0)
      return fail("xnet step exchanges no bits");
    b = mv.to[a];
    if (b < mB)
      return fail("xnet step must exchange m-bits with p-bits");
    for (unsigned j = 0; j < k; ++j)
      if (mv.to[a + j] != b + j || mv.to[b + j] != a + j)
        return fail("xnet step must pair m(a+j) with p(b+j)");
    if (mv.flip)
      return fail("xnet step cannot invert bits");
    for (unsigned i = mB; i < n; ++i)
      if ((i < b || i >= b + k) && !isFixed(i))
        return fail("xnet step moves other p-bits");
    unsigned xBits = log2u(peWidth);
    unsigned pb = b - mB;
    bool inX = pb + k <= xBits, inY = pb >= xBits;
    if (!inX && !inY)
      return fail("xnet p-bits must lie in one grid dimension");
    out.xnetM = a;
    out.xnetP = pb;
    out.xnetBits = k;
    out.mps.clear();
    out.starMask = 0;
    out.loopBits.clear();
    for (unsigned i = step.chunkBits; i < mB; ++i)
      if (i < a || i >= a + k)
        out.loopBits.push_back(i);
    break;
  }
  }

  // Data cycles of the (m*) offsets (003 fig. 4.6).
  std::vector<unsigned> starBits;
  for (unsigned i = 0; i < mB; ++i)
    if (bitOf(out.starMask, i))
      starBits.push_back(i);
  // Only memory and router steps walk data cycles (function 4.2).
  const bool walksCycles =
      step.kind == StepKind::Memory || step.kind == StepKind::Router;
  unsigned limit = memoryPermutationLimit(before.pBits);
  if (walksCycles && starBits.size() > limit)
    return fail("an (m*) permutation of " + std::to_string(starBits.size()) +
                " bits needs a data-cycle list of 2^" +
                std::to_string(starBits.size()) +
                " nodes, more than the PE array holds; split it into parts "
                "of at most " +
                std::to_string(limit) + " bits (003 4.4.5)");
  if (!listDataCycles || !walksCycles)
    return true;
  size_t count = size_t(1) << starBits.size();
  auto deposit = [&](uint64_t idx) {
    uint64_t v = 0;
    for (size_t k = 0; k < starBits.size(); ++k)
      v |= bitOf(idx, unsigned(k)) << starBits[k];
    return v;
  };
  auto extract = [&](uint64_t v) {
    uint64_t idx = 0;
    for (size_t k = 0; k < starBits.size(); ++k)
      idx |= bitOf(v, starBits[k]) << k;
    return idx;
  };
  std::vector<bool> visited(count, false);
  out.starOrder.reserve(count);
  for (uint64_t idx = 0; idx < count; ++idx) {
    if (visited[idx])
      continue;
    out.starCycleStart.push_back(uint32_t(out.starOrder.size()));
    for (uint64_t j = idx; !visited[j];) {
      visited[j] = true;
      uint64_t v = deposit(j);
      out.starOrder.push_back(v);
      j = extract(mv.apply(v));
    }
  }
  out.starCycleStart.push_back(uint32_t(out.starOrder.size()));
  return true;
}
