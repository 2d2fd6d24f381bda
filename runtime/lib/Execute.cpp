//===- Execute.cpp - carrying plan steps out on the simulated MasPar
//-------===//
//
// Each step kind is one of 003's functions, written for the simulator:
//   Memory      permute_m (function 4.2) inside permute_i (4.4)
//   Router      permute_i -> permute_x -> permute_mp (4.4, 4.3, 4.4.6),
//               with permute_p (4.1) as the case without m-bits
//   Xnet        exchange_dig (function 6.1) over the xnet (5.6.5)
//   BruteForce  brute_copy (function 6.2)
// Data moves only through MasPar's priced instructions; the bookkeeping the
// ACU would do (offsets, destination PEs) is plain C++ and costs nothing,
// as in the thesis's lower-bound model (5.8.1).
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Execute.h"

#include "ExchangeStep.h"
#include "StepAnalysis.h"

#include <algorithm>

using namespace mapc::rt;

namespace {

/// Validity of addresses under a layout: (a ^ constants) & disabled == 0.
struct Validity {
  uint64_t disabled = 0, constants = 0;
  explicit Validity(const BitLayout &l) {
    for (unsigned i = 0; i < l.bits(); ++i)
      if (l.dataBit[i] < 0) {
        disabled |= uint64_t(1) << i;
        constants |= uint64_t(l.value[i]) << i;
      }
  }
  bool holds(uint64_t a) const { return ((a ^ constants) & disabled) == 0; }
};

class StepRunner {
public:
  StepRunner(MasPar &m, const Step &step, const StepAnalysis &an,
             const BitLayout &before, const BitLayout &after,
             unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
             bool copyFirst)
      : m(m), step(step), an(an), before(before), after(after),
        elemBytes(elemBytes), readBase(readBase), writeBase(writeBase),
        copyFirst(copyFirst), vb(before), va(after), pes(m.peCount()) {
    peAddr.resize(pes);
    for (unsigned p = 0; p < pes; ++p)
      peAddr[p] = uint64_t(p) << an.mBits;
    mMask = (uint64_t(1) << an.mBits) - 1;
    // A chunk travels whole: its identity bits, even disabled ones, never
    // decide whether it holds data.
    vb.disabled &= ~an.chunkMask;
    va.disabled &= ~an.chunkMask;
  }

  bool run(std::string *why);

private:
  MasPar &m;
  const Step &step;
  const StepAnalysis &an;
  const BitLayout &before, &after;
  unsigned elemBytes;
  uint64_t readBase, writeBase;
  bool copyFirst;
  Validity vb, va;
  unsigned pes;
  std::vector<uint64_t> peAddr;
  uint64_t mMask;
  bool failed = false;
  std::string failure;

  uint64_t byteAddr(uint64_t base, uint64_t off, unsigned xfer) const {
    return base + off * elemBytes + uint64_t(xfer) * an.xferBytes;
  }
  void fail(const std::string &why) {
    if (!failed)
      failure = why;
    failed = true;
  }

  bool runMemory();
  bool runRouter();
  bool runXnet();
  bool runBruteForce();
};

} // namespace

bool StepRunner::run(std::string *why) {
  bool ok = false;
  switch (step.kind) {
  case StepKind::Memory:
    ok = runMemory();
    break;
  case StepKind::Router:
    ok = runRouter();
    break;
  case StepKind::Xnet:
    ok = runXnet();
    break;
  case StepKind::BruteForce:
    ok = runBruteForce();
    break;
  case StepKind::Exchange:
  case StepKind::Route:
    fail("not a cycle step");
    break;
  }
  if (!ok && why)
    *why = failure;
  return ok;
}

