//===- ReshapeTest.cpp - reshape keeps the bit assignment (001) -----------===//
#include "ir/Reshape.h"
#include "ir/BitMap.h"

#include <gtest/gtest.h>

using namespace mapc;

namespace {

/// One k-Tile dim per data dim, all on a single device dim in data order, so
/// device bit b holds data bit b (with its Gray neighbour XORed in).
KTile oneDeviceDim(const std::vector<int64_t> &shape, Encoding enc,
                   Sense sense = Sense::Plus) {
  KTile t;
  std::vector<unsigned> all;
  for (int64_t n : shape) {
    t.data.push_back(SpaceDim::plain(n));
    KDim d = KDim::plain(n);
    d.enc = enc;
    d.sense = sense;
    all.push_back(t.kdims.size());
    t.kdims.push_back(d);
    t.groups.push_back(1);
  }
  t.m.push_back(all);
  t.device.push_back(SpaceDim::plain(shapeSize(shape)));
  return t;
}

/// 001 fig. 1: 16 elements Gray coded over a 4-cube, memory of one element.
KTile grayOnPEs() {
  KTile t;
  t.data.push_back(SpaceDim::plain(16));
  KDim g = KDim::plain(16);
  g.enc = Encoding::Gray;
  t.kdims = {g, KDim::plain(1)};
  t.groups = {1, 1};
  t.m = {{1}, {0}};
  t.device = {SpaceDim::plain(1), SpaceDim::plain(16)};
  return t;
}

KTile reshaped(const KTile &t, const std::vector<int64_t> &shape) {
  auto r = reshapeTile(t, shape);
  if (auto *why = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << *why;
    return t;
  }
  EXPECT_TRUE(std::get<KTile>(r).verify().empty());
  return std::get<KTile>(r);
}

std::string reshapeError(const KTile &t, const std::vector<int64_t> &shape) {
  auto r = reshapeTile(t, shape);
  auto *why = std::get_if<std::string>(&r);
  return why ? *why : "";
}

IndexBitMap affine(const KTile &t) {
  Layout l;
  l.name = l.array = "A";
  l.tile = t;
  auto r = toAffineBitMap(l);
  if (auto *why = std::get_if<std::string>(&r))
    ADD_FAILURE() << *why;
  return std::get<IndexBitMap>(r);
}

bool sameBit(const DeviceBit &a, const DeviceBit &b) {
  return a.enabled == b.enabled && a.dataBit == b.dataBit &&
         a.value == b.value && a.alsoXor == b.alsoXor;
}

/// The device bits whose affine rows differ between two layouts.
std::vector<unsigned> differingBits(const KTile &a, const KTile &b) {
  IndexBitMap x = affine(a), y = affine(b);
  EXPECT_EQ(x.bits.size(), y.bits.size());
  EXPECT_EQ(x.memoryBits, y.memoryBits);
  std::vector<unsigned> out;
  for (unsigned i = 0; i < x.bits.size() && i < y.bits.size(); ++i)
    if (!sameBit(x.bits[i], y.bits[i]))
      out.push_back(i);
  return out;
}

std::vector<int64_t> contents(const KTile &t) {
  std::vector<int64_t> out;
  for (int64_t a = 0; a < t.deviceSize(); ++a)
    out.push_back(t.dataAt(a));
  return out;
}

TEST(Reshape, SplitGrayAxisChangesOneBit) {
  KTile old = grayOnPEs();
  KTile t = reshaped(old, {4, 4});
  // Two Gray k-Tile dims of 4, one per new axis (001 fig. 1).
  ASSERT_EQ(t.numDataDims(), 2u);
  for (unsigned j = 0; j < 2; ++j) {
    auto g = t.dataGroup(j);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(t.kdims[g[0]].k, 4);
    EXPECT_EQ(t.kdims[g[0]].enc, Encoding::Gray);
  }
  // p1 held a1^a2 and now holds a1 alone (001 lemma 2, m = 2).
  std::vector<unsigned> diff = differingBits(old, t);
  ASSERT_EQ(diff.size(), 1u);
  IndexBitMap before = affine(old), after = affine(t);
  EXPECT_EQ(after.bitName(diff[0]), "p1");
  EXPECT_EQ(before.bits[diff[0]].alsoXor, 1u << 2);
  EXPECT_EQ(after.bits[diff[0]].dataBit, 1u);
  EXPECT_EQ(after.bits[diff[0]].alsoXor, 0u);
  // Element (i0, i1) now sits at PE G(i1) * 4 + G(i0).
  for (uint64_t i = 0; i < 16; ++i)
    EXPECT_EQ(t.dataAt(grayEncode(i / 4) * 4 + grayEncode(i % 4)), int64_t(i));
}

TEST(Reshape, MultipleAxesChangeExactlyTheBitsOfD) {
  // 001 definition 3: U = (2^5, 2^2, 2^4, 2^3) -> V = (2^3, 2^2, 2^4, 2^5),
  // written most significant axis first; mapc lists dim 0 first.
  std::vector<int64_t> u = {8, 16, 4, 32}, v = {32, 16, 4, 8};
  KTile old = oneDeviceDim(u, Encoding::Gray);
  KTile t = reshaped(old, v);
  EXPECT_EQ(differingBits(old, t), (std::vector<unsigned>{2, 4, 6, 10}));
  // And back: the same dimensions, and the original format.
  KTile back = reshaped(t, u);
  EXPECT_EQ(differingBits(t, back), (std::vector<unsigned>{2, 4, 6, 10}));
  EXPECT_TRUE(differingBits(old, back).empty());
  EXPECT_EQ(contents(old), contents(back));
}

TEST(Reshape, SenseIsKept) {
  KTile old = oneDeviceDim({64}, Encoding::Gray, Sense::Minus);
  KTile t = reshaped(old, {8, 8});
  EXPECT_EQ(differingBits(old, t), (std::vector<unsigned>{2}));
  for (const KDim &d : t.kdims)
    EXPECT_EQ(d.sense, Sense::Minus);
}

TEST(Reshape, BinaryLayoutsDoNotMove) {
  // A 2-d block-cyclic style format across memory and two PE dims.
  KTile old;
  old.data = {SpaceDim::plain(16), SpaceDim::plain(8)};
  old.kdims = {KDim::plain(4), KDim::plain(4), KDim::plain(2), KDim::plain(4)};
  old.kdims[1].sense = Sense::Minus;
  old.groups = {2, 2};
  old.m = {{0, 2}, {1}, {3}};
  old.device = {SpaceDim::plain(8), SpaceDim::plain(4), SpaceDim::plain(4)};
  ASSERT_TRUE(old.verify().empty());
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{128}, {2, 64}, {8, 2, 8}, {1, 128, 1}}) {
    KTile t = reshaped(old, shape);
    EXPECT_TRUE(differingBits(old, t).empty());
    EXPECT_EQ(contents(old), contents(t));
  }
}

