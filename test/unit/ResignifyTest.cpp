//===- ResignifyTest.cpp - 003 6.3's re-signification and in-place brute force
//
// resig_mp (003 6.3.4) as a general step, forward and inverse, in and out of
// place; the planner's candidates for digit maps that cannot be aligned
// (fig. 6.2), each run and checked element by element with prediction equal
// to simulation; and 6.3.9's in-place brute force with bounded stacks on
// random re-significations and random remaps: every element checked, no
// stack over its limit.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Resignify.h"
#include "DigitTile.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/TransferRounds.h"
#include "passes/DigitPlanner.h"
#include "passes/GeneralPlanner.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

using namespace mapc;
using mapc::test::digitTile;
using mapc::test::oneStepPlan;
using mapc::test::PlanRun;
using mapc::test::simulatePlan;

namespace {

/// Runs `plan` on a MasPar of `shape`, checks every element and that the
/// ticks are the plan's prediction.
void runPlan(const rt::GeneralPlan &plan, const rt::MachineShape &shape,
             const std::string &what) {
  const PlanRun run = simulatePlan(plan, shape, 11);
  ASSERT_TRUE(run.ran) << what << ": " << run.why;
  EXPECT_EQ(run.wrong, 0u) << what;
  int64_t predicted = 0;
  for (const rt::GeneralStep &s : plan.steps)
    predicted += s.predictedTicks;
  EXPECT_EQ(run.ticks, predicted) << what;
}

/// A plan of one step of `kind` from `src` to `dst`, priced.
rt::GeneralPlan oneStep(const rt::TileMap &src, const rt::TileMap &dst,
                        rt::GeneralStepKind kind, bool inPlace, bool copy,
                        unsigned elemBytes, const rt::MachineShape &shape) {
  rt::GeneralPlan plan = oneStepPlan(src, dst, kind, inPlace, elemBytes);
  plan.copy = copy;
  if (!copy && !inPlace) { // the copy back into the source's array
    rt::GeneralStep back = plan.steps[0];
    back.kind = rt::GeneralStepKind::Local;
    back.inPlace = false;
    plan.steps.push_back(back);
  }
  for (size_t i = 0; i < plan.steps.size(); ++i)
    plan.steps[i].predictedTicks =
        rt::predictGeneralStep(plan, i, shape, rt::CostModel{});
  return plan;
}

rt::MachineShape gridFor(int64_t pes, unsigned cluster) {
  unsigned width = unsigned(std::min<int64_t>(pes, 8));
  return {width, unsigned((pes + width - 1) / width), cluster};
}

/// A pair of maps that 003 6.3.2 re-signifies, either way round: [p: rest
/// b1 | m: b0 low] and its twin with b0 and b1 traded, or fig. 6.4's shape
/// [p: a3:c1 a1:b1 | m: a2:c0 a0:b0] and its cut'n'stack twin.
std::pair<KTile, KTile> resignifiedPair(std::mt19937 &rng, int64_t b1,
                                        int64_t b0, int64_t c1, int64_t c0,
                                        int64_t low, int64_t rest) {
  KTile a, b;
  if (rng() % 2) {
    a = digitTile({low, b0, b1, rest}, {0, 1}, {2, 3});
    b = digitTile({low, b1, b0, rest}, {0, 2}, {1, 3});
  } else {
    a = digitTile({b0, b1, c0, c1}, {0, 2}, {1, 3});
    b = digitTile({b1, b0, c1, c0}, {1, 3}, {0, 2});
  }
  if (rng() % 2)
    std::swap(a, b);
  return {a, b};
}

/// Runs every candidate of digitPermutationPlans that re-signifies; returns
/// how many there were.
unsigned runResignifiedCandidates(const GeneralPlanRequest &req,
                                  const std::string &what) {
  unsigned n = 0;
  for (const PricedPlan &p : digitPermutationPlans(req)) {
    if (p.name.rfind("003 6.3.4", 0) != 0)
      continue;
    rt::GeneralPlan plan;
    plan.source = req.src;
    plan.dest = req.dst;
    plan.elemBytes = req.elemBytes;
    plan.copy = req.copy;
    plan.steps = p.steps;
    runPlan(plan, req.shape, what + ": " + p.name);
    ++n;
  }
  return n;
}

} // namespace

