//===- ProductRoundsTest.cpp - rounds of separable exchanges --------------===//
//
// An exchange whose pair counts are a product over the PE grid's dims
// (runtime/lib/ProductRounds.h) is scheduled as products of its factors'
// rounds. On random products the rounds must be matchings (no PE sends or
// receives twice in a round), carry every pair's elements exactly, and be
// as many as the busiest PE's degree; pairs that are not a product are
// refused. Each product round's router price computed from its factors must
// equal the machine's (MasPar::cheaperRouterCost of the round itself). On
// the benchmark's 10^6 elements on 31 x 33 PEs the product rounds must
// cost no more than the rounds coloured as a whole (the schedule before),
// and a separable HPF move planned and run on the simulator must deliver
// every element at the predicted ticks. On the same rows, the facts that
// keep the clustered price of one cluster to one out of reach of any
// product rounds (docs/cost-model.md) hold, and the estimate built on them.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/lib/ProductRounds.h"
#include "../../runtime/lib/PairSchedule.h"
#include "ir/KTile.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/General.h"
#include "passes/GeneralPlanner.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace mapc;

namespace {

/// Checks that `rounds` colour `pairs` on `pes` PEs: matchings, every pair
/// used `count` times, `degree` rounds in all.
void checkRounds(const std::vector<rt::PairCount> &pairs,
                 const std::vector<rt::PairRound> &rounds, unsigned pes,
                 const std::string &what) {
  std::vector<uint64_t> out(pes, 0), in(pes, 0), used(pairs.size(), 0);
  for (const rt::PairCount &p : pairs) {
    out[p.left] += p.count;
    in[p.right] += p.count;
  }
  uint64_t degree = 0, total = 0;
  for (unsigned p = 0; p < pes; ++p)
    degree = std::max({degree, out[p], in[p]});
  for (const rt::PairRound &r : rounds) {
    ASSERT_GT(r.times, 0u) << what;
    std::vector<uint8_t> sends(pes, 0), gets(pes, 0);
    for (uint32_t k : r.pairs) {
      ASSERT_LT(k, pairs.size()) << what;
      ASSERT_NE(pairs[k].left, pairs[k].right) << what;
      ASSERT_FALSE(sends[pairs[k].left]++) << what << ": a PE sends twice";
      ASSERT_FALSE(gets[pairs[k].right]++) << what << ": a PE receives twice";
      used[k] += r.times;
    }
    total += r.times;
  }
  EXPECT_EQ(total, degree) << what;
  for (size_t k = 0; k < pairs.size(); ++k)
    ASSERT_EQ(used[k], pairs[k].count) << what << ": pair " << k;
}

/// The pairs of `scale` times A (inner x inner) times B (outer x outer),
/// PE x + inner * r, the diagonal left out, shuffled.
std::vector<rt::PairCount> productPairs(const std::vector<uint64_t> &a,
                                        uint32_t inner,
                                        const std::vector<uint64_t> &b,
                                        uint32_t outer, uint64_t scale,
                                        std::mt19937 &rng) {
  std::vector<rt::PairCount> pairs;
  for (uint32_t x = 0; x < inner; ++x)
    for (uint32_t y = 0; y < inner; ++y)
      for (uint32_t r = 0; r < outer; ++r)
        for (uint32_t s = 0; s < outer; ++s) {
          const uint64_t n = scale * a[x * inner + y] * b[r * outer + s];
          const uint32_t p = x + inner * r, q = y + inner * s;
          if (n && p != q)
            pairs.push_back({p, q, n});
        }
  std::shuffle(pairs.begin(), pairs.end(), rng);
  return pairs;
}

std::vector<uint64_t> randomFactor(uint32_t n, std::mt19937 &rng) {
  std::vector<uint64_t> a(size_t(n) * n);
  const unsigned density = 1 + rng() % 4, most = 1 + rng() % 3;
  for (uint64_t &v : a)
    v = rng() % 4 < density ? 1 + rng() % most : 0;
  return a;
}

} // namespace

