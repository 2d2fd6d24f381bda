//===- NativeProgram.h - a whole program on the host CPU ------------------===//
//
// What `mapc --run --target=native` and api::Program::runNative share: plan
// every data-moving statement of a checked program with native::NativeRemap,
// refuse what would exceed the host-memory cap, then run the statements in
// program order on real buffers, timing each remap against memcpy and
// checking every destination cell (language.md "Targets").
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_API_NATIVEPROGRAM_H
#define MAPC_API_NATIVEPROGRAM_H

#include "ir/Diagnostics.h"
#include "ir/Program.h"
#include "mapc/mapc.h"
#include "mapc/native/Remap.h"

#include <functional>
#include <optional>
#include <vector>

namespace mapc {

/// One statement planned for the host.
struct NativeStatement {
  const Statement *statement = nullptr;
  rt::RemapSpec spec;
  std::optional<native::NativeRemap> remap;
};

/// Plans every data-moving statement of `program`. Reports, at the
/// statement, what cannot be planned and what would hold more than
/// options.memoryCap bytes of buffers at once; false if anything was
/// reported.
bool planNativeProgram(const Program &program,
                       const api::NativeRunOptions &options, Diagnostics &diags,
                       std::vector<NativeStatement> &out);

/// Runs the planned statements in order on buffers of the host (each array
/// in one buffer in its current layout, filled with the data set
/// rt::patternByte gives the array: its number in declaration order, from
/// 1). Calls `report` after each statement.
std::vector<api::NativeResult>
runNativeProgram(const Program &program,
                 const std::vector<NativeStatement> &statements,
                 const api::NativeRunOptions &options,
                 const std::function<void(const api::NativeResult &)> &report);

/// The line --run --target=native prints for a result (without newline):
/// `LABEL: verified, seconds=S, memcpy_seconds=C, bytes=B`, or
/// `LABEL: MISMATCH, W of N cells wrong, seconds=...`.
std::string nativeResultLine(const api::NativeResult &r);

/// Worker threads that `threads` means: itself, or every core for 0.
unsigned resolveThreads(unsigned threads);

} // namespace mapc

#endif
