//===- DigitPlanner.cpp - 003 6.2.2's digit permutation in steps ----------===//
#include "passes/DigitPlanner.h"
#include "passes/FrameMove.h"
#include "passes/FramePrice.h"
#include "passes/ResignifyWithin.h"

#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/Resignify.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <optional>
#include <set>

using namespace mapc;
using rt::GeneralStepKind;

namespace {

using Digits = std::vector<unsigned>; ///< k-Tile dims, least significant first

/// `frame` with its memory and PE digits replaced.
rt::TileMap withDigits(const rt::TileMap &frame, const Digits &mem,
                       const Digits &pe) {
  rt::TileMap t = frame;
  t.m = {mem, pe};
  for (size_t i = 0; i < 2; ++i) {
    int64_t n = 1;
    for (unsigned l : t.m[i])
      n *= t.kdims[l].tk;
    t.device[i] = rt::SpaceDim::plain(n);
  }
  return t;
}

/// The places where `t`'s data digits split its one data dim's index.
void cutsOf(const rt::TileMap &t, std::set<int64_t> &out) {
  int64_t place = 1;
  out.insert(place);
  for (unsigned l = 0; l < t.firstEmptyDim(); ++l)
    out.insert(place = rt::satMul(place, t.kdims[l].tk));
}

/// `t` with every data digit cut at `at` into the digits it spans, least
/// significant first (003 6.1.3, fig. 6.1): the same layout, factorised
/// finer. Fails on a reversed digit that would be cut.
std::optional<rt::TileMap> refine(const rt::TileMap &t,
                                  const std::set<int64_t> &at) {
  if (t.data.size() != 1 || t.data[0].len != t.data[0].tlen || t.data[0].off ||
      t.data[0].toff || t.groups.empty())
    return std::nullopt;
  const unsigned firstEmpty = t.firstEmptyDim();
  rt::TileMap r = t;
  r.kdims.clear();
  std::vector<std::vector<unsigned>> pieces(t.kdims.size());
  int64_t place = 1;
  for (unsigned l = 0; l < firstEmpty; ++l) {
    const rt::KDim &k = t.kdims[l];
    const int64_t hi = rt::satMul(place, k.tk);
    for (auto it = at.find(place); it != at.end() && *it != hi; ++it) {
      if (std::next(it) == at.end() || *std::next(it) > hi ||
          *std::next(it) % *it != 0)
        return std::nullopt; // not aligned (fig. 6.2)
      rt::KDim piece = k;
      piece.k = piece.tk = *std::next(it) / *it;
      if (piece.tk != k.tk && k.sense == rt::Sense::Minus)
        return std::nullopt;
      pieces[l].push_back(unsigned(r.kdims.size()));
      r.kdims.push_back(piece);
    }
    if (pieces[l].empty())
      return std::nullopt;
    place = hi;
  }
  r.groups[0] = unsigned(r.kdims.size());
  for (unsigned l = firstEmpty; l < t.kdims.size(); ++l) {
    pieces[l].push_back(unsigned(r.kdims.size()));
    r.kdims.push_back(t.kdims[l]);
  }
  for (auto &dim : r.m) {
    Digits out;
    for (unsigned l : dim)
      out.insert(out.end(), pieces[l].begin(), pieces[l].end());
    dim = out;
  }
  return r;
}

/// Whether `a` and `b` have digits of the same bases (of either sense).
bool sameBases(const rt::TileMap &a, const rt::TileMap &b) {
  if (a.kdims.size() != b.kdims.size())
    return false;
  for (size_t l = 0; l < a.kdims.size(); ++l)
    if (a.kdims[l].tk != b.kdims[l].tk)
      return false;
  return true;
}

/// Whether `a` and `b` have the same digits, only placed differently or
/// of another sense (003 6.1: a digit of the other sense is that digit's
/// values reversed, which a memory or processor permutation carries).
bool sameDigits(const rt::TileMap &a, const rt::TileMap &b) {
  if (a.kdims.size() != b.kdims.size())
    return false;
  rt::TileMap t = b;
  t.m = a.m;
  t.device = a.device;
  for (size_t l = 0; l < t.kdims.size(); ++l)
    t.kdims[l].sense = a.kdims[l].sense;
  return t == a;
}

bool contains(const Digits &ds, unsigned l) {
  return std::find(ds.begin(), ds.end(), l) != ds.end();
}

/// The digits of `order` that are in `set`, in `order`'s order.
Digits pick(const Digits &order, const Digits &set) {
  Digits out;
  for (unsigned l : order)
    if (contains(set, l))
      out.push_back(l);
  return out;
}

Digits without(const Digits &ds, const Digits &drop) {
  Digits out;
  for (unsigned l : ds)
    if (!contains(drop, l))
      out.push_back(l);
  return out;
}

/// Where `group` sits in `ds` as a run of neighbours in its order, or -1.
int runAt(const Digits &ds, const Digits &group) {
  auto it = std::search(ds.begin(), ds.end(), group.begin(), group.end());
  return it == ds.end() ? -1 : int(it - ds.begin());
}

/// `ds` with the run of `group` at `at` replaced by `by`.
Digits replaceRun(const Digits &ds, int at, size_t len, const Digits &by) {
  Digits out(ds.begin(), ds.begin() + at);
  out.insert(out.end(), by.begin(), by.end());
  out.insert(out.end(), ds.begin() + at + long(len), ds.end());
  return out;
}

/// The ticks of the resig_mp step `s` from `from` (003 6.3.4) on the
/// simulator; `sources` = sourcesOf(from, s.to).
int64_t resignifyTicks(const GeneralPlanRequest &req, const rt::TileMap &from,
                       const rt::GeneralStep &s, bool copy,
                       const std::vector<uint32_t> &sources) {
  rt::GeneralPlan one;
  one.source = from;
  one.dest = s.to;
  one.elemBytes = req.elemBytes;
  one.copy = copy;
  one.steps = {s};
  return rt::predictGeneralStep(one, 0, req.shape, req.cost, &sources);
}

class Planner {
public:
  explicit Planner(const GeneralPlanRequest &req, bool floors = false,
                   int64_t budget = INT64_MAX)
      : floors(floors), budget(budget), req(req) {}

