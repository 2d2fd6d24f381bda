//===- SourceRowTest.cpp - a replicated move read off one row -------------===//
//
// The planner reads a vector replicated over every PE off one row of its
// table of sources (mapc/runtime/SourceRow.h): the move's shape, its lower
// bound, the all-gather the exchange step prices and the refusals, each in
// closed form over the PEs. Here each is checked against the same computed
// from the whole table, on random rows (any sources, holes, copies within a
// PE, sources off the destination's PEs; all-gathers large enough that the
// built rounds are taken) and on random layouts (k-Tile dims with
// templates, senses and Gray codes in memory, replicated over a PE grid of
// one or two dims), whose rows must equal their tables.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/SourceRow.h"
#include "../../runtime/lib/AllGatherPrice.h"
#include "PlainDevice.h"
#include "RandomTile.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/MasPar.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <random>

using namespace mapc;

namespace {

void expectSameShape(const rt::MoveShape &a, const rt::MoveShape &b,
                     const std::string &what) {
  EXPECT_EQ(a.identity, b.identity) << what;
  EXPECT_EQ(a.local, b.local) << what;
  EXPECT_EQ(a.slotUniformTo, b.slotUniformTo) << what;
  EXPECT_EQ(a.slotUniformFrom, b.slotUniformFrom) << what;
  EXPECT_EQ(a.keepsSlots, b.keepsSlots) << what;
  EXPECT_EQ(a.moved, b.moved) << what;
  EXPECT_EQ(a.held, b.held) << what;
  EXPECT_EQ(a.busiestSource, b.busiestSource) << what;
  EXPECT_EQ(a.leaving, b.leaving) << what;
}

/// A machine of at least `pes` PEs: 1 to 3 rows, clusters of 1 to 32.
rt::MachineShape machineFor(std::mt19937 &rng, int64_t pes) {
  const unsigned height = 1 + unsigned(rng() % 3);
  const unsigned width =
      unsigned((pes + height - 1) / height) + unsigned(rng() % 3);
  return {width, height, 1u << (rng() % 6)};
}

/// The bound and the shape from the row equal those from its table, on
/// `shape` for every element size and copy or not.
void expectRowBoundAndShape(std::mt19937 &rng, const rt::TileMap &from,
                            const rt::TileMap &to, const rt::SourceRow &row,
                            const std::string &what) {
  const std::vector<uint32_t> table = rt::sourcesOfRow(row, rt::pesOf(to));
  expectSameShape(rt::analyseMove(from, to, row),
                  rt::analyseMove(from, to, table), what);
  const rt::MachineShape shape =
      machineFor(rng, std::max(rt::pesOf(from), rt::pesOf(to)));
  const rt::CostModel cost;
  for (bool copy : {false, true}) {
    const unsigned elemBytes = 1u << (rng() % 5);
    EXPECT_EQ(
        rt::generalLowerBound(from, to, elemBytes, copy, shape, cost, row),
        rt::generalLowerBound(from, to, elemBytes, copy, shape, cost, &table))
        << what << ", copy " << copy << ", " << elemBytes << " bytes";
  }
}

/// `to` made to replicate (a replicated k-Tile dim of its own): only
/// replicates() reads it here.
rt::TileMap replicating(rt::TileMap to) {
  rt::KDim d = rt::KDim::plain(2);
  d.ok = rt::kReplicated;
  to.kdims.push_back(d);
  return to;
}

/// A row of `toSlots` cells: each a hole, or a random cell of the source's
/// `fromSlots` x `fromPes`, or one that keeps its slot on a PE of the
/// destination.
rt::SourceRow randomRow(std::mt19937 &rng, int64_t fromSlots, int64_t fromPes,
                        int64_t toSlots, int64_t toPes) {
  rt::SourceRow row;
  for (int64_t t = 0; t < toSlots; ++t) {
    const unsigned kind = unsigned(rng() % 8);
    if (kind == 0) {
      row.cells.push_back(rt::kNoSource);
    } else if (kind == 1 && t < fromSlots) {
      const int64_t pe = int64_t(rng() % uint64_t(std::min(fromPes, toPes)));
      row.cells.push_back(uint32_t(pe * fromSlots + t));
    } else {
      row.cells.push_back(uint32_t(rng() % uint64_t(fromSlots * fromPes)));
    }
  }
  return row;
}

/// n elements on distinct PEs of `pes`, each in a random cell of every PE's
/// `toSlots` (the same cells on all), element 0 a second time or a hole
/// when there is room.
rt::SourceRow allGatherRow(std::mt19937 &rng, unsigned n, unsigned pes,
                           int64_t fromSlots, int64_t toSlots) {
  std::vector<uint32_t> pe(pes);
  for (uint32_t q = 0; q < pes; ++q)
    pe[q] = q;
  std::shuffle(pe.begin(), pe.end(), rng);
  std::vector<uint32_t> cells(static_cast<size_t>(toSlots));
  for (uint32_t t = 0; t < cells.size(); ++t)
    cells[t] = t;
  std::shuffle(cells.begin(), cells.end(), rng);
  rt::SourceRow row;
  row.cells.assign(size_t(toSlots), rt::kNoSource);
  for (unsigned i = 0; i < n; ++i)
    row.cells[cells[i]] =
        uint32_t(pe[i] * fromSlots + rng() % uint64_t(fromSlots));
  for (size_t t = n; t < cells.size(); ++t)
    if (rng() % 2)
      row.cells[cells[t]] = row.cells[cells[rng() % n]];
  return row;
}

/// readAllGather from the row against from its table; and, when the row
/// prices the exchange step (out of place, in place) or the digit
/// exchange, its ticks against the table's.
void expectRowPrices(std::mt19937 &rng, const rt::TileMap &from,
                     const rt::TileMap &to, const rt::SourceRow &row,
                     const rt::MachineShape &shape, const std::string &what,
                     int &priced, int &built) {
  const std::vector<uint32_t> table = rt::sourcesOfRow(row, rt::pesOf(to));
  const unsigned pes = shape.peCount();
  const auto byRow = rt::readAllGather(from, to, row, pes);
  const auto byTable = rt::readAllGather(from, to, table, pes);
  ASSERT_EQ(byRow.has_value(), byTable.has_value()) << what;
  if (byRow) {
    EXPECT_EQ(byRow->pes, byTable->pes) << what;
    EXPECT_EQ(byRow->sourcePe, byTable->sourcePe) << what;
    EXPECT_TRUE(byRow->fanOut == byTable->fanOut) << what;
  }
  rt::GeneralPlan plan;
  plan.source = from;
  plan.dest = to;
  plan.elemBytes = 1u << (rng() % 5);
  const rt::CostModel cost;
  for (auto kind :
       {rt::GeneralStepKind::Exchange, rt::GeneralStepKind::DigitExchange})
    for (bool inPlace : {false, true}) {
      rt::GeneralStep step;
      step.kind = kind;
      step.to = to;
      step.inPlace = inPlace;
      plan.steps = {step};
      if (!rt::rowPricesStep(step, from, pes, row))
        continue;
      ++priced;
      built += kind == rt::GeneralStepKind::Exchange && !inPlace;
      EXPECT_EQ(rt::predictGeneralStep(plan, 0, shape, cost, row),
                rt::predictGeneralStep(plan, 0, shape, cost, &table))
          << what << ", " << rt::generalStepKindName(kind)
          << (inPlace ? " in place" : "");
    }
}

/// A destination of n elements in PE 0's memory (random k-Tile dims with
/// templates, senses and Gray codes, in one memory dim without a template)
/// replicated over a PE grid of `grid` lengths, one replicated dim each.
KTile replicatedOver(std::mt19937 &rng, int64_t n,
                     const std::vector<int64_t> &grid) {
  test::RandomTileSpec spec;
  spec.empties = false;
  KTile t = test::randomTileFor(rng, {n}, spec);
  t.m.assign(1, {});
  int64_t slots = 1;
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    t.m[0].push_back(l);
    slots *= t.kdims[l].tk;
  }
  std::shuffle(t.m[0].begin(), t.m[0].end(), rng);
  t.device = {SpaceDim::plain(slots)};
  // The empty dims (assignDeviceDims' fillers of length 1, then these).
  if (t.groups.size() > t.data.size())
    t.groups.back() += unsigned(grid.size());
  else
    t.groups.push_back(unsigned(grid.size()));
  for (int64_t p : grid) {
    KDim d = KDim::plain(p);
    d.ok = kReplicated;
    t.m.push_back({unsigned(t.kdims.size())});
    t.kdims.push_back(d);
    t.device.push_back(SpaceDim::plain(p));
  }
  return t;
}

