//===- Progress.h - a progress line on stderr for long jobs ---------------===//
//
// Long outputs (--emit=layout of large devices) and long plans (the
// brute-force planner on 2^24 elements) would otherwise run silently for
// tens of seconds. A Progress redraws one line on stderr, and only when
// stderr is a terminal (or --progress=always): pipes and logs stay clean.
// On a terminal a small thread redraws the line with the elapsed time, so
// one long step (a single plan) still shows that mapc is working.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TOOLS_PROGRESS_H
#define MAPC_TOOLS_PROGRESS_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace mapc {

enum class ProgressMode { Auto, Always, Never };

class Progress {
public:
  /// The mode for every Progress of this process (--progress).
  static void setMode(ProgressMode mode);

  /// A job of `total` units (0: unknown), described by `what`. A job that
  /// `writesStdout` draws nothing when stdout is the same kind of terminal:
  /// its own output shows the progress, and the line would tear it.
  Progress(std::string what, uint64_t total, bool writesStdout = false);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// `done` units are finished; `detail` says what runs now. Cheap: on a
  /// terminal it only records the state for the drawing thread.
  void update(uint64_t done, const std::string &detail = "");

private:
  void draw(bool withTime); // callers hold `lock`
  void tick();

  const std::string what;
  const uint64_t total;
  const bool always, terminal;
  std::chrono::steady_clock::time_point start;
  std::mutex lock;
  std::condition_variable wake;
  bool stopping = false, drawn = false;
  uint64_t done = 0, lastTenth = 0;
  std::string detail, lastDetail;
  std::thread ticker;
};

} // namespace mapc

#endif
