//===- Parallel.cpp -------------------------------------------------------===//
#include "Parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

using namespace mapc::native;

unsigned mapc::native::resolveThreads(unsigned requested) {
  if (requested)
    return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

void mapc::native::parallelRanges(
    const ThreadBudget &budget, uint64_t items, uint64_t bytes,
    const std::function<void(uint64_t, uint64_t)> &body) {
  // A thread costs tens of microseconds to start: by default each must
  // have a quarter of a MiB to move.
  uint64_t useful =
      budget.minBytesPerThread
          ? std::max<uint64_t>(1, bytes / budget.minBytesPerThread)
          : items;
  uint64_t n = std::min<uint64_t>(
      {uint64_t(std::max(budget.threads, 1u)), items, useful});
  if (n <= 1) {
    if (items)
      body(0, items);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (uint64_t t = 1; t < n; ++t)
    pool.emplace_back([&, t] { body(items * t / n, items * (t + 1) / n); });
  body(0, items / n);
  for (std::thread &th : pool)
    th.join();
}