// 003 fig. 6.2's pair is 6.3.4's example: [p: a1:3 | m: a0:2] ->
// [p: a0:3 | m: a1:2] is one forward re-signification, and back the
// inverse; the step finds the digits in the move and runs in and out of
// place and as a copy.
TEST(Resignify, Figure62) {
  KTile f1 = digitTile({2, 3}, {0}, {1}), f2 = digitTile({3, 2}, {1}, {0});
  for (bool back : {false, true}) {
    const KTile &from = back ? f2 : f1, &to = back ? f1 : f2;
    rt::ResignifyShape shape;
    std::string why;
    ASSERT_TRUE(
        rt::findResignification(from, to, rt::sourcesOf(from, to), shape, &why))
        << why;
    EXPECT_EQ(shape.peBase, 3);
    EXPECT_EQ(shape.slotBase, 2);
    EXPECT_EQ(shape.inverse, back);
    const rt::MachineShape grid{3, 1, 16};
    for (unsigned eb : {1u, 4u, 16u}) {
      runPlan(oneStep(from, to, rt::GeneralStepKind::Resignify, true, false, eb,
                      grid),
              grid, "in place");
      runPlan(oneStep(from, to, rt::GeneralStepKind::Resignify, false, false,
                      eb, grid),
              grid, "out of place");
      runPlan(oneStep(from, to, rt::GeneralStepKind::Resignify, false, true, eb,
                      grid),
              grid, "copy");
    }
    // In place, and out of place with the copy back.
    EXPECT_EQ(runResignifiedCandidates(
                  test::planRequest(from, to, 1, false, grid), "fig. 6.2"),
              2u);
  }
  // With equal bases a re-signification is a P/M digit exchange (003
  // 6.3.1: permuting digits and their significance agree); a move that
  // reverses a digit is neither.
  KTile x = digitTile({3, 3}, {0}, {1}), y = digitTile({3, 3}, {1}, {0});
  rt::ResignifyShape shape;
  EXPECT_TRUE(
      rt::findResignification(x, y, rt::sourcesOf(x, y), shape, nullptr));
  KTile r = digitTile({3, 3}, {0}, {1});
  r.kdims[0].sense = rt::Sense::Minus;
  EXPECT_FALSE(
      rt::findResignification(x, r, rt::sourcesOf(x, r), shape, nullptr));
}

