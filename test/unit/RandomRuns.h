//===- RandomRuns.h - random run lists for the cma and shm copy tests -----===//
#ifndef MAPC_TEST_UNIT_RANDOMRUNS_H
#define MAPC_TEST_UNIT_RANDOMRUNS_H

#include "mapc/mpi/Cma.h"
#include "mapc/mpi/Schedule.h"

#include <cstdint>
#include <cstring>
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

/// Round `round` of a random copy test: two run lists over the same cells,
/// a random source and the destination the runs describe.
struct RandomCopy {
  unsigned elemBytes = 1;
  mpi::CmaReads reads;
  std::vector<unsigned char> src, dst, want;
};

/// Few and long runs or many short ones, elements of 1 to 16 bytes.
inline RandomCopy randomCopy(std::mt19937 &rng, int round) {
  RandomCopy c;
  const unsigned eb = std::vector<unsigned>{1, 2, 3, 8, 16}[round % 5];
  c.elemBytes = eb;
  uint32_t n = std::uniform_int_distribution<uint32_t>(1, 6000)(rng);
  uint32_t space = n + std::uniform_int_distribution<uint32_t>(0, n)(rng);
  uint32_t longest = round % 3 == 0 ? 1 : round % 3 == 1 ? 4 : 700;
  std::vector<uint32_t> from = randomCells(rng, n, space, longest);
  std::vector<uint32_t> into =
      randomCells(rng, n, space, round % 2 ? longest : 3);
  for (uint32_t k = 0; k < n; ++k) {
    extend(c.reads.source, from[k]);
    extend(c.reads.dest, into[k]);
  }
  c.src.resize(size_t(space) * eb);
  c.dst.assign(c.src.size(), 0xA5);
  c.want.assign(c.src.size(), 0xA5);
  for (size_t k = 0; k < c.src.size(); ++k)
    c.src[k] = static_cast<unsigned char>(rng());
  for (uint32_t k = 0; k < n; ++k)
    std::memcpy(&c.want[size_t(into[k]) * eb], &c.src[size_t(from[k]) * eb],
                eb);
  return c;
}

/// The price tests' traffic: on two ranks, rank 0 takes 3000 elements of 8
/// bytes from rank 1 in 3 source runs and 2500 destination runs, and keeps
/// 10 of its own.
inline mpi::TrafficMatrix twoRankTraffic() {
  mpi::TrafficMatrix t;
  t.ranks = 2;
  t.elementBytes = 8;
  t.counts = {10, 0, 3000, 0};
  t.sourceRuns = {0, 0, 3, 0};
  t.destRuns = {0, 0, 2500, 0};
  return t;
}

} // namespace mapc::test

#endif
