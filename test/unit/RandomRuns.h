//===- RandomRuns.h - random run lists for the cma and shm copy tests -----===//
#ifndef MAPC_TEST_UNIT_RANDOMRUNS_H
#define MAPC_TEST_UNIT_RANDOMRUNS_H

#include "mapc/mpi/Cma.h"

#include <cstdint>
#include <random>
#include <vector>

namespace mapc::test {

/// Appends cell `x` to `runs`, lengthening the last run when `x` follows it.
inline void extend(std::vector<mpi::CmaRun> &runs, uint32_t x) {
  if (!runs.empty() && runs.back().start + runs.back().cells == x)
    ++runs.back().cells;
  else
    runs.push_back({x, 1});
}

/// `n` distinct cells out of `space`, in runs of 1 to `longest` cells, the
/// runs in random order.
inline std::vector<uint32_t> randomCells(std::mt19937 &rng, uint32_t n,
                                         uint32_t space, uint32_t longest) {
  std::vector<uint32_t> out;
  std::vector<char> used(space, 0);
  while (out.size() < n) {
    uint32_t len = std::uniform_int_distribution<uint32_t>(1, longest)(rng);
    uint32_t at = std::uniform_int_distribution<uint32_t>(0, space - 1)(rng);
    for (uint32_t k = 0; k < len && at + k < space && out.size() < n; ++k) {
      if (used[at + k])
        break;
      used[at + k] = 1;
      out.push_back(at + k);
    }
  }
  return out;
}

} // namespace mapc::test

#endif
