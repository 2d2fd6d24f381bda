//===- NativeRemapTest.cpp - native kernels checked against index maps ----===//
//
// The property test of issue 12's kernels: random remaps between random
// GF(2)-affine layouts (bit permutations, XOR maps, disabled bits), random
// k-Tile formats (templates, senses, replication, with and without
// wrap-around offsets and Gray dims) and HPF block / cyclic(k) pairs of odd
// sizes, with 1- to 16-byte elements, on 1 and 3 threads, out of place and
// in place. Every destination cell is checked against the layouts' index
// maps (not against another kernel); padding cells must keep their bytes.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/native/lib/AffineNetwork.h"
#include "../../runtime/native/lib/AffineProbe.h"
#include "RandomTile.h"
#include "TestSeed.h"
#include "ir/KTile.h"
#include "mapc/native/Remap.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

using namespace mapc;
using namespace mapc::rt;

namespace {

uint8_t expectedByte(int64_t d, unsigned i) {
  uint64_t x = uint64_t(d) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return uint8_t(x * 0x94D049BB133111EBull >> 56);
}

/// Which kernel described the plan (its first word).
std::map<std::string, unsigned> kernelsSeen;

/// Plans `spec`, runs it and checks every destination cell.
void runAndCheck(const RemapSpec &spec, unsigned threads, bool inPlace,
                 std::mt19937_64 &rng, const std::string &what) {
  native::NativeOptions opt;
  opt.threads = threads;
  opt.minBytesPerThread = 0; // use every thread even on tiny arrays
  auto planned = native::NativeRemap::plan(spec, opt);
  ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned))
      << what << ": " << std::get<std::string>(planned);
  const auto &remap = std::get<native::NativeRemap>(planned);
  std::string text = remap.describe();
  ++kernelsSeen[text.substr(0, text.find_first_of(":\n"))];
  if (text.find("  tiles of") != std::string::npos)
    ++kernelsSeen["strided tiles"];
  if (text.find("  periods of") != std::string::npos)
    ++kernelsSeen["strided periods"];
  if (text.find("written in destination order") != std::string::npos)
    ++kernelsSeen["batched periods"];
  if (text.find("a table of source offsets") != std::string::npos)
    ++kernelsSeen["source periods"];
  if (text.find("moved whole") != std::string::npos)
    ++kernelsSeen["wide runs"];
  const unsigned eb = spec.elementBytes;
  const DeviceLayout &S = spec.source, &D = spec.dest;
  size_t cells = size_t(inPlace ? std::max(S.size(), D.size()) : S.size());
  std::vector<uint8_t> src(cells * eb), dst(size_t(D.size()) * eb);
  for (uint8_t &b : src)
    b = uint8_t(rng());
  for (uint8_t &b : dst)
    b = uint8_t(rng());
  std::vector<int64_t> addrs;
  for (int64_t d = 0; d < S.dataSize(); ++d) {
    addrs.clear();
    S.addressesOf(d, addrs);
    for (int64_t a : addrs)
      for (unsigned i = 0; i < eb; ++i)
        src[size_t(a) * eb + i] = expectedByte(d, i);
  }
  const std::vector<uint8_t> before = dst;
  const uint8_t *out = dst.data();
  if (inPlace) {
    std::vector<uint8_t> scratch(src.size());
    remap.executeInPlace(src.data(), scratch.data());
    out = src.data();
  } else {
    remap.execute(src.data(), dst.data());
  }
  unsigned bad = 0;
  for (int64_t a = 0; a < D.size() && bad < 3; ++a) {
    int64_t d = D.dataAt(a);
    for (unsigned i = 0; i < eb; ++i) {
      uint8_t got = out[size_t(a) * eb + i];
      if (d >= 0 && got != expectedByte(d, i)) {
        ADD_FAILURE() << what << ": cell " << a << " should hold element " << d
                      << "\n"
                      << text;
        ++bad;
        break;
      }
      if (d < 0 && !inPlace && got != before[size_t(a) * eb + i]) {
        ADD_FAILURE() << what << ": padding cell " << a << " was written\n"
                      << text;
        ++bad;
        break;
      }
    }
  }
}

const unsigned kElementBytes[] = {1, 2, 4, 8, 12, 16};

