//===- Kernel.h - one planned way of moving a remap's elements ------------===//
#ifndef MAPC_NATIVE_KERNEL_H
#define MAPC_NATIVE_KERNEL_H

#include "Parallel.h"

#include <cstdint>
#include <string>

namespace mapc::native {

/// A kernel chosen by NativeRemap::plan. run() must be callable from
/// several threads at once: everything it needs was fixed when planning.
class Kernel {
public:
  virtual ~Kernel() = default;
  /// Moves every element from `src` to `dst` (NativeRemap::execute).
  virtual void run(const uint8_t *src, uint8_t *dst,
                   const ThreadBudget &budget) const = 0;
  /// What the kernel does and why it was chosen, one or more lines.
  virtual std::string describe() const = 0;
};

} // namespace mapc::native

#endif