  /// The cheapest single step from `from` to `to` among the methods that
  /// keep elements apart (no brute force: it never wins inside a digit
  /// plan), in place unless it must read the copy's source.
  std::optional<rt::GeneralStep> step(const rt::TileMap &from,
                                      const rt::TileMap &to, bool first,
                                      const std::string &role,
                                      bool digitExchangeOnly = false);
  /// step(), or with a budget, while the step's partial rounds are not
  /// searched, a floor of it (`floored` set): its digit exchanges priced at
  /// their rounds' floor (rt::DigitExchangeFloorPricing).
  std::optional<rt::GeneralStep>
  stepOrFloor(const rt::TileMap &from, const rt::TileMap &to, bool first,
              const std::string &role, bool digitExchangeOnly, bool &floored);
  /// The ways to do `from` -> `to`, a processor/memory permutation
  /// (permute_mp): one step, or the processor and the memory halves through
  /// an intermediate layout, in either order. One empty way if `from` is
  /// `to`; none if nothing applies.
  std::vector<std::vector<rt::GeneralStep>> permuteMp(const rt::TileMap &from,
                                                      const rt::TileMap &to,
                                                      bool first,
                                                      const std::string &role);
  /// Adds a candidate of `steps` named `name`, made to end in the
  /// destination region.
  void finish(std::vector<rt::GeneralStep> steps, const std::string &name);
  /// Adds the plans of each way of `pre`, then `ex`, then each way of
  /// `post` (those of at least `fewest` steps), named `name`. Where `ex`
  /// is only a floor (stepOrFloor) and every such plan's floor is at or
  /// above the budget, they are added bounded, the exchange's rounds not
  /// searched (003 6.2.2's candidates share the exchange's price); else
  /// `exact()` prices the step.
  template <class Exact>
  void finishAround(const std::vector<std::vector<rt::GeneralStep>> &pre,
                    rt::GeneralStep ex, bool floored,
                    const std::vector<std::vector<rt::GeneralStep>> &post,
                    size_t fewest, const std::string &name, Exact exact);

  /// A resig-mp step from `from` to `to` (003 6.3.4) in place (6.3.9's
  /// bounded stacks) and out of place, each priced: the plans around it
  /// decide (out of place may need a copy back).
  std::vector<rt::GeneralStep> resignify(const rt::TileMap &from,
                                         const rt::TileMap &to, bool first,
                                         const std::string &why);