/// A random affine layout: dataBits of the device bits hold an invertible
/// XOR of data bits (a bit permutation when `permute`), the rest disabled.
AffineLayout randomAffine(std::mt19937_64 &rng, unsigned mBits, unsigned pBits,
                          unsigned dataBits, bool permute) {
  unsigned n = mBits + pBits;
  AffineLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = dataBits;
  l.row.assign(n, 0);
  std::vector<unsigned> pos(n);
  for (unsigned i = 0; i < n; ++i)
    pos[i] = i;
  // Often keep low data bits low, as real layouts do, so runs get fused.
  unsigned keep = rng() % 3 == 0 ? unsigned(rng() % (dataBits + 1)) : 0;
  std::shuffle(pos.begin() + keep, pos.end(), rng);
  std::vector<uint64_t> rows(dataBits);
  for (unsigned d = 0; d < dataBits; ++d)
    rows[d] = uint64_t(1) << d;
  if (!permute)
    for (unsigned k = 0; k < 2 * dataBits && dataBits > 1; ++k) {
      unsigned a = unsigned(rng() % dataBits), b = unsigned(rng() % dataBits);
      if (a != b && a >= keep && rng() % 2)
        rows[a] ^= rows[b];
    }
  for (unsigned d = 0; d < dataBits; ++d)
    l.row[pos[d]] = rows[d];
  for (unsigned i = dataBits; i < n; ++i)
    l.disabled |= uint64_t(1) << pos[i];
  l.constant = rng() & ((uint64_t(1) << n) - 1);
  if (rng() % 2)
    l.constant &= l.disabled;
  std::string why;
  EXPECT_TRUE(l.valid(&why)) << why;
  return l;
}

/// A random verified k-Tile format holding data of `shape`; `wrap` allows
/// wrap-around offsets and Gray dims (which only the gather handles).
KTile randomTileFor(std::mt19937 &rng, const std::vector<int64_t> &shape,
                    bool wrap) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  KTile t;
  for (int64_t len : shape) {
    int64_t k0 = pick(1, len), k1 = (len + k0 - 1) / k0;
    if (pick(0, 2) == 0)
      k1 += pick(0, 1);
    if (k1 == 1 || pick(0, 1)) {
      t.kdims.push_back(KDim::plain(k0 * k1));
      t.groups.push_back(1);
    } else {
      t.kdims.push_back(KDim::plain(k0));
      t.kdims.push_back(KDim::plain(k1));
      t.groups.push_back(2);
    }
    SpaceDim s = SpaceDim::plain(len);
    s.tlen = k0 * k1;
    s.toff = pick(0, s.tlen - len);
    if (wrap)
      s.off = pick(0, len - 1);
    t.data.push_back(s);
  }
  unsigned empties = unsigned(pick(0, 2));
  if (empties)
    t.groups.push_back(empties);
  for (unsigned i = 0; i < empties; ++i) {
    KDim d = KDim::plain(pick(1, 3));
    d.ok = pick(0, 2) == 0 ? kReplicated : pick(0, d.k - 1);
    t.kdims.push_back(d);
  }
  const unsigned firstEmpty = unsigned(t.kdims.size()) - empties;
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    KDim &d = t.kdims[l];
    if (pick(0, 3) == 0) {
      d.tk = d.k + pick(1, 2);
      d.otk = pick(0, d.tk - d.k);
    }
    if (wrap && l < firstEmpty && pick(0, 3) == 0)
      d.ok = pick(0, d.k - 1);
    if (pick(0, 1))
      d.sense = Sense::Minus;
    if (wrap && (d.tk & (d.tk - 1)) == 0 && pick(0, 3) == 0)
      d.enc = Encoding::Gray;
  }
  // Device templates always; device offsets only with `wrap`.
  test::assignDeviceDims(rng, t, unsigned(shape.size()), true);
  if (!wrap)
    for (SpaceDim &s : t.device)
      s.off = 0;
  return t;
}

/// 1-d HPF: block (b = 0: ceil(n / p)) or cyclic(c) of n elements on p PEs.
TileMap hpf1d(int64_t n, int64_t p, bool cyclic, int64_t c) {
  TileMap t;
  SpaceDim data = SpaceDim::plain(n);
  if (!cyclic) {
    int64_t b = (n + p - 1) / p;
    t.kdims = {KDim::plain(b), KDim::plain(p)};
    t.groups = {2};
    t.m = {{0}, {1}};
    t.device = {SpaceDim::plain(b), SpaceDim::plain(p)};
    data.tlen = b * p;
  } else {
    int64_t q = (n + c * p - 1) / (c * p);
    t.kdims = {KDim::plain(c), KDim::plain(p), KDim::plain(q)};
    t.groups = {3};
    t.m = {{0, 2}, {1}};
    t.device = {SpaceDim::plain(c * q), SpaceDim::plain(p)};
    data.tlen = c * p * q;
  }
  t.data = {data};
  return t;
}