// 6.3.4's common factors: [p: a1:6 | m: a0:4] -> [p: a0:6 | m: a1:4]
// relabels both digits with a common digit of 2 and re-signifies only the
// 3 | 2 parts, then exchanges the 2s (exchange_dig) and permutes; and the
// direct re-signification too. Every candidate runs and checks.
// The pricing machine keeps what each re-signification cost
// (GeneralExecute.cpp): asked again, on another machine, for another
// element size or in the other form, every price is the one a fresh
// machine gives, in any order of asking.
TEST(Resignify, KeptPricesAreFresh) {
  // Fig. 6.4's first step at 8 | 7: [p: a3:8 a2:8 | m: a1:7 a0:7] with
  // a2 and a1 data-adjacent, forward and inverse.
  KTile a = digitTile({7, 7, 8, 8}, {0, 1}, {2, 3});
  KTile b = digitTile({7, 8, 7, 8}, {0, 2}, {1, 3});
  struct Ask {
    bool inverse, inPlace;
    unsigned elemBytes, cluster;
  };
  std::vector<Ask> asks;
  for (unsigned k = 0; k < 2; ++k)
    for (bool inverse : {false, true})
      for (unsigned cluster : {16u, 4u})
        for (unsigned eb : {1u, 4u})
          for (bool inPlace : {true, false})
            asks.push_back({inverse, inPlace, eb, cluster});
  std::mt19937 rng(634);
  std::shuffle(asks.begin(), asks.end(), rng);
  for (const Ask &q : asks) {
    const KTile &from = q.inverse ? b : a, &to = q.inverse ? a : b;
    const rt::MachineShape grid{8, 8, q.cluster};
    const rt::GeneralPlan plan = oneStepPlan(
        from, to, rt::GeneralStepKind::Resignify, q.inPlace, q.elemBytes);
    const int64_t kept = rt::predictGeneralStep(plan, 0, grid, rt::CostModel{});
    rt::ResignifyShape shape;
    ASSERT_TRUE(rt::findResignification(from, to, rt::sourcesOf(from, to),
                                        shape, nullptr));
    rt::MasPar fresh = rt::MasPar::pricing(8, 8, q.cluster, rt::CostModel{});
    rt::TransferOptions opt;
    opt.elemBytes = q.elemBytes;
    opt.inPlace = q.inPlace;
    opt.stackLimit = rt::kInPlaceStackLimit;
    opt.slots = shape.slots;
    rt::runTransfers(
        fresh, rt::resignifyTransfers(shape, q.elemBytes, q.inPlace), opt);
    EXPECT_EQ(kept, fresh.ledger().total())
        << (q.inverse ? "inverse" : "forward")
        << (q.inPlace ? " in place" : " out of place") << ", " << q.elemBytes
        << " bytes, clusters of " << q.cluster;
  }
}

TEST(Resignify, CommonFactors) {
  KTile a = digitTile({4, 6}, {0}, {1}), b = digitTile({6, 4}, {1}, {0});
  const rt::MachineShape grid{6, 1, 16};
  bool factored = false;
  for (const PricedPlan &p :
       digitPermutationPlans(test::planRequest(a, b, 1, false, grid)))
    factored |= p.steps[0].why.find("common factors") != std::string::npos &&
                p.steps.size() > 1;
  EXPECT_TRUE(factored);
  EXPECT_GE(runResignifiedCandidates(test::planRequest(a, b, 1, false, grid),
                                     "6 | 4"),
            2u);
  EXPECT_GE(
      runResignifiedCandidates(test::planRequest(a, b, 2, true, grid), "6 | 4"),
      2u);
}

// Random digit maps that cannot be aligned: random bases, the destination's
// a random permutation of them in data order, random sides. The planner's
// plan and every re-signifying candidate run, every element checked.
TEST(Resignify, RandomNonAligned) {
  std::mt19937 rng(611);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned runs = 0, candidates = 0, chosen = 0;
  while (runs < 1000) {
    const unsigned n = unsigned(pick(2, 4));
    std::vector<int64_t> bases(n), bases2;
    for (int64_t &b : bases)
      b = pick(2, 7);
    bases2 = bases;
    std::shuffle(bases2.begin(), bases2.end(), rng);
    auto place = [&](unsigned count, std::vector<unsigned> &mem,
                     std::vector<unsigned> &pe) {
      std::vector<unsigned> order(count);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      const unsigned split = unsigned(pick(1, int(count) - 1));
      mem.assign(order.begin(), order.begin() + split);
      pe.assign(order.begin() + split, order.end());
    };
    std::vector<unsigned> m1, p1, m2, p2;
    place(n, m1, p1);
    place(n, m2, p2);
    KTile a = digitTile(bases, m1, p1), b = digitTile(bases2, m2, p2);
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 64 || rt::slotsOf(a) > 64 || rt::slotsOf(b) > 64)
      continue;
    const rt::MachineShape grid = gridFor(pes, 1u << pick(0, 4));
    const unsigned eb = 1u << pick(0, 3);
    const bool copy = rng() % 4 == 0;
    GeneralPlanRequest req = test::planRequest(a, b, eb, copy, grid);
    const std::string what = "run " + std::to_string(runs);
    candidates += runResignifiedCandidates(req, what);
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned));
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    for (const rt::GeneralStep &s : plan.steps)
      if (s.kind == rt::GeneralStepKind::Resignify) {
        ++chosen;
        break;
      }
    runPlan(plan, grid, what);
    if (HasFailure())
      return;
    ++runs;
  }
  std::printf("re-signifying candidates run: %u, chosen in %u of %u plans\n",
              candidates, chosen, runs);
  EXPECT_GT(candidates, 300u);
}

