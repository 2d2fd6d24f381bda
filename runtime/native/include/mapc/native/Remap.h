//===- Remap.h - remaps of a program's own arrays on the host CPU ---------===//
//
// The native target (language.md "Targets"): a layout's device is one
// contiguous buffer of elements in device-address order, memory fastest, as
// --emit=layout prints it; empty cells are padding. A remap moves an array
// from the source layout's buffer to the destination layout's buffer.
//
// Plan once, execute many (as HPTT does): NativeRemap::plan looks at the two
// layouts of an rt::RemapSpec and chooses kernels; execute() runs them on
// caller buffers, as often as wanted, from any thread.
//
// Semantics of execute(src, dst):
//   * src holds spec.source.size() elements, dst spec.dest.size(); they
//     must not overlap.
//   * every destination cell that holds data receives the element of that
//     data index (every copy of a replicated destination is written); a
//     replicated source is read at its first address (003 6.2.1).
//   * padding cells of dst are left as they were.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_REMAP_H
#define MAPC_NATIVE_REMAP_H

#include "mapc/runtime/RemapSpec.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

namespace mapc::native {

struct NativeOptions {
  /// Worker threads; 0 means every core of the host.
  unsigned threads = 0;
};

class NativeRemap {
public:
  /// Plans `spec`, or says why it cannot (sizes beyond the host's address
  /// space, say). Never aborts.
  static std::variant<NativeRemap, std::string>
  plan(const rt::RemapSpec &spec, const NativeOptions &options = {});

  /// Out of place: see the file comment.
  void execute(const void *src, void *dst) const;
  /// In place: `buffer` holds max(source, dest) cells, the source layout on
  /// entry and the destination layout on return; `scratch` as many cells.
  void executeInPlace(void *buffer, void *scratch) const;

  /// The kernels chosen and why, for --emit=plan --target=native.
  std::string describe() const;
  /// Bytes one execute() reads plus writes (the elements moved, each read
  /// once and written at every destination copy).
  uint64_t bytesMoved() const;
  const rt::RemapSpec &spec() const;

  NativeRemap(NativeRemap &&) noexcept;
  NativeRemap &operator=(NativeRemap &&) noexcept;
  ~NativeRemap();

  struct Impl;

private:
  explicit NativeRemap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mapc::native

#endif