/// A random layout of n elements (no templates, some device dim holding
/// data digits) with a replicated dim of p in a random device dim, memory
/// or PE, at a random place among its digits: replicated in memory or over
/// part of the PEs, which has no row, or over whole PEs.
KTile replicatedSomewhere(std::mt19937 &rng, int64_t n, int64_t p) {
  test::RandomTileSpec spec;
  spec.templates = false;
  spec.empties = false;
  KTile t = test::randomTileFor(rng, {n}, spec);
  KDim d = KDim::plain(p);
  d.ok = kReplicated;
  const unsigned dim = unsigned(rng() % t.device.size());
  std::vector<unsigned> &digits = t.m[dim];
  digits.insert(digits.begin() + long(rng() % (digits.size() + 1)),
                unsigned(t.kdims.size()));
  t.kdims.push_back(d);
  if (t.groups.size() > t.data.size())
    ++t.groups.back();
  else
    t.groups.push_back(1);
  t.device[dim].len *= p;
  t.device[dim].tlen *= p;
  return t;
}

} // namespace

// Random rows on plain devices: 1-4 source slots on 1-40 PEs, 1-24
// destination slots on 1-40 PEs (a source PE may lie past them), holes and
// repeated sources (one tenth 300-600 slots fed by at most two cells); the
// destination read as replicating and not (the bound counts a replicated
// element's reads and sends once).
TEST(SourceRow, RandomRowsEqualTheirTable) {
  std::mt19937 rng(2811);
  int priced = 0, built = 0;
  for (int iter = 0; iter < 4000 && !HasFailure(); ++iter) {
    // Now and then a long row of few sources, each in hundreds of cells.
    const bool few = iter % 10 == 0;
    const int64_t fromSlots = 1 + int64_t(rng() % (few ? 1 : 4)),
                  fromPes = 1 + int64_t(rng() % (few ? 2 : 40)),
                  toSlots = few ? 300 + int64_t(rng() % 300)
                                : 1 + int64_t(rng() % 24),
                  toPes = 1 + int64_t(rng() % 40);
    const rt::TileMap from = test::deviceOf(fromSlots, fromPes),
                      plain = test::deviceOf(toSlots, toPes);
    const rt::SourceRow row =
        randomRow(rng, fromSlots, fromPes, toSlots, toPes);
    const std::string what = "iter " + std::to_string(iter);
    expectRowBoundAndShape(rng, from, plain, row, what);
    expectRowBoundAndShape(rng, from, replicating(plain), row,
                           what + ", replicating");
    expectRowPrices(rng, from, replicating(plain), row,
                    machineFor(rng, std::max(fromPes, toPes)), what, priced,
                    built);
  }
  std::printf("%d steps priced or refused from random rows\n", priced);
}

