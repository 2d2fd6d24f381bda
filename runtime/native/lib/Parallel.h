//===- Parallel.h - splitting a kernel's work items over threads ----------===//
//
// Every native kernel cuts its work into independent items (tiles, chunks
// of runs) that write disjoint destination cells, so threads need no
// locks: each takes one contiguous range of items. Threads are started per
// call (std::thread), which keeps a plan free of state and execute()
// callable from any thread at once; small remaps run on the caller alone.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_PARALLEL_H
#define MAPC_NATIVE_PARALLEL_H

#include <cstdint>
#include <functional>

namespace mapc::native {

/// The threads `requested` means: 0 is every core of the host.
unsigned resolveThreads(unsigned requested);

/// How many threads a run may use (NativeOptions, resolved).
struct ThreadBudget {
  unsigned threads = 1;
  uint64_t minBytesPerThread = uint64_t(1) << 18;
};

/// Calls body(begin, end) on consecutive ranges covering [0, items), one
/// range per thread, using at most budget.threads threads and fewer when
/// `bytes` (the data the call moves) is too small to repay starting them.
void parallelRanges(const ThreadBudget &budget, uint64_t items, uint64_t bytes,
                    const std::function<void(uint64_t, uint64_t)> &body);

} // namespace mapc::native

#endif