TEST(Reshape, MergeGrayNeighbours) {
  KTile old = oneDeviceDim({4, 4}, Encoding::Gray);
  KTile t = reshaped(old, {16});
  ASSERT_EQ(t.dataGroup(0).size(), 1u);
  EXPECT_EQ(t.kdims[0].k, 16);
  EXPECT_EQ(t.kdims[0].enc, Encoding::Gray);
  EXPECT_EQ(differingBits(old, t), (std::vector<unsigned>{1}));
  // Merging the split of fig. 1 gives the original format back.
  KTile fig1 = grayOnPEs();
  EXPECT_TRUE(
      differingBits(fig1, reshaped(reshaped(fig1, {4, 4}), {16})).empty());
}

TEST(Reshape, MergeNeedsNeighboursOfOneSense) {
  // The two axes on different device dims stay two Gray dims: no change.
  KTile apart = oneDeviceDim({4, 4}, Encoding::Gray);
  apart.m = {{0}, {1}};
  apart.device = {SpaceDim::plain(4), SpaceDim::plain(4)};
  KTile t = reshaped(apart, {16});
  EXPECT_EQ(t.dataGroup(0).size(), 2u);
  EXPECT_TRUE(differingBits(apart, t).empty());
  // Different senses do not merge either.
  KTile senses = oneDeviceDim({4, 4}, Encoding::Gray);
  senses.kdims[1].sense = Sense::Minus;
  EXPECT_TRUE(differingBits(senses, reshaped(senses, {16})).empty());
  // Neither do a Gray and a binary axis.
  KTile mixed = oneDeviceDim({4, 4}, Encoding::Gray);
  mixed.kdims[0].enc = Encoding::Binary;
  EXPECT_TRUE(differingBits(mixed, reshaped(mixed, {16})).empty());
}

TEST(Reshape, SplitAndMergeAtOnce) {
  // (4, 4) -> (2, 8): axis 0 is cut at bit 1 and its high piece merges with
  // axis 1, so bit 0 (new top of axis 0) and bit 1 (old top) change.
  KTile old = oneDeviceDim({4, 4}, Encoding::Gray);
  KTile t = reshaped(old, {2, 8});
  EXPECT_EQ(differingBits(old, t), (std::vector<unsigned>{0, 1}));
}

