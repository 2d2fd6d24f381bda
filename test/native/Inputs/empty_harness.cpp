// A program without data-moving statements still gives code that compiles
// cleanly and links (../emitted.test).
#include "mapc_program.h"

#include <cstdio>

int main() {
  static_assert(mapc_program::kRemapCount == 0, "no statements");
  mapc_program::setThreads(1);
  std::printf("empty program: ok\n");
  return 0;
}