// All-gathers: n elements on distinct PEs, every PE holding them in the
// same random cells, copies within a PE and holes; the exchange step priced
// from the row (the built rounds, when the joint search would refuse)
// against from the table, on machines whose PEs the destination spans.
TEST(SourceRow, AllGathersPriceAsTheirTable) {
  std::mt19937 rng(2812);
  int priced = 0, built = 0, gathers = 0;
  for (int iter = 0; iter < 600 && !HasFailure(); ++iter) {
    const bool large = iter % 6 == 0;
    const unsigned n =
        large ? 150 + unsigned(rng() % 120) : 2 + unsigned(rng() % 30);
    const unsigned height = 1 + unsigned(rng() % 2);
    const unsigned width =
        (n + 3 + height - 1) / height + unsigned(rng() % (large ? 200 : 30));
    const unsigned pes = width * height;
    const int64_t fromSlots = 1 + int64_t(rng() % 3),
                  toSlots = n + int64_t(rng() % 3);
    const rt::TileMap from = test::deviceOf(fromSlots, pes),
                      to = replicating(test::deviceOf(toSlots, pes));
    const rt::SourceRow row = allGatherRow(rng, n, pes, fromSlots, toSlots);
    const std::string what = std::to_string(n) + " over " +
                             std::to_string(width) + " x " +
                             std::to_string(height);
    const rt::MachineShape shape{width, height, 1u << (rng() % 6)};
    gathers += rt::readAllGather(from, to, row, pes).has_value();
    expectRowBoundAndShape(rng, from, to, row, what);
    expectRowPrices(rng, from, to, row, shape, what, priced, built);
  }
  EXPECT_EQ(gathers, 600);
  EXPECT_GE(built, 60);
  std::printf("%d steps priced or refused from %d all-gathers, %d built\n",
              priced, gathers, built);
}

