//===- mapc.h - mapc as a C++ library: compile, plan once, execute many ---===//
//
// The library behind `mapc --target=native` (docs/native.md, "The C++ API"),
// for programs that move their own arrays between data layouts:
//
//   auto program = mapc::api::compile(text, "image.map");
//   if (!program) { std::cerr << program.error(); return 1; }
//   auto remap = program->planNative(0);          // statement 0
//   if (!remap) { std::cerr << remap.error(); return 1; }
//   remap->execute(src, dst);                     // as often as wanted
//
// or, with layouts built in code as k-Tile index maps (003 3.2.6) or
// GF(2)-affine bit maps (003 4.1, 001):
//
//   auto from = mapc::api::checkedLayout(tileMapA);   // verified
//   auto to = mapc::api::checkedLayout(tileMapB);
//   auto remap = mapc::api::planNative(*from, *to, sizeof(float));
//
// Nothing here aborts on bad input: every failure comes back as an
// api::Expected holding the diagnostics text, `file:line:col: error: ...`
// with the source line and a hint, as the mapc tool prints it. The header
// needs only the runtime's and the native target's headers (mapc::runtime,
// mapc::native); the compiler behind it (LLVM, ANTLR) stays inside the
// library mapc::compiler.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MAPC_H
#define MAPC_MAPC_H

#include "mapc/native/Remap.h"
#include "mapc/runtime/RemapSpec.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mapc::api {

/// A value or the text of the errors that prevented it (LLVM's Expected
/// without the obligation to check, std::expected before C++23).
template <typename T> class Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  /// A failure with its diagnostics text (never empty).
  static Expected failure(std::string text) {
    Expected e;
    e.error_ = text.empty() ? std::string("error: unknown failure\n")
                            : std::move(text);
    return e;
  }

  explicit operator bool() const { return value_.has_value(); }
  bool ok() const { return value_.has_value(); }
  /// The diagnostics; empty on success.
  const std::string &error() const { return error_; }

  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  /// Moves the value out (success only).
  T take() { return std::move(*value_); }

private:
  Expected() = default;
  std::optional<T> value_;
  std::string error_;
};

/// A declared array.
struct ArrayInfo {
  std::string name;
  std::vector<int64_t> shape; ///< dim 0 first (fastest varying)
  std::string type;           ///< "f32", "u8", ...
  unsigned elementBytes = 0;
};

/// A layout: a named one, an array's initial mapping (named after the
/// array), or one a statement makes (`A@line:col`).
struct LayoutInfo {
  std::string name;
  std::string array;
  std::vector<int64_t> deviceShape; ///< [memory, PE dims...]
  int64_t deviceCells = 0;          ///< cells of the native buffer
};

/// A statement that moves data (remap, copy, redistribute, realign,
/// reshape), in program order.
struct StatementInfo {
  std::string kind;        ///< "remap", "copy", ...
  std::string label;       ///< "remap A: R -> C", as --run prints it
  std::string function;    ///< the emitted function's name, "remap_A_1"
  std::string array;       ///< the array moved (a copy's source)
  std::string target;      ///< the array that receives it (= array unless copy)
  size_t from = 0, to = 0; ///< indices into Program::layouts()
  unsigned line = 0, column = 0;
};

/// One statement's result from Program::runNative.
struct NativeResult {
  std::string label;
  bool verified = false;
  uint64_t wrongCells = 0;  ///< destination cells that were wrong
  uint64_t cells = 0;       ///< destination cells checked
  double seconds = 0;       ///< best of `runs` remaps
  double memcpySeconds = 0; ///< best of as many memcpy of the array's bytes
  uint64_t bytes = 0;       ///< read plus written by one remap
  unsigned runs = 0;
};

struct NativeRunOptions {
  /// Worker threads for the remaps and the memcpy baseline; 0: every core.
  unsigned threads = 0;
  /// Host bytes the run may hold at once (every array's buffer plus the
  /// one being written); statements that would exceed it are refused.
  uint64_t memoryCap = uint64_t(4) << 30;
};

/// A checked .map program. Cheap to copy (the compiled form is shared and
/// immutable); usable from several threads.
class Program {
public:
  const std::vector<ArrayInfo> &arrays() const;
  const std::vector<LayoutInfo> &layouts() const;
  const std::vector<StatementInfo> &statements() const;

  /// Layout `index` as the native target sees it: its index map over one
  /// contiguous buffer of deviceCells elements, memory fastest.
  rt::DeviceLayout deviceLayout(size_t index) const;
  /// Statement `index` as the target-independent remap description.
  rt::RemapSpec remapSpec(size_t index) const;

  /// Plans statement `index` on the host CPU (see mapc/native/Remap.h for
  /// execute() and executeInPlace()).
  Expected<native::NativeRemap>
  planNative(size_t index, const native::NativeOptions &options = {}) const;

  /// Runs every statement on the host as `mapc --run --target=native`
  /// does: fills each array with a data set derived from the data index,
  /// times the remap and memcpy, checks every destination cell. Calls
  /// `report` after each statement; fails (with located diagnostics)
  /// before running anything if a statement cannot be planned or would
  /// exceed options.memoryCap.
  Expected<std::vector<NativeResult>>
  runNative(const NativeRunOptions &options = {},
            const std::function<void(const NativeResult &)> &report = {}) const;

  struct Impl;

private:
  explicit Program(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl;
  friend Expected<Program> compile(std::string_view, std::string_view);
};

/// Parses and checks .map source text; `name` is the file name that
/// diagnostics show.
Expected<Program> compile(std::string_view text,
                          std::string_view name = "<input>");

/// A k-Tile index map built in code, verified (003 3.1.7, 3.2.3-3.2.5) and
/// kept under the compiler's size limits (2^40 cells); with its
/// GF(2)-affine form when it has one, so that the native target can use
/// the bit structure.
Expected<rt::DeviceLayout> checkedLayout(const rt::TileMap &tile);
/// A GF(2)-affine layout built in code (an index bit map, a Gray code, an
/// XOR map: 003 4.1.3, 001), checked (AffineLayout::valid, at most 40 bits).
Expected<rt::DeviceLayout> checkedLayout(const rt::AffineLayout &affine);

/// Plans a remap between two layouts of the same data space with
/// `elementBytes` per element; `copy` says whether source and destination
/// are different arrays (only the label and in-place scratch differ).
Expected<native::NativeRemap>
planNative(const rt::DeviceLayout &from, const rt::DeviceLayout &to,
           unsigned elementBytes, const native::NativeOptions &options = {},
           std::string label = "remap");

} // namespace mapc::api

#endif