// permute_m inside permute_i: every PE walks the same data cycles, so all
// addresses are direct (003 4.4.5).
bool StepRunner::runMemory() {
  Mask sv(pes), dv(pes);
  auto masks = [&](uint64_t off, const Validity &v, Mask &mask) {
    for (unsigned p = 0; p < pes; ++p)
      mask[p] = v.holds(off | peAddr[p]);
  };
  std::vector<Plural> hold(an.xfers);
  uint64_t loops = uint64_t(1) << an.loopBits.size();
  for (uint64_t li = 0; li < loops; ++li) {
    uint64_t lv = an.loopValue(li);
    for (size_t c = 0; c < an.starCycleCount(); ++c) {
      const uint64_t *q = &an.starOrder[an.starCycleStart[c]];
      size_t len = an.starCycleStart[c + 1] - an.starCycleStart[c];
      if (copyFirst) {
        for (size_t k = 0; k < len; ++k) {
          uint64_t from = lv | q[k], to = lv | q[(k + 1) % len];
          masks(from, vb, sv);
          masks(to, va, dv);
          for (unsigned x = 0; x < an.xfers; ++x) {
            Plural z = m.load(an.xferBytes, byteAddr(readBase, from, x), sv);
            m.store(an.xferBytes, byteAddr(writeBase, to, x), z, dv);
          }
        }
        continue;
      }
      if (len == 1)
        continue; // an identity offset stays where it is
      // Save the last element (its data goes to q[0]), then shift the
      // cycle backwards so every read precedes the write over it.
      masks(lv | q[len - 1], vb, sv);
      for (unsigned x = 0; x < an.xfers; ++x)
        hold[x] =
            m.load(an.xferBytes, byteAddr(readBase, lv | q[len - 1], x), sv);
      for (size_t k = len - 1; k >= 1; --k) {
        uint64_t from = lv | q[k - 1], to = lv | q[k];
        masks(from, vb, sv);
        masks(to, va, dv);
        for (unsigned x = 0; x < an.xfers; ++x) {
          Plural z = m.load(an.xferBytes, byteAddr(readBase, from, x), sv);
          m.store(an.xferBytes, byteAddr(writeBase, to, x), z, dv);
        }
      }
      masks(lv | q[0], va, dv);
      for (unsigned x = 0; x < an.xfers; ++x)
        m.store(an.xferBytes, byteAddr(writeBase, lv | q[0], x), hold[x], dv);
    }
  }
  return !failed;
}

// permute_i -> permute_x -> permute_mp. In parity phase `phase`, PE p works
// on the offset whose (mp*) m-bits equal phase xor the parity of the
// cycle's p-bits of p; the move keeps that parity, so each phase is a pure
// PE permutation (003 4.4.8) and every PE reads before it is written.
bool StepRunner::runRouter() {
  bool indirect = !an.mps.empty();
  Mask sv(pes), received(pes), holdMask(pes);
  Plural readOff(pes), dproc(pes), recvOff(pes);
  std::vector<Plural> hold(an.xfers);
  uint64_t loops = uint64_t(1) << an.loopBits.size();
  uint64_t phases = uint64_t(1) << an.mps.size();

  auto load = [&](unsigned x) {
    if (indirect) {
      Plural addr(pes);
      for (unsigned p = 0; p < pes; ++p)
        addr[p] = byteAddr(readBase, readOff[p], x);
      return m.loadIndirect(an.xferBytes, addr, sv);
    }
    return m.load(an.xferBytes, byteAddr(readBase, readOff[0], x), sv);
  };
  auto store = [&](unsigned x, const Plural &off, const Plural &z,
                   const Mask &mask) {
    if (indirect) {
      Plural addr(pes);
      for (unsigned p = 0; p < pes; ++p)
        addr[p] = byteAddr(writeBase, off[p], x);
      m.storeIndirect(an.xferBytes, addr, z, mask);
    } else {
      m.store(an.xferBytes, byteAddr(writeBase, off[0], x), z, mask);
    }
  };

  for (uint64_t li = 0; li < loops; ++li) {
    uint64_t lv = an.loopValue(li);
    for (uint64_t ph = 0; ph < phases; ++ph) {
      // Sets readOff/sv/dproc for star offset q, and the offset each
      // receiver writes (its own formula, checked against the sender's).
      auto prepare = [&](uint64_t q, uint64_t qNext) -> bool {
        bool moves = false;
        for (unsigned p = 0; p < pes; ++p) {
          uint64_t off = lv | q | an.parityBits(peAddr[p], ph);
          readOff[p] = off;
          uint64_t a = off | peAddr[p];
          sv[p] = vb.holds(a);
          uint64_t g = step.move.apply(a);
          dproc[p] = g >> an.mBits;
          if (g != a)
            moves = true;
          recvOff[p] = lv | qNext | an.parityBits(peAddr[p], ph);
        }
        for (unsigned p = 0; p < pes; ++p) {
          uint64_t g = step.move.apply(readOff[p] | peAddr[p]);
          if ((g & mMask) != recvOff[dproc[p]])
            fail("internal: receiver offset disagrees with the move");
        }
        return moves;
      };
      auto sendTo = [&](unsigned x, Plural &got) {
        Plural z = load(x);
        got =
            m.routerSend(an.xferBytes, z, dproc, sv, step.clustered, received);
      };
      for (size_t c = 0; c < an.starCycleCount() && !failed; ++c) {
        const uint64_t *q = &an.starOrder[an.starCycleStart[c]];
        size_t len = an.starCycleStart[c + 1] - an.starCycleStart[c];
        if (copyFirst || len == 1) {
          for (size_t k = 0; k < len; ++k) {
            bool moves = prepare(q[k], q[(k + 1) % len]);
            if (!moves && !copyFirst)
              continue;
            for (unsigned x = 0; x < an.xfers; ++x) {
              Plural got;
              sendTo(x, got);
              store(x, recvOff, got, received);
            }
          }
          continue;
        }
        prepare(q[len - 1], q[0]);
        for (unsigned x = 0; x < an.xfers; ++x)
          sendTo(x, hold[x]);
        holdMask = received;
        Plural holdOff = recvOff;
        for (size_t k = len - 1; k >= 1; --k) {
          prepare(q[k - 1], q[k]);
          for (unsigned x = 0; x < an.xfers; ++x) {
            Plural got;
            sendTo(x, got);
            store(x, recvOff, got, received);
          }
        }
        for (unsigned x = 0; x < an.xfers; ++x)
          store(x, holdOff, hold[x], holdMask);
      }
    }
  }
  return !failed;
}