TEST(Reshape, EmptyDimsCarryOver) {
  // A disabled bit with value 1 between the data bits of one device dim.
  KTile old;
  old.data = {SpaceDim::plain(16)};
  KDim lo = KDim::plain(4), hi = KDim::plain(4), off = KDim::plain(2);
  lo.enc = hi.enc = Encoding::Gray;
  off.ok = 1;
  old.kdims = {lo, hi, off};
  old.groups = {2, 1};
  old.m = {{0, 2, 1}};
  old.device = {SpaceDim::plain(32)};
  ASSERT_TRUE(old.verify().empty());
  KTile t = reshaped(old, {2, 8});
  EXPECT_EQ(t.kdims.back().ok, 1);
  // Bit 0 is the new top of axis 0; pieces 1 and 2-3 came from one old
  // axis, so nothing merges, and the disabled bit stays where it was.
  EXPECT_EQ(differingBits(old, t), (std::vector<unsigned>{0}));
}

TEST(Reshape, Errors) {
  KTile gray = grayOnPEs();
  EXPECT_NE(reshapeError(gray, {4, 8}).find("32 elements, not 16"),
            std::string::npos);
  KTile replicated = grayOnPEs();
  replicated.kdims[1] = KDim::plain(2);
  replicated.kdims[1].ok = kReplicated;
  replicated.device[0] = SpaceDim::plain(2);
  ASSERT_TRUE(replicated.verify().empty());
  EXPECT_NE(reshapeError(replicated, {4, 4}).find("replicates"),
            std::string::npos);
  KTile six = oneDeviceDim({6}, Encoding::Binary);
  EXPECT_NE(reshapeError(six, {6}).find("data dim 0 has length 6"),
            std::string::npos);
  KTile offset = oneDeviceDim({8}, Encoding::Binary);
  offset.kdims[0].ok = 3;
  EXPECT_NE(reshapeError(offset, {2, 4}).find("plain power of two"),
            std::string::npos);
  // Every message says how to fix it after "; ".
  EXPECT_NE(reshapeError(six, {6}).find("; "), std::string::npos);
}

TEST(Reshape, DigitMapsOnlyChangeShape) {
  DigitMap d;
  d.dataBases = {3, 5};
  d.shape = {15};
  DeviceDigit a0, a1;
  a0.base = 3;
  a1.base = 5;
  a1.index = 1;
  d.memory = {a0};
  d.pes = {a1};
  auto r = reshapeDigits(d, {3, 5});
  ASSERT_TRUE(std::holds_alternative<DigitMap>(r));
  const DigitMap &n = std::get<DigitMap>(r);
  EXPECT_EQ(n.shape, (std::vector<int64_t>{3, 5}));
  for (int64_t a = 0; a < d.deviceSize(); ++a)
    EXPECT_EQ(n.dataAt(a), d.dataAt(a));
  EXPECT_TRUE(std::holds_alternative<std::string>(reshapeDigits(d, {4, 4})));
}

TEST(XorBits, GrayCodeAsBitsMatchesKTile) {
  // bits [p: a2 a2^a1 a1^a0 | m:] is the 3-bit Gray code (001 lemma 1).
  DigitMap d;
  d.isBits = true;
  d.dataBases = {2, 2, 2};
  d.shape = {8};
  DeviceDigit b0, b1, b2;
  b0.index = 1;
  b0.xorMask = 1 << 0;
  b1.index = 2;
  b1.xorMask = 1 << 1;
  b2.index = 2;
  d.pes = {b0, b1, b2};
  KTile gray = oneDeviceDim({8}, Encoding::Gray);
  for (int64_t a = 0; a < 8; ++a)
    EXPECT_EQ(d.dataAt(a), gray.dataAt(a)) << a;
  for (int64_t i = 0; i < 8; ++i) {
    llvm::SmallVector<int64_t, 1> addrs;
    d.addressesOf(i, addrs);
    ASSERT_EQ(addrs.size(), 1u);
    EXPECT_EQ(d.dataAt(addrs[0]), i);
  }
  EXPECT_FALSE(d.toKTile());
  Layout l;
  l.digits = d;
  auto r = toAffineBitMap(l);
  ASSERT_TRUE(std::holds_alternative<IndexBitMap>(r));
  EXPECT_EQ(std::get<IndexBitMap>(r).bits[0].alsoXor, 1u);
  EXPECT_TRUE(std::holds_alternative<std::string>(toIndexBitMap(l)));
}

} // namespace
