//===- HugePageHeapTest.cpp - the heap on transparent huge pages ----------===//
//
// useHugePageHeap (program/HugePageHeap.h), in a process of its own (a
// death test's fork) so that this one's malloc keeps its settings: the
// reserve is advised, and a block carved after it sits on huge pages.
//
//===----------------------------------------------------------------------===//
#include "HugePageHeap.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

/// "always" or "madvise" between brackets in the kernel's THP setting.
bool hugePagesOnAdvice() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line.find("[always]") != std::string::npos ||
         line.find("[madvise]") != std::string::npos;
}

/// Kilobytes of huge pages in the mapping that holds `p` (/proc/self/smaps).
long hugeKilobytesAround(const void *p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    unsigned long lo, hi;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {
      inside = lo <= at && at < hi;
      continue;
    }
    long kb;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1)
      return kb;
  }
  return -1;
}

/// The setup, then 8 MiB allocated and written: exits 0 when the heap was
/// advised and the block lies on at least 4 MiB of huge pages, else 1..3.
[[noreturn]] void setUpAndTouch() {
  const mapc::HugePageHeapSetup setup = mapc::useHugePageHeap(64 << 20);
  if (!setup.configured)
    std::exit(1);
  if (setup.advisedBytes < (size_t(62) << 20))
    std::exit(2);
  constexpr size_t kBytes = size_t(8) << 20;
  char *block = static_cast<char *>(std::malloc(kBytes));
  std::memset(block, 1, kBytes);
  const long kb = hugeKilobytesAround(block);
  std::exit(kb >= 4096 ? 0 : 3);
}

TEST(HugePageHeap, ABlockAfterTheSetUpLiesOnHugePages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's";
#endif
#if !defined(__GLIBC__) || !defined(__linux__)
  GTEST_SKIP() << "glibc's malloc on Linux only";
#endif
  if (!hugePagesOnAdvice())
    GTEST_SKIP() << "transparent huge pages are off in this kernel";
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // a fresh process
  EXPECT_EXIT(setUpAndTouch(), testing::ExitedWithCode(0), "");
}

} // namespace