// The floor the planner checks before pricing an in-place resig_mp
// (rt::resignifyInPlaceFloor) is never above the step's price: random
// re-significations [p: rest b1 above | m: below b0 low], forward and
// inverse, on random grids, clusters and element sizes (wider than 64 bits
// among them), priced on fresh pricing machines.
TEST(Resignify, InPlaceFloorIsAFloor) {
  std::mt19937 rng(6394);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  double tightest = 0, sum = 0;
  unsigned runs = 0;
  for (; runs < 3000; ++runs) {
    const int64_t b1 = pick(2, 12), b0 = pick(2, 24), low = pick(1, 4),
                  rest = pick(1, 3), below = pick(1, 3), above = pick(1, 2);
    // Data digits low, b0, b1, rest, below, above: memory below b0 low (low
    // the least), PEs above rest b1 (b1 the least).
    KTile a =
        digitTile({low, b0, b1, rest, below, above}, {0, 1, 4}, {2, 3, 5});
    KTile b =
        digitTile({low, b1, b0, rest, below, above}, {0, 2, 4}, {1, 3, 5});
    if (rng() % 2)
      std::swap(a, b);
    const int64_t pes = rt::pesOf(a);
    const unsigned width = unsigned(pick(1, int(std::min<int64_t>(pes, 16))));
    const rt::MachineShape grid{width, unsigned((pes + width - 1) / width),
                                1u << pick(0, 4)};
    const unsigned eb = 1u << pick(0, 4);
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const int64_t floor =
        rt::resignifyInPlaceFloor(a, b, sources, eb, grid, rt::CostModel{});
    rt::ResignifyShape shape;
    ASSERT_TRUE(rt::findResignification(a, b, sources, shape, nullptr));
    rt::MasPar fresh = rt::MasPar::pricing(grid.width, grid.height,
                                           grid.clusterSize, rt::CostModel{});
    rt::TransferOptions opt;
    opt.elemBytes = eb;
    opt.inPlace = true;
    opt.stackLimit = rt::kInPlaceStackLimit;
    opt.slots = shape.slots;
    rt::runTransfers(fresh, rt::resignifyTransfers(shape, eb, true), opt);
    const int64_t exact = fresh.ledger().total();
    ASSERT_GT(floor, 0) << "run " << runs;
    ASSERT_LE(floor, exact)
        << "run " << runs << ": " << b1 << " | " << b0 << ", low " << low
        << ", " << eb << " bytes, " << grid.width << " x " << grid.height
        << ", clusters of " << grid.clusterSize;
    // The same through the step the planner prices.
    if (runs % 10 == 0) {
      ASSERT_EQ(rt::predictGeneralStep(
                    oneStepPlan(a, b, rt::GeneralStepKind::Resignify, true, eb),
                    0, grid, rt::CostModel{}),
                exact);
    }
    tightest = std::max(tightest, double(floor) / double(exact));
    sum += double(floor) / double(exact);
  }
  std::printf("in-place resig_mp floor / price over %u steps: mean %.2f, "
              "max %.2f\n",
              runs, sum / runs, tightest);
}

