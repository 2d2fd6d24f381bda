//===- ButterflyTest.cpp - FFT steps on a mesh and 002's mappings ---------===//
//
// The translating function of 002 (thm 7, 11, 14) read off index bit maps,
// the m-k shuffle of 002 thm 10, and the identical and m-k shuffle mappings
// checked against 002's figs. 3 and 5.
//
//===----------------------------------------------------------------------===//
#include "backend/Butterfly.h"
#include "passes/Lowering.h"

#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace mapc;

namespace {

/// The mesh of figs. 3 and 5: 16 x 16 x 16, one element per node.
Machine mesh16cubed() {
  Machine m;
  m.kind = Machine::Mesh;
  m.pes = {16, 16, 16};
  m.memory = 1;
  return m;
}

IndexBitMap bitMapOf(const KTile &tile, const std::string &array) {
  Layout l;
  l.name = l.array = array;
  l.tile = tile;
  auto map = toAffineBitMap(l);
  EXPECT_TRUE(std::holds_alternative<IndexBitMap>(map));
  return std::get<IndexBitMap>(map);
}

/// The `C(p, q) -> ...` and total lines of an FFT mapping of `shape`.
std::string stepsOf(FftMapping kind, const std::vector<int64_t> &shape,
                    const Machine &machine) {
  auto tile = lowerFftMapping(kind, shape, machine);
  EXPECT_TRUE(std::holds_alternative<KTile>(tile));
  if (!std::holds_alternative<KTile>(tile))
    return "";
  EXPECT_TRUE(std::get<KTile>(tile).verify().empty());
  auto report = analyzeButterfly(bitMapOf(std::get<KTile>(tile), "A"), shape,
                                 meshShapeOf(machine));
  EXPECT_TRUE(std::holds_alternative<ButterflyReport>(report));
  std::string text;
  llvm::raw_string_ostream os(text);
  printButterfly(std::get<ButterflyReport>(report), os);
  return text;
}

/// A map whose device bits hold linear data bits `rows` (LSB first), with
/// `xors[i]` XORed into bit i.
IndexBitMap mapOf(unsigned memoryBits, std::vector<unsigned> rows,
                  std::vector<uint64_t> xors = {}) {
  IndexBitMap map;
  map.memoryBits = memoryBits;
  map.peBits = rows.size() - memoryBits;
  map.dataBits = rows.size();
  for (unsigned i = 0; i < rows.size(); ++i) {
    DeviceBit b;
    b.dataBit = rows[i];
    b.alsoXor = i < xors.size() ? xors[i] : 0;
    map.bits.push_back(b);
  }
  return map;
}

} // namespace

TEST(MkShuffle, Theorem10ForFig4) {
  // n = 12 cards, m = 2 dealers, k = 3 gamblers (002 fig. 4).
  std::vector<unsigned> want{0, 4, 8, 2, 6, 10, 1, 5, 9, 3, 7, 11};
  for (unsigned x = 0; x < 12; ++x)
    EXPECT_EQ(mkShuffle(x, 12, 2, 3), want[x]) << "x = " << x;
}

TEST(MkShuffle, TwoDealersOneGamblerIsThePerfectShuffle) {
  for (unsigned x = 0; x < 8; ++x)
    EXPECT_EQ(mkShuffle(x, 8, 2, 1), 2 * (x % 4) + x / 4);
}

TEST(MkShuffle, IsAPermutationWheneverTheorem10Applies) {
  for (unsigned n = 1; n <= 24; ++n)
    for (unsigned m = 1; m <= n; ++m)
      for (unsigned k = 1; k <= n; ++k) {
        if (n % m || n % k || (n / m) % k)
          continue;
        std::set<unsigned> seen;
        for (unsigned x = 0; x < n; ++x)
          seen.insert(mkShuffle(x, n, m, k));
        EXPECT_EQ(seen.size(), n) << n << " " << m << " " << k;
        EXPECT_EQ(*seen.rbegin(), n - 1);
      }
}

