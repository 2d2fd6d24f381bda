//===- GeneralPlanner.cpp - choosing a method for a general remap ---------===//
#include "passes/GeneralPlanner.h"
#include "passes/DigitPlanner.h"
#include "passes/FrameMove.h"
#include "passes/FramePrice.h"

#include "mapc/runtime/SourceRow.h"

#include <algorithm>
#include <climits>
#include <optional>

using namespace mapc;
using rt::GeneralStepKind;

namespace {

struct Candidate {
  std::vector<rt::GeneralStep> steps;
  int64_t ticks = 0;
  std::string name; ///< in the list of prices; the first step's kind if empty
  bool priced = false;
  /// Steps priced only by a floor (digitPermutationPlans): `ticks` is then
  /// a floor.
  std::vector<FloorStep> floors;
  bool dropped = false; ///< a floor's step could not be priced
  /// `ticks` a floor at or above an earlier candidate's price
  /// (PricedPlan::bounded): listed, never priced.
  bool bounded = false;
  /// Priced before the 6.2.2 plans (their budget), not yet listed.
  bool pricedEarly = false;
};

/// Whether a pricing machine prices `step` from the move's counts alone,
/// or refuses it from them (GeneralExecute.cpp, priceExchangeByCounts): an
/// exchange whose rounds come from pair counts, one in place that must
/// fail, a digit exchange between different numbers of slots or PEs or
/// whose pair counts rule it out (rt::digitExchangeRefusal).
bool countsSuffice(const rt::GeneralStep &step, const GeneralPlanRequest &req,
                   const rt::MoveCounts &counts) {
  if (step.kind == GeneralStepKind::DigitExchange)
    return rt::slotsOf(req.src) != rt::slotsOf(req.dst) ||
           rt::pesOf(req.src) != rt::pesOf(req.dst) ||
           rt::digitExchangeRefusal(counts, rt::slotsOf(req.dst),
                                    rt::pesOf(req.dst)) != nullptr;
  if (step.kind != GeneralStepKind::Exchange)
    return false;
  if (step.inPlace)
    return counts.localMoves() > 0;
  return rt::exchangePairsApply(counts.sendsBetweenPes(),
                                counts.pairsBetweenPes());
}

/// The table of sources of the move from the source to the destination,
/// built when a price first needs it: the move's counts (MoveCounts.h),
/// when there are any, price most candidates without it.
struct Sources {
  const rt::TileMap &src, &dst;
  /// The two as digit frames over one factorisation (alignedFrames), if
  /// they are: walked as an odometer of the destination's digits
  /// (frameSources, FrameMove.h).
  const std::optional<std::pair<rt::TileMap, rt::TileMap>> &frames;
  /// The table's one row when it repeats one on every PE (sourceRowOf):
  /// the bound, the shape and the steps it prices read it instead.
  std::optional<rt::SourceRow> row;
  std::vector<uint32_t> table;
  bool built = false;
  const std::vector<uint32_t> &get() {
    if (!built) {
      if (frames)
        frameSources(frames->first, frames->second, table);
      else
        table = rt::sourcesOf(src, dst);
    }
    built = true;
    return table;
  }
};

/// Prices `steps` as a plan of `base` (every step's predictedTicks); a
/// step from the source to the destination reuses `sources` and `counts`,
/// so that the candidates walk the elements once, and a copy back within the
/// destination (priced from the slots it holds, without a table) is priced
/// by the first candidate that needs it (`copyBack`, -1 until then).
bool price(const GeneralPlanRequest &req, const rt::GeneralPlan &base,
           Sources &sources, const rt::MoveCounts *counts, int64_t &copyBack,
           Candidate &c) {
  if (c.priced)
    return true;
  rt::GeneralPlan plan = base;
  plan.steps = c.steps;
  c.ticks = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const rt::TileMap &before = plan.layoutAfter(int(i) - 1);
    const rt::MoveCounts *summary = nullptr;
    if (before == req.src && plan.steps[i].to == req.dst)
      summary = counts;
    // Every candidate's copy back is the same step: priced once.
    const bool back = before == req.dst && plan.steps[i].to == req.dst &&
                      plan.steps[i].kind == GeneralStepKind::Local &&
                      !plan.steps[i].inPlace;
    // A local or slotwise step between digit frames: from the digits (the
    // source and destination as factorised alike).
    std::optional<int64_t> fromDigits;
    if (!(back && copyBack >= 0) && sources.frames) {
      auto framed = [&](const rt::TileMap &t) {
        return t == req.src   ? &sources.frames->first
               : t == req.dst ? &sources.frames->second
                              : &t;
      };
      const rt::TileMap &a = *framed(before), &b = *framed(plan.steps[i].to);
      if (heldFramesOverOneFactorisationEitherSense(a, b))
        fromDigits = frameStepTicks(plan.steps[i].kind, plan.steps[i].inPlace,
                                    a, b, req.elemBytes, req.shape, req.cost);
    }
    // Otherwise on the pricing machine, the table built only when neither
    // the digits, the counts nor the row price the step.
    const std::vector<uint32_t> *known = nullptr;
    const rt::SourceRow *row = nullptr;
    if (!fromDigits && before == req.src && plan.steps[i].to == req.dst &&
        (!counts || !countsSuffice(plan.steps[i], req, *counts))) {
      if (sources.row && rt::rowPricesStep(plan.steps[i], before,
                                           req.shape.peCount(), *sources.row))
        row = &*sources.row;
      else
        known = &sources.get();
    }
    int64_t t = copyBack;
    if (!(back && copyBack >= 0))
      t = fromDigits ? *fromDigits
          : row ? rt::predictGeneralStep(plan, i, req.shape, req.cost, *row)
                : rt::predictGeneralStep(plan, i, req.shape, req.cost, known,
                                         summary);
    if (t < 0)
      return false;
    if (back)
      copyBack = t;
    c.steps[i].predictedTicks = t;
    c.ticks += t;
  }
  return true;
}

