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
  }
  return "?";
}

BitLayout Plan::layoutAfter(int i) const {
  BitLayout l = source;
  for (int k = 0; k <= i && k < int(steps.size()); ++k)
    l = steps[k].move.applyTo(l);
  return l;
}