// exchange_dig (003 function 6.1) over the xnet: PE digit x trades its
// memory digit x + i with PE x + i and x - i with PE x - i, both read before
// either is written, for i = 1 .. K/2.
bool StepRunner::runXnet() {
  unsigned k = an.xnetBits, K = 1u << k;
  unsigned xBits = 0;
  while ((1u << xBits) < m.width())
    ++xBits;
  bool inX = an.xnetP + k <= xBits;
  unsigned stride = inX ? 1u << an.xnetP : 1u << (an.xnetP - xBits);
  unsigned dimLen = inX ? m.width() : m.height();
  XnetDir plus = inX ? XnetDir::E : XnetDir::S;
  XnetDir minus = inX ? XnetDir::W : XnetDir::N;
  bool wraps = uint64_t(K) * stride == dimLen;
  Plural digit(pes);
  for (unsigned p = 0; p < pes; ++p)
    digit[p] = (p >> an.xnetP) & (K - 1);
  uint64_t loops = uint64_t(1) << an.loopBits.size();
  Plural off0(pes), off1(pes), addr(pes);
  Mask sv0(pes), sv1(pes), got0(pes), got1(pes);

  // Sends z from the PEs in `active` forward (+i) or backward (-i) along the
  // dimension, splitting at the block's edge unless the torus wraps there.
  auto shift = [&](int dir, unsigned i, const Plural &z, const Mask &active,
                   Mask &got) {
    std::fill(got.begin(), got.end(), 0);
    Plural out(pes, 0);
    auto sendPart = [&](XnetDir d, unsigned dist, const Mask &part) {
      Mask r(pes);
      Plural v = m.xnetSend(an.xferBytes, d, dist, z, part, r);
      for (unsigned p = 0; p < pes; ++p)
        if (r[p]) {
          out[p] = v[p];
          got[p] = 1;
        }
    };
    XnetDir near = dir > 0 ? plus : minus, far = dir > 0 ? minus : plus;
    if (wraps) {
      if (i <= K - i)
        sendPart(near, i * stride, active);
      else
        sendPart(far, (K - i) * stride, active);
      return out;
    }
    Mask inside(pes), across(pes);
    for (unsigned p = 0; p < pes; ++p) {
      bool stays = dir > 0 ? digit[p] + i < K : digit[p] >= i;
      inside[p] = active[p] && stays;
      across[p] = active[p] && !stays;
    }
    sendPart(near, i * stride, inside);
    sendPart(far, (K - i) * stride, across);
    return out;
  };

  for (uint64_t li = 0; li < loops; ++li) {
    uint64_t lv = an.loopValue(li);
    for (unsigned i = 1; i <= K / 2; ++i) {
      bool single = 2 * i == K;
      for (unsigned p = 0; p < pes; ++p) {
        off0[p] = lv | (uint64_t((digit[p] + i) % K) << an.xnetM);
        off1[p] = lv | (uint64_t((digit[p] + K - i) % K) << an.xnetM);
        sv0[p] = vb.holds(off0[p] | peAddr[p]);
        sv1[p] = vb.holds(off1[p] | peAddr[p]);
      }
      for (unsigned x = 0; x < an.xfers; ++x) {
        for (unsigned p = 0; p < pes; ++p)
          addr[p] = byteAddr(readBase, off0[p], x);
        Plural z0 = m.loadIndirect(an.xferBytes, addr, sv0);
        Plural z1;
        if (!single) {
          for (unsigned p = 0; p < pes; ++p)
            addr[p] = byteAddr(readBase, off1[p], x);
          z1 = m.loadIndirect(an.xferBytes, addr, sv1);
        }
        // z0 (my digit x+i) goes to PE x+i, which files it under digit x,
        // i.e. its own x+i-i: its off1. z1 goes to PE x-i, its off0.
        Plural r0 = shift(+1, i, z0, sv0, got0);
        Plural r1;
        if (!single)
          r1 = shift(-1, i, z1, sv1, got1);
        for (unsigned p = 0; p < pes; ++p)
          addr[p] = byteAddr(writeBase, single ? off0[p] : off1[p], x);
        m.storeIndirect(an.xferBytes, addr, r0, got0);
        if (!single) {
          for (unsigned p = 0; p < pes; ++p)
            addr[p] = byteAddr(writeBase, off0[p], x);
          m.storeIndirect(an.xferBytes, addr, r1, got1);
        }
      }
    }
    if (copyFirst) {
      // The diagonal stays in its PE but must still reach the copy.
      for (unsigned p = 0; p < pes; ++p) {
        off0[p] = lv | (uint64_t(digit[p]) << an.xnetM);
        sv0[p] = vb.holds(off0[p] | peAddr[p]);
      }
      for (unsigned x = 0; x < an.xfers; ++x) {
        for (unsigned p = 0; p < pes; ++p)
          addr[p] = byteAddr(readBase, off0[p], x);
        Plural z = m.loadIndirect(an.xferBytes, addr, sv0);
        for (unsigned p = 0; p < pes; ++p)
          addr[p] = byteAddr(writeBase, off0[p], x);
        m.storeIndirect(an.xferBytes, addr, z, sv0);
      }
    }
  }
  return !failed;
}

