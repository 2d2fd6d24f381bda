//===- Api.cpp - mapc as a C++ library (include/mapc/mapc.h) --------------===//
#include "mapc/mapc.h"

#include "api/NativeProgram.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "ir/Diagnostics.h"
#include "ir/Program.h"
#include "passes/RemapSpec.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <mutex>

using namespace mapc;
using api::Expected;
using api::LayoutInfo;
using api::NativeResult;
using api::NativeRunOptions;
using api::StatementInfo;

/// The compiled program with the source it came from, so that errors found
/// later (planning, the memory cap) are located like the compiler's own.
struct api::Program::Impl {
  mutable std::mutex sourceLock; ///< SourceMgr caches line tables lazily
  mutable llvm::SourceMgr srcMgr;
  mapc::Program program;
  std::vector<api::ArrayInfo> arrays;
  std::vector<LayoutInfo> layouts;
  std::vector<StatementInfo> statements;
  std::vector<const Statement *> moving; ///< statements() in ir form

  /// Runs `f(diags)` with diagnostics written to a string; returns it.
  template <typename F> std::string diagnose(F &&f) const {
    std::lock_guard<std::mutex> hold(sourceLock);
    std::string text;
    llvm::raw_string_ostream os(text);
    {
      Diagnostics diags(srcMgr, os);
      f(diags);
      diags.printSummary();
    }
    os.flush();
    return text;
  }
};

api::Program::Program(std::shared_ptr<const Impl> impl)
    : impl(std::move(impl)) {}

const std::vector<api::ArrayInfo> &api::Program::arrays() const {
  return impl->arrays;
}
const std::vector<LayoutInfo> &api::Program::layouts() const {
  return impl->layouts;
}
const std::vector<StatementInfo> &api::Program::statements() const {
  return impl->statements;
}

rt::DeviceLayout api::Program::deviceLayout(size_t index) const {
  return deviceLayoutOf(impl->program.layouts.at(index));
}

rt::RemapSpec api::Program::remapSpec(size_t index) const {
  return remapSpecOf(impl->program, *impl->moving.at(index));
}

Expected<native::NativeRemap>
api::Program::planNative(size_t index,
                         const native::NativeOptions &options) const {
  if (index >= impl->moving.size())
    return Expected<native::NativeRemap>::failure(
        "error: statement " + std::to_string(index) + " does not exist; the " +
        "program has " + std::to_string(impl->moving.size()) +
        " data-moving statements\n");
  const Statement &st = *impl->moving[index];
  auto planned = native::NativeRemap::plan(remapSpec(index), options);
  if (auto *why = std::get_if<std::string>(&planned)) {
    std::string message = *why;
    return Expected<native::NativeRemap>::failure(
        impl->diagnose([&](Diagnostics &diags) {
          diags.error(st.loc,
                      "cannot plan this statement for the host: " + message);
        }));
  }
  return std::move(std::get<native::NativeRemap>(planned));
}

Expected<std::vector<NativeResult>> api::Program::runNative(
    const NativeRunOptions &options,
    const std::function<void(const NativeResult &)> &report) const {
  std::vector<NativeStatement> planned;
  bool good = true;
  std::string text = impl->diagnose([&](Diagnostics &diags) {
    good = planNativeProgram(impl->program, options, diags, planned);
  });
  if (!good)
    return Expected<std::vector<NativeResult>>::failure(text);
  return runNativeProgram(impl->program, planned, options, report);
}

