//===- ApiTest.cpp - the C++ library API (mapc/mapc.h) --------------------===//
//
// compile() returns programs or located diagnostics, never aborts; the
// program's arrays, layouts and statements; planNative on statements and on
// layouts built in code; runNative. The property test compiles random HPF
// programs (distributions of random arrays on random PE counts, element
// types of 1 to 16 bytes, redistributions and copies), runs them through
// runNative and checks every statement again on the test's own data
// through planNative and the layouts' index maps.
//
//===----------------------------------------------------------------------===//
#include "RandomTile.h"
#include "api/NativeProgram.h"
#include "frontend/Parser.h"
#include "mapc/mapc.h"

#include "gtest/gtest.h"

#include <random>
#include <sstream>

using namespace mapc;

namespace {

/// Runs `remap` on data of the test's own (element bytes derived from the
/// data index and `salt`) and counts the destination cells that are wrong.
uint64_t wrongCells(const native::NativeRemap &remap, uint8_t salt) {
  const rt::RemapSpec &s = remap.spec();
  const unsigned eb = s.elementBytes;
  auto byteOf = [&](int64_t d, unsigned k) {
    return uint8_t(d * 131 + k * 17 + salt);
  };
  std::vector<uint8_t> src(size_t(s.source.size()) * eb, 0xEE),
      dst(size_t(s.dest.size()) * eb, 0x11);
  for (int64_t a = 0; a < s.source.size(); ++a)
    if (int64_t d = s.source.dataAt(a); d >= 0)
      for (unsigned k = 0; k < eb; ++k)
        src[size_t(a) * eb + k] = byteOf(d, k);
  remap.execute(src.data(), dst.data());
  uint64_t wrong = 0;
  for (int64_t a = 0; a < s.dest.size(); ++a) {
    int64_t d = s.dest.dataAt(a);
    for (unsigned k = 0; k < eb; ++k)
      if (dst[size_t(a) * eb + k] != (d >= 0 ? byteOf(d, k) : 0x11)) {
        ++wrong;
        break;
      }
  }
  return wrong;
}

TEST(ApiTest, CompileReportsLocatedErrors) {
  auto bad =
      api::compile("array A(4);\ndistribute B(block) onto Q;\n", "bad.map");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("bad.map:2:12: error:"), std::string::npos)
      << bad.error();
  EXPECT_NE(bad.error().find("error generated."), std::string::npos);
  auto syntax = api::compile("array A(4)\n", "syntax.map");
  ASSERT_FALSE(syntax);
  EXPECT_NE(syntax.error().find("syntax.map:"), std::string::npos);
  // Not UTF-8, and longer than the compiler reads: errors, not aborts.
  EXPECT_FALSE(api::compile(std::string("array \xff(4);\n"), "x.map"));
  EXPECT_FALSE(api::compile(std::string(kMaxSourceBytes + 1, ' '), "big.map"));
}

TEST(ApiTest, ProgramContents) {
  auto p = api::compile("processors P(3);\n"
                        "array A(10, 4) : u16;\n"
                        "array B(10, 4) : u16;\n"
                        "distribute A(block, *) onto P;\n"
                        "distribute B(*, cyclic) onto P;\n"
                        "copy A to B;\n"
                        "redistribute A(cyclic(2), *) onto P;\n",
                        "p.map");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->arrays().size(), 2u);
  EXPECT_EQ(p->arrays()[0].type, "u16");
  EXPECT_EQ(p->arrays()[0].elementBytes, 2u);
  EXPECT_EQ(p->arrays()[0].shape, (std::vector<int64_t>{10, 4}));
  ASSERT_EQ(p->statements().size(), 2u);
  const api::StatementInfo &copy = p->statements()[0];
  EXPECT_EQ(copy.kind, "copy");
  EXPECT_EQ(copy.label, "copy A to B: A -> B");
  EXPECT_EQ(copy.target, "B");
  EXPECT_EQ(copy.function, "copy_A_1");
  EXPECT_EQ(copy.line, 6u);
  const api::StatementInfo &redist = p->statements()[1];
  EXPECT_EQ(redist.function, "redistribute_A_2");
  EXPECT_EQ(p->layouts()[redist.from].name, "A");
  // A block of 4 rows on each of 3 PEs: 12 x 4 cells, 2 of them padding
  // rows.
  EXPECT_EQ(p->layouts()[redist.from].deviceCells, 48);
  EXPECT_EQ(p->deviceLayout(redist.from).size(), 48);
  rt::RemapSpec spec = p->remapSpec(1);
  EXPECT_EQ(spec.elementBytes, 2u);
  EXPECT_FALSE(spec.copy);
  EXPECT_TRUE(p->remapSpec(0).copy);
  for (size_t i = 0; i < 2; ++i) {
    auto remap = p->planNative(i);
    ASSERT_TRUE(remap) << remap.error();
    EXPECT_EQ(wrongCells(*remap, uint8_t(i)), 0u);
  }
  auto none = p->planNative(2);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("does not exist"), std::string::npos);
}