std::string ticksText(int64_t t) { return std::to_string(t) + " ticks"; }

/// Prices the steps of `c` that carry floors; false when one cannot be.
bool priceFloors(const GeneralPlanRequest &req, Candidate &c) {
  if (c.floors.empty())
    return true;
  if (!priceFloorSteps(req, c.steps, c.floors)) {
    c.dropped = true;
    return false;
  }
  c.ticks = 0;
  for (const rt::GeneralStep &s : c.steps)
    c.ticks += s.predictedTicks;
  return true;
}

/// Whether `steps` write the scratch region (General.h's regions).
bool writesScratch(const rt::GeneralPlan &base,
                   const std::vector<rt::GeneralStep> &steps) {
  rt::GeneralPlan plan = base;
  plan.steps = steps;
  const rt::Regions probe{{1}, {2}, {3}};
  for (size_t i = 0; i < steps.size(); ++i) {
    uint64_t read, write;
    rt::stepRegions(plan, i, probe, read, write);
    if (write == probe.scratch.base)
      return true;
  }
  return false;
}

} // namespace

rt::MoveShape mapc::inPlaceBruteForceShape(const rt::MoveShape &shape,
                                           int64_t pes) {
  rt::MoveShape moving = shape;
  int64_t busiest = 0;
  for (int64_t n : shape.leaving)
    busiest = std::max(busiest, n);
  moving.busiestSource =
      std::max(busiest, pes > 0 ? (shape.moved + pes - 1) / pes : 0);
  return moving;
}

// Brute force has a round per element of the busiest source PE, each
// paying two divisions, an indirect load and an indirect store; its plain
// router sends open a connection per element leaving a cluster, one
// cluster at a time (runtime/GeneralExecute.cpp, runBruteForce).
int64_t mapc::bruteForceStepBound(const GeneralPlanRequest &req,
                                  const rt::MoveShape &shape) {
  const unsigned xferBytes = std::min(req.elemBytes, 8u);
  const int64_t xfers = int64_t(req.elemBytes / xferBytes);
  const unsigned w = rt::widthIndex(xferBytes);
  const int64_t perRound =
      2 * req.cost.divmod +
      xfers * (req.cost.loadIndirect[w] + req.cost.storeIndirect(w));
  rt::MasPar m = rt::MasPar::pricing(req.shape.width, req.shape.height,
                                     req.shape.clusterSize, req.cost);
  std::vector<int64_t> leavingCluster(m.clusterCount(), 0);
  for (size_t p = 0; p < shape.leaving.size() && p < m.peCount(); ++p)
    leavingCluster[m.clusterOfPe(unsigned(p))] += shape.leaving[p];
  int64_t busiestCluster = 0;
  for (int64_t n : leavingCluster)
    busiestCluster = std::max(busiestCluster, n);
  const int64_t perSend =
      req.cost.ropen + req.cost.rsend[w] + req.cost.rsend[rt::widthIndex(4)];
  return shape.busiestSource * perRound + xfers * busiestCluster * perSend;
}