  std::vector<PricedPlan> plans;
  /// Steps every candidate starts with (re-significations, 003 6.3.4), the
  /// layout each starts from, and whether the candidates' own first step is
  /// the plan's.
  std::vector<rt::GeneralStep> prefix;
  std::vector<rt::TileMap> prefixFrom;
  bool startsPlan = true;
  /// In-place resig_mp steps carry floors (digitPermutationPlans).
  const bool floors;
  /// A plan at or above it cannot win (digitPermutationPlans).
  const int64_t budget;

private:
  const GeneralPlanRequest &req;
  /// Steps already priced: the candidates share most of their moves.
  struct Priced {
    rt::TileMap from, to;
    bool first, digitExchangeOnly;
    std::optional<rt::GeneralStep> step; ///< its why without the role
    bool floor = false;                  ///< step's ticks only a floor
  };
  std::vector<Priced> priced;
  /// resig_mp steps already priced: the frontier reaches one from each form
  /// of the step before it (in place and not), both from the same layout.
  struct PricedResig {
    rt::TileMap from, to;
    bool copy;
    std::vector<rt::GeneralStep> forms; ///< their why left to the caller
  };
  std::vector<PricedResig> pricedResig;
  std::vector<rt::GeneralStep> priceResignify(const rt::TileMap &from,
                                              const rt::TileMap &to, bool copy);
  /// The table of sources of the move being priced, its memory reused.
  std::vector<uint32_t> table;
  int64_t copyBackTicks = -1;
  /// A plan of `steps` after the prefix, ending in the destination.
  std::optional<PricedPlan> planOf(std::vector<rt::GeneralStep> steps,
                                   const std::string &name);
  std::optional<rt::GeneralStep> price(const rt::TileMap &from,
                                       const rt::TileMap &to, bool first,
                                       bool digitExchangeOnly);
};

std::optional<rt::GeneralStep> Planner::step(const rt::TileMap &from,
                                             const rt::TileMap &to, bool first,
                                             const std::string &role,
                                             bool digitExchangeOnly) {
  auto named = [&](std::optional<rt::GeneralStep> s) {
    if (s)
      s->why = role + ": " + s->why;
    return s;
  };
  for (const Priced &p : priced)
    if (!p.floor && p.first == first &&
        p.digitExchangeOnly == digitExchangeOnly && p.from == from &&
        p.to == to)
      return named(p.step);
  priced.push_back({from, to, first, digitExchangeOnly,
                    price(from, to, first, digitExchangeOnly)});
  return named(priced.back().step);
}

std::optional<rt::GeneralStep>
Planner::stepOrFloor(const rt::TileMap &from, const rt::TileMap &to, bool first,
                     const std::string &role, bool digitExchangeOnly,
                     bool &floored) {
  floored = false;
  if (budget == INT64_MAX)
    return step(from, to, first, role, digitExchangeOnly);
  // The price when known, else the floor when known.
  const Priced *hit = nullptr;
  for (const Priced &p : priced)
    if (p.first == first && p.digitExchangeOnly == digitExchangeOnly &&
        p.from == from && p.to == to && (!hit || !p.floor))
      hit = &p;
  if (!hit) {
    rt::DigitExchangeFloorPricing floor;
    std::optional<rt::GeneralStep> s =
        price(from, to, first, digitExchangeOnly);
    priced.push_back(
        {from, to, first, digitExchangeOnly, std::move(s), floor.floored()});
    hit = &priced.back();
  }
  floored = hit->floor;
  std::optional<rt::GeneralStep> s = hit->step;
  if (s)
    s->why = role + ": " + s->why;
  return s;
}

std::optional<rt::GeneralStep> Planner::price(const rt::TileMap &from,
                                              const rt::TileMap &to, bool first,
                                              bool digitExchangeOnly) {
  // A digit permutation's shape comes from its digits (FrameMove.h), a
  // digit reversed on one side only (resig_mp's last step to a reversed
  // digit) counting down; the elements each PE sends away only when an
  // exchange is an option.
  const bool frames =
      everyCellHeld(from) && everyCellHeld(to) && sameBases(from, to);
  // Local, slotwise and digit-exchange steps are priced from the digits
  // (FramePrice.h, FrameExchange.h); the table of sources is built only
  // for a step that still needs it (an exchange step not skipped by its
  // bound).
  const bool byDigits = req.priceFramesByDigits &&
                        heldFramesOverOneFactorisationEitherSense(from, to);
  std::vector<uint32_t> walked;
  bool tabled = false;
  auto sources = [&]() -> const std::vector<uint32_t> & {
    if (!tabled) {
      if (frames)
        frameSources(from, to, table);
      else
        walked = rt::sourcesOf(from, to);
      tabled = true;
    }
    return frames ? table : walked;
  };
  FrameShape shape;
  if (frames) {
    shape = frameShape(from, to, false);
    if (!digitExchangeOnly && !shape.local && !shape.slotUniformFrom)
      shape.leaving = frameShape(from, to, true).leaving;
  } else {
    const rt::MoveShape all = rt::analyseMove(from, to, sources());
    shape = {all.local, all.keepsSlots, all.slotUniformFrom, all.slotUniformTo,
             all.leaving};
  }
  const bool mayInPlace = !(first && req.copy);
  struct Option {
    GeneralStepKind kind;
    bool inPlace;
    const char *how;
  };
  std::vector<Option> options;
  if (digitExchangeOnly) {
    // A digit exchange with memory permutations folded in (DigitExchange.h).
    const char *dig = "a P/M digit exchange in b - 1 rounds with offsets "
                      "computed per PE, a memory permutation folded into "
                      "them (003 6.2.1, function 6.1)";
    if (mayInPlace)
      options.push_back({GeneralStepKind::DigitExchange, true, dig});
    options.push_back({GeneralStepKind::DigitExchange, false, dig});
  } else if (shape.local)
    options.push_back(
        {GeneralStepKind::Local,
         mayInPlace && shape.slotUniformFrom && shape.slotUniformTo,
         "a memory permutation (003 6.2.1, permute_m)"});
  if (shape.slotUniformFrom)
    options.push_back({GeneralStepKind::Slotwise,
                       mayInPlace && shape.keepsSlots,
                       "a processor permutation per slot in chunks of up to "
                       "64 bits (003 6.2.1, permute_p; 5.6.3)"});
  if (!shape.local && !digitExchangeOnly) {
    const char *dig = "a P/M digit exchange in b - 1 rounds with offsets "
                      "computed per PE (003 6.2.1, function 6.1)";
    const char *ex = "sends coloured into contention-free rounds (003 6.4)";
    if (mayInPlace)
      options.push_back({GeneralStepKind::DigitExchange, true, dig});
    options.push_back({GeneralStepKind::DigitExchange, false, dig});
    if (!shape.slotUniformFrom) {
      if (mayInPlace)
        options.push_back({GeneralStepKind::Exchange, true, ex});
      options.push_back({GeneralStepKind::Exchange, false, ex});
    }
  }
  std::optional<rt::GeneralStep> best;
  rt::GeneralPlan one;
  one.source = from;
  one.dest = to;
  one.elemBytes = req.elemBytes;
  one.copy = req.copy && first;
  // An exchange step is skipped unpriced when its bound cannot beat the
  // best option so far.
  const bool exchangeOption =
      !shape.local && !digitExchangeOnly && !shape.slotUniformFrom;
  const int64_t exchangeBound =
      !exchangeOption || to.replicates()
          ? 0
          : rt::exchangeStepBound(shape.leaving, req.elemBytes, req.shape,
                                  req.cost);
  for (const Option &o : options) {
    if (o.kind == GeneralStepKind::Exchange && best &&
        exchangeBound >= best->predictedTicks)
      continue;
    rt::GeneralStep s;
    s.kind = o.kind;
    s.to = to;
    s.inPlace = o.inPlace;
    s.why = o.how;
    one.steps = {s};
    const std::optional<int64_t> fromDigits =
        byDigits ? frameStepTicks(o.kind, o.inPlace, from, to, req.elemBytes,
                                  req.shape, req.cost)
                 : std::nullopt;
    const int64_t t = fromDigits ? *fromDigits
                                 : rt::predictGeneralStep(one, 0, req.shape,
                                                          req.cost, &sources());
    if (t < 0 || (best && t >= best->predictedTicks))
      continue;
    s.predictedTicks = t;
    best = s;
  }
  return best;
}

std::vector<std::vector<rt::GeneralStep>>
Planner::permuteMp(const rt::TileMap &from, const rt::TileMap &to, bool first,
                   const std::string &role) {
  std::vector<std::vector<rt::GeneralStep>> ways;
  if (from == to) {
    ways.emplace_back();
    return ways;
  }
  if (auto s = step(from, to, first, role))
    ways.push_back({*s});
  // The processor half first, then the memory half; and the other way.
  for (bool peFirst : {true, false}) {
    rt::TileMap mid = peFirst ? withDigits(from, from.m[0], to.m[1])
                              : withDigits(from, to.m[0], from.m[1]);
    if (mid == from || mid == to)
      continue;
    auto a = step(from, mid, first,
                  role + (peFirst ? ", PE digits" : ", memory digits"));
    auto b = a ? step(mid, to, false,
                      role + (peFirst ? ", memory digits" : ", PE digits"))
               : std::nullopt;
    if (a && b)
      ways.push_back({*a, *b});
  }
  return ways;
}

std::vector<rt::GeneralStep> Planner::resignify(const rt::TileMap &from,
                                                const rt::TileMap &to,
                                                bool first,
                                                const std::string &why) {
  const bool copy = req.copy && first;
  const PricedResig *hit = nullptr;
  for (const PricedResig &p : pricedResig)
    if (p.copy == copy && p.from == from && p.to == to)
      hit = &p;
  if (!hit) {
    pricedResig.push_back({from, to, copy, priceResignify(from, to, copy)});
    hit = &pricedResig.back();
  }
  std::vector<rt::GeneralStep> forms = hit->forms;
  for (rt::GeneralStep &s : forms)
    s.why = why;
  return forms;
}

std::vector<rt::GeneralStep> Planner::priceResignify(const rt::TileMap &from,
                                                     const rt::TileMap &to,
                                                     bool copy) {
  const std::vector<uint32_t> sources = rt::sourcesOf(from, to);
  std::vector<rt::GeneralStep> forms;
  for (bool inPlace : {true, false}) {
    if (inPlace && copy)
      continue;
    rt::GeneralStep s;
    s.kind = GeneralStepKind::Resignify;
    s.to = to;
    s.inPlace = inPlace;
    // In place its rounds are the dear part of planning: a floor, priced
    // when it may win (the floor fails exactly when the step cannot run).
    s.predictedTicks =
        inPlace && floors
            ? rt::resignifyInPlaceFloor(from, to, sources, req.elemBytes,
                                        req.shape, req.cost)
            : resignifyTicks(req, from, s, copy, sources);
    if (s.predictedTicks >= 0)
      forms.push_back(s);
  }
  return forms;
}

} // namespace