TEST(FftMappings, IdenticalMappingGivesFig3) {
  EXPECT_EQ(stepsOf(FftMapping::Identical, {64, 64}, mesh16cubed()),
            "C(0, 0) -> sd(0, 1)\nC(0, 1) -> sd(0, 2)\nC(0, 2) -> sd(0, 4)\n"
            "C(0, 3) -> sd(0, 8)\nC(0, 4) -> sd(1, 1)\nC(0, 5) -> sd(1, 2)\n"
            "C(1, 0) -> sd(1, 4)\nC(1, 1) -> sd(1, 8)\nC(1, 2) -> sd(2, 1)\n"
            "C(1, 3) -> sd(2, 2)\nC(1, 4) -> sd(2, 4)\nC(1, 5) -> sd(2, 8)\n"
            "total distance 45, diameter 45\n");
}

TEST(FftMappings, MkShuffleMappingGivesFig5) {
  // 002 thm 11: C(p, q) -> sd(R(x, k), 2^(Q(R(x, w1), k) m + Q(x, w1))).
  EXPECT_EQ(stepsOf(FftMapping::MkShuffle, {64, 64}, mesh16cubed()),
            "C(0, 0) -> sd(0, 1)\nC(0, 1) -> sd(1, 1)\nC(0, 2) -> sd(2, 1)\n"
            "C(0, 3) -> sd(0, 4)\nC(0, 4) -> sd(1, 4)\nC(0, 5) -> sd(2, 4)\n"
            "C(1, 0) -> sd(0, 2)\nC(1, 1) -> sd(1, 2)\nC(1, 2) -> sd(2, 2)\n"
            "C(1, 3) -> sd(0, 8)\nC(1, 4) -> sd(1, 8)\nC(1, 5) -> sd(2, 8)\n"
            "total distance 45, diameter 45\n");
}

TEST(FftMappings, ExtraBitsGoToMemory) {
  Machine m = mesh16cubed();
  m.memory = 4;
  // Identical: the low two linear bits (dim 0's) are local.
  std::string id = stepsOf(FftMapping::Identical, {128, 128}, m);
  EXPECT_EQ(
      id.rfind("C(0, 0) -> local\nC(0, 1) -> local\nC(0, 2) -> sd(0, 1)", 0),
      0u);
  EXPECT_NE(id.find("total distance 45, diameter 45"), std::string::npos);
  // m-k shuffle: the low bit of each dim is local, the rest as fig. 5.
  std::string mk = stepsOf(FftMapping::MkShuffle, {128, 128}, m);
  EXPECT_NE(mk.find("C(0, 0) -> local\nC(0, 1) -> sd(0, 1)\n"),
            std::string::npos);
  EXPECT_NE(mk.find("C(1, 0) -> local\nC(1, 1) -> sd(0, 2)\n"),
            std::string::npos);
  EXPECT_NE(mk.find("total distance 45, diameter 45"), std::string::npos);
}

TEST(FftMappings, Diagnostics) {
  Machine cube;
  cube.kind = Machine::Hypercube;
  cube.pes = {1 << 12};
  // k = 12 does not divide n/m = 6 (002 thm 10).
  EXPECT_TRUE(std::holds_alternative<LoweringError>(
      lowerFftMapping(FftMapping::MkShuffle, {64, 64}, cube)));
  EXPECT_TRUE(std::holds_alternative<KTile>(
      lowerFftMapping(FftMapping::MkShuffle, {4096}, cube)));
  EXPECT_TRUE(std::holds_alternative<LoweringError>(
      lowerFftMapping(FftMapping::Identical, {48, 64}, mesh16cubed())));
  EXPECT_TRUE(std::holds_alternative<LoweringError>(
      lowerFftMapping(FftMapping::Identical, {16, 16}, mesh16cubed())));
  EXPECT_TRUE(std::holds_alternative<LoweringError>(
      lowerFftMapping(FftMapping::Identical, {128, 128}, mesh16cubed())));
  EXPECT_EQ(parseFftMapping("MkShuffle"), FftMapping::MkShuffle);
  EXPECT_EQ(parseFftMapping("hierarchical1d"), std::nullopt);
}