// Random products: when taken, the rounds colour the pairs in as many
// rounds as the degree; a count off the product, or a pair missing, is
// refused.
TEST(ProductRounds, RandomProducts) {
  std::mt19937 rng(3133);
  unsigned taken = 0, refused = 0;
  for (int run = 0; run < 400; ++run) {
    const uint32_t inner = 2 + rng() % 8, outerA = 2 + rng() % 5,
                   outerB = run % 3 ? 1 : 2 + rng() % 3;
    const uint32_t outer = outerA * outerB;
    const std::vector<uint64_t> a = randomFactor(inner, rng),
                                b = randomFactor(outer, rng);
    std::vector<rt::PairCount> pairs =
        productPairs(a, inner, b, outer, 1 + rng() % 3, rng);
    const std::vector<int64_t> grid =
        outerB > 1 ? std::vector<int64_t>{inner, outerA, outerB}
                   : std::vector<int64_t>{inner, outer};
    const std::string what = "run " + std::to_string(run);
    std::optional<rt::ProductRounds> p = rt::productRounds(pairs, grid, 0);
    if (!p)
      continue;
    ++taken;
    checkRounds(pairs, rt::expandProductRounds(*p, pairs), inner * outer, what);
    if (HasFailure())
      return;
    // A count off the product, or a pair missing: refused, or (when the
    // factors are degenerate enough to absorb it) still a valid colouring.
    for (int change = 0; change < 2; ++change) {
      std::vector<rt::PairCount> off = pairs;
      if (change)
        off.erase(off.begin() + ptrdiff_t(rng() % off.size()));
      else
        off[rng() % off.size()].count += 1;
      if (std::optional<rt::ProductRounds> q = rt::productRounds(off, grid, 0))
        checkRounds(off, rt::expandProductRounds(*q, off), inner * outer,
                    what + ", changed");
      else
        ++refused;
    }
    // Too few pairs for the default threshold, or one dim.
    EXPECT_FALSE(rt::productRounds(pairs, grid, pairs.size() + 1)) << what;
    EXPECT_FALSE(rt::productRounds(pairs, {int64_t(inner * outer)}, 0)) << what;
  }
  EXPECT_GT(taken, 100u);
  EXPECT_GT(refused, taken);
}

// A product round's router price from its factors equals the machine's
// price of the round itself, on grids one factor wide and at least the
// other high, clusters of 1 to 16 PEs, 1- to 8-byte sends.
TEST(ProductRounds, RouterTicksAsTheMachine) {
  std::mt19937 rng(1126);
  unsigned priced = 0;
  for (int run = 0; run < 300; ++run) {
    const uint32_t inner = 2 + rng() % 10, outer = 2 + rng() % 10;
    std::vector<rt::PairCount> pairs =
        productPairs(randomFactor(inner, rng), inner, randomFactor(outer, rng),
                     outer, 1, rng);
    std::optional<rt::ProductRounds> p =
        rt::productRounds(pairs, {inner, outer}, 0);
    if (!p)
      continue;
    const unsigned height = outer + rng() % 3, bytes = 1u << (rng() % 4);
    rt::MasPar m = rt::MasPar::pricing(inner, height, 1u << (rng() % 5));
    std::vector<int64_t> ticks;
    ASSERT_TRUE(rt::productRouterTicks(m, bytes, *p, ticks));
    EXPECT_FALSE(rt::productRouterTicks(
        rt::MasPar::pricing(inner + 1, height, 16), bytes, *p, ticks));
    ASSERT_TRUE(rt::productRouterTicks(m, bytes, *p, ticks));
    // expandProductRounds lists the rounds in the same order, stay x stay
    // left out.
    const std::vector<rt::PairRound> rounds =
        rt::expandProductRounds(*p, pairs);
    size_t next = 0;
    rt::Plural dest(m.peCount(), 0);
    rt::Mask active(m.peCount(), 0);
    for (size_t i = 0; i < p->innerRounds.size(); ++i)
      for (size_t j = 0; j < p->outerRounds.size(); ++j) {
        if (p->innerRounds[i].stay && p->outerRounds[j].stay)
          continue;
        ASSERT_LT(next, rounds.size());
        std::fill(active.begin(), active.end(), 0);
        for (uint32_t k : rounds[next].pairs) {
          active[pairs[k].left] = 1;
          dest[pairs[k].left] = pairs[k].right;
        }
        ++next;
        ASSERT_EQ(ticks[i * p->outerRounds.size() + j],
                  m.cheaperRouterCost(bytes, dest, active))
            << "run " << run << ", round " << i << " x " << j;
        ++priced;
      }
  }
  EXPECT_GT(priced, 2000u);
}