// Planning with the floors (GeneralPlanRequest::resignifyFloors) chooses
// the plan pricing every candidate chooses, step for step; its list of
// prices is the same but for candidates left unpriced, each named with a
// floor no higher than its price.
TEST(Resignify, FloorsKeepThePlan) {
  std::mt19937 rng(6395);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto pricesOf = [](const std::string &why) {
    std::vector<std::string> out;
    const size_t at = why.find("; priced ");
    if (at == std::string::npos)
      return out;
    std::string rest = why.substr(at + 9);
    for (size_t cut; (cut = rest.find(", ")) != std::string::npos;) {
      out.push_back(rest.substr(0, cut));
      rest = rest.substr(cut + 2);
    }
    out.push_back(rest);
    return out;
  };
  unsigned runs = 0, skipped = 0;
  while (runs < 600) {
    // [p: rest b1 | m: b0 low] -> [p: rest b0' | m: b1' low] and back, and
    // pairs with more digits re-signified (two steps).
    const int64_t b1 = pick(2, 9), b0 = pick(2, 16), low = pick(1, 4),
                  rest = pick(1, 4), c1 = pick(2, 6), c0 = pick(2, 6);
    const auto [a, b] = resignifiedPair(rng, b1, b0, c1, c0, low, rest);
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 256 || rt::slotsOf(a) > 256 || rt::slotsOf(b) > 256)
      continue;
    const rt::MachineShape grid = gridFor(pes, 1u << pick(0, 4));
    GeneralPlanRequest req =
        test::planRequest(a, b, 1u << pick(0, 3), rng() % 5 == 0, grid);
    req.noScratch = rng() % 6 == 0;
    const std::string what = "run " + std::to_string(runs);
    auto withFloors = planGeneralRemap(req);
    req.resignifyFloors = false;
    auto priced = planGeneralRemap(req);
    ASSERT_EQ(withFloors.index(), priced.index()) << what;
    if (std::holds_alternative<std::string>(priced)) {
      EXPECT_EQ(std::get<std::string>(withFloors),
                std::get<std::string>(priced));
      ++runs;
      continue;
    }
    const rt::GeneralPlan &x = std::get<rt::GeneralPlan>(withFloors),
                          &y = std::get<rt::GeneralPlan>(priced);
    ASSERT_EQ(x.steps.size(), y.steps.size()) << what;
    EXPECT_EQ(x.predictedTicks, y.predictedTicks) << what;
    for (size_t i = 0; i < x.steps.size(); ++i) {
      EXPECT_EQ(x.steps[i].kind, y.steps[i].kind) << what;
      EXPECT_EQ(x.steps[i].inPlace, y.steps[i].inPlace) << what;
      EXPECT_EQ(x.steps[i].to, y.steps[i].to) << what;
      EXPECT_EQ(x.steps[i].predictedTicks, y.steps[i].predictedTicks) << what;
      if (i > 0) {
        EXPECT_EQ(x.steps[i].why, y.steps[i].why) << what;
      }
    }
    if (!x.steps.empty()) {
      EXPECT_EQ(x.steps[0].why.substr(0, x.steps[0].why.find("; priced ")),
                y.steps[0].why.substr(0, y.steps[0].why.find("; priced ")))
          << what;
      const std::vector<std::string> px = pricesOf(x.steps[0].why),
                                     py = pricesOf(y.steps[0].why);
      ASSERT_EQ(px.size(), py.size()) << what << "\n"
                                      << x.steps[0].why << "\n"
                                      << y.steps[0].why;
      const std::string tail = " ticks (its floor; not priced)";
      for (size_t k = 0; k < px.size(); ++k) {
        if (px[k] == py[k])
          continue;
        ++skipped;
        // "NAME at least F ticks (its floor; not priced)" against "NAME P
        // ticks".
        const size_t at = px[k].find(" at least ");
        ASSERT_NE(at, std::string::npos) << what << ": " << px[k];
        ASSERT_EQ(px[k].substr(px[k].size() - tail.size()), tail) << px[k];
        const std::string name = px[k].substr(0, at);
        ASSERT_EQ(py[k].substr(0, name.size() + 1), name + " ") << py[k];
        const int64_t floor = std::stoll(px[k].substr(at + 10));
        const int64_t price = std::stoll(py[k].substr(name.size() + 1));
        EXPECT_LE(floor, price) << what << ": " << px[k] << " / " << py[k];
        EXPECT_GE(price, x.predictedTicks) << what;
      }
    }
    if (HasFailure())
      return;
    ++runs;
  }
  std::printf("candidates left unpriced by their floor: %u in %u plans\n",
              skipped, runs);
  EXPECT_GT(skipped, 100u);
}