// brute_copy (003 function 6.2): every chunk is sent with its destination
// offset; senders that collide on one PE go in successive rounds.
bool StepRunner::runBruteForce() {
  unsigned cBits = step.chunkBits;
  uint64_t count = uint64_t(1) << (an.mBits - cBits);
  Mask sv(pes), active(pes), received(pes);
  Plural dproc(pes), doff(pes), addr(pes), recvAddr(pes);
  std::vector<unsigned> order(pes), rank(pes);
  for (uint64_t c = 0; c < count; ++c) {
    uint64_t off = c << cBits;
    unsigned rounds = 0;
    std::vector<unsigned> load(pes, 0);
    for (unsigned p = 0; p < pes; ++p) {
      uint64_t a = off | peAddr[p];
      sv[p] = vb.holds(a);
      uint64_t g = step.move.apply(a);
      dproc[p] = g >> an.mBits;
      doff[p] = g & mMask;
      if (sv[p]) {
        rank[p] = load[dproc[p]]++;
        rounds = std::max(rounds, rank[p] + 1);
      }
    }
    for (unsigned x = 0; x < an.xfers; ++x) {
      Plural z = m.load(an.xferBytes, byteAddr(readBase, off, x), sv);
      for (unsigned r = 0; r < rounds; ++r) {
        for (unsigned p = 0; p < pes; ++p)
          active[p] = sv[p] && rank[p] == r;
        Plural got =
            m.routerSend(an.xferBytes, z, dproc, active, false, received, 4);
        for (unsigned p = 0; p < pes; ++p)
          if (active[p])
            recvAddr[dproc[p]] = byteAddr(writeBase, doff[p], x);
        m.storeIndirect(an.xferBytes, recvAddr, got, received);
      }
    }
  }
  return !failed;
}

