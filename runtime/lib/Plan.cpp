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
  return AffineMove::fromExchanges(
      bits, exchanges.empty() ? std::vector<Exchange>{} : exchanges[0]);
}

Step Step::exchangeStep(unsigned bits,
                        std::vector<std::vector<Exchange>> orders,
                        std::string schedule) {
  Step s;
  s.kind = StepKind::Exchange;
  s.move = BitMove::identity(bits);
  s.exchanges = std::move(orders);
  s.schedule = std::move(schedule);
  return s;
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