/// 2-d HPF on a p0 x p1 grid, each dim block or cyclic(c); the memory dim
/// holds dim 0's local index fastest unless `swap` (a local transpose).
TileMap hpf2d(int64_t n0, int64_t n1, int64_t p0, int64_t p1, int64_t c0,
              int64_t c1, bool swap) {
  TileMap t;
  std::vector<unsigned> mem, pes;
  int64_t memLen = 1;
  std::vector<std::vector<unsigned>> memOf(2);
  int64_t ns[2] = {n0, n1}, ps[2] = {p0, p1}, cs[2] = {c0, c1};
  for (int j = 0; j < 2; ++j) {
    SpaceDim data = SpaceDim::plain(ns[j]);
    unsigned base = unsigned(t.kdims.size());
    if (cs[j] == 0) { // block
      int64_t b = (ns[j] + ps[j] - 1) / ps[j];
      t.kdims.push_back(KDim::plain(b));
      t.kdims.push_back(KDim::plain(ps[j]));
      t.groups.push_back(2);
      memOf[j] = {base};
      pes.push_back(base + 1);
      data.tlen = b * ps[j];
      memLen *= b;
    } else {
      int64_t q = (ns[j] + cs[j] * ps[j] - 1) / (cs[j] * ps[j]);
      t.kdims.push_back(KDim::plain(cs[j]));
      t.kdims.push_back(KDim::plain(ps[j]));
      t.kdims.push_back(KDim::plain(q));
      t.groups.push_back(3);
      memOf[j] = {base, base + 2};
      pes.push_back(base + 1);
      data.tlen = cs[j] * ps[j] * q;
      memLen *= cs[j] * q;
    }
    t.data.push_back(data);
  }
  std::vector<unsigned> m0 = swap ? memOf[1] : memOf[0];
  for (unsigned l : swap ? memOf[0] : memOf[1])
    m0.push_back(l);
  t.m = {m0, {pes[0]}, {pes[1]}};
  t.device = {SpaceDim::plain(memLen), SpaceDim::plain(p0),
              SpaceDim::plain(p1)};
  return t;
}

RemapSpec specOf(DeviceLayout a, DeviceLayout b, unsigned eb) {
  RemapSpec s;
  s.label = "test";
  s.source = std::move(a);
  s.dest = std::move(b);
  s.elementBytes = eb;
  return s;
}

TEST(NativeRemap, RandomAffine) {
  std::mt19937_64 rng(1201);
  for (unsigned run = 0; run < 2000 && !HasFailure(); ++run) {
    unsigned dataBits = unsigned(rng() % 12);
    auto side = [&] {
      unsigned n = dataBits + unsigned(rng() % 3);
      unsigned m = n ? unsigned(rng() % (n + 1)) : 0;
      return std::pair<unsigned, unsigned>(m, n - m);
    };
    auto [ms, ps] = side();
    auto [md, pd] = side();
    bool permute = rng() % 2;
    RemapSpec spec = specOf(
        DeviceLayout::fromAffine(randomAffine(rng, ms, ps, dataBits, permute)),
        DeviceLayout::fromAffine(randomAffine(rng, md, pd, dataBits, permute)),
        kElementBytes[rng() % 6]);
    runAndCheck(spec, rng() % 2 ? 1 : 3, rng() % 3 == 0, rng,
                "affine run " + std::to_string(run));
  }
  EXPECT_GT(kernelsSeen["affine tiles"], 1900u);
}

// Strided tiles must be common: the fixed seed's 2,000 runs take them 59
// times; 200 other seeds 30-64 times, so they draw on to the targets.
TEST(NativeRemap, RandomTiles) {
  std::mt19937 rng(test::testSeed(1202));
  std::mt19937_64 bytes(test::testSeed(1203));
  kernelsSeen.clear();
  auto covered = [&] {
    const unsigned nests = kernelsSeen["strided loop nest over 1 data dims"] +
                           kernelsSeen["strided loop nest over 2 data dims"] +
                           kernelsSeen["strided loop nest over 3 data dims"];
    return nests > 1000u && kernelsSeen["gather"] > 100u &&
           kernelsSeen["strided tiles"] > 40u;
  };
  unsigned run = 0;
  for (; test::keepDrawing(run, 2000, covered()) && !HasFailure(); ++run) {
    std::vector<int64_t> shape;
    unsigned rank = 1 + rng() % 3;
    for (unsigned j = 0; j < rank; ++j)
      shape.push_back(1 + int64_t(rng() % (rank == 1 ? 40 : 9)));
    bool wrap = rng() % 4 == 0;
    KTile a = randomTileFor(rng, shape, wrap);
    KTile b = randomTileFor(rng, shape, wrap && rng() % 2);
    ASSERT_TRUE(a.verify().empty());
    ASSERT_TRUE(b.verify().empty());
    RemapSpec spec =
        specOf(DeviceLayout::fromTile(a), DeviceLayout::fromTile(b),
               kElementBytes[rng() % 6]);
    runAndCheck(spec, rng() % 2 ? 1 : 3, rng() % 3 == 0, bytes,
                "tile run " + std::to_string(run));
  }
  // Above 1000 strided loop nests, 100 gathers and 40 strided tiles.
  EXPECT_TRUE(covered()) << "in " << run << " runs";
  for (auto &[name, count] : kernelsSeen)
    std::printf("%6u %s\n", count, name.c_str());
}

