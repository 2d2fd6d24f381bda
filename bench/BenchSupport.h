//===- BenchSupport.h - what the benchmark drivers share ------------------===//
#ifndef MAPC_BENCH_BENCHSUPPORT_H
#define MAPC_BENCH_BENCHSUPPORT_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mapc::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Stops the driver: a benchmark that measures a broken plan means nothing.
[[noreturn]] inline void die(const char *driver, const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: FATAL: %s\n", driver, msg.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace mapc::bench

#endif
