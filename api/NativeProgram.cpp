//===- NativeProgram.cpp - a whole program on the host CPU ----------------===//
#include "api/NativeProgram.h"

#include "mapc/runtime/Contents.h"
#include "passes/RemapSpec.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

using namespace mapc;

namespace {

/// Every cell of a destination buffer starts as this byte, so that a
/// kernel that writes a padding cell is caught (padding is left as it was,
/// mapc/native/Remap.h).
constexpr uint8_t kPaddingByte = 0xA5;

/// Timed runs per statement: at least kMinRuns, then more while the runs
/// so far took less than kRunBudget seconds, up to kMaxRuns.
constexpr unsigned kMinRuns = 3, kMaxRuns = 20;
constexpr double kRunBudget = 0.5;

/// Below this many cells (or bytes) one thread fills, checks or copies:
/// starting threads would cost more than the work.
constexpr int64_t kSerialCells = int64_t(1) << 16;

/// Calls f(begin, end) over [0, n) in `threads` contiguous slices.
template <typename F> void parallelFor(int64_t n, unsigned threads, F &&f) {
  if (threads <= 1 || n < kSerialCells) {
    f(int64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  int64_t slice = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    int64_t b = std::min(n, int64_t(t) * slice), e = std::min(n, b + slice);
    if (b < e)
      pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(int64_t(0), std::min(n, slice));
  for (std::thread &t : pool)
    t.join();
}

/// memcpy split over the same threads as the remap: the baseline the
/// remap's time is compared with.
void parallelCopy(uint8_t *dst, const uint8_t *src, uint64_t bytes,
                  unsigned threads) {
  parallelFor(int64_t(bytes), threads, [&](int64_t b, int64_t e) {
    std::memcpy(dst + b, src + b, size_t(e - b));
  });
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Writes data set `tag` into every cell of `l` that holds data; padding
/// cells get kPaddingByte.
void fill(const rt::DeviceLayout &l, unsigned elementBytes, uint64_t tag,
          uint8_t *buffer, unsigned threads) {
  parallelFor(l.size(), threads, [&](int64_t b, int64_t e) {
    for (int64_t a = b; a < e; ++a) {
      int64_t d = l.dataAt(a);
      uint8_t *cell = buffer + uint64_t(a) * elementBytes;
      for (unsigned k = 0; k < elementBytes; ++k)
        cell[k] = d >= 0 ? rt::patternByte(uint64_t(d), tag, k) : kPaddingByte;
    }
  });
}

/// Cells of `l` in `buffer` that do not hold data set `tag` (or, for
/// padding, kPaddingByte).
uint64_t countWrong(const rt::DeviceLayout &l, unsigned elementBytes,
                    uint64_t tag, const uint8_t *buffer, unsigned threads) {
  std::atomic<uint64_t> wrong{0};
  parallelFor(l.size(), threads, [&](int64_t b, int64_t e) {
    uint64_t bad = 0;
    for (int64_t a = b; a < e; ++a) {
      int64_t d = l.dataAt(a);
      const uint8_t *cell = buffer + uint64_t(a) * elementBytes;
      for (unsigned k = 0; k < elementBytes; ++k)
        if (cell[k] !=
            (d >= 0 ? rt::patternByte(uint64_t(d), tag, k) : kPaddingByte)) {
          ++bad;
          break;
        }
    }
    wrong += bad;
  });
  return wrong;
}

uint64_t bufferBytes(const rt::DeviceLayout &l, unsigned elementBytes) {
  return uint64_t(l.size()) * elementBytes;
}

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

} // namespace

unsigned mapc::resolveThreads(unsigned threads) {
  if (threads)
    return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

bool mapc::planNativeProgram(const Program &program,
                             const api::NativeRunOptions &options,
                             Diagnostics &diags,
                             std::vector<NativeStatement> &out) {
  // Each array's buffer in its current layout, as the run will hold them.
  std::map<std::string, uint64_t> live;
  bool good = true;
  native::NativeOptions nativeOptions;
  nativeOptions.threads = options.threads;
  for (const Statement &st : program.statements) {
    if (st.from < 0 || st.to < 0)
      continue;
    NativeStatement ns;
    ns.statement = &st;
    ns.spec = remapSpecOf(program, st);
    unsigned eb = ns.spec.elementBytes;
    uint64_t srcBytes = bufferBytes(ns.spec.source, eb),
             dstBytes = bufferBytes(ns.spec.dest, eb);
    live.emplace(st.array, srcBytes);
    uint64_t peak = dstBytes;
    for (const auto &entry : live)
      peak += entry.second;
    live[st.kind == Statement::Copy ? st.target : st.array] = dstBytes;
    if (peak > options.memoryCap) {
      diags.error(st.loc,
                  "this statement needs " + mib(peak) +
                      " of host buffers on --target=native (" +
                      std::to_string(ns.spec.source.size()) + " source and " +
                      std::to_string(ns.spec.dest.size()) + " destination " +
                      "cells of " + std::to_string(eb) +
                      " bytes, and the other arrays), more than the " +
                      mib(options.memoryCap) + " a native run may hold",
                  "run smaller arrays here; the emitted functions "
                  "(--emit=cpp --target=native) and the C++ API move arrays "
                  "of any size in the caller's own buffers");
      good = false;
      continue;
    }
    auto planned = native::NativeRemap::plan(ns.spec, nativeOptions);
    if (auto *why = std::get_if<std::string>(&planned)) {
      diags.error(st.loc, "cannot plan this statement for the host: " + *why,
                  "the native target takes every layout mapc accepts; "
                  "report this with the program");
      good = false;
      continue;
    }
    ns.remap.emplace(std::move(std::get<native::NativeRemap>(planned)));
    out.push_back(std::move(ns));
  }
  return good;
}

std::vector<api::NativeResult> mapc::runNativeProgram(
    const Program &program, const std::vector<NativeStatement> &statements,
    const api::NativeRunOptions &options,
    const std::function<void(const api::NativeResult &)> &report) {
  unsigned threads = resolveThreads(options.threads);
  // As the simulator's --run: array i (from 1) holds data set i, and a
  // copy hands its data set to the target.
  std::map<std::string, uint64_t> tag;
  for (size_t i = 0; i < program.arrays.size(); ++i)
    tag[program.arrays[i].name] = i + 1;
  std::map<std::string, std::vector<uint8_t>> buffers;
  std::vector<api::NativeResult> results;
  for (const NativeStatement &ns : statements) {
    const Statement &st = *ns.statement;
    const rt::RemapSpec &spec = ns.spec;
    const native::NativeRemap &remap = *ns.remap;
    unsigned eb = spec.elementBytes;
    std::vector<uint8_t> &src = buffers[st.array];
    if (src.size() != bufferBytes(spec.source, eb)) {
      // First use of the array (or a shape the run has not seen it in):
      // store its data set in the statement's source layout.
      src.assign(bufferBytes(spec.source, eb), 0);
      fill(spec.source, eb, tag[st.array], src.data(), threads);
    }
    std::vector<uint8_t> dst(bufferBytes(spec.dest, eb), 0);
    const std::string holder =
        st.kind == Statement::Copy ? st.target : st.array;
    tag[holder] = tag[st.array];

    api::NativeResult r;
    r.label = spec.label;
    r.bytes = remap.bytesMoved();
    uint64_t arrayBytes = uint64_t(spec.dataSize()) * eb;
    remap.execute(src.data(), dst.data()); // warm-up: faults the pages in
    auto start = std::chrono::steady_clock::now();
    r.seconds = 1e300;
    while (r.runs < kMinRuns ||
           (r.runs < kMaxRuns && secondsSince(start) < kRunBudget)) {
      auto t = std::chrono::steady_clock::now();
      remap.execute(src.data(), dst.data());
      r.seconds = std::min(r.seconds, secondsSince(t));
      ++r.runs;
    }
    // memcpy of the array's bytes as many times, into the destination
    // buffer (every element has a cell there, so it is large enough).
    r.memcpySeconds = 1e300;
    for (unsigned i = 0; i < r.runs; ++i) {
      auto t = std::chrono::steady_clock::now();
      parallelCopy(dst.data(), src.data(), arrayBytes, threads);
      r.memcpySeconds = std::min(r.memcpySeconds, secondsSince(t));
    }
    // The result that is checked and kept: one more remap into a buffer
    // of padding bytes, which must stay where the layout has no data.
    std::fill(dst.begin(), dst.end(), kPaddingByte);
    remap.execute(src.data(), dst.data());
    r.cells = uint64_t(spec.dest.size());
    r.wrongCells = countWrong(spec.dest, eb, tag[holder], dst.data(), threads);
    r.verified = r.wrongCells == 0;
    buffers[holder] = std::move(dst);
    if (report)
      report(r);
    results.push_back(std::move(r));
  }
  return results;
}

std::string mapc::nativeResultLine(const api::NativeResult &r) {
  char times[160];
  std::snprintf(times, sizeof times, "seconds=%.9f, memcpy_seconds=%.9f",
                r.seconds, r.memcpySeconds);
  std::string line = r.label + ": ";
  if (!r.verified)
    line += "MISMATCH, " + std::to_string(r.wrongCells) + " of " +
            std::to_string(r.cells) + " cells wrong, ";
  else
    line += "verified, ";
  return line + times + ", bytes=" + std::to_string(r.bytes);
}