TEST(NativeRemap, HpfBlockCyclic) {
  std::mt19937_64 rng(1204);
  kernelsSeen.clear();
  for (unsigned run = 0; run < 1200 && !HasFailure(); ++run) {
    RemapSpec spec;
    unsigned eb = kElementBytes[rng() % 6];
    if (run % 2) {
      int64_t n = 1 + int64_t(rng() % 700);
      int64_t p = 1 + int64_t(rng() % 9), q = 1 + int64_t(rng() % 9);
      spec = specOf(
          DeviceLayout::fromTile(hpf1d(n, p, rng() % 2, 1 + rng() % 5)),
          DeviceLayout::fromTile(hpf1d(n, q, rng() % 2, 1 + rng() % 5)), eb);
    } else {
      int64_t n0 = 1 + int64_t(rng() % 40), n1 = 1 + int64_t(rng() % 40);
      auto one = [&] {
        return hpf2d(n0, n1, 1 + int64_t(rng() % 4), 1 + int64_t(rng() % 4),
                     int64_t(rng() % 4), int64_t(rng() % 4), rng() % 2);
      };
      spec = specOf(DeviceLayout::fromTile(one()),
                    DeviceLayout::fromTile(one()), eb);
    }
    runAndCheck(spec, rng() % 2 ? 1 : 3, rng() % 3 == 0, rng,
                "hpf run " + std::to_string(run));
  }
  EXPECT_EQ(kernelsSeen["gather"], 0u);
  EXPECT_GT(kernelsSeen["strided tiles"], 100u);
  EXPECT_GT(kernelsSeen["strided periods"], 50u);
  EXPECT_GT(kernelsSeen["batched periods"], 25u);
  EXPECT_GT(kernelsSeen["source periods"], 25u);
  EXPECT_GT(kernelsSeen["wide runs"], 25u);
}

/// Block <-> cyclic(k) on 7 PEs, the benchmark's pair, at sizes that end
/// a batch, a chunk or the array on a run whose wide move would spill past
/// it (the last PE's last run ends the buffer when n is a multiple of 7k):
/// every run width (4 to 64 bytes, and 3 bytes for cells), one and three
/// threads, and the same pairs with the wide moves off
/// (MAPC_NATIVE_RUNS=cells) for the cell-by-cell path.
TEST(NativeRemap, HpfRunsMovedWhole) {
  std::mt19937_64 rng(1205);
  kernelsSeen.clear();
  const int64_t sizes[] = {21 * 64,       21 * 64 * 3,   21 * 64 * 3 + 5, 1000,
                           (1 << 14) + 7, 3 * (1 << 14), 7 * 3 * 800 - 1};
  for (bool cells : {false, true}) {
    if (cells)
      setenv("MAPC_NATIVE_RUNS", "cells", 1);
    for (int64_t n : sizes)
      for (int64_t k : {1, 2, 3, 5})
        for (unsigned eb : {1u, 2u, 4u, 8u, 12u, 16u})
          for (bool toCyclic : {false, true}) {
            TileMap block = hpf1d(n, 7, false, 0), cyc = hpf1d(n, 7, true, k);
            RemapSpec spec = toCyclic
                                 ? specOf(DeviceLayout::fromTile(block),
                                          DeviceLayout::fromTile(cyc), eb)
                                 : specOf(DeviceLayout::fromTile(cyc),
                                          DeviceLayout::fromTile(block), eb);
            std::string what = "n=" + std::to_string(n) +
                               " k=" + std::to_string(k) +
                               " eb=" + std::to_string(eb) +
                               (toCyclic ? " to cyclic" : " to block") +
                               (cells ? " cells" : "");
            runAndCheck(spec, 1, false, rng, what);
            runAndCheck(spec, 3, rng() % 2 == 0, rng, what + " threads=3");
          }
  }
  unsetenv("MAPC_NATIVE_RUNS");
  EXPECT_EQ(kernelsSeen["gather"], 0u);
  // Wide moves only while the switch was on: 7 sizes, runs of 4-64 bytes.
  EXPECT_GT(kernelsSeen["wide runs"], 100u);
  EXPECT_LT(kernelsSeen["wide runs"], 7u * 4 * 6 * 2 * 2);
  EXPECT_GT(kernelsSeen["strided periods"], kernelsSeen["wide runs"] + 50);
}

/// A random radix-2 k-Tile format of 2^bits elements in 1-3 data dims:
/// power-of-two k-Tile dims, random senses, Gray dims, empty dims with one
/// value holding data, no templates or offsets (AffineProbe.h's case).
KTile randomRadix2Tile(std::mt19937 &rng, unsigned bits) {
  KTile t;
  unsigned rank = 1 + rng() % 3;
  std::vector<unsigned> dimBits(rank, 0);
  for (unsigned b = 0; b < bits; ++b)
    ++dimBits[rng() % rank];
  for (unsigned j = 0; j < rank; ++j) {
    unsigned lo = dimBits[j] ? unsigned(rng() % (dimBits[j] + 1)) : 0;
    if (lo == 0 || lo == dimBits[j]) {
      t.kdims.push_back(KDim::plain(int64_t(1) << dimBits[j]));
      t.groups.push_back(1);
    } else {
      t.kdims.push_back(KDim::plain(int64_t(1) << lo));
      t.kdims.push_back(KDim::plain(int64_t(1) << (dimBits[j] - lo)));
      t.groups.push_back(2);
    }
    t.data.push_back(SpaceDim::plain(int64_t(1) << dimBits[j]));
  }
  if (rng() % 3 == 0) { // an empty dim: one of its values holds the data
    t.groups.push_back(1);
    KDim d = KDim::plain(int64_t(1) << (1 + rng() % 2));
    d.ok = int64_t(rng() % uint64_t(d.k));
    t.kdims.push_back(d);
  }
  for (KDim &d : t.kdims) {
    if (rng() % 2)
      d.sense = Sense::Minus;
    if (rng() % 2)
      d.enc = Encoding::Gray;
  }
  test::assignDeviceDims(rng, t, rank, false);
  return t;
}

