//===- Plan.cpp -----------------------------------------------------------===//
#include "mapc/runtime/Plan.h"

using namespace mapc::rt;

const char *mapc::rt::stepKindName(StepKind k) {
  switch (k) {
  case StepKind::Memory:
    return "memory";
  case StepKind::Router:
    return "router";
  case StepKind::Xnet:
    return "xnet";
  case StepKind::BruteForce:
    return "brute-force";
  case StepKind::Exchange:
    return "exchange";
  case StepKind::Route:
    return "route";
  }
  return "?";
}

BitLayout Plan::layoutAfter(int i) const {
  BitLayout l = source;
  for (int k = 0; k <= i && k < int(steps.size()); ++k)
    l = steps[k].move.applyTo(l);
  return l;
}

AffineMove Step::exchangeMove(unsigned bits) const {
  AffineMove m = AffineMove::identity(bits);
  if (!exchanges.empty())
    for (const Exchange &e : exchanges[0])
      m = m.then(AffineMove::fromExchange(bits, e));
  return m;
}

AffineLayout Plan::affineAfter(int i) const {
  AffineLayout l = affine ? affineSource : AffineLayout::fromBits(source);
  for (int k = 0; k <= i && k < int(steps.size()); ++k) {
    const Step &s = steps[k];
    AffineMove m = s.kind == StepKind::Exchange
                       ? s.exchangeMove(l.bits())
                       : AffineMove::fromBitMove(s.move);
    l = m.applyTo(l);
  }
  return l;
}