// findResignification's check of a candidate, walked with a table of steps
// per digit pair, against destOf cell by cell: the move of one shape, or of
// another, with or without two cells swapped, on 4,000 random shapes.
TEST(Resignify, EveryCellCheckIsDestOfs) {
  std::mt19937 rng(6331);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto shapeOf = [&]() {
    rt::ResignifyShape s;
    s.peBase = pick(2, 6);
    s.slotBase = pick(2, 6);
    s.peWeight = pick(1, 3);
    s.slotWeight = pick(1, 4);
    s.pes = s.peBase * s.peWeight * pick(1, 3);
    s.slots = s.slotBase * s.slotWeight * pick(1, 3);
    s.inverse = rng() % 2;
    return s;
  };
  auto reference = [](const rt::ResignifyShape &s,
                      const std::vector<uint32_t> &sources) {
    for (int64_t c = 0; c < s.pes * s.slots; ++c)
      if (sources[size_t(s.destOf(c / s.slots, c % s.slots))] != uint32_t(c))
        return false;
    return true;
  };
  unsigned yes = 0;
  for (int run = 0; run < 4000; ++run) {
    const rt::ResignifyShape made = shapeOf();
    std::vector<uint32_t> sources(size_t(made.pes * made.slots));
    for (int64_t c = 0; c < made.pes * made.slots; ++c)
      sources[size_t(made.destOf(c / made.slots, c % made.slots))] =
          uint32_t(c);
    if (rng() % 3 == 0)
      std::swap(sources[rng() % sources.size()],
                sources[rng() % sources.size()]);
    rt::ResignifyShape asked = made;
    if (rng() % 3 == 0) { // another shape of the same cells, if one fits
      const rt::ResignifyShape other = shapeOf();
      if (other.pes % (other.peBase * other.peWeight) == 0 &&
          made.pes % (other.peBase * other.peWeight) == 0 &&
          made.slots % (other.slotBase * other.slotWeight) == 0) {
        asked = other;
        asked.pes = made.pes;
        asked.slots = made.slots;
      }
    }
    const bool want = reference(asked, sources);
    yes += want;
    ASSERT_EQ(rt::resignifiesEveryCell(asked, sources), want) << "run " << run;
  }
  EXPECT_GT(yes, 1000u);
  EXPECT_LT(yes, 3500u);
}

// The planner prices each resig_mp move once (the frontier reaches one from
// both forms of the step before it): every resig_mp step of every candidate
// has the price, or the floor, that a fresh machine gives its own move.
TEST(Resignify, SharedResigMovesPriceAlike) {
  std::mt19937 rng(6341);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned runs = 0, checked = 0;
  while (runs < 2000) {
    const int64_t b1 = pick(2, 7), b0 = pick(2, 9), c1 = pick(2, 5),
                  c0 = pick(2, 5), low = pick(1, 3), rest = pick(1, 3);
    const auto [a, b] = resignifiedPair(rng, b1, b0, c1, c0, low, rest);
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 128 || rt::slotsOf(a) > 128 || rt::slotsOf(b) > 128)
      continue;
    const rt::MachineShape grid = gridFor(pes, 1u << pick(0, 3));
    const GeneralPlanRequest req =
        test::planRequest(a, b, 1u << pick(0, 3), rng() % 4 == 0, grid);
    const bool floors = rng() % 2;
    const std::string what = "run " + std::to_string(runs);
    for (const PricedPlan &p : digitPermutationPlans(req, floors)) {
      rt::TileMap from = req.src;
      for (size_t i = 0; i < p.steps.size(); ++i) {
        const rt::GeneralStep &s = p.steps[i];
        if (s.kind == rt::GeneralStepKind::Resignify) {
          const std::vector<uint32_t> sources = rt::sourcesOf(from, s.to);
          int64_t fresh;
          if (floors && s.inPlace) {
            fresh = rt::resignifyInPlaceFloor(
                from, s.to, sources, req.elemBytes, req.shape, req.cost);
          } else {
            rt::GeneralPlan one;
            one.source = from;
            one.dest = s.to;
            one.elemBytes = req.elemBytes;
            one.copy = req.copy && i == 0;
            one.steps = {s};
            fresh =
                rt::predictGeneralStep(one, 0, req.shape, req.cost, &sources);
          }
          EXPECT_EQ(s.predictedTicks, fresh) << what << ", " << p.name;
          ++checked;
        }
        from = s.to;
      }
    }
    if (HasFailure())
      return;
    ++runs;
  }
  EXPECT_GT(checked, 10000u);
}