namespace {

/// The pairs of an HPF move of `shape` f32 from `from` to `to` on `procs`.
std::vector<rt::PairCount> hpfPairs(const KTile &a, const KTile &b) {
  const std::vector<uint32_t> sources = rt::sourcesOf(a, b);
  const int64_t fromSlots = rt::slotsOf(a), toSlots = rt::slotsOf(b);
  const int64_t pes = rt::pesOf(b);
  std::vector<uint64_t> count(size_t(pes * pes), 0);
  for (size_t c = 0; c < sources.size(); ++c)
    if (sources[c] != rt::kNoSource)
      ++count[size_t(sources[c] / fromSlots * pes + int64_t(c) / toSlots)];
  std::vector<rt::PairCount> pairs;
  for (int64_t p = 0; p < pes; ++p)
    for (int64_t q = 0; q < pes; ++q)
      if (p != q && count[size_t(p * pes + q)])
        pairs.push_back({uint32_t(p), uint32_t(q), count[size_t(p * pes + q)]});
  return pairs;
}

KTile hpf(const std::vector<int64_t> &shape,
          const std::vector<DistFormatSpec> &formats,
          const std::vector<int64_t> &procs) {
  auto r = lowerDistribute(shape, formats, procs);
  EXPECT_TRUE(std::holds_alternative<KTile>(r));
  return std::get<KTile>(r);
}

/// The ticks of exchange rounds of f32 on `m`, as chargeExchangeFromPairs
/// charges them.
int64_t priceOf(const rt::MasPar &m, const std::vector<rt::PairCount> &pairs,
                const std::vector<rt::PairRound> &rounds) {
  const rt::CostModel &c = m.cost();
  rt::Plural dest(m.peCount(), 0);
  rt::Mask active(m.peCount(), 0);
  int64_t ticks = 0;
  for (const rt::PairRound &r : rounds) {
    std::fill(active.begin(), active.end(), 0);
    for (uint32_t k : r.pairs) {
      active[pairs[k].left] = 1;
      dest[pairs[k].left] = pairs[k].right;
    }
    ticks +=
        int64_t(r.times) * (c.load[3] + c.loadIndirect[2] + c.storeIndirect(2) +
                            m.cheaperRouterCost(4, dest, active));
  }
  return ticks;
}

const std::vector<int64_t> kProcs31x33 = {31, 33};

// The bench's 31 x 33 layouts: 1000 x 1000 block, block and cyclic(2),
// cyclic.
std::pair<KTile, KTile> hpf31x33Layouts() {
  const std::vector<int64_t> shape = {1000, 1000};
  DistFormatSpec block, cyclic, cyclic2;
  block.kind = DistFormatSpec::Block;
  cyclic.kind = cyclic2.kind = DistFormatSpec::Cyclic;
  cyclic2.arg = 2;
  return {hpf(shape, {block, block}, kProcs31x33),
          hpf(shape, {cyclic2, cyclic}, kProcs31x33)};
}

} // namespace

