//===- AffinePlanner.cpp --------------------------------------------------===//
#include "passes/AffinePlanner.h"
#include "passes/ExchangeDecomposition.h"

#include <algorithm>

using namespace mapc;
using rt::AffineLayout;
using rt::AffineMove;

rt::Plan mapc::emptyAffinePlan(const AffineLayout &src, const AffineLayout &dst,
                               unsigned elemBytes, bool copy,
                               unsigned exchangeLowerBound) {
  rt::Plan plan;
  plan.affine = true;
  plan.affineSource = src;
  plan.affineDest = dst;
  plan.elemBytes = elemBytes;
  plan.copy = copy;
  plan.exchangeLowerBound = exchangeLowerBound;
  return plan;
}

rt::BitLayout mapc::virtualBitLayout(const AffineLayout &l) {
  rt::BitLayout b;
  b.mBits = l.mBits;
  b.pBits = l.pBits;
  for (unsigned i = 0; i < l.bits(); ++i) {
    bool off = (l.disabled >> i) & 1;
    b.dataBit.push_back(off ? -1 : int(b.dataBits++));
    b.value.push_back(off ? uint8_t((l.constant >> i) & 1) : 0);
  }
  return b;
}

std::string mapc::formatExchange(const rt::Exchange &e, unsigned mBits) {
  auto name = [&](unsigned b) {
    return b < mBits ? "m" + std::to_string(b)
                     : "p" + std::to_string(b - mBits);
  };
  std::string s = name(e.bit) + " ^= ";
  bool first = true;
  for (unsigned b = 64; b-- > 0;)
    if ((e.condition >> b) & 1) {
      s += (first ? "" : "^") + name(b);
      first = false;
    }
  return first ? s + "0" : s;
}

int64_t mapc::affineLowerBound(const AffineLayout &src, const AffineMove &g,
                               unsigned elemBytes, bool copy,
                               const rt::MachineShape &shape,
                               const rt::CostModel &cost) {
  // Some PE moves at least the average: held addresses that change (all of
  // them for a copy) over the PE count.
  uint64_t moved = copy ? src.heldCount() : rt::countMoved(src, g);
  uint64_t pes = shape.peCount();
  uint64_t worst = (moved + pes - 1) / pes;
  if (!worst)
    return 0;
  // The cheapest way to load and store `worst` elements: transfers of one
  // width, each carrying width / elemBytes of them.
  int64_t best = -1;
  for (unsigned w = std::min(8u, elemBytes); w <= 8; w *= 2) {
    uint64_t per = std::max(1u, w / elemBytes);
    unsigned wi = rt::widthIndex(w);
    int64_t c =
        int64_t((worst + per - 1) / per) * (cost.load[wi] + cost.store(wi));
    best = best < 0 ? c : std::min(best, c);
  }
  return best;
}

std::variant<rt::Plan, std::string>
mapc::planAffineRemap(const AffinePlanRequest &r, PlannerKind kind) {
  auto factored = factorRemap(r.src, r.dst, r.exchangeStart);
  if (auto *why = std::get_if<std::string>(&factored))
    return *why;
  const AffineMove &g = std::get<AffineRemap>(factored).move;
  const AffineFactoring &f = std::get<AffineRemap>(factored).factoring;

  rt::Plan plan =
      emptyAffinePlan(r.src, r.dst, r.elemBytes, r.copy, f.lowerBound);
  unsigned n = r.src.bits();
  AffineLayout now = r.src;
  for (size_t k = 0; k < f.exchanges.size(); ++k) {
    const rt::Exchange &e = f.exchanges[k];
    rt::Step s = rt::Step::exchangeStep(n, {{e}});
    rt::BitLayout before = virtualBitLayout(now);
    s.predictedTicks = rt::predictStepTicks(s, before, r.elemBytes,
                                            r.copy && k == 0, r.shape, r.cost);
    bool pe = e.bit >= r.src.mBits;
    s.why = "exchange " + std::to_string(k + 1) + " of " +
            std::to_string(f.exchanges.size()) + " (at least " +
            std::to_string(f.lowerBound) + " needed, 001 thm 5 / lemma 2)";
    if (pe)
      s.why += rt::exchangeUsesXnet(e, r.src.mBits, r.src.pBits, r.elemBytes,
                                    r.shape, r.cost)
                   ? "; the xnet beats the router here"
                   : "; the router beats the xnet here";
    else
      s.why += "; a local swap of slot pairs";
    plan.predictedTicks += s.predictedTicks;
    plan.steps.push_back(s);
    now = AffineMove::fromExchange(n, e).applyTo(now);
  }
  // The permutation that is left, on virtual bit layouts.
  PlanRequest pr;
  pr.src = virtualBitLayout(now);
  pr.dst = f.permutation.applyTo(pr.src);
  pr.elemBytes = r.elemBytes;
  pr.copy = r.copy && f.exchanges.empty();
  pr.shape = r.shape;
  pr.cost = r.cost;
  plan.source = pr.src;
  plan.dest = pr.dst;
  if (!f.permutation.isIdentity() || pr.copy) {
    auto rest = planRemap(pr, kind);
    if (auto *e = std::get_if<std::string>(&rest))
      return *e;
    rt::Plan &p = std::get<rt::Plan>(rest);
    for (rt::Step &s : p.steps)
      plan.steps.push_back(s);
    plan.predictedTicks += p.predictedTicks;
    plan.planner = p.planner;
  } else {
    plan.planner = plannerName(kind);
  }
  plan.lowerBound =
      affineLowerBound(r.src, g, r.elemBytes, r.copy, r.shape, r.cost);
  return plan;
}

std::string mapc::remapText(const std::vector<rt::Exchange> &exchanges,
                            const rt::BitMove &permutation,
                            const rt::BitLayout &permuted) {
  std::string text;
  for (const rt::Exchange &e : exchanges)
    text += (text.empty() ? "exchanges [" : ", [") +
            formatExchange(e, permuted.mBits) + "]";
  std::string cycles =
      permutation.isIdentity() ? "" : rt::formatMove(permutation, permuted);
  if (text.empty())
    return cycles;
  return cycles.empty() ? text : text + " then " + cycles;
}

std::string mapc::affineRemapText(const IndexBitMap &src,
                                  const IndexBitMap &dst,
                                  std::optional<unsigned> exchangeStart,
                                  std::string &why) {
  unsigned mBits = std::max(src.memoryBits, dst.memoryBits);
  unsigned pBits = std::max(src.peBits, dst.peBits);
  AffineLayout s = std::get<AffineLayout>(toRuntimeAffine(src, mBits, pBits));
  auto factored =
      factorRemap(s, std::get<AffineLayout>(toRuntimeAffine(dst, mBits, pBits)),
                  exchangeStart);
  if (auto *e = std::get_if<std::string>(&factored)) {
    why = *e;
    return "";
  }
  const AffineFactoring &f = std::get<AffineRemap>(factored).factoring;
  AffineLayout now =
      AffineMove::fromExchanges(s.bits(), f.exchanges).applyTo(s);
  return remapText(f.exchanges, f.permutation, virtualBitLayout(now));
}