TEST(Butterfly, HypercubeIsAMeshOfDimsOfSizeTwo) {
  Machine cube;
  cube.kind = Machine::Hypercube;
  cube.pes = {16};
  EXPECT_EQ(meshShapeOf(cube), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(meshDiameter(meshShapeOf(cube)), 4);
  // Any bit permutation: every step is sd(i, 1) (002 thm 1, Hamming).
  IndexBitMap map = mapOf(0, {2, 0, 3, 1});
  for (unsigned x = 0; x < 4; ++x) {
    ButterflyStep s = translateBit(map, {2, 2, 2, 2}, x);
    EXPECT_EQ(s.kind, ButterflyStep::SingleDim);
    EXPECT_EQ(s.distance, 1);
  }
  EXPECT_EQ(translateBit(map, {2, 2, 2, 2}, 3).meshDim, 2u);
}

TEST(Butterfly, TranslatingFunctionOfAPermutation) {
  // 002 thm 14 on a 4 x 8 mesh: data bit x at device bit y; mesh dim 0 has
  // PE bits 0-1, dim 1 bits 2-4. One memory bit holds data bit 5.
  IndexBitMap map = mapOf(1, {5, 3, 0, 4, 1, 2});
  std::vector<int64_t> mesh{4, 8};
  struct Want {
    ButterflyStep::Kind kind;
    unsigned dim;
    int64_t w;
  } want[] = {
      {ButterflyStep::SingleDim, 0, 2}, {ButterflyStep::SingleDim, 1, 2},
      {ButterflyStep::SingleDim, 1, 4}, {ButterflyStep::SingleDim, 0, 1},
      {ButterflyStep::SingleDim, 1, 1}, {ButterflyStep::Local, 0, 0}};
  for (unsigned x = 0; x < 6; ++x) {
    ButterflyStep s = translateBit(map, mesh, x);
    EXPECT_EQ(s.kind, want[x].kind) << "x = " << x;
    EXPECT_EQ(s.distance, want[x].w) << "x = " << x;
    if (s.kind == ButterflyStep::SingleDim) {
      EXPECT_EQ(s.meshDim, want[x].dim) << "x = " << x;
    }
  }
  auto report = analyzeButterfly(map, {8, 8}, mesh);
  ASSERT_TRUE(std::holds_alternative<ButterflyReport>(report));
  EXPECT_EQ(std::get<ButterflyReport>(report).total, 10);
  EXPECT_EQ(std::get<ButterflyReport>(report).diameter, 10);
}

TEST(Butterfly, GrayCodeIsNonuniform) {
  // A Gray-coded 8-node ring: device bit j holds b_j ^ b_(j+1) (001 lemma
  // 1). Flipping b_1 moves node coordinates by +-1 +-2: at most 3.
  IndexBitMap map = mapOf(0, {0, 1, 2}, {0b010, 0b100, 0});
  std::vector<int64_t> mesh{8};
  EXPECT_EQ(translateBit(map, mesh, 0).kind, ButterflyStep::SingleDim);
  ButterflyStep s1 = translateBit(map, mesh, 1);
  EXPECT_EQ(s1.kind, ButterflyStep::Nonuniform);
  EXPECT_EQ(s1.distance, 3);
  ButterflyStep s2 = translateBit(map, mesh, 2);
  EXPECT_EQ(s2.kind, ButterflyStep::Nonuniform);
  EXPECT_EQ(s2.distance, 6);
}

TEST(Butterfly, RejectsWhatIsNotRadixTwo) {
  IndexBitMap map = mapOf(0, {0, 1});
  EXPECT_TRUE(
      std::holds_alternative<std::string>(analyzeButterfly(map, {4}, {3})));
  EXPECT_TRUE(
      std::holds_alternative<std::string>(analyzeButterfly(map, {4}, {2})));
  EXPECT_TRUE(
      std::holds_alternative<std::string>(analyzeButterfly(map, {3}, {4})));
}