namespace {
/// Copies every chunk `after` holds from one region to another (the second
/// half of an in-place brute-force step).
void copyBack(MasPar &m, const StepAnalysis &an, const BitLayout &after,
              unsigned elemBytes, uint64_t from, uint64_t to) {
  Validity va(after);
  va.disabled &= ~an.chunkMask;
  unsigned pes = m.peCount(), cBits = __builtin_popcountll(an.chunkMask);
  Mask dv(pes);
  for (uint64_t c = 0; c < (uint64_t(1) << (an.mBits - cBits)); ++c) {
    uint64_t off = c << cBits;
    for (unsigned p = 0; p < pes; ++p)
      dv[p] = va.holds(off | (uint64_t(p) << an.mBits));
    for (unsigned x = 0; x < an.xfers; ++x) {
      uint64_t b = off * elemBytes + uint64_t(x) * an.xferBytes;
      Plural z = m.load(an.xferBytes, from + b, dv);
      m.store(an.xferBytes, to + b, z, dv);
    }
  }
}
} // namespace

bool mapc::rt::executePlan(MasPar &machine, const Plan &plan, Regions regions,
                           const StepObserver &observer, std::string *why) {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  std::string reason;
  if (!plan.source.valid(&reason) || !plan.dest.valid(&reason))
    return fail("bad layout: " + reason);
  if (plan.source.peCount() != machine.peCount())
    return fail("the plan is for " + std::to_string(plan.source.peCount()) +
                " PEs but the machine has " +
                std::to_string(machine.peCount()));
  uint64_t need = plan.source.memorySize() * plan.elemBytes;
  // A pricing machine has no memory: it only keeps the ledger.
  for (const Region &r : {regions.src, regions.dst})
    if (!machine.pricingOnly() && r.base + need > machine.memoryBytes())
      return fail("the array does not fit in PE memory");
  if (plan.copy && plan.steps.empty())
    return fail("a copy plan needs at least one step");
  BitLayout now = plan.source;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (step.kind == StepKind::Exchange) {
      bool copyFirst = plan.copy && i == 0;
      if (!runExchangeStep(machine, step, plan.affineAfter(int(i) - 1),
                           plan.elemBytes,
                           copyFirst ? regions.src.base : regions.dst.base,
                           regions.dst.base, copyFirst, &reason))
        return fail("step " + std::to_string(i + 1) + ": " + reason);
      if (observer)
        observer(unsigned(i + 1), now);
      continue;
    }
    StepAnalysis an;
    if (!analyseStep(step, now, plan.elemBytes, machine.width(), an, &reason))
      return fail("step " + std::to_string(i + 1) + ": " + reason);
    BitLayout next = step.move.applyTo(now);
    bool copyFirst = plan.copy && i == 0;
    uint64_t readBase = copyFirst ? regions.src.base : regions.dst.base;
    bool viaScratch = step.kind == StepKind::BruteForce && !copyFirst;
    uint64_t writeBase = viaScratch ? regions.scratch.base : regions.dst.base;
    if (viaScratch && !machine.pricingOnly() &&
        regions.scratch.base + need > machine.memoryBytes())
      return fail("no scratch memory for an in-place brute-force step");
    StepRunner runner(machine, step, an, now, next, plan.elemBytes, readBase,
                      writeBase, copyFirst);
    if (!runner.run(&reason))
      return fail("step " + std::to_string(i + 1) + ": " + reason);
    if (viaScratch)
      copyBack(machine, an, next, plan.elemBytes, regions.scratch.base,
               regions.dst.base);
    now = next;
    if (observer)
      observer(unsigned(i + 1), now);
  }
  return true;
}
