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
  EXPECT_TRUE(contains(s, "{\"remap_A_1\", \"remap A: R -> C\", \"A\", \"A\", "
                          "0u, 0u, 1u, remap_A_1, remap_A_1_plan},"));
  EXPECT_TRUE(contains(s, "{\"copy_B_2\", \"copy A to B\", \"A\", \"B\", 0u, "
                          "64u, 1u, copy_B_2, copy_B_2_plan},"));
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

} // namespace