TEST(ApiTest, RunNativeAndTheMemoryCap) {
  auto p = api::compile("processors P(7);\narray A(1000) : f32;\n"
                        "distribute A(block) onto P;\n"
                        "redistribute A(cyclic(3)) onto P;\n",
                        "run.map");
  ASSERT_TRUE(p) << p.error();
  std::vector<std::string> lines;
  auto results = p->runNative({}, [&](const api::NativeResult &r) {
    lines.push_back(nativeResultLine(r));
  });
  ASSERT_TRUE(results) << results.error();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE((*results)[0].verified);
  EXPECT_EQ((*results)[0].bytes, 8000u);
  EXPECT_GE((*results)[0].runs, 3u);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(
      lines[0].rfind("redistribute A: A -> A@4:14: verified, seconds=", 0), 0u)
      << lines[0];
  api::NativeRunOptions small;
  small.memoryCap = 1000;
  auto refused = p->runNative(small);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("run.map:4:14: error: this statement needs"),
            std::string::npos)
      << refused.error();
}

TEST(ApiTest, MismatchLine) {
  api::NativeResult r;
  r.label = "remap A: R -> C";
  r.wrongCells = 3;
  r.cells = 64;
  r.seconds = 0.5;
  r.memcpySeconds = 0.25;
  r.bytes = 512;
  EXPECT_EQ(nativeResultLine(r),
            "remap A: R -> C: MISMATCH, 3 of 64 cells wrong, "
            "seconds=0.500000000, memcpy_seconds=0.250000000, bytes=512");
  r.verified = true;
  EXPECT_EQ(nativeResultLine(r),
            "remap A: R -> C: verified, seconds=0.500000000, "
            "memcpy_seconds=0.250000000, bytes=512");
}

TEST(ApiTest, LayoutsBuiltInCode) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    KTile t = test::randomTile(rng);
    auto layout = api::checkedLayout(static_cast<const rt::TileMap &>(t));
    ASSERT_TRUE(layout) << layout.error();
    ASSERT_EQ(layout->size(), t.deviceSize());
    for (int64_t a = 0; a < t.deviceSize(); ++a)
      ASSERT_EQ(layout->dataAt(a), t.dataAt(a));
    // The same data in a plain column-major buffer, and back.
    rt::TileMap plain;
    plain.data = t.data;
    for (rt::SpaceDim &d : plain.data)
      d = rt::SpaceDim::plain(d.len);
    plain.groups.assign(plain.data.size(), 1);
    std::vector<unsigned> all;
    for (unsigned j = 0; j < plain.data.size(); ++j) {
      plain.kdims.push_back(rt::KDim::plain(plain.data[j].len));
      all.push_back(j);
    }
    plain.m = {all};
    plain.device = {rt::SpaceDim::plain(t.dataSize())};
    auto flat = api::checkedLayout(plain);
    ASSERT_TRUE(flat) << flat.error();
    unsigned eb = 1u << (trial % 5);
    auto there = api::planNative(*flat, *layout, eb);
    auto back = api::planNative(*layout, *flat, eb);
    ASSERT_TRUE(there && back);
    EXPECT_EQ(wrongCells(*there, 1), 0u) << "trial " << trial;
    EXPECT_EQ(wrongCells(*back, 2), 0u) << "trial " << trial;
  }
}

