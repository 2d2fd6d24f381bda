//===- CppEmitterTest.cpp - `--emit=cpp` and `--emit=header` text ---------===//
//
// The emitted text is checked here; that it compiles warning-free and runs
// the same ticks as the plan itself is checked by test/tools/
// compile_emitted.py.
//
//===----------------------------------------------------------------------===//
#include "backend/CppEmitter.h"
#include "passes/RemapPlanner.h"

#include <gtest/gtest.h>

using namespace mapc;

namespace {

/// Identity layout on mBits + pBits bits: device bit i holds data bit i.
rt::BitLayout identityLayout(unsigned mBits, unsigned pBits) {
  rt::BitLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = mBits + pBits;
  for (unsigned i = 0; i < l.dataBits; ++i)
    l.dataBit.push_back(int(i));
  l.value.assign(l.dataBits, 0);
  return l;
}

/// The layout with device bits `a` and `b` exchanged and bit `inv` inverted.
rt::BitLayout swapped(rt::BitLayout l, unsigned a, unsigned b, int inv = -1) {
  std::swap(l.dataBit[a], l.dataBit[b]);
  if (inv >= 0)
    l.value[unsigned(inv)] ^= 1;
  return l;
}

rt::Plan plan(const rt::BitLayout &src, const rt::BitLayout &dst,
              unsigned elemBytes, bool copy, PlannerKind kind) {
  PlanRequest req;
  req.src = src;
  req.dst = dst;
  req.elemBytes = elemBytes;
  req.copy = copy;
  req.shape = {4, 4, 4};
  auto planned = planRemap(req, kind);
  if (auto *err = std::get_if<std::string>(&planned)) {
    ADD_FAILURE() << *err;
    return {};
  }
  return std::get<rt::Plan>(planned);
}

/// Two remaps on a 4 x 4 machine with 8 elements per PE: a transpose-like
/// in-place swap of m- and p-bits, and a brute-force copy.
std::vector<EmittedRemap> twoRemaps() {
  rt::BitLayout a = identityLayout(3, 4);
  std::vector<EmittedRemap> rs(2);
  rs[0].function = "remap_A_1";
  rs[0].description = "remap A: R -> C (input.map:12:1)";
  rs[0].plan = plan(a, swapped(swapped(a, 1, 5), 2, 6, 0), 4, false,
                    PlannerKind::Optimal);
  rs[0].srcBase = rs[0].dstBase = 0;
  rs[0].label = "remap A: R -> C";
  rs[0].array = rs[0].target = "A";
  rs[0].dataSet = 1;
  rs[1].function = "copy_B_2";
  rs[1].description = "copy B <- A (input.map:14:1)";
  rs[1].plan = plan(a, swapped(a, 0, 3), 2, true, PlannerKind::BruteForce);
  rs[1].srcBase = 0;
  rs[1].dstBase = 64;
  rs[1].label = "copy A to B";
  rs[1].array = "A";
  rs[1].target = "B";
  rs[1].dataSet = 1;
  return rs;
}

EmitOptions options() {
  EmitOptions o;
  o.peWidth = 4;
  o.peHeight = 4;
  o.clusterSize = 4;
  o.scratchBase = 128;
  return o;
}

std::string header(const std::vector<EmittedRemap> &rs,
                   const EmitOptions &o = options()) {
  std::string s;
  llvm::raw_string_ostream os(s);
  emitHeader(rs, o, os);
  return os.str();
}

std::string source(const std::vector<EmittedRemap> &rs,
                   const EmitOptions &o = options()) {
  std::string s;
  llvm::raw_string_ostream os(s);
  emitSource(rs, o, os);
  return os.str();
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos)
      nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

TEST(CppEmitter, HeaderDeclaresMachineAndFunctions) {
  std::vector<EmittedRemap> rs = twoRemaps();
  ASSERT_FALSE(rs[0].plan.steps.empty());
  std::string h = header(rs);
  for (const char *part :
       {"#ifndef MAPC_PROGRAM_H\n", "#define MAPC_PROGRAM_H\n",
        "#include \"mapc/runtime/MasPar.h\"", "namespace mapc_program {",
        "inline constexpr unsigned kPeWidth = 4u;",
        "inline constexpr unsigned kPeHeight = 4u;",
        "inline constexpr unsigned kClusterSize = 4u;",
        "mapc::rt::MasPar makeMachine();",
        "bool remap_A_1(mapc::rt::MasPar &machine, std::string *why = "
        "nullptr);",
        "const mapc::rt::Plan &remap_A_1_plan();",
        "bool copy_B_2(mapc::rt::MasPar &machine, std::string *why = "
        "nullptr);",
        "const mapc::rt::Plan &copy_B_2_plan();",
        "/// remap A: R -> C (input.map:12:1)\n",
        "/// copy B <- A (input.map:14:1)\n", "#endif // MAPC_PROGRAM_H\n"})
    EXPECT_TRUE(contains(h, part)) << part << "\n" << h;
  // Every step's cycle notation, named as in the layout it starts from.
  for (const EmittedRemap &r : rs)
    for (size_t i = 0; i < r.plan.steps.size(); ++i)
      EXPECT_TRUE(
          contains(h, std::to_string(i + 1) + ". " +
                          rt::stepKindName(r.plan.steps[i].kind) + " " +
                          rt::formatMove(r.plan.steps[i].move,
                                         r.plan.layoutAfter(int(i) - 1)) +
                          "\n"))
          << h;
  // The header needs neither LLVM nor the executor.
  EXPECT_FALSE(contains(h, "llvm"));
  EXPECT_FALSE(contains(h, "Execute.h"));
}

TEST(CppEmitter, MemoryCoversEveryRegion) {
  std::vector<EmittedRemap> rs = twoRemaps();
  // Copy: 8 elements of 2 bytes at 64 reach 80; in place: 8 x 4 at 0 reach
  // 32; the brute-force step reads the copy's source, so no scratch.
  EXPECT_TRUE(contains(header(rs), "kMemoryBytes = 80u;"));
  EmitOptions o = options();
  o.memoryBytes = 4096;
  EXPECT_TRUE(contains(header(rs, o), "kMemoryBytes = 4096u;"));
  // An in-place brute-force step goes through the scratch region.
  rs[1].plan = plan(rs[1].plan.source, rs[1].plan.dest, 2, false,
                    PlannerKind::BruteForce);
  EXPECT_TRUE(contains(header(rs), "kMemoryBytes = 144u;"));
}

TEST(CppEmitter, SourceRebuildsPlansFromTables) {
  std::vector<EmittedRemap> rs = twoRemaps();
  std::string s = source(rs);
  const rt::Plan &p = rs[0].plan;
  for (const std::string &part : std::vector<std::string>{
           "#include \"mapc_program.h\"\n",
           "#include \"mapc/runtime/Execute.h\"\n",
           "mapc::rt::MasPar makeMachine() {",
           "const mapc::rt::Plan &remap_A_1_plan() {",
           "static const mapc::rt::Plan plan = [] {",
           "p.source = bitLayout(3u, 4u, 7u, {0, 1, 2, 3, 4, 5, 6}, "
           "{0, 0, 0, 0, 0, 0, 0});",
           "p.dest = bitLayout(3u, 4u, 7u, {0, 5, 6, 3, 4, 1, 2}, "
           "{1, 0, 0, 0, 0, 0, 0});",
           "p.elemBytes = 4u;", "p.copy = false;", "p.planner = \"optimal\";",
           "p.predictedTicks = " + std::to_string(p.predictedTicks) + ";",
           "p.lowerBound = " + std::to_string(p.lowerBound) + ";",
           "bool remap_A_1(mapc::rt::MasPar &machine, std::string *why) {",
           "const mapc::rt::Regions regions{{0u}, {0u}, {128u}};",
           "return mapc::rt::executePlan(machine, remap_A_1_plan(), regions, "
           "{}, why);",
           "p.copy = true;", "p.planner = \"brute-force\";",
           "p.steps.push_back(planStep(mapc::rt::StepKind::BruteForce, ",
           "const mapc::rt::Regions regions{{0u}, {64u}, {128u}};"})
    EXPECT_TRUE(contains(s, part)) << part << "\n" << s;
  // One table row per step, on one line, with the step's own fields.
  for (const EmittedRemap &r : rs)
    for (const rt::Step &st : r.plan.steps) {
      std::string to;
      for (unsigned t : st.move.to)
        to += (to.empty() ? "" : ", ") + std::to_string(t);
      std::string row = "{" + to + "}, 0x";
      bool found = false;
      for (const std::string &l : lines(s))
        found |= contains(l, "p.steps.push_back(planStep(") &&
                 contains(l, row) &&
                 contains(l, ", " + std::to_string(st.predictedTicks) + ", \"" +
                                 st.why + "\"));");
      EXPECT_TRUE(found) << row << "\n" << s;
    }
  EXPECT_FALSE(contains(s, "llvm"));
}

// The table a generic harness walks: every remap in program order with its
// names, regions, data set and functions.
TEST(CppEmitter, RemapTable) {
  std::vector<EmittedRemap> rs = twoRemaps();
  std::string h = header(rs), s = source(rs);
  EXPECT_TRUE(contains(h, "struct RemapEntry {"));
  EXPECT_TRUE(contains(h, "const RemapEntry *remaps();"));
  EXPECT_TRUE(contains(h, "unsigned remapCount();"));
  EXPECT_TRUE(
      contains(s, "{\"remap_A_1\", \"remap A: R -> C\", \"A\", \"A\", "
                  "0u, 0u, 1u, remap_A_1, remap_A_1_plan, nullptr, 0, nullptr, "
                  "0u},"));
  EXPECT_TRUE(contains(
      s, "{\"copy_B_2\", \"copy A to B\", \"A\", \"B\", 0u, "
         "64u, 1u, copy_B_2, copy_B_2_plan, nullptr, 0, nullptr, 0u},"));
  EXPECT_TRUE(contains(s, "unsigned remapCount() { return 2u; }"));
  EXPECT_TRUE(
      contains(source({}), "const RemapEntry *remaps() { return nullptr; }"));
}

TEST(CppEmitter, Deterministic) {
  std::vector<EmittedRemap> rs = twoRemaps();
  EXPECT_EQ(header(rs), header(twoRemaps()));
  EXPECT_EQ(source(rs), source(twoRemaps()));
}

TEST(CppEmitter, StringsAreEscaped) {
  std::vector<EmittedRemap> rs = twoRemaps();
  rs[0].plan.steps[0].why = std::string("a \"q\" b\\c\nd\te\x01"
                                        "7f ?\?= \x7f\xc3\xa9");
  rs[0].plan.planner = "x\"y";
  rs[0].description = "line one\nline two \\";
  std::string s = source(rs);
  // \001 then a literal 7: an octal escape stops at three digits, where
  // \x01 would have swallowed the "7f".
  EXPECT_TRUE(contains(s, "\"a \\\"q\\\" b\\\\c\\nd\\te\\0017f ?\\?= "
                          "\\177\\303\\251\"));"))
      << s;
  EXPECT_TRUE(contains(s, "p.planner = \"x\\\"y\";")) << s;
  // A description cannot break out of its comment: no raw newline, and no
  // trailing backslash to splice the next line in.
  std::string h = header(rs);
  EXPECT_TRUE(contains(h, "/// line one\\nline two \\\\.\n")) << h;
  EXPECT_TRUE(contains(s, "// line one\\nline two \\\\.\n")) << s;
  for (const std::string &l : lines(h)) {
    EXPECT_FALSE(l.rfind("line two", 0) == 0) << l;
    EXPECT_TRUE(l.empty() || l.back() != '\\') << l;
  }
  for (const std::string &l : lines(s))
    EXPECT_TRUE(l.empty() || l.back() != '\\') << l;
}

TEST(CppEmitter, NamesAreValidAndDistinct) {
  std::vector<EmittedRemap> rs = twoRemaps();
  rs.push_back(rs[0]); // the same name again
  rs.push_back(rs[0]);
  rs[3].function = "9 bad-name";
  rs.push_back(rs[0]);
  rs[4].function = "int";
  std::string h = header(rs), s = source(rs);
  for (const char *f :
       {"remap_A_1", "remap_A_1_2", "remap_9_bad_name", "int_2"}) {
    std::string decl = std::string("bool ") + f + "(mapc::rt::MasPar &";
    EXPECT_TRUE(contains(h, decl)) << f << "\n" << h;
    EXPECT_TRUE(contains(s, decl)) << f << "\n" << s;
    EXPECT_TRUE(
        contains(s, std::string("const mapc::rt::Plan &") + f + "_plan() {"))
        << f;
  }
  EXPECT_FALSE(contains(h, "bool int("));
}

TEST(CppEmitter, NoRemapsNoHelpers) {
  // Unused helpers would be -Wunused-function errors in the emitted code.
  std::string s = source({});
  EXPECT_TRUE(contains(s, "mapc::rt::MasPar makeMachine() {"));
  EXPECT_FALSE(contains(s, "bitLayout("));
  EXPECT_FALSE(contains(s, "planStep("));
  EXPECT_TRUE(contains(header({}), "kMemoryBytes = 0u;"));

  // A plan without steps (the layouts agree) needs no planStep either.
  std::vector<EmittedRemap> rs(1);
  rs[0].function = "same";
  rt::BitLayout a = identityLayout(2, 4);
  rs[0].plan = plan(a, a, 1, false, PlannerKind::Optimal);
  ASSERT_TRUE(rs[0].plan.steps.empty());
  s = source(rs);
  EXPECT_TRUE(contains(s, "bitLayout("));
  EXPECT_FALSE(contains(s, "planStep("));
}

TEST(CppEmitter, HeaderNameAndGuardOptions) {
  EmitOptions o = options();
  o.headerName = "out/prog.h";
  o.guard = "OUT_PROG_H";
  EXPECT_TRUE(contains(source(twoRemaps(), o), "#include \"out/prog.h\"\n"));
  std::string h = header(twoRemaps(), o);
  EXPECT_TRUE(contains(h, "#ifndef OUT_PROG_H\n"));
  EXPECT_TRUE(contains(h, "#endif // OUT_PROG_H\n"));
}

TEST(CppEmitter, MalformedMoveDoesNotCrash) {
  std::vector<EmittedRemap> rs = twoRemaps();
  rs[0].plan.steps[0].move.to = {5, 99};
  std::string h = header(rs);
  EXPECT_TRUE(contains(h, "(malformed move)")) << h;
  EXPECT_TRUE(contains(source(rs), "{5, 99}"));
}

/// An affine remap on 2 m-bits and 2 p-bits: Gray-coded p-bits (p0 ^= p1)
/// to binary, one exchange step of two orders on a schedule, then a route
/// swapping m0 and p0.
EmittedRemap affineRemap() {
  rt::AffineLayout src;
  src.mBits = 2;
  src.pBits = 2;
  src.dataBits = 4;
  src.row = {0x1, 0x2, 0xc, 0x8};
  rt::AffineLayout dst = src;
  dst.row = {0x4, 0x2, 0x1, 0x8};
  EmittedRemap r;
  r.function = "remap_G_1";
  r.description = "remap G: A -> B (gray.map:9:1)";
  r.label = "remap G: A -> B";
  r.array = r.target = "G";
  r.dataSet = 1;
  rt::Plan &p = r.plan;
  p.source = p.dest = identityLayout(2, 2);
  std::swap(p.dest.dataBit[0], p.dest.dataBit[2]);
  p.elemBytes = 4;
  p.planner = "hypercube";
  p.affine = true;
  p.affineSource = src;
  p.affineDest = dst;
  p.exchangeLowerBound = 1;
  rt::Step ex;
  ex.kind = rt::StepKind::Exchange;
  ex.move = rt::BitMove::identity(4);
  ex.exchanges = {{{2, 0x8}}, {{2, 0x8}}};
  ex.schedule = "rotated";
  ex.predictedTicks = 3;
  ex.why = "exchanges";
  rt::Step route;
  route.kind = rt::StepKind::Route;
  route.move = rt::BitMove::identity(4);
  std::swap(route.move.to[0], route.move.to[2]);
  route.predictedTicks = 5;
  route.why = "e-cube";
  p.steps = {ex, route};
  p.predictedTicks = 8;
  p.lowerBound = 4;
  return r;
}

EmitOptions cubeOptions(unsigned dims) {
  EmitOptions o = options();
  o.onNetwork = true;
  o.network = rt::NetworkShape::booleanCube(dims);
  return o;
}

TEST(CppEmitter, AffinePlanLiterals) {
  std::vector<EmittedRemap> rs{affineRemap()};
  std::string s = source(rs);
  for (const char *part :
       {"#include \"mapc/runtime/LayoutLiterals.h\"\n",
        "mapc::rt::Step planStep(", "exchangeStep(unsigned bits,",
        "    p.affine = true;\n",
        "    p.affineSource = mapc::rt::literal::affineLayout(2u, 2u, 4u, "
        "{0x1u, 0x2u, 0xcu, "
        "0x8u}, 0x0u, 0x0u); // [p: a3 a3^a2 | m: a1 a0]\n",
        "    p.affineDest = mapc::rt::literal::affineLayout(2u, 2u, 4u, {0x4u, "
        "0x2u, 0x1u, "
        "0x8u}, 0x0u, 0x0u); // [p: a3 a0 | m: a1 a2]\n",
        "    p.exchangeLowerBound = 1u;\n",
        "    p.steps.push_back(exchangeStep(4u, {{{2u, 0x8u}}, {{2u, "
        "0x8u}}}, \"rotated\", 3, \"exchanges\")); // [p0 ^= p1], 2 "
        "orders, rotated schedule\n",
        "    p.steps.push_back(planStep(mapc::rt::StepKind::Route, {2, 1, "
        "0, 3}, 0x0u, 0u, false, 5, \"e-cube\")); // (m0, p0)\n"})
    EXPECT_TRUE(contains(s, part)) << part << "\n" << s;
  std::string h = header(rs);
  EXPECT_TRUE(contains(h, "///   (affine layouts, 001: [p: a3 a3^a2 | m: a1 "
                          "a0] to [p: a3 a0 | m: a1 a2])\n"))
      << h;
  EXPECT_TRUE(contains(h, "///   1. exchange [p0 ^= p1], 2 orders, rotated "
                          "schedule\n///   2. route (m0, p0)\n"))
      << h;

  // Plans without affine layouts or exchanges get neither helper.
  s = source(twoRemaps());
  EXPECT_FALSE(contains(s, "affineLayout("));
  EXPECT_FALSE(contains(s, "LayoutLiterals.h"));
  EXPECT_FALSE(contains(s, "exchangeStep("));
  EXPECT_FALSE(contains(s, "p.affine"));
  // Only exchange steps: no planStep.
  rs[0].plan.steps.pop_back();
  s = source(rs);
  EXPECT_TRUE(contains(s, "exchangeStep("));
  EXPECT_FALSE(contains(s, "planStep("));
}

// An exchange step with fields exchangeStep does not take is a planStep row
// with its exchanges and schedule assigned after it.
TEST(CppEmitter, ExchangeStepWithMoreFields) {
  std::vector<EmittedRemap> rs{affineRemap()};
  rs[0].plan.steps[0].chunkBits = 1;
  std::string s = source(rs);
  EXPECT_FALSE(contains(s, "exchangeStep(")) << s;
  EXPECT_TRUE(contains(s, "    p.steps.push_back(planStep(mapc::rt::StepKind::"
                          "Exchange, {0, 1, 2, 3}, 0x0u, 1u, false, 3, "
                          "\"exchanges\")); // [p0 ^= p1], 2 orders, rotated "
                          "schedule\n"
                          "    p.steps.back().exchanges = {{{2u, 0x8u}}, {{2u, "
                          "0x8u}}};\n"
                          "    p.steps.back().schedule = \"rotated\";\n"))
      << s;
}

TEST(CppEmitter, NetworkMachine) {
  std::vector<EmittedRemap> rs{affineRemap()};
  rs.push_back(rs[0]);
  rs[1].function = "copy_H_2";
  rs[1].target = "H";
  rs[1].dstBase = 64;
  rs[1].plan.copy = true;
  std::string h = header(rs, cubeOptions(2)), s = source(rs, cubeOptions(2));
  for (const char *part :
       {"#include \"mapc/runtime/Network.h\"\n", "#include <array>\n",
        "using Machine = mapc::rt::NetworkMachine;\n",
        "inline constexpr bool kCube = true;\n",
        "inline constexpr unsigned kDims = 2u;\n",
        "inline constexpr std::array<unsigned, kDims> kDimSizes = {2u, 2u};\n",
        // The regions reach 64 + 16 bytes; a network has no scratch.
        "inline constexpr uint64_t kMemoryBytes = 80u;\n",
        "mapc::rt::NetworkMachine makeMachine();\n",
        "  bool (*run)(Machine &machine, std::string *why);\n",
        "bool remap_G_1(mapc::rt::NetworkMachine &machine, std::string *why = "
        "nullptr);\n",
        "bool copy_H_2(mapc::rt::NetworkMachine &machine, std::string *why = "
        "nullptr);\n"})
    EXPECT_TRUE(contains(h, part)) << part << "\n" << h;
  for (const char *part :
       {"#include \"mapc/runtime/NetworkExecute.h\"\n",
        "mapc::rt::NetworkMachine makeMachine() {\n"
        "  return mapc::rt::NetworkMachine(\n"
        "      mapc::rt::NetworkShape::booleanCube(kDims), kMemoryBytes);\n}\n",
        "bool copy_H_2(mapc::rt::NetworkMachine &machine, std::string *why) {\n"
        "  const mapc::rt::Regions regions{{0u}, {64u}, {128u}};\n"
        "  return mapc::rt::executeNetworkPlan(machine, copy_H_2_plan(), "
        "regions, {}, why);\n}\n",
        "{\"copy_H_2\", \"remap G: A -> B\", \"G\", \"H\", 0u, 64u, 1u, "
        "copy_H_2, copy_H_2_plan, nullptr, 0, nullptr, 0u},"})
    EXPECT_TRUE(contains(s, part)) << part << "\n" << s;
  for (const std::string &text : {h, s}) {
    EXPECT_FALSE(contains(text, "MasPar")) << text;
    EXPECT_FALSE(contains(text, "kPeWidth")) << text;
    EXPECT_FALSE(contains(text, "executePlan(")) << text;
  }

  // A mesh: built from kDimSizes.
  EmitOptions o = options();
  o.onNetwork = true;
  o.network = rt::NetworkShape::mesh({4, 8});
  h = header(rs, o);
  s = source(rs, o);
  EXPECT_TRUE(contains(h, "inline constexpr bool kCube = false;\n"
                          "inline constexpr unsigned kDims = 2u;\n"
                          "inline constexpr std::array<unsigned, kDims> "
                          "kDimSizes = {4u, 8u};\n"))
      << h;
  EXPECT_TRUE(contains(s, "mapc::rt::NetworkShape::mesh({kDimSizes.begin(), "
                          "kDimSizes.end()}),\n      kMemoryBytes);"))
      << s;

  // The MasPar header names its machine type too.
  EXPECT_TRUE(
      contains(header(twoRemaps()), "using Machine = mapc::rt::MasPar;\n"));
}

TEST(CppEmitter, NetworkHelperNamesAreReserved) {
  std::vector<EmittedRemap> rs{affineRemap(), affineRemap(), affineRemap()};
  rs[0].function = "Machine";
  rs[1].function = "exchangeStep";
  rs[2].function = "kDimSizes";
  std::string h = header(rs, cubeOptions(2));
  for (const char *f : {"Machine_2", "exchangeStep_2", "kDimSizes_2"})
    EXPECT_TRUE(contains(h, std::string("bool ") + f + "(")) << f << "\n" << h;
}

} // namespace