// 003 6.3.9: random re-significations in place with stacks of 3 to 50
// items: every element checked, no stack over its limit; the high-water
// marks of unbounded stacks (cf. fig. 6.9) printed for docs/mixed-radix.md.
TEST(Resignify, BoundedStacks) {
  std::mt19937 rng(69);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int64_t worst = 0, forcedRuns = 0;
  std::vector<int64_t> highs;
  for (unsigned run = 0; run < 2000; ++run) {
    const int64_t b1 = pick(2, 12), b0 = pick(2, 40), low = pick(1, 3),
                  rest = pick(1, 3);
    const bool inverse = rng() % 2;
    // [p: rest b1 | m: b0 low] with b1 and b0 data-adjacent.
    KTile a = digitTile({low, b0, b1, rest}, {0, 1}, {2, 3});
    KTile b = digitTile({low, b1, b0, rest}, {0, 2}, {1, 3});
    if (inverse)
      std::swap(a, b);
    rt::ResignifyShape shape;
    ASSERT_TRUE(
        rt::findResignification(a, b, rt::sourcesOf(a, b), shape, nullptr));
    const unsigned limit = run % 3 == 0 ? 3u : run % 3 == 1 ? 8u : 50u;
    const unsigned eb = 1u << pick(0, 2);
    const int64_t pes = rt::pesOf(a);
    rt::MasPar m(unsigned(pes), 1, uint64_t(rt::slotsOf(a)) * eb, 16);
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, a, eb, 0, 5);
    rt::TransferOptions opt;
    opt.elemBytes = eb;
    opt.inPlace = true;
    opt.stackLimit = limit;
    opt.slots = shape.slots;
    rt::TransferStats stats;
    rt::runTransfers(m, rt::resignifyTransfers(shape, eb, true), opt, &stats);
    ASSERT_EQ(rt::countMismatches(readOf, b, eb, 0, 5), 0u)
        << "run " << run << ": " << b1 << " | " << b0 << ", limit " << limit;
    ASSERT_LE(stats.stackHigh, int64_t(limit)) << "run " << run;
    forcedRuns += stats.forced > 0;
    // Unbounded (a limit of every element) for the high-water marks.
    rt::MasPar u = rt::MasPar::pricing(unsigned(pes), 1, 16, rt::CostModel{});
    rt::TransferStats free;
    opt.stackLimit = unsigned(shape.slots) + 3;
    rt::runTransfers(u, rt::resignifyTransfers(shape, eb, true), opt, &free);
    highs.push_back(free.stackHigh);
    worst = std::max(worst, free.stackHigh);
  }
  std::sort(highs.begin(), highs.end());
  std::printf("unbounded stack high-water marks over %zu re-significations: "
              "median %lld, 90%% %lld, 98%% %lld, max %lld; runs with a "
              "forced send %lld\n",
              highs.size(), (long long)highs[highs.size() / 2],
              (long long)highs[highs.size() * 9 / 10],
              (long long)highs[highs.size() * 98 / 100], (long long)worst,
              (long long)forcedRuns);
}

