//===- DigitTile.h - index digit maps over one data dim, for unit tests ---===//
#ifndef MAPC_TEST_UNIT_DIGITTILE_H
#define MAPC_TEST_UNIT_DIGITTILE_H

#include "ir/KTile.h"
#include "mapc/runtime/General.h"

#include <vector>

namespace mapc::test {

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

} // namespace mapc::test

#endif // MAPC_TEST_UNIT_DIGITTILE_H