std::variant<rt::GeneralPlan, std::string>
mapc::startGeneralPlan(const rt::TileMap &src, const rt::TileMap &dst,
                       unsigned elemBytes, bool copy, uint64_t units,
                       const char *unitName) {
  for (const rt::TileMap *l : {&src, &dst}) {
    if (l->deviceSize() > kMaxGeneralCells)
      return "a layout spans " + std::to_string(l->deviceSize()) +
             " device cells; general remaps are planned element by element, "
             "up to 2^28 cells";
    if (uint64_t(rt::pesOf(*l)) > units)
      return "a layout spans " + std::to_string(rt::pesOf(*l)) + " " +
             unitName + " but the machine has " + std::to_string(units);
  }
  if (src.dataSize() != dst.dataSize())
    return "the layouts hold different numbers of elements";

  rt::GeneralPlan plan;
  plan.source = src;
  plan.dest = dst;
  plan.elemBytes = elemBytes;
  plan.copy = copy;
  plan.planner = "general";
  return plan;
}

std::variant<rt::GeneralPlan, std::string>
mapc::planGeneralRemap(const GeneralPlanRequest &req) {
  auto started = startGeneralPlan(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape.peCount(), "PEs");
  if (auto *why = std::get_if<std::string>(&started))
    return *why;
  rt::GeneralPlan plan = std::move(std::get<rt::GeneralPlan>(started));
  // A large move of HPF-like layouts is counted from their runs and
  // periods, in time that does not grow with the elements (MoveCounts.h);
  // any other from its table.
  const std::optional<std::pair<rt::TileMap, rt::TileMap>> frames =
      req.priceFramesByDigits ? alignedFrames(req.src, req.dst) : std::nullopt;
  Sources sources{req.src, req.dst, frames, std::nullopt, {}, false};
  const std::optional<rt::MoveCounts> counts =
      req.countByRuns && req.src.dataSize() >= req.countByRunsFrom
          ? rt::countMoveByRuns(req.src, req.dst,
                                rt::countingListLimit(req.src.dataSize()),
                                rt::kCountingMinPerFamily)
          : std::nullopt;
  // A vector replicated over every PE: its row, not its table.
  if (!counts)
    sources.row = rt::sourceRowOf(req.src, req.dst);
  plan.lowerBound =
      counts ? rt::generalLowerBound(*counts, req.elemBytes, req.copy,
                                     req.shape, req.cost)
      : sources.row
          ? rt::generalLowerBound(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape, req.cost, *sources.row)
          : rt::generalLowerBound(req.src, req.dst, req.elemBytes, req.copy,
                                  req.shape, req.cost, &sources.get());

  const rt::MoveShape shape =
      counts        ? rt::analyseMove(*counts, rt::pesOf(req.src))
      : sources.row ? rt::analyseMove(req.src, req.dst, *sources.row)
                    : rt::analyseMove(req.src, req.dst, sources.get());
  if (shape.identity && !req.copy)
    return plan; // every element is already where it belongs

  // One step to the destination by each method that applies. A step that
  // cannot run in place writes the scratch region in an in-place remap, and
  // an identity local step copies it back (General.h).
  auto oneStep = [&](GeneralStepKind kind, bool inPlace, std::string why) {
    Candidate c;
    rt::GeneralStep s;
    s.kind = kind;
    s.to = req.dst;
    s.inPlace = inPlace && !req.copy;
    s.why = std::move(why);
    c.steps.push_back(s);
    if (!req.copy && !s.inPlace) {
      rt::GeneralStep back;
      back.kind = GeneralStepKind::Local;
      back.to = req.dst;
      back.why = "in place: copy back from the scratch region (003 6.3.3)";
      c.steps.push_back(back);
    }
    return c;
  };
  std::vector<Candidate> candidates;
  const bool oneToOne = shape.slotUniformFrom && shape.slotUniformTo;
  if (shape.local)
    candidates.push_back(oneStep(
        GeneralStepKind::Local, oneToOne,
        oneToOne ? "no element changes PE and every PE moves the same slots: "
                   "a memory permutation walked in place (003 6.2.1, "
                   "permute_m)"
                 : "no element changes PE: a memory permutation with "
                   "indirect addressing (003 6.2.1)"));
  if (shape.slotUniformFrom)
    candidates.push_back(oneStep(
        GeneralStepKind::Slotwise, shape.keepsSlots,
        "every source slot lands in one slot: a processor permutation per "
        "slot, no addresses sent (003 6.2.1, permute_p)"));
  if (!shape.local) {
    const char *dig =
        "one P/M digit exchange: b - 1 rounds in which every PE sends to the "
        "PE whose digit is its own plus k, offsets computed from its digit, "
        "the memory digits below sent together in chunks, several packed "
        "into sends of up to 64 bits, other digits permuted on the way "
        "(003 6.2.1, function 6.1; 5.6.3)";
    candidates.push_back(oneStep(GeneralStepKind::DigitExchange, false, dig));
    if (!req.copy)
      candidates.push_back(oneStep(GeneralStepKind::DigitExchange, true, dig));
    const char *why =
        "the sends coloured into rounds in which every PE sends and receives "
        "at most one element: no addresses, no collisions, as few rounds as "
        "the busiest PE needs (003 6.2.1's exchange_dig, 6.4)";
    candidates.push_back(oneStep(GeneralStepKind::Exchange, false, why));
    // In place when the rounds can be grouped to load before they store, as
    // function 6.1 does; pricing fails (and drops it) when they cannot.
    if (!req.copy)
      candidates.push_back(oneStep(GeneralStepKind::Exchange, true, why));
  }
  candidates.push_back(oneStep(
      GeneralStepKind::BruteForce, false,
      "every element sent with its destination, skewed starts (003 6.3.3, "
      "6.3.8)"));
  if (!req.copy)
    candidates.push_back(oneStep(
        GeneralStepKind::BruteForce, true,
        "every element sent with its destination, written once its cell "
        "has sent its own, waiting on stacks of at most 50 items (003 "
        "6.3.3, 6.3.8, 6.3.9)"));

  // The one-step digit exchange without a copy back (in place, or in a
  // copy) first: it is priced whatever the others cost and wins ties with
  // the 6.2.2 plans after it, so a plan whose floor is at or above it need
  // not have its exchange's partial rounds searched (003 6.2.2's plans add
  // steps around an exchange about as dear as it).
  auto eligible = [&](const Candidate &c) {
    return !c.dropped && !(req.noScratch && writesScratch(plan, c.steps));
  };
  int64_t budget = INT64_MAX;
  for (Candidate &c : candidates)
    if (c.steps.size() == 1 &&
        c.steps[0].kind == GeneralStepKind::DigitExchange && eligible(c)) {
      int64_t noCopyBack = -1; // one step: no copy back
      // Left out of the list below if it cannot be priced, as the loop
      // would leave it; not counted in hand, as it would not be.
      c.pricedEarly =
          price(req, plan, sources, counts ? &*counts : nullptr, noCopyBack, c);
      c.dropped = !c.pricedEarly;
      if (c.pricedEarly)
        budget = std::min(budget, c.ticks);
    }

  // 003 6.2.2's plans of several steps for digit maps.
  for (PricedPlan &p :
       digitPermutationPlans(req, req.resignifyFloors, budget)) {
    Candidate c;
    c.steps = std::move(p.steps);
    c.ticks = p.ticks;
    c.name = std::move(p.name);
    c.priced = true;
    c.floors = std::move(p.floors);
    c.bounded = p.bounded;
    candidates.push_back(std::move(c));
  }

  std::string prices;
  Candidate *best = nullptr;
  // The 6.2.2 plans come priced: with the best of them, an exchange step
  // whose bound is above what is in hand is not run on the pricing machine
  // (its rounds are the dearest part of planning). Those with an in-place
  // resig_mp carry a floor instead (003 6.3.9's rounds are dearer still):
  // what is in hand below a value is known once the plans whose floor is
  // below it are priced (`inHandBelow`), and `listed` is what is in hand
  // from candidates the loop below surely lists (a plan starting with brute
  // force may be left out by brute force's bound).
  int64_t inHand = INT64_MAX, listed = INT64_MAX;
  auto inHandNow = [&](const Candidate &c) {
    inHand = std::min(inHand, c.ticks);
    if (c.steps[0].kind != GeneralStepKind::BruteForce)
      listed = std::min(listed, c.ticks);
  };
  // A bounded plan's floor is not in hand; the candidate it loses to is
  // listed before it, so the bounds below decide as with its price.
  for (const Candidate &c : candidates)
    if (c.priced && c.floors.empty() && !c.bounded && eligible(c))
      inHandNow(c);
  auto inHandBelow = [&](int64_t x) {
    for (Candidate &c : candidates)
      if (!c.floors.empty() && !c.bounded && c.ticks < std::min(x, inHand) &&
          eligible(c) && priceFloors(req, c))
        inHandNow(c);
    return inHand < x;
  };
  const int64_t exchangeBound =
      shape.local || req.dst.replicates()
          ? 0
          : rt::exchangeStepBound(shape.leaving, req.elemBytes, req.shape,
                                  req.cost);
  // A 6.2.2 plan that ends with the copy back priced it on the same
  // machine: the one-step candidates' copy back is that step.
  int64_t copyBack = -1;
  for (const Candidate &c : candidates)
    for (size_t i = 1; c.priced && i < c.steps.size(); ++i) {
      const rt::GeneralStep &s = c.steps[i];
      if (c.steps[i - 1].to == req.dst && s.to == req.dst &&
          s.kind == GeneralStepKind::Local && !s.inPlace)
        copyBack = s.predictedTicks;
    }
  // A candidate left unpriced because its bound already loses.
  auto skipped = [&](const char *kind, const Candidate &c, int64_t bound) {
    prices += std::string(prices.empty() ? "" : ", ") + kind +
              (c.steps[0].inPlace ? " in place" : "") + " at least " +
              ticksText(bound) + " (its bound; not run)";
  };
  for (Candidate &c : candidates) {
    if (!eligible(c))
      continue;
    if (c.bounded) {
      prices += std::string(prices.empty() ? "" : ", ") + c.name +
                " at least " + ticksText(c.ticks) +
                " (its rounds' floor; not searched)";
      continue;
    }
    if (!c.floors.empty()) {
      // A tie with an earlier candidate goes to it, with a later one to
      // this plan.
      if ((best && c.ticks >= best->ticks) || c.ticks > listed) {
        prices += std::string(prices.empty() ? "" : ", ") + c.name +
                  " at least " + ticksText(c.ticks) +
                  " (its floor; not priced)";
        continue;
      }
      if (!priceFloors(req, c))
        continue;
      inHandNow(c);
    }
    if (c.steps[0].kind == GeneralStepKind::Exchange && !c.priced &&
        ((best && exchangeBound > best->ticks) || inHandBelow(exchangeBound))) {
      skipped("exchange", c, exchangeBound);
      continue;
    }
    if (c.steps[0].kind == GeneralStepKind::BruteForce) {
      const rt::MoveShape moving =
          c.steps[0].inPlace
              ? inPlaceBruteForceShape(shape, int64_t(req.shape.peCount()))
              : shape;
      // A tie with an earlier candidate goes to it, with a later one (the
      // 6.2.2 plans in hand) to brute force.
      const int64_t bound = bruteForceStepBound(req, moving);
      if ((best && bound >= best->ticks) || inHandBelow(bound)) {
        skipped("brute-force", c, bound);
        continue;
      }
    }
    if (!c.pricedEarly &&
        !price(req, plan, sources, counts ? &*counts : nullptr, copyBack, c))
      continue;
    if (!prices.empty())
      prices += ", ";
    if (!c.name.empty())
      prices += c.name + " " + ticksText(c.ticks);
    else
      prices += std::string(rt::generalStepKindName(c.steps[0].kind)) +
                (c.steps[0].inPlace ? " in place " : " ") + ticksText(c.ticks);
    if (!best || c.ticks < best->ticks)
      best = &c;
  }
  if (!best)
    return std::string("no method applies to this remap");
  if (candidates.size() > 1)
    best->steps[0].why += "; priced " + prices;
  plan.steps = best->steps;
  plan.predictedTicks = best->ticks;
  return plan;
}