// The benchmark's row "1e6 on 31x33: bb<->c(2),c", both ways: the product
// rounds are as many as the degree and cost no more than the pairs
// coloured as a whole (PairSchedule's diagonals and Euler partition).
TEST(ProductRounds, Hpf31x33NoDearerThanColouring) {
  const auto [bb, cc] = hpf31x33Layouts();
  const rt::MasPar m = rt::MasPar::pricing(31, 33, 16);
  for (int way = 0; way < 2; ++way) {
    const std::vector<rt::PairCount> pairs =
        way ? hpfPairs(cc, bb) : hpfPairs(bb, cc);
    const std::string what = way ? "back" : "there";
    std::optional<rt::ProductRounds> p = rt::productRounds(pairs, kProcs31x33);
    ASSERT_TRUE(p) << what;
    EXPECT_EQ(p->rounds(), 1052u) << what;
    const std::vector<rt::PairRound> rounds =
        rt::expandProductRounds(*p, pairs);
    checkRounds(pairs, rounds, 31 * 33, what);
    const std::vector<rt::PairRound> coloured =
        rt::planPairRounds(pairs, 31 * 33, kProcs31x33, /*byFactors=*/false);
    checkRounds(pairs, coloured, 31 * 33, what + ", coloured");
    const int64_t product = priceOf(m, pairs, rounds),
                  whole = priceOf(m, pairs, coloured);
    EXPECT_LE(product, whole) << what;
    std::printf("[ %s: product rounds %lld ticks, coloured %lld ]\n",
                what.c_str(), (long long)product, (long long)whole);
  }
}

// A separable HPF move large enough to go by pair counts and by factors
// (65,536 pairs, 2.7 10^5 elements on 16 x 16 PEs; its product rounds are
// as many as the degree), planned, run on the simulator and checked element
// by element, at the predicted ticks.
TEST(ProductRounds, SeparableHpfRunsAsPredicted) {
  const std::vector<int64_t> shape = {520, 520}, procs = {16, 16};
  DistFormatSpec block, cyclic;
  block.kind = DistFormatSpec::Block;
  cyclic.kind = DistFormatSpec::Cyclic;
  const KTile a = hpf(shape, {block, block}, procs),
              b = hpf(shape, {cyclic, cyclic}, procs);
  ASSERT_TRUE(rt::productRounds(hpfPairs(a, b), procs));
  for (int way = 0; way < 2; ++way) {
    GeneralPlanRequest req;
    req.src = way ? b : a;
    req.dst = way ? a : b;
    req.elemBytes = 4;
    req.copy = true;
    req.shape.width = 16;
    req.shape.height = 16;
    req.shape.clusterSize = 16;
    auto planned = planGeneralRemap(req);
    ASSERT_TRUE(std::holds_alternative<rt::GeneralPlan>(planned))
        << std::get<std::string>(planned);
    const rt::GeneralPlan &plan = std::get<rt::GeneralPlan>(planned);
    bool exchange = false;
    for (const rt::GeneralStep &s : plan.steps)
      exchange |= s.kind == rt::GeneralStepKind::Exchange;
    EXPECT_TRUE(exchange);
    const uint64_t region =
        uint64_t(std::max(rt::slotsOf(a), rt::slotsOf(b))) * req.elemBytes;
    rt::MasPar m(16, 16, 3 * region, 16);
    rt::Regions regions{{0}, {region}, {2 * region}};
    auto memoryOf = [&](unsigned pe) { return m.memoryOf(pe); };
    auto readOf = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    rt::storePattern(memoryOf, req.src, req.elemBytes, regions.src.base, 7);
    std::string why;
    ASSERT_TRUE(rt::executeGeneralPlan(m, plan, regions, {}, &why)) << why;
    EXPECT_EQ(rt::countMismatches(readOf, req.dst, req.elemBytes,
                                  regions.dst.base, 7),
              0u);
    EXPECT_EQ(m.ledger().total(), plan.predictedTicks);
  }
}