TEST(NativeRemap, RadixTwoGrayFormats) {
  // k-Tile formats with Gray dims have no digit form; built in code they
  // carry no affine form either. The planner finds it (AffineProbe.h) and
  // runs the affine tiles instead of the gather.
  std::mt19937 rng(1206);
  std::mt19937_64 bytes(1207);
  kernelsSeen.clear();
  unsigned probed = 0;
  for (unsigned run = 0; run < 600 && !HasFailure(); ++run) {
    unsigned bits = rng() % 13;
    KTile a = randomRadix2Tile(rng, bits), b = randomRadix2Tile(rng, bits);
    ASSERT_TRUE(a.verify().empty());
    ASSERT_TRUE(b.verify().empty());
    RemapSpec spec =
        specOf(DeviceLayout::fromTile(a), DeviceLayout::fromTile(b),
               kElementBytes[rng() % 6]);
    auto planned = native::NativeRemap::plan(spec);
    ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
    std::string text = std::get<native::NativeRemap>(planned).describe();
    probed += text.find("affine forms found") != std::string::npos;
    runAndCheck(spec, rng() % 2 ? 1 : 3, rng() % 3 == 0, bytes,
                "radix-2 gray run " + std::to_string(run));
  }
  // Formats without Gray dims may take the strided nest; none the gather.
  EXPECT_EQ(kernelsSeen["gather"], 0u);
  EXPECT_GT(probed, 300u);
  for (auto &[name, count] : kernelsSeen)
    std::printf("%6u %s\n", count, name.c_str());
}

TEST(NativeRemap, ProbedAffineFormsRejectOffsetsAndTemplates) {
  // A wrap-around offset or a template larger than its space is not
  // GF(2)-affine: the probe must say so.
  std::mt19937 rng(1208);
  for (unsigned run = 0; run < 200; ++run) {
    KTile t = randomRadix2Tile(rng, 1 + rng() % 8);
    EXPECT_TRUE(native::affineFormOf(t).has_value()) << run;
    KTile off = t;
    if (off.kdims[0].k > 1) {
      off.kdims[0].ok = 1;
      ASSERT_TRUE(off.verify().empty());
      EXPECT_FALSE(native::affineFormOf(off).has_value()) << run;
    }
    KTile tmpl = t;
    tmpl.device[0].tlen *= 2;
    if (tmpl.verify().empty()) {
      EXPECT_FALSE(native::affineFormOf(tmpl).has_value()) << run;
    }
  }
}

TEST(NativeRemap, MixedAffineAndTile) {
  // An XOR map against a plain k-Tile format of the same size: the probe
  // gives the format its affine form, so the affine tiles move it.
  std::mt19937_64 rng(1205);
  kernelsSeen.clear();
  for (unsigned run = 0; run < 200 && !HasFailure(); ++run) {
    unsigned bits = unsigned(rng() % 10);
    TileMap plain = hpf1d(int64_t(1) << bits, 1, false, 1);
    DeviceLayout x =
        DeviceLayout::fromAffine(randomAffine(rng, bits, 0, bits, false));
    RemapSpec spec = run % 2 ? specOf(x, DeviceLayout::fromTile(plain), 4)
                             : specOf(DeviceLayout::fromTile(plain), x, 4);
    runAndCheck(spec, 2, run % 3 == 0, rng, "mixed run " + std::to_string(run));
  }
  EXPECT_EQ(kernelsSeen["gather"], 0u);
  EXPECT_EQ(kernelsSeen["affine tiles"], 200u);
}

TEST(NativeRemap, BitReversalIsOnePassOfTiles) {
  // 2^16 f32 reversed: tiles of 64 x 64, runs of 256 bytes.
  AffineLayout a;
  a.mBits = 16;
  a.dataBits = 16;
  a.row.assign(16, 0);
  AffineLayout b = a;
  for (unsigned i = 0; i < 16; ++i) {
    a.row[i] = uint64_t(1) << i;
    b.row[i] = uint64_t(1) << (15 - i);
  }
  RemapSpec spec =
      specOf(DeviceLayout::fromAffine(a), DeviceLayout::fromAffine(b), 4);
  std::mt19937_64 rng(1206);
  runAndCheck(spec, 2, false, rng, "bit reversal");
  auto planned = native::NativeRemap::plan(spec);
  ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
  const auto &remap = std::get<native::NativeRemap>(planned);
  // 64 x 64 through an L1 buffer; 32 x 64 straight from the source when the
  // host transposes in registers.
  EXPECT_TRUE(
      remap.describe().find("tiles of 64 x 64 blocks") != std::string::npos ||
      remap.describe().find("tiles of 32 x 64 blocks") != std::string::npos)
      << remap.describe();
  EXPECT_EQ(remap.bytesMoved(), uint64_t(2) * 4 << 16);
}

