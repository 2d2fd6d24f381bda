//===- Progress.cpp -------------------------------------------------------===//
#include "Progress.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace mapc;

namespace {
ProgressMode globalMode = ProgressMode::Auto;

// On a terminal a job draws nothing during its first second (short jobs
// stay silent), then redraws five times a second.
constexpr auto kQuietStart = std::chrono::seconds(1);
constexpr auto kRedraw = std::chrono::milliseconds(200);
} // namespace

void Progress::setMode(ProgressMode mode) { globalMode = mode; }

Progress::Progress(std::string what, uint64_t total, bool writesStdout)
    : what(std::move(what)), total(total),
      always(globalMode == ProgressMode::Always),
      terminal(globalMode == ProgressMode::Auto &&
               llvm::sys::Process::StandardErrIsDisplayed() &&
               !(writesStdout && llvm::sys::Process::StandardOutIsDisplayed())),
      start(std::chrono::steady_clock::now()) {
  if (terminal)
    ticker = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!ticker.joinable())
    return;
  {
    std::lock_guard<std::mutex> g(lock);
    stopping = true;
    if (drawn) {
      llvm::errs() << "\r\x1b[K"; // leave the terminal line clean
      llvm::errs().flush();
    }
  }
  wake.notify_all();
  ticker.join();
}

void Progress::update(uint64_t nowDone, const std::string &nowDetail) {
  if (!always && !terminal)
    return;
  std::lock_guard<std::mutex> g(lock);
  done = nowDone;
  if (nowDetail != detail)
    detail = nowDetail;
  if (!always)
    return;
  // Deterministic for tests and logs: a line per tenth of the job or per
  // new detail, without times.
  uint64_t tenth = total ? done * 10 / total : 0;
  if (drawn && tenth == lastTenth && detail == lastDetail)
    return;
  lastTenth = tenth;
  lastDetail = detail;
  draw(false);
}

void Progress::draw(bool withTime) {
  llvm::raw_ostream &os = llvm::errs();
  if (withTime)
    os << "\r\x1b[K"; // "\x1b[K" clears the rest of the line
  os << what;
  if (total)
    os << ": " << (done * 100 / total) << "% (" << done << " of " << total
       << ")";
  if (!detail.empty())
    os << " " << detail;
  if (withTime)
    os << ", "
       << std::chrono::duration_cast<std::chrono::seconds>(
              std::chrono::steady_clock::now() - start)
              .count()
       << " s";
  else
    os << "\n";
  os.flush();
  drawn = true;
}

void Progress::tick() {
  std::unique_lock<std::mutex> g(lock);
  if (wake.wait_for(g, kQuietStart, [this] { return stopping; }))
    return;
  while (!stopping) {
    draw(true);
    wake.wait_for(g, kRedraw, [this] { return stopping; });
  }
}