// In-place brute force (6.3.9) on random permutations of digit maps, any
// grid: every element checked, prediction equal to simulation, the bound
// that lets the planner skip it below its price.
TEST(Resignify, InPlaceBruteForce) {
  std::mt19937 rng(6309);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (unsigned run = 0; run < 500; ++run) {
    const unsigned n = unsigned(pick(2, 4));
    std::vector<int64_t> bases(n), bases2;
    for (int64_t &b : bases)
      b = pick(2, 6);
    bases2 = bases;
    std::shuffle(bases2.begin(), bases2.end(), rng);
    std::vector<unsigned> m1, p1, m2, p2;
    for (unsigned i = 0; i < n; ++i) {
      (i % 2 ? p1 : m1).push_back(i);
      (rng() % 2 ? p2 : m2).push_back(i);
    }
    if (m2.empty() || p2.empty())
      continue;
    KTile a = digitTile(bases, m1, p1), b = digitTile(bases2, m2, p2);
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 64)
      continue;
    const rt::MachineShape grid = gridFor(pes, 1u << pick(0, 4));
    const unsigned eb = 1u << pick(0, 4);
    const rt::GeneralPlan plan =
        oneStep(a, b, rt::GeneralStepKind::BruteForce, true, false, eb, grid);
    runPlan(plan, grid, "brute force in place, run " + std::to_string(run));
    // The planner's bound for it (rounds for the busiest PE's leaving
    // elements or the moved cells spread over the PEs) never passes its
    // price.
    const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
    const rt::MoveShape shape = inPlaceBruteForceShape(
        rt::analyseMove(a, b, sources), int64_t(grid.peCount()));
    EXPECT_LE(
        bruteForceStepBound(test::planRequest(a, b, eb, false, grid), shape),
        plan.steps[0].predictedTicks)
        << "run " << run;
    if (HasFailure())
      return;
  }
}

// When the scratch region does not fit (GeneralPlanRequest::noScratch) an
// in-place remap is planned with in-place steps only: 6.3.9's brute force
// where nothing else runs in place. Random digit maps, aligned or not.
TEST(Resignify, NoScratch) {
  std::mt19937 rng(6399);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned bruteForce = 0;
  for (unsigned run = 0; run < 300; ++run) {
    const unsigned n = unsigned(pick(2, 4));
    std::vector<int64_t> bases(n), bases2;
    for (int64_t &b : bases)
      b = pick(2, 6);
    bases2 = bases;
    if (rng() % 2)
      std::shuffle(bases2.begin(), bases2.end(), rng);
    std::vector<unsigned> m1, p1, m2, p2;
    for (unsigned i = 0; i < n; ++i) {
      (i % 2 ? p1 : m1).push_back(i);
      (rng() % 2 ? p2 : m2).push_back(i);
    }
    if (m2.empty() || p2.empty())
      continue;
    KTile a = digitTile(bases, m1, p1), b = digitTile(bases2, m2, p2);
    const int64_t pes = std::max(rt::pesOf(a), rt::pesOf(b));
    if (pes > 64)
      continue;
    const rt::MachineShape grid = gridFor(pes, 1u << pick(0, 4));
    GeneralPlanRequest req =
        test::planRequest(a, b, 1u << pick(0, 3), false, grid);
    req.noScratch = true;
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned))
        << std::get<std::string>(planned);
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    for (const rt::GeneralStep &s : plan.steps) {
      EXPECT_TRUE(s.inPlace) << rt::generalStepKindName(s.kind);
      bruteForce += s.kind == rt::GeneralStepKind::BruteForce;
    }
    runPlan(plan, grid, "no scratch, run " + std::to_string(run));
    if (HasFailure())
      return;
  }
  EXPECT_GT(bruteForce, 0u);
}