namespace {

/// Unit rounds of `rounds` that keep (stay) or move coordinates.
void unitRounds(const std::vector<rt::FactorRound> &rounds, uint64_t &stay,
                uint64_t &moving) {
  stay = moving = 0;
  for (const rt::FactorRound &r : rounds)
    (r.stay ? stay : moving) += r.times;
}

/// Each coordinate's moving units as sender (`out`) and receiver (`in`),
/// and the units from i to j (`units`, n x n).
void movingDegrees(const std::vector<rt::FactorRound> &rounds, uint32_t n,
                   std::vector<uint64_t> &out, std::vector<uint64_t> &in,
                   std::vector<uint64_t> &units) {
  out.assign(n, 0);
  in.assign(n, 0);
  units.assign(size_t(n) * n, 0);
  for (const rt::FactorRound &r : rounds)
    if (!r.stay)
      for (size_t i = 0; i < r.from.size(); ++i) {
        out[r.from[i]] += r.times;
        in[r.to[i]] += r.times;
        units[size_t(r.from[i]) * n + r.to[i]] += r.times;
      }
}

} // namespace

// Why the bench's 31 x 33 rows cannot take the clustered price of a whole
// cluster to one cluster (826 ticks a send of f32) in their product
// rounds (docs/cost-model.md, "Cluster-aware product rounds for 31 x 33:
// out of reach"): the facts the arithmetic there rests on, both ways
// (senders and receivers swap), and its totals.
TEST(ProductRounds, Hpf31x33ClusteredPriceOutOfReach) {
  const auto [bb, cc] = hpf31x33Layouts();
  const rt::MasPar m = rt::MasPar::pricing(31, 33, 16);
  // Clusters are 4 x 4 blocks: the last block column is 3 PEs wide, the
  // last block row (PE row 32) one PE high.
  const rt::ClusterBlock cb = rt::clusterBlock(31, 33, 16);
  ASSERT_EQ(cb.width, 4u);
  ASSERT_EQ(cb.height, 4u);
  const rt::CostModel &c = m.cost();
  const int64_t send = c.rsend[2], plain = c.ropen + send;
  ASSERT_EQ(16 * plain, 1456);
  ASSERT_EQ(c.ropen + 16 * send, 826);
  for (int way = 0; way < 2; ++way) {
    const std::string what = way ? "back" : "there";
    const std::vector<rt::PairCount> pairs =
        way ? hpfPairs(cc, bb) : hpfPairs(bb, cc);
    std::optional<rt::ProductRounds> p = rt::productRounds(pairs, kProcs31x33);
    ASSERT_TRUE(p) << what;
    // A (the 31 columns): 2 stay and 32 moving rounds; B (the 33 rows): 1
    // and 30. Stay x moving 2 x 30 + 32 x 1, moving x moving 960.
    uint64_t stayA, movingA, stayB, movingB;
    unitRounds(p->innerRounds, stayA, movingA);
    unitRounds(p->outerRounds, stayB, movingB);
    EXPECT_EQ(p->scale, 1u) << what;
    EXPECT_EQ(stayA, 2u) << what;
    EXPECT_EQ(movingA, 32u) << what;
    EXPECT_EQ(stayB, 1u) << what;
    EXPECT_EQ(movingB, 30u) << what;
    EXPECT_EQ(stayA * movingB + movingA * stayB + movingA * movingB, 1052u);
    // The stay rounds keep every coordinate but B's 32.
    for (const rt::FactorRound &r : p->innerRounds)
      EXPECT_TRUE(!r.stay || r.from.size() == 31u) << what;
    for (const rt::FactorRound &r : p->outerRounds)
      EXPECT_TRUE(!r.stay || r.from.size() == 32u) << what;
    // Seen from the side that has them (the sender there, the receiver
    // back): B's coordinates 0-31 are busy in all 30 moving rounds, and
    // 32, alone in its block, in all 30 too. So in every moving round of
    // B the block talking to 32 talks to another block with its other 3:
    // two partners (then 3 PEs to one), or more.
    std::vector<uint64_t> out, in, units;
    movingDegrees(p->outerRounds, 33, out, in, units);
    const std::vector<uint64_t> &busy = way ? in : out, &lone = way ? out : in;
    for (uint32_t r = 0; r < 32; ++r)
      EXPECT_EQ(busy[r], movingB) << what << ", B " << r;
    EXPECT_EQ(lone[32], movingB) << what;
    // A's coordinates 0 and 1 (one block) are busy in 31 of the 32 moving
    // rounds, so together in 30 or more, but can reach one block together
    // in at most 7: the units of one into the blocks both reach.
    movingDegrees(p->innerRounds, 31, out, in, units);
    const std::vector<uint64_t> &busyA = way ? in : out;
    EXPECT_EQ(busyA[0], 31u) << what;
    EXPECT_EQ(busyA[1], 31u) << what;
    auto unit = [&](uint32_t a, uint32_t b) {
      return way ? units[size_t(b) * 31 + a] : units[size_t(a) * 31 + b];
    };
    std::vector<uint8_t> reach0(8, 0), reach1(8, 0);
    for (uint32_t y = 0; y < 31; ++y) {
      reach0[y / 4] |= unit(0, y) != 0;
      reach1[y / 4] |= unit(1, y) != 0;
    }
    uint64_t shared0 = 0, shared1 = 0;
    for (uint32_t y = 0; y < 31; ++y)
      if (reach0[y / 4] && reach1[y / 4]) {
        shared0 += unit(0, y);
        shared1 += unit(1, y);
      }
    EXPECT_EQ(std::min(shared0, shared1), 7u) << what;
    const uint64_t twoPartners = 30 - 7; // A rounds with >= 2 partners
    // The router ticks today, all but a few rounds plain.
    std::vector<int64_t> ticks;
    ASSERT_TRUE(rt::productRouterTicks(m, 4, *p, ticks));
    int64_t today = 0;
    for (size_t i = 0; i < p->innerRounds.size(); ++i)
      for (size_t j = 0; j < p->outerRounds.size(); ++j)
        today += int64_t(p->innerRounds[i].times * p->outerRounds[j].times) *
                 ticks[i * p->outerRounds.size() + j];
    EXPECT_EQ(today, 1530704) << what;
    // The least any product rounds could cost with every cluster full (an
    // estimate: a round with an idle PE in every block of A could go a
    // little lower): a clustered round of P partners and G PEs a
    // connection costs P (ropen + G send), P G >= 16;
    // P and G multiply over the factors. A stay x B moving: B's 2
    // partners force G >= 4 x 3, 3 force 4 x 2, 4 allow 4 x 1: 952 at
    // best. A moving x B stay: 2 x (4 x 2) = 868 where A has 2 partners,
    // 826 elsewhere. Moving x moving, A with 2 partners: 2 x 2 with G >=
    // 2 x 3 (1344), 2 x 3 with 2 x 2 (1428), 2 x 4 with 2 x 1 (1120);
    // where A has one: 952 as for A's stay rounds.
    auto clustered = [&](int64_t partners, int64_t group) {
      return std::min(16 * plain, partners * (c.ropen + group * send));
    };
    const int64_t stayMoving =
        std::min({clustered(2, 12), clustered(3, 8), clustered(4, 4)});
    const int64_t movingStay2 = clustered(2, 8), movingStay1 = clustered(1, 16);
    const int64_t moving2 = std::min(
                      {clustered(4, 6), clustered(6, 4), clustered(8, 2)}),
                  moving1 = stayMoving;
    EXPECT_EQ(stayMoving, 952);
    EXPECT_EQ(movingStay2, 868);
    EXPECT_EQ(moving2, 1120);
    const int64_t least = int64_t(stayA * movingB) * stayMoving +
                          int64_t(twoPartners) * movingStay2 +
                          int64_t(movingA - twoPartners) * movingStay1 +
                          int64_t(twoPartners * movingB) * moving2 +
                          int64_t((movingA - twoPartners) * movingB) * moving1;
    EXPECT_EQ(least, 1114358) << what;
    EXPECT_EQ(today - least, 416346) << what;
  }
}