TEST(NativeRemap, LargeRemapsStreamTheirRuns) {
  // 8 MiB and more of output: destination runs go out as streaming stores.
  std::mt19937_64 rng(1207);
  for (unsigned eb : {4u, 8u, 12u}) {
    unsigned bits = eb == 4 ? 21 : 20;
    std::vector<unsigned> perm(bits);
    for (unsigned i = 0; i < bits; ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    AffineLayout a, b;
    a.mBits = b.mBits = bits;
    a.dataBits = b.dataBits = bits;
    a.row.assign(bits, 0);
    b.row.assign(bits, 0);
    for (unsigned i = 0; i < bits; ++i) {
      a.row[i] = uint64_t(1) << i;
      b.row[i] = uint64_t(1) << perm[i];
    }
    runAndCheck(
        specOf(DeviceLayout::fromAffine(a), DeviceLayout::fromAffine(b), eb), 2,
        eb == 8, rng, "large permutation of " + std::to_string(eb));
  }
}

TEST(NativeRemap, LargeTransposes) {
  // Whole 64 x 64 tiles of f32 (the buffered path) and ragged edges, in
  // 2-d HPF layouts whose memory dims hold the two data dims in opposite
  // orders; the largest streams its rows.
  std::mt19937_64 rng(1208);
  struct Case {
    int64_t n0, n1, p0, p1;
  };
  for (Case c :
       {Case{200, 150, 1, 1}, Case{129, 300, 2, 3}, Case{1500, 1400, 1, 1}})
    for (unsigned eb : {4u, 2u}) {
      if (c.n0 > 1000 && eb != 4)
        continue;
      RemapSpec spec = specOf(
          DeviceLayout::fromTile(hpf2d(c.n0, c.n1, c.p0, c.p1, 0, 0, false)),
          DeviceLayout::fromTile(hpf2d(c.n0, c.n1, c.p0, c.p1, 0, 0, true)),
          eb);
      runAndCheck(spec, 2, false, rng,
                  "transpose " + std::to_string(c.n0) + " x " +
                      std::to_string(c.n1));
    }
  EXPECT_GT(kernelsSeen["strided tiles"], 0u);
}

TEST(NativeRemap, DenseAffineMapsInterleaveTheTileOrder) {
  // Dense random GF(2)-affine maps (a source in data order, a destination
  // whose address bits are XORs of many data bits, and a random constant):
  // the tile order alternates source- and destination-near steps. Every
  // cell is checked, on odd thread counts, in place and out of place.
  std::mt19937_64 rng(1209);
  unsigned interleaved = 0, runs = 0;
  for (unsigned run = 0; run < 48 && !HasFailure(); ++run) {
    unsigned bits = 15 + unsigned(rng() % 3);
    AffineLayout a, b;
    a.mBits = b.mBits = bits;
    a.dataBits = b.dataBits = bits;
    a.row.assign(bits, 0);
    for (unsigned i = 0; i < bits; ++i)
      a.row[i] = uint64_t(1) << i;
    b.row = a.row;
    // Row operations keep the matrix invertible; 4 per bit make it dense.
    for (unsigned n = 0; n < 4 * bits; ++n) {
      unsigned i = unsigned(rng() % bits), j = unsigned(rng() % bits);
      if (i != j)
        b.row[i] ^= b.row[j];
    }
    std::shuffle(b.row.begin(), b.row.end(), rng);
    b.constant = rng() & ((uint64_t(1) << bits) - 1);
    bool flip = run % 2; // the dense side as source or destination
    RemapSpec spec =
        specOf(DeviceLayout::fromAffine(flip ? b : a),
               DeviceLayout::fromAffine(flip ? a : b), kElementBytes[run % 6]);
    unsigned threads = 1 + 2 * unsigned(rng() % 3);
    runAndCheck(spec, threads, run % 4 >= 2, rng,
                "dense affine run " + std::to_string(run));
    auto planned = native::NativeRemap::plan(spec);
    ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
    std::string text = std::get<native::NativeRemap>(planned).describe();
    ++runs;
    // Tiles moved in registers (4- and 8-byte cells) follow the source.
    if (text.find("tile order alternates") != std::string::npos ||
        text.find("tile order follows the source lines") != std::string::npos)
      ++interleaved;
  }
  // Most take the path (a thin tile set may leave nothing to reorder).
  EXPECT_GT(interleaved, runs * 3 / 4);
}

/// A dense random GF(2)-affine pair on `bits` data bits: the source in data
/// order, the destination's address bits above `keep` XORs of many data
/// bits above `keep` (the low `keep` bits stay in place on both sides, so
/// small elements fuse into 4- or 8-byte cells), random constants above
/// `keep`, and `pad` disabled address bits on top of one side (padding).
RemapSpec denseAffineSpec(std::mt19937_64 &rng, unsigned bits, unsigned keep,
                          unsigned pad, unsigned eb) {
  AffineLayout a, b;
  a.mBits = b.mBits = bits;
  a.dataBits = b.dataBits = bits;
  a.row.assign(bits, 0);
  for (unsigned i = 0; i < bits; ++i)
    a.row[i] = uint64_t(1) << i;
  b.row = a.row;
  for (unsigned n = 0; n < 4 * bits; ++n) {
    unsigned i = keep + unsigned(rng() % (bits - keep)),
             j = keep + unsigned(rng() % (bits - keep));
    if (i != j)
      b.row[i] ^= b.row[j];
  }
  std::shuffle(b.row.begin() + keep, b.row.end(), rng);
  const uint64_t high =
      ((uint64_t(1) << bits) - 1) & ~((uint64_t(1) << keep) - 1);
  a.constant = rng() % 2 ? rng() & high : 0;
  b.constant = rng() & high;
  AffineLayout &padded = rng() % 2 ? a : b;
  for (unsigned p = 0; p < pad; ++p) {
    padded.row.push_back(0);
    padded.disabled |= uint64_t(1) << padded.mBits;
    padded.constant |= (rng() & 1) << padded.mBits;
    ++padded.mBits;
  }
  std::string why;
  EXPECT_TRUE(a.valid(&why)) << why;
  EXPECT_TRUE(b.valid(&why)) << why;
  return specOf(DeviceLayout::fromAffine(a), DeviceLayout::fromAffine(b), eb);
}

TEST(NativeRemap, DenseAffineTilesMoveInRegisterNetworks) {
  // Dense random maps of 2^9-2^16 cells whose cells are 4 or 8 bytes (1-
  // and 2-byte elements fuse low bits into them) must move their tiles
  // inside registers (AffineNetwork.h) on AVX-512 hosts; 16-byte elements
  // keep the buffer. Padding on either side, 1, 3 or 5 threads (uneven
  // ranges of tiles), in place and out of place; every cell is checked.
  std::mt19937_64 rng(1216);
  const unsigned sizes[] = {1, 2, 4, 8, 16};
  unsigned eligible = 0, networked = 0;
  for (unsigned run = 0; run < 200 && !HasFailure(); ++run) {
    unsigned eb = sizes[run % 5];
    unsigned keep = eb == 1   ? 2 + unsigned(rng() % 2)
                    : eb == 2 ? 1 + unsigned(rng() % 2)
                    : eb == 4 ? unsigned(rng() % 2)
                              : 0;
    unsigned bits = keep + 9 + unsigned(rng() % 8);
    unsigned pad = rng() % 3 == 0 ? 1 + unsigned(rng() % 2) : 0;
    RemapSpec spec = denseAffineSpec(rng, bits, keep, pad, eb);
    runAndCheck(spec, 1 + 2 * unsigned(rng() % 3), rng() % 3 == 0, rng,
                "dense network run " + std::to_string(run));
    auto planned = native::NativeRemap::plan(spec);
    ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
    std::string text = std::get<native::NativeRemap>(planned).describe();
    bool net = text.find("GF(2) network") != std::string::npos;
    size_t cell = size_t(eb) << keep;
    if (cell == 4 || cell == 8) {
      ++eligible;
      networked += net;
    } else {
      EXPECT_FALSE(net) << text;
    }
  }
  EXPECT_GT(eligible, 100u);
  if (native::hostRunsTileNetworks()) {
    // A tile needs its 2^n low source bits to come from outside the low
    // destination bits, which a random map misses now and then.
    EXPECT_GT(networked, eligible * 3 / 4);
  } else {
    EXPECT_EQ(networked, 0u);
  }
  // Outputs of 8 MiB and more stream their lines.
  for (unsigned eb : {4u, 8u}) {
    RemapSpec spec = denseAffineSpec(rng, eb == 4 ? 21 : 20, 0, 0, eb);
    runAndCheck(spec, 3, eb == 8, rng, "large dense network");
    std::string text =
        std::get<native::NativeRemap>(native::NativeRemap::plan(spec))
            .describe();
    EXPECT_NE(text.find("streamed"), std::string::npos) << text;
    if (native::hostRunsTileNetworks()) {
      EXPECT_NE(text.find("GF(2) network"), std::string::npos) << text;
    }
  }
}

/// Whether the kernels transpose in registers here (AVX2 or AVX-512, and
/// not turned off by MAPC_NATIVE_TRANSPOSE=off).
bool hostTransposes() {
  const char *cap = std::getenv("MAPC_NATIVE_TRANSPOSE");
  return __builtin_cpu_supports("avx2") && !(cap && std::string(cap) == "off");
}

TEST(NativeRemap, TransposedTilesEveryElementSize) {
  // Transposes of 2^14-2^18 cells between affine layouts (two bit fields
  // swapped, some low bits kept in place so that 1- and 2-byte elements
  // fuse into 4- and 8-byte cells, a random XOR constant on either side),
  // elements of 1 to 16 bytes, 1 to 5 threads, in place and out of place.
  // Cells of 4 and 8 bytes must take the in-register transposes read
  // straight from the source (on hosts that have them); the rest their
  // other paths. Every cell is checked.
  std::mt19937_64 rng(1211);
  unsigned transposed = 0, eligible = 0;
  for (unsigned run = 0; run < 160 && !HasFailure(); ++run) {
    unsigned eb = 1 + run % 16;
    unsigned keep = eb <= 2 ? 3 - eb : unsigned(rng() % 2);
    unsigned h = 7 + unsigned(rng() % 2), bits = keep + 2 * h;
    AffineLayout a, b;
    a.mBits = b.mBits = bits;
    a.dataBits = b.dataBits = bits;
    a.row.assign(bits, 0);
    b.row.assign(bits, 0);
    for (unsigned i = 0; i < bits; ++i) {
      a.row[i] = uint64_t(1) << i;
      unsigned j = i < keep ? i : keep + (i - keep + h) % (2 * h);
      b.row[i] = uint64_t(1) << j;
    }
    (rng() % 2 ? a : b).constant =
        rng() & ((uint64_t(1) << bits) - 1) & ~((uint64_t(1) << keep) - 1);
    RemapSpec spec =
        specOf(DeviceLayout::fromAffine(a), DeviceLayout::fromAffine(b), eb);
    unsigned threads = 1 + unsigned(rng() % 5);
    runAndCheck(spec, threads, rng() % 3 == 0, rng,
                "transpose of " + std::to_string(eb) + "-byte elements, run " +
                    std::to_string(run));
    auto planned = native::NativeRemap::plan(spec);
    ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
    std::string text = std::get<native::NativeRemap>(planned).describe();
    size_t cell = size_t(eb) << keep;
    if (cell == 4 || cell == 8) {
      ++eligible;
      if (text.find("straight into registers") != std::string::npos)
        ++transposed;
    } else {
      EXPECT_EQ(text.find("straight into registers"), std::string::npos)
          << text;
    }
  }
  EXPECT_GT(eligible, 20u);
  if (hostTransposes()) {
    EXPECT_EQ(transposed, eligible);
  }
}

TEST(NativeRemap, StridedTransposesInRegisters) {
  // 2-d HPF layouts with the data dims in opposite orders in memory: whole
  // and ragged tiles of 4- and 8-byte elements go through the in-register
  // transposes (on hosts that have them), others through the cell loop.
  std::mt19937_64 rng(1212);
  unsigned transposed = 0;
  struct Case {
    int64_t n0, n1, p0, p1;
    unsigned eb;
  };
  for (Case c : {Case{300, 170, 1, 1, 4}, Case{257, 129, 1, 1, 8},
                 Case{640, 700, 1, 1, 4}, Case{100, 90, 2, 3, 8},
                 Case{64, 64, 1, 1, 4}, Case{31, 300, 1, 1, 8},
                 Case{130, 150, 1, 1, 3}, Case{96, 80, 1, 1, 16}})
    for (unsigned threads : {1u, 3u, 5u}) {
      RemapSpec spec = specOf(
          DeviceLayout::fromTile(hpf2d(c.n0, c.n1, c.p0, c.p1, 0, 0, false)),
          DeviceLayout::fromTile(hpf2d(c.n0, c.n1, c.p0, c.p1, 0, 0, true)),
          c.eb);
      runAndCheck(spec, threads, threads == 3, rng,
                  "strided transpose " + std::to_string(c.n0) + " x " +
                      std::to_string(c.n1) + " of " + std::to_string(c.eb));
      auto planned = native::NativeRemap::plan(spec);
      ASSERT_TRUE(std::holds_alternative<native::NativeRemap>(planned));
      std::string text = std::get<native::NativeRemap>(planned).describe();
      if (text.find("tiles transposed in registers") != std::string::npos) {
        EXPECT_TRUE(c.eb == 4 || c.eb == 8) << text;
        ++transposed;
      }
    }
  if (hostTransposes()) {
    EXPECT_EQ(transposed, 18u);
  }
}

TEST(NativeRemap, BadSpecsAreErrors) {
  RemapSpec spec = specOf(DeviceLayout::fromTile(hpf1d(10, 2, false, 1)),
                          DeviceLayout::fromTile(hpf1d(11, 2, false, 1)), 4);
  auto planned = native::NativeRemap::plan(spec);
  ASSERT_TRUE(std::holds_alternative<std::string>(planned));
  EXPECT_NE(std::get<std::string>(planned).find("different data spaces"),
            std::string::npos);
  spec.dest = spec.source;
  spec.elementBytes = 0;
  EXPECT_TRUE(
      std::holds_alternative<std::string>(native::NativeRemap::plan(spec)));
}

} // namespace