TEST(ApiTest, BadLayoutsAreRefused) {
  rt::TileMap t;
  t.data = {rt::SpaceDim::plain(6)};
  t.kdims = {rt::KDim::plain(6)};
  t.groups = {1};
  t.m = {{0}};
  t.device = {rt::SpaceDim::plain(4)}; // too short for 6 elements
  auto bad = api::checkedLayout(t);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("error: field"), std::string::npos);
  t.device = {rt::SpaceDim::plain(6)};
  t.m = {{3}}; // names a k-Tile dim that does not exist
  EXPECT_FALSE(api::checkedLayout(t));
  EXPECT_FALSE(api::checkedLayout(rt::TileMap()));
  rt::AffineLayout a;
  a.mBits = 2;
  a.dataBits = 2;
  a.row = {1, 1}; // not invertible
  auto affine = api::checkedLayout(a);
  ASSERT_FALSE(affine);
  EXPECT_NE(affine.error().find("invalid affine layout"), std::string::npos);
  a.row = {2, 1};
  auto swapped = api::checkedLayout(a);
  ASSERT_TRUE(swapped) << swapped.error();
  a.row = {1, 2};
  auto identity = api::checkedLayout(a);
  ASSERT_TRUE(identity);
  auto remap = api::planNative(*identity, *swapped, 16);
  ASSERT_TRUE(remap) << remap.error();
  EXPECT_EQ(wrongCells(*remap, 3), 0u);
  // Different data spaces, and a zero element size.
  rt::TileMap six = t;
  six.m = {{0}};
  auto sixLayout = api::checkedLayout(six);
  ASSERT_TRUE(sixLayout) << sixLayout.error();
  EXPECT_FALSE(api::planNative(*sixLayout, *swapped, 4));
  EXPECT_FALSE(api::planNative(*sixLayout, *sixLayout, 0));
}

/// A random HPF program: arrays of 1 or 2 dims on 1-12 PEs, distributed,
/// redistributed and copied.
std::string randomProgram(std::mt19937 &rng, int &statements) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const char *types[] = {"u8", "i16", "f32", "f64", "c128"};
  auto format = [&](int len, int pes) -> std::string {
    switch (pick(0, 4)) {
    case 0:
      return "block";
    case 1:
      return "cyclic";
    case 2:
      return "cyclic(" + std::to_string(pick(2, 5)) + ")";
    case 3:
      return "block(" + std::to_string((len + pes - 1) / pes + pick(0, 3)) +
             ")";
    default:
      return "*";
    }
  };
  int pes = pick(1, 12);
  std::ostringstream os;
  os << "machine maspar(pes = [" << pes << "], memory = 4096);\n"
     << "processors P(" << pes << ");\n";
  int rank = pick(1, 2);
  std::vector<int> shape;
  for (int j = 0; j < rank; ++j)
    shape.push_back(pick(1, 40));
  std::string dims;
  for (int j = 0; j < rank; ++j)
    dims += (j ? ", " : "") + std::to_string(shape[j]);
  const char *type = types[pick(0, 4)];
  // One distributed dim (the rest '*'), as HPF maps it onto 1-d P.
  auto distribution = [&]() {
    int which = pick(0, rank - 1);
    std::string f;
    for (int j = 0; j < rank; ++j) {
      std::string one = format(shape[j], pes);
      if (j != which || one == "*")
        one = j == which ? "block" : "*";
      f += (j ? ", " : "") + one;
    }
    return f;
  };
  os << "array A(" << dims << ") : " << type << ";\n"
     << "array B(" << dims << ") : " << type << ";\n"
     << "distribute A(" << distribution() << ") onto P;\n"
     << "distribute B(" << distribution() << ") onto P;\n";
  statements = pick(1, 4);
  for (int s = 0; s < statements; ++s) {
    if (pick(0, 2) == 0)
      os << (pick(0, 1) ? "copy A to B;\n" : "copy B to A;\n");
    else
      os << "redistribute " << (pick(0, 1) ? "A" : "B") << "(" << distribution()
         << ") onto P;\n";
  }
  return os.str();
}

TEST(ApiTest, RandomProgramsRunAndVerify) {
  std::mt19937 rng(2026);
  int programs = 0, verified = 0;
  for (int trial = 0; trial < 200; ++trial) {
    int statements = 0;
    std::string text = randomProgram(rng, statements);
    auto p = api::compile(text, "random.map");
    ASSERT_TRUE(p) << text << p.error();
    ASSERT_EQ(p->statements().size(), size_t(statements)) << text;
    api::NativeRunOptions options;
    options.threads = 1 + trial % 3;
    auto results = p->runNative(options);
    ASSERT_TRUE(results) << text << results.error();
    for (const api::NativeResult &r : *results) {
      EXPECT_TRUE(r.verified) << text << nativeResultLine(r);
      verified += r.verified;
    }
    for (size_t i = 0; i < p->statements().size(); ++i) {
      auto remap = p->planNative(i);
      ASSERT_TRUE(remap) << remap.error();
      EXPECT_EQ(wrongCells(*remap, uint8_t(trial)), 0u) << text << i;
    }
    ++programs;
  }
  EXPECT_EQ(programs, 200);
  EXPECT_GT(verified, 400);
}

} // namespace