std::optional<PricedPlan> mapc::pricedPlanOf(const GeneralPlanRequest &req,
                                             std::vector<rt::GeneralStep> steps,
                                             const std::string &name,
                                             int64_t &copyBackTicks) {
  rt::GeneralPlan plan;
  plan.source = req.src;
  plan.dest = req.dst;
  plan.elemBytes = req.elemBytes;
  plan.copy = req.copy;
  plan.steps = std::move(steps);
  // The same cells as the aligned form: the plan ends in the request's own.
  // A form of another device shape (the destination with a constant PE
  // digit on top, 003 3.2.5, and 6.3.2's gathered form without it) may run
  // the step otherwise: an exchange coloured over 4 PEs, priced 15424, ran
  // in 15904 over the destination's 8 (ResignifyWithin.
  // ReversedDigitsOverAConstantPeDigit). That step is priced again.
  rt::GeneralStep &last = plan.steps.back();
  const bool reshaped = last.to.deviceShape() != req.dst.deviceShape();
  last.to = req.dst;
  if (reshaped) {
    last.predictedTicks = rt::predictGeneralStep(plan, plan.steps.size() - 1,
                                                 req.shape, req.cost);
    if (last.predictedTicks < 0)
      return std::nullopt;
  }
  // Distinct bases, only to see which region the plan ends in.
  const rt::Regions regions{{1}, {2}, {3}};
  size_t outOfPlace = 0;
  for (const rt::GeneralStep &s : plan.steps)
    outOfPlace += !s.inPlace;
  const bool even = req.copy && req.firstToDestination && outOfPlace % 2 == 0;
  if (even || !rt::checkPlanRegions(plan, regions, nullptr)) {
    rt::GeneralStep back;
    back.kind = GeneralStepKind::Local;
    back.to = req.dst;
    back.why = "in place: copy back from the scratch region (003 6.3.3)";
    plan.steps.push_back(back);
    // Every candidate's copy back is the same step: price it once.
    if (copyBackTicks < 0) {
      // An identity local step: from the digits when it can be.
      const std::optional<int64_t> fromDigits =
          req.priceFramesByDigits &&
                  heldFramesOverOneFactorisation(req.dst, req.dst)
              ? frameStepTicks(GeneralStepKind::Local, false, req.dst, req.dst,
                               req.elemBytes, req.shape, req.cost)
              : std::nullopt;
      copyBackTicks = fromDigits
                          ? *fromDigits
                          : rt::predictGeneralStep(plan, plan.steps.size() - 1,
                                                   req.shape, req.cost);
    }
    if (copyBackTicks < 0)
      return std::nullopt;
    plan.steps.back().predictedTicks = copyBackTicks;
    if (!rt::checkPlanRegions(plan, regions, nullptr))
      return std::nullopt;
  }
  PricedPlan p;
  p.steps = std::move(plan.steps);
  for (const rt::GeneralStep &s : p.steps)
    p.ticks += s.predictedTicks;
  p.name = name;
  for (size_t i = 0; i < p.steps.size(); ++i)
    p.name += std::string(i ? "+" : " ") +
              rt::generalStepKindName(p.steps[i].kind) +
              (p.steps[i].inPlace ? "[in place]" : "");
  return p;
}

