//===- MapFuzzer.cpp - libFuzzer target: parser, Sema, planners, runs -----===//
//
// One input is one .map file. It goes through what the driver does for
// --emit=ktile, --emit=layout, --emit=cycles, --emit=plan (all three
// planners) and --run, with every output sent to a null stream. A crash, a
// sanitizer report, a hang (libFuzzer's -timeout) or a --run MISMATCH
// (abort) is a finding; each one found becomes a lit test.
// Built by scripts/fuzz.sh with clang-19 (-DMAPC_FUZZ=ON); docs/testing in
// docs/architecture.md ("Fuzzing").
//
//===----------------------------------------------------------------------===//
#include "backend/LayoutPrinter.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "ir/BitMap.h"
#include "ir/KTilePrinter.h"
#include "passes/AffinePlanner.h"
#include "passes/RemapCycles.h"
#include "program/ProgramRun.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mapc;

namespace {

/// Beyond Sema, work grows with the device: keep each input quick so the
/// fuzzer explores (the driver's own limits are tested by test/fuzz/).
constexpr int64_t kMaxFuzzedCells = int64_t(1) << 14;
constexpr size_t kMaxFuzzedBytes = size_t(1) << 16;

void emitCycles(const Program &program, llvm::raw_ostream &os) {
  for (const Statement &st : program.statements) {
    if (st.from < 0 || st.to < 0)
      continue;
    auto maps = statementBitMaps(program, st);
    const auto *m = std::get_if<StatementBitMaps>(&maps);
    if (!m)
      continue;
    std::string why;
    if (!m->src.isPermutation() || !m->dst.isPermutation()) {
      os << affineRemapText(m->src, m->dst, std::nullopt, why);
      continue;
    }
    auto cycles = remapCycles(m->src, m->dst);
    if (auto *c = std::get_if<std::vector<Cycle>>(&cycles))
      os << formatCycles(m->src, *c);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxFuzzedBytes)
    return 0;
  llvm::SourceMgr srcMgr;
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.map"),
      llvm::SMLoc());
  llvm::raw_null_ostream null;
  Diagnostics diags(srcMgr, null);
  ast::Program ast = parseMap(id, diags);
  Program program = analyze(ast, diags);
  if (diags.hadError())
    return 0;
  for (const Layout &l : program.layouts)
    if (l.deviceSize() > kMaxFuzzedCells)
      return 0;

  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    const Layout &l = program.layouts[i];
    if (l.tile)
      printKTileLayout(l.name, l.array, *l.tile, null);
    else
      printDigitMapLayout(l.name, l.array, *l.digits, null);
    printDeviceContents(l, null);
  }
  emitCycles(program, null);

  for (PlannerKind kind :
       {PlannerKind::Optimal, PlannerKind::Atomic, PlannerKind::BruteForce}) {
    ProgramPlans plans;
    Diagnostics planDiags(srcMgr, null);
    if (!planProgram(program, kind, "--run", planDiags, plans))
      continue;
    printPlans(plans, null);
    std::string report;
    llvm::raw_string_ostream os(report);
    if (!runPlans(plans, /*trace=*/false, /*memoryDigest=*/false, os)) {
      // A plan that does not move the data where its layouts say.
      std::fprintf(stderr, "mapc-fuzz: --run failed:\n%s\n", report.c_str());
      std::abort();
    }
  }
  return 0;
}