// Random layouts: a vector of 1-60 elements in a random source layout
// (k-Tile dims with templates, senses, Gray codes, device templates,
// replicated empty dims now and then), realigned to be replicated over a
// PE grid of one or two dims. When the source replicates nothing the move
// has a row, and the row is its table; the shape and bound follow, and the
// copy back within the destination (priced from its first copy and
// offsets) costs a direct load and store per slot any PE holds.
TEST(SourceRow, LayoutsReadAsTheirTable) {
  std::mt19937 rng(2813);
  int rows = 0;
  for (int iter = 0; iter < 1500 && !HasFailure(); ++iter) {
    const int64_t n = 1 + int64_t(rng() % 60);
    std::vector<int64_t> grid = {1 + int64_t(rng() % 12)};
    if (rng() % 3 == 0)
      grid.push_back(1 + int64_t(rng() % 6));
    const KTile src = test::randomTileFor(rng, {n}, {});
    const bool wholePes = iter % 3 != 0;
    const KTile dst = wholePes ? replicatedOver(rng, n, grid)
                               : replicatedSomewhere(rng, n, grid[0]);
    ASSERT_TRUE(src.verify().empty()) << "iter " << iter;
    ASSERT_TRUE(dst.verify().empty())
        << "iter " << iter << ": " << dst.verify()[0].message;
    const std::string what = "iter " + std::to_string(iter);
    const std::optional<rt::SourceRow> row = rt::sourceRowOf(src, dst);
    const bool replicated = dst.replicates();
    if (wholePes) {
      EXPECT_EQ(row.has_value(), replicated && !src.replicates()) << what;
    }
    if (row) {
      ++rows;
      ASSERT_EQ(rt::sourcesOfRow(*row, rt::pesOf(dst)), rt::sourcesOf(src, dst))
          << what;
      expectRowBoundAndShape(rng, src, dst, *row, what);
    }
    // The copy back: every slot some PE's cell holds data in.
    std::vector<uint8_t> held(size_t(rt::slotsOf(dst)), 0);
    int64_t slots = 0;
    for (int64_t b = 0; b < dst.deviceSize(); ++b)
      if (dst.dataAt(b) >= 0 && !held[size_t(b % rt::slotsOf(dst))]) {
        held[size_t(b % rt::slotsOf(dst))] = 1;
        ++slots;
      }
    rt::GeneralPlan back;
    back.source = back.dest = dst;
    back.elemBytes = 1u << (rng() % 5);
    rt::GeneralStep local;
    local.kind = rt::GeneralStepKind::Local;
    local.to = dst;
    back.steps = {local};
    const rt::MachineShape shape = machineFor(rng, rt::pesOf(dst));
    const rt::CostModel cost;
    const unsigned xfer = std::min(back.elemBytes, 8u);
    const unsigned w = rt::widthIndex(xfer);
    EXPECT_EQ(rt::predictGeneralStep(back, 0, shape, cost),
              slots * (back.elemBytes / xfer) * (cost.load[w] + cost.store(w)))
        << what;
  }
  EXPECT_GE(rows, 600);
  std::printf("%d of 1500 random moves read off their row\n", rows);
}
