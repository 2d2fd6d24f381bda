//===- FrameMoveTest.cpp - a digit permutation's table and shape in one walk
//
// frameSources and frameShape (passes/FrameMove.h) against rt::sourcesOf
// and rt::analyseMove on random digit permutations between digit frames:
// the same table, and the same flags and elements leaving each PE; and
// frameStepTicks (FramePrice.h) for local and slotwise steps against
// rt::predictGeneralStep on the table.
//
//===----------------------------------------------------------------------===//
#include "passes/FrameMove.h"
#include "DigitTile.h"
#include "mapc/runtime/General.h"
#include "passes/FramePrice.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace mapc;
using mapc::test::digitTile;
using mapc::test::randomPlaces;

namespace {

/// 2-5 digits of base 1-6 (base 1 too: a digit that never counts).
std::vector<int64_t> randomBases(std::mt19937_64 &rng) {
  std::vector<int64_t> bases(2 + rng() % 4);
  for (int64_t &b : bases)
    b = 1 + int64_t(rng() % 6);
  return bases;
}

/// Checks the move from -> to read off its digits (frameSources,
/// frameShape) against its table and analyseMove; returns the latter.
rt::MoveShape expectFrameEqualsTable(const rt::TileMap &from,
                                     const rt::TileMap &to, int trial) {
  const std::vector<uint32_t> sources = rt::sourcesOf(from, to);
  EXPECT_EQ(frameSources(from, to), sources) << "trial " << trial;
  const rt::MoveShape slow = rt::analyseMove(from, to, sources);
  const FrameShape s = frameShape(from, to, true);
  EXPECT_EQ(s.local, slow.local) << "trial " << trial;
  EXPECT_EQ(s.keepsSlots, slow.keepsSlots) << "trial " << trial;
  EXPECT_EQ(s.slotUniformFrom, slow.slotUniformFrom) << "trial " << trial;
  EXPECT_EQ(s.slotUniformTo, slow.slotUniformTo) << "trial " << trial;
  EXPECT_EQ(s.leaving, slow.leaving) << "trial " << trial;
  return slow;
}

TEST(FrameMove, EqualsTheTableAndItsAnalysis) {
  std::mt19937_64 rng(11);
  int moves = 0, local = 0, uniform = 0, identity = 0, leaves = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<int64_t> bases = randomBases(rng);
    const unsigned n = unsigned(bases.size());
    std::vector<unsigned> m1, p1, m2, p2;
    randomPlaces(rng, n, m1, p1);
    if (rng() % 5 == 0) {
      m2 = m1; // the same cut: a memory or processor permutation
      p2 = p1;
      std::shuffle(m2.begin(), m2.end(), rng);
      std::shuffle(p2.begin(), p2.end(), rng);
    } else {
      randomPlaces(rng, n, m2, p2);
    }
    const rt::TileMap from = digitTile(bases, m1, p1),
                      to = digitTile(bases, m2, p2);
    const rt::MoveShape slow = expectFrameEqualsTable(from, to, trial);
    const FrameShape s = frameShape(from, to, true);
    const FrameShape flags = frameShape(from, to, false);
    EXPECT_TRUE(flags.leaving.empty());
    EXPECT_EQ(flags.local, s.local);
    EXPECT_EQ(flags.keepsSlots, s.keepsSlots);
    EXPECT_EQ(flags.slotUniformFrom, s.slotUniformFrom);
    EXPECT_EQ(flags.slotUniformTo, s.slotUniformTo);
    ++moves;
    local += slow.local;
    leaves += !slow.local && !slow.slotUniformFrom;
    uniform += slow.slotUniformFrom && slow.slotUniformTo;
    identity += slow.identity;
  }
  // The random moves reach every kind of shape.
  EXPECT_EQ(moves, 3000);
  EXPECT_GT(local, 100);
  EXPECT_GT(uniform, 300);
  EXPECT_GT(identity, 10);
  EXPECT_GT(leaves, 1000); // an exchange is an option: `leaving` is read
}