namespace {

std::optional<PricedPlan> Planner::planOf(std::vector<rt::GeneralStep> steps,
                                          const std::string &name) {
  steps.insert(steps.begin(), prefix.begin(), prefix.end());
  if (steps.empty())
    return std::nullopt;
  auto p = pricedPlanOf(req, std::move(steps), name, copyBackTicks);
  if (!p)
    return std::nullopt;
  for (size_t i = 0; floors && i < prefix.size(); ++i)
    if (prefix[i].kind == GeneralStepKind::Resignify && prefix[i].inPlace)
      p->floors.push_back({i, prefixFrom[i], prefix[i].to});
  return p;
}

void Planner::finish(std::vector<rt::GeneralStep> steps,
                     const std::string &name) {
  if (auto p = planOf(std::move(steps), name))
    plans.push_back(std::move(*p));
}

template <class Exact>
void Planner::finishAround(
    const std::vector<std::vector<rt::GeneralStep>> &pre, rt::GeneralStep ex,
    bool floored, const std::vector<std::vector<rt::GeneralStep>> &post,
    size_t fewest, const std::string &name, Exact exact) {
  auto around = [&](const std::vector<rt::GeneralStep> &w1,
                    const rt::GeneralStep &x,
                    const std::vector<rt::GeneralStep> &w3) {
    std::vector<rt::GeneralStep> steps = w1;
    steps.push_back(x);
    steps.insert(steps.end(), w3.begin(), w3.end());
    return steps;
  };
  if (floored) {
    // Priced at the floor throughout (a reshaped last step too), each plan
    // a floor of its price.
    std::vector<PricedPlan> bounded;
    bool loses = true;
    {
      rt::DigitExchangeFloorPricing floor;
      for (const auto &w1 : pre)
        for (const auto &w3 : post)
          if (w1.size() + 1 + w3.size() >= fewest && loses)
            if (auto p = planOf(around(w1, ex, w3), name)) {
              loses = p->ticks >= budget;
              p->bounded = true;
              bounded.push_back(std::move(*p));
            }
    }
    if (loses) {
      for (PricedPlan &p : bounded)
        plans.push_back(std::move(p));
      return;
    }
    std::optional<rt::GeneralStep> priced = exact();
    if (!priced)
      return;
    ex = *priced;
  }
  for (const auto &w1 : pre)
    for (const auto &w3 : post)
      if (w1.size() + 1 + w3.size() >= fewest)
        finish(around(w1, ex, w3), name);
}

/// 003 6.2.2's plans with the halves of (i)-(ii), (iv)-(v) or both folded
/// into the exchange (i1 -> i2): function 6.1's per-PE offsets move whole
/// chunks and put the exchanged digit where the next layout wants it, and
/// its per-PE destinations send to permuted PEs, so only the halves left
/// out remain steps of their own. A fold is tried only when the exchanged
/// groups are runs in the layouts the exchange reads and writes; whether
/// the chunks allow it is the finder's to say (rt::findDigitExchange, or
/// frameDigitExchange off the digits).
void foldedPlans(Planner &planner, const rt::TileMap &src,
                 const rt::TileMap &dst, const rt::TileMap &i1,
                 const rt::TileMap &i2, const Digits &gm, const Digits &gp,
                 const std::vector<std::vector<rt::GeneralStep>> &before,
                 const std::vector<std::vector<rt::GeneralStep>> &after,
                 const std::string &name) {
  // Where the exchange may start: i1, src, or src with the memory half of
  // (i)-(ii) done (its PE half folded: a PE half folds at the price of a
  // table load a round, so doing it as a step of its own before is not
  // tried); where it may end: i2, dst, or dst with either half of (iv)-(v)
  // left to a step.
  const std::vector<rt::TileMap> starts = {
      i1, withDigits(i1, i1.m[0], src.m[1]), src};
  const std::vector<rt::TileMap> ends = {i2, withDigits(i2, dst.m[0], i2.m[1]),
                                         withDigits(i2, i2.m[0], dst.m[1]),
                                         dst};
  std::vector<std::pair<size_t, size_t>> tried;
  for (size_t ai = 0; ai < starts.size(); ++ai)
    for (size_t zi = 0; zi < ends.size(); ++zi) {
      const rt::TileMap &a = starts[ai], &z = ends[zi];
      if ((a == i1 && z == i2) || (a == src && z == dst))
        continue; // the unfolded exchange, and the one-step one: priced
      // The exchanged memory groups must be compound digits; the PE
      // groups need not (their digits come from a table).
      if (runAt(a.m[0], gm) < 0 || runAt(z.m[0], gp) < 0)
        continue;
      bool seen = false;
      for (auto [x, y] : tried)
        seen |= starts[x] == a && ends[y] == z;
      if (seen)
        continue;
      tried.push_back({ai, zi});
      const bool first = planner.startsPlan && src == a;
      const char *role = "003 6.2.2 (iii): exchange_dig, folded";
      bool floored;
      auto ex = planner.stepOrFloor(a, z, first, role, true, floored);
      if (!ex)
        continue;
      auto pre = a == i1 ? before
                         : planner.permuteMp(src, a, planner.startsPlan,
                                             "003 6.2.2 (i)-(ii)");
      auto post = z == i2
                      ? after
                      : planner.permuteMp(z, dst, false, "003 6.2.2 (iv)-(v)");
      planner.finishAround(
          pre, *ex, floored, post, 0, name + "003 6.2.2 folded",
          [&] { return planner.step(a, z, first, role, true); });
    }
}

/// 003 6.2.2's candidates between two aligned digit frames over the same
/// digits, added to `planner` (after its prefix), named after `name`. The
/// layouts between take the senses of `frame` (`src`'s or `dst`'s): a digit
/// whose sense differs is reversed by the steps into or out of them (003
/// 6.1, digit sense).
void alignedPlans(Planner &planner, const rt::TileMap &src,
                  const rt::TileMap &dst, const rt::TileMap &frame,
                  const std::string &name) {
  const Digits &ms = src.m[0], &ps = src.m[1], &md = dst.m[0], &pd = dst.m[1];
  // The digits that change sides, each group in the order the destination
  // wants them.
  const Digits toP = pick(pd, ms), toM = pick(md, ps);
  if (toP.empty() && toM.empty()) {
    // A combined permutation (003 6.2.1): permute_mp, or its halves. A
    // memory or processor permutation alone is one step, priced already.
    if (ms == md || ps == pd)
      return;
    for (auto &way : planner.permuteMp(src, dst, planner.startsPlan,
                                       "003 6.2.1 permute_mp"))
      if (way.size() > 1)
        planner.finish(std::move(way), name + "003 6.2.1 halves");
    return;
  }
  int64_t sizeP = 1, sizeM = 1;
  for (unsigned l : toP)
    sizeP *= src.kdims[l].tk;
  for (unsigned l : toM)
    sizeM *= src.kdims[l].tk;
  if (sizeP != sizeM || toP.empty() || toM.empty())
    return;
  // Step (i): the memory group on top of memory (the digits below travel
  // in chunks) or where it is, if its digits are neighbours in order; the
  // PE group at the bottom of the PE digits (003 6.2.2) or where it is.
  std::vector<Digits> memOptions = {[&] {
    Digits d = without(ms, toP);
    d.insert(d.end(), toP.begin(), toP.end());
    return d;
  }()};
  if (runAt(ms, pick(ms, toP)) >= 0 && ms != memOptions[0])
    memOptions.push_back(ms);
  std::vector<Digits> peOptions = {[&] {
    Digits d = toM;
    Digits rest = without(ps, toM);
    d.insert(d.end(), rest.begin(), rest.end());
    return d;
  }()};
  if (runAt(ps, pick(ps, toM)) >= 0 && ps != peOptions[0])
    peOptions.push_back(ps);
  for (const Digits &mem1 : memOptions)
    for (const Digits &pe1 : peOptions) {
      const Digits gm = pick(mem1, toP), gp = pick(pe1, toM);
      const rt::TileMap i1 = withDigits(frame, mem1, pe1);
      // Step (iii): the two groups trade places as compound digits.
      const rt::TileMap i2 =
          withDigits(frame, replaceRun(mem1, runAt(mem1, gm), gm.size(), gp),
                     replaceRun(pe1, runAt(pe1, gp), gp.size(), gm));
      auto before = planner.permuteMp(
          src, i1, planner.startsPlan,
          "003 6.2.2 (i)-(ii): the exchanged digits side by side");
      const bool first = planner.startsPlan && src == i1;
      const char *role = "003 6.2.2 (iii): exchange_dig";
      bool floored;
      auto ex = planner.stepOrFloor(i1, i2, first, role, false, floored);
      if (!ex)
        continue;
      auto after =
          planner.permuteMp(i2, dst, false, "003 6.2.2 (iv)-(v): permute_mp");
      planner.finishAround(before, *ex, floored, after, 2, name + "003 6.2.2",
                           [&] { return planner.step(i1, i2, first, role); });
      foldedPlans(planner, src, dst, i1, i2, gm, gp, before, after, name);
    }
}

/// alignedPlans through layouts of `src`'s senses and, when a digit is
/// reversed on one side only, of `dst`'s: the reversal done last or first.
void alignedPlansOfEitherSense(Planner &planner, const rt::TileMap &src,
                               const rt::TileMap &dst,
                               const std::string &name) {
  alignedPlans(planner, src, dst, src, name);
  for (size_t l = 0; l < src.kdims.size(); ++l)
    if (src.kdims[l].sense != dst.kdims[l].sense) {
      alignedPlans(planner, src, dst, dst, name);
      return;
    }
}

/// Whether `a` and `b` align (fig. 6.1): both refined at the places where
/// either splits the data index, into `ra` and `rb`.
bool alignBoth(const rt::TileMap &a, const rt::TileMap &b, rt::TileMap &ra,
               rt::TileMap &rb) {
  std::set<int64_t> at;
  cutsOf(a, at);
  cutsOf(b, at);
  auto x = refine(a, at), y = refine(b, at);
  if (!x || !y)
    return false;
  ra = std::move(*x);
  rb = std::move(*y);
  return true;
}

/// The device dim (0 memory, 1 PEs) holding data digit `l` of a frame.
int dimOf(const rt::TileMap &t, unsigned l) {
  return contains(t.m[0], l) ? 0 : 1;
}

/// `t` with data digits l and l + 1 exchanging significance (003 6.3.1):
/// each device place keeps its base, and holds the other digit.
rt::TileMap resignified(const rt::TileMap &t, unsigned l) {
  rt::TileMap r = t;
  std::swap(r.kdims[l], r.kdims[l + 1]);
  for (auto &dim : r.m)
    for (unsigned &d : dim)
      d = d == l ? l + 1 : d == l + 1 ? l : d;
  return r;
}

/// 003 6.3's candidates for two digit maps that cannot be aligned (fig.
/// 6.2): re-signify data-adjacent digits across the device dims (resig_mp,
/// 6.3.4), directly or, when their bases share a factor, after relabelling
/// both so that only the coprime parts are re-signified, until the maps
/// align; then the aligned maps' plans (one step, or 6.2.2's).
std::vector<PricedPlan> resignifiedPlans(const GeneralPlanRequest &req,
                                         bool floors, int64_t budget) {
  if (!everyCellHeld(req.src) || !everyCellHeld(req.dst) ||
      req.src.data.size() != 1 || req.dst.data.size() != 1)
    return {};
  Planner planner(req, floors, budget);
  struct State {
    rt::TileMap t;
    std::vector<rt::GeneralStep> steps;
    std::vector<rt::TileMap> from; ///< each step's
  };
  std::vector<State> frontier = {{req.src, {}, {}}};
  // Two re-significations at most, and a few aligned ends: each end prices
  // a dozen moves.
  const int maxEnds = 4;
  int ends = 0;
  for (int depth = 0; depth < 2 && ends < maxEnds; ++depth) {
    std::vector<State> next;
    for (const State &state : frontier) {
      // Split the digits where the destination splits the index inside
      // them, when that is a refinement (a compact digit of 35 becomes 7
      // and 5), so that the pieces can be re-signified alone.
      State st = state;
      {
        std::set<int64_t> own, theirs;
        cutsOf(st.t, own);
        cutsOf(req.dst, theirs);
        std::set<int64_t> at = own;
        for (int64_t c : theirs) {
          auto hi = own.upper_bound(c);
          if (hi != own.end() && c % *std::prev(hi) == 0 && *hi % c == 0)
            at.insert(c);
        }
        if (at != own)
          if (auto r = refine(st.t, at))
            st.t = std::move(*r);
      }
      const unsigned n = st.t.firstEmptyDim();
      for (unsigned l = 0; l + 1 < n && ends < maxEnds; ++l) {
        const rt::KDim &lo = st.t.kdims[l], &hi = st.t.kdims[l + 1];
        if (dimOf(st.t, l) == dimOf(st.t, l + 1) ||
            lo.sense == rt::Sense::Minus || hi.sense == rt::Sense::Minus)
          continue;
        const int64_t c0 = lo.tk, c1 = hi.tk, g = std::gcd(c0, c1);
        std::vector<std::pair<rt::TileMap, std::string>> moves;
        // Bases named the more significant first.
        const std::string bases =
            std::to_string(c1) + " and " + std::to_string(c0);
        moves.push_back({resignified(st.t, l),
                         "003 6.3.4: resig_mp, the data digits of bases " +
                             bases + " exchange significance"});
        if (g > 1 && g < std::min(c0, c1)) {
          // Common factors: c0 = b1 g, c1 = g b2; only b1 and b2 change
          // significance, the two g digits are left to exchange_dig.
          int64_t place = 1;
          for (unsigned k = 0; k < l; ++k)
            place *= st.t.kdims[k].tk;
          std::set<int64_t> at;
          cutsOf(st.t, at);
          at.insert(place * g);
          at.insert(place * c0 * (c1 / g));
          if (auto r = refine(st.t, at)) {
            // Digit l is now pieces l' (g), l' + 1; digit l + 1 pieces
            // l' + 2, l' + 3 (g): the middle two exchange significance.
            unsigned first = 0;
            for (unsigned k = 0; k < l; ++k) {
              int64_t span = st.t.kdims[k].tk, covered = 1;
              while (covered < span)
                covered *= r->kdims[first++].tk;
            }
            moves.push_back({resignified(*r, first + 1),
                             "003 6.3.4, common factors: bases " + bases +
                                 " relabelled with a common digit of " +
                                 std::to_string(g) + ", resig_mp of " +
                                 std::to_string(c1 / g) + " and " +
                                 std::to_string(c0 / g)});
          }
        }
        for (auto &[t, why] : moves) {
          rt::TileMap a, b;
          const bool aligned = alignBoth(t, req.dst, a, b);
          ends += aligned;
          for (const rt::GeneralStep &s :
               planner.resignify(st.t, t, st.steps.empty(), why)) {
            State after{t, st.steps, st.from};
            after.steps.push_back(s);
            after.from.push_back(st.t);
            if (!aligned) {
              next.push_back(std::move(after));
              continue;
            }
            planner.prefix = after.steps;
            planner.prefixFrom = after.from;
            planner.startsPlan = false;
            if (a == b) {
              planner.finish({}, "003 6.3.4");
              continue;
            }
            if (auto one = planner.step(a, b, false,
                                        "003 6.3.4: then the aligned maps"))
              planner.finish({*one}, "003 6.3.4");
            if (sameDigits(a, b))
              alignedPlansOfEitherSense(planner, a, b, "003 6.3.4+");
          }
        }
      }
    }
    frontier = std::move(next);
  }
  return std::move(planner.plans);
}

} // namespace