Expected<api::Program> api::compile(std::string_view text,
                                    std::string_view name) {
  auto impl = std::make_shared<api::Program::Impl>();
  impl->srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(text.data(), text.size()),
          llvm::StringRef(name.data(), name.size())),
      llvm::SMLoc());
  bool failed = false;
  std::string errors = impl->diagnose([&](Diagnostics &diags) {
    if (text.size() > kMaxSourceBytes) {
      diags.error(llvm::SMLoc::getFromPointer(
                      impl->srcMgr.getMemoryBuffer(1)->getBufferStart()),
                  "the input is " + std::to_string(text.size()) +
                      " bytes; mapc reads at most " +
                      std::to_string(kMaxSourceBytes),
                  "split the program into smaller files");
      failed = true;
      return;
    }
    // Sema follows align and layout chains recursively: as the mapc tool
    // does, give it a thread with a stack the longest chain fits in.
    llvm::thread worker(std::optional<unsigned>(1u << 30), [&] {
      ast::Program ast = parseMap(1, diags);
      if (!diags.hadError())
        impl->program = analyze(ast, diags);
    });
    worker.join();
    failed = diags.hadError();
  });
  if (failed)
    return Expected<api::Program>::failure(errors);

  const mapc::Program &p = impl->program;
  for (const mapc::ArrayInfo &a : p.arrays)
    impl->arrays.push_back(
        {a.name, a.shape, elemTypeName(a.type), elemTypeBytes(a.type)});
  for (const Layout &l : p.layouts) {
    LayoutInfo info;
    info.name = l.name;
    info.array = l.array;
    info.deviceShape = l.deviceShape();
    info.deviceCells = l.deviceSize();
    impl->layouts.push_back(std::move(info));
  }
  unsigned number = 0;
  for (const Statement &st : p.statements) {
    ++number;
    if (st.from < 0 || st.to < 0)
      continue;
    StatementInfo info;
    info.kind = statementKindWord(st.kind);
    info.label = statementLabel(p, st);
    info.function = statementFunction(st, number);
    info.array = st.array;
    info.target = st.kind == Statement::Copy ? st.target : st.array;
    info.from = size_t(st.from);
    info.to = size_t(st.to);
    auto [line, column] = impl->srcMgr.getLineAndColumn(st.loc, 1);
    info.line = line;
    info.column = column;
    impl->statements.push_back(std::move(info));
    impl->moving.push_back(&st);
  }
  return api::Program(std::move(impl));
}

Expected<rt::DeviceLayout> api::checkedLayout(const rt::TileMap &tile) {
  KTile k;
  static_cast<rt::TileMap &>(k) = tile;
  std::vector<KTileProblem> problems = k.verify();
  if (!problems.empty()) {
    std::string text;
    for (const KTileProblem &p : problems)
      text += std::string("error: field ") + fieldName(p.field) + ": " +
              p.message + (p.hint.empty() ? "" : "\nnote: " + p.hint) + "\n";
    return Expected<rt::DeviceLayout>::failure(text);
  }
  Layout layout;
  layout.name = "layout";
  layout.tile = std::move(k);
  return deviceLayoutOf(layout);
}

Expected<rt::DeviceLayout> api::checkedLayout(const rt::AffineLayout &affine) {
  std::string why;
  if (!affine.valid(&why))
    return Expected<rt::DeviceLayout>::failure(
        "error: invalid affine layout: " + why + "\n");
  if (affine.bits() > 40)
    return Expected<rt::DeviceLayout>::failure(
        "error: the affine layout has " + std::to_string(affine.bits()) +
        " device bits; the native target takes at most 40 (2^40 cells)\n");
  return rt::DeviceLayout::fromAffine(affine);
}

Expected<native::NativeRemap>
api::planNative(const rt::DeviceLayout &from, const rt::DeviceLayout &to,
                unsigned elementBytes, const native::NativeOptions &options,
                std::string label) {
  if (elementBytes == 0)
    return Expected<native::NativeRemap>::failure(
        "error: elementBytes is 0; give the size of one element\n");
  if (from.size() == 0 || to.size() == 0)
    return Expected<native::NativeRemap>::failure(
        "error: a layout is empty; build layouts with checkedLayout\n");
  if (from.dataSize() != to.dataSize())
    return Expected<native::NativeRemap>::failure(
        "error: the layouts map different data spaces (" +
        std::to_string(from.dataSize()) + " and " +
        std::to_string(to.dataSize()) + " elements)\n");
  rt::RemapSpec spec;
  spec.label = std::move(label);
  spec.source = from;
  spec.dest = to;
  spec.elementBytes = elementBytes;
  auto planned = native::NativeRemap::plan(spec, options);
  if (auto *why = std::get_if<std::string>(&planned))
    return Expected<native::NativeRemap>::failure("error: " + *why + "\n");
  return std::move(std::get<native::NativeRemap>(planned));
}