// A digit reversed on one side only (003 3.2.2's sense: resig_mp's last
// step to a reversed digit, 6.3.2's halves) counts down: the same table and
// shape as the runtime's walk, each digit reversed in either map with odds
// 1 in 3.
TEST(FrameMove, ReversedDigitsEqualTheTableAndItsAnalysis) {
  std::mt19937_64 rng(12);
  int flipped = 0, local = 0, leaves = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<int64_t> bases = randomBases(rng);
    const unsigned n = unsigned(bases.size());
    std::vector<unsigned> m1, p1, m2, p2;
    randomPlaces(rng, n, m1, p1);
    if (rng() % 3 == 0) {
      m2 = m1; // the same places: only the reversed digits move
      p2 = p1;
    } else {
      randomPlaces(rng, n, m2, p2);
    }
    rt::TileMap from = digitTile(bases, m1, p1), to = digitTile(bases, m2, p2);
    bool differs = false;
    for (unsigned l = 0; l < n; ++l) {
      if (rng() % 3 == 0)
        from.kdims[l].sense = rt::Sense::Minus;
      if (rng() % 3 == 0)
        to.kdims[l].sense = rt::Sense::Minus;
      differs |= bases[l] > 1 && from.kdims[l].sense != to.kdims[l].sense;
    }
    const rt::MoveShape slow = expectFrameEqualsTable(from, to, trial);
    flipped += differs;
    local += differs && slow.local;
    leaves += differs && !slow.local && !slow.slotUniformFrom;
  }
  EXPECT_GT(flipped, 1500);
  EXPECT_GT(local, 100); // a reversed memory digit: a memory permutation
  EXPECT_GT(leaves, 500);
}

/// What rt::predictGeneralStep charges one step of `kind` from `from` to
/// `to`, on the table of sources.
int64_t tableTicks(const rt::TileMap &from, const rt::TileMap &to,
                   rt::GeneralStepKind kind, bool inPlace, unsigned elemBytes,
                   const rt::MachineShape &shape) {
  const std::vector<uint32_t> sources = rt::sourcesOf(from, to);
  return rt::predictGeneralStep(
      mapc::test::oneStepPlan(from, to, kind, inPlace, elemBytes), 0, shape,
      rt::CostModel(), &sources);
}

TEST(FrameMove, LocalAndSlotwiseTicksEqualTheTables) {
  std::mt19937_64 rng(29);
  // Machines of 8 x 8 PEs in clusters of 4 and 32 x 32 in clusters of 16,
  // and one too small for some layouts (the step fails).
  const rt::MachineShape shapes[] = {{8, 8, 4}, {32, 32, 16}, {4, 2, 4}};
  const unsigned widths[] = {1, 2, 4, 8, 12, 16};
  int priced[2] = {0, 0}, refused[2] = {0, 0}, chunked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<int64_t> bases = randomBases(rng);
    const unsigned n = unsigned(bases.size());
    std::vector<unsigned> m1, p1, m2, p2;
    randomPlaces(rng, n, m1, p1);
    m2 = m1;
    p2 = p1;
    if (rng() % 2 == 0) {
      // Digits move within memory, and within the PEs: local moves.
      std::shuffle(m2.begin(), m2.end(), rng);
      if (rng() % 2)
        std::shuffle(p2.begin(), p2.end(), rng);
    } else if (rng() % 2 == 0) {
      // The PE digits permuted, memory kept or permuted: slotwise moves.
      std::shuffle(p2.begin(), p2.end(), rng);
      if (rng() % 3 == 0)
        std::shuffle(m2.begin(), m2.end(), rng);
    } else {
      randomPlaces(rng, n, m2, p2);
    }
    const rt::TileMap from = digitTile(bases, m1, p1),
                      to = digitTile(bases, m2, p2);
    const rt::MachineShape &shape = shapes[rng() % 3];
    const unsigned elemBytes = widths[rng() % 6];
    for (bool inPlace : {false, true}) {
      const int64_t local = tableTicks(from, to, rt::GeneralStepKind::Local,
                                       inPlace, elemBytes, shape);
      EXPECT_EQ(frameStepTicks(rt::GeneralStepKind::Local, inPlace, from, to,
                               elemBytes, shape, rt::CostModel()),
                std::optional<int64_t>(local))
          << "trial " << trial << (inPlace ? " in place" : "");
      const int64_t slotwise = tableTicks(
          from, to, rt::GeneralStepKind::Slotwise, inPlace, elemBytes, shape);
      EXPECT_EQ(frameStepTicks(rt::GeneralStepKind::Slotwise, inPlace, from, to,
                               elemBytes, shape, rt::CostModel()),
                std::optional<int64_t>(slotwise))
          << "trial " << trial << (inPlace ? " in place" : "");
      ++(local < 0 ? refused : priced)[0];
      ++(slotwise < 0 ? refused : priced)[1];
      chunked += slotwise > 0 && elemBytes < 8 && !inPlace;
    }
  }
  // Both kinds priced and refused often, with chunks of several elements.
  EXPECT_GT(priced[0], 500);
  EXPECT_GT(refused[0], 500);
  EXPECT_GT(priced[1], 500);
  EXPECT_GT(refused[1], 500);
  EXPECT_GT(chunked, 200);
}

} // namespace