std::optional<std::pair<rt::TileMap, rt::TileMap>>
mapc::alignedFrames(const rt::TileMap &src, const rt::TileMap &dst) {
  if (!isDigitFrame(src) || !isDigitFrame(dst))
    return std::nullopt;
  std::pair<rt::TileMap, rt::TileMap> out{src, dst};
  if (!heldFramesOverOneFactorisationEitherSense(src, dst) &&
      !alignBoth(src, dst, out.first, out.second))
    return std::nullopt;
  if (!heldFramesOverOneFactorisationEitherSense(out.first, out.second))
    return std::nullopt;
  return out;
}

std::vector<PricedPlan>
mapc::digitPermutationPlans(const GeneralPlanRequest &req, bool floors,
                            int64_t budget) {
  if (!isDigitFrame(req.src) || !isDigitFrame(req.dst))
    return {};
  // Align the two factorisations (fig. 6.1) when they differ: the compact
  // forms of two digit maps split the index at different places.
  rt::TileMap src = req.src, dst = req.dst;
  if (!sameDigits(src, dst)) {
    std::set<int64_t> at;
    cutsOf(src, at);
    cutsOf(dst, at);
    auto s = refine(src, at), d = refine(dst, at);
    if (!s || !d) { // 003 6.3: not aligned (fig. 6.2)
      std::vector<PricedPlan> plans = resignifiedPlans(req, floors, budget);
      for (PricedPlan &p : withinDimResignifiedPlans(req)) // 6.3.2
        plans.push_back(std::move(p));
      return plans;
    }
    src = *s;
    dst = *d;
    if (!sameDigits(src, dst))
      return {};
  }
  Planner planner(req, false, budget);
  alignedPlansOfEitherSense(planner, src, dst, "");
  return std::move(planner.plans);
}

bool mapc::priceFloorSteps(const GeneralPlanRequest &req,
                           std::vector<rt::GeneralStep> &steps,
                           std::vector<FloorStep> &floors) {
  for (const FloorStep &f : floors) {
    rt::GeneralStep s = steps[f.step];
    s.to = f.to; // the plan's last step names the destination's form
    const int64_t t =
        resignifyTicks(req, f.from, s, false, rt::sourcesOf(f.from, f.to));
    if (t < 0)
      return false;
    steps[f.step].predictedTicks = t;
  }
  floors.clear();
  return true;
}
