// What the two harnesses of emitted MPI code share: run one emitted
// function on a data set and count the wrong cells over every rank.
#ifndef MAPC_TEST_MPI_EMITTED_CHECK_H
#define MAPC_TEST_MPI_EMITTED_CHECK_H

#include "mapc/mpi/Remap.h"

#include <vector>

/// Fills this rank's source cells with data set `tag`, calls `run`, and
/// returns the wrong destination cells summed over the ranks of
/// MPI_COMM_WORLD (plus one per rank whose call failed). Collective.
inline uint64_t runAndCount(int (*run)(const void *, void *, MPI_Comm),
                            const mapc::rt::RemapSpec &spec, uint64_t tag) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto sd = mapc::mpi::distributionOf(spec.source, ranks);
  auto dd = mapc::mpi::distributionOf(spec.dest, ranks);
  unsigned eb = spec.elementBytes;
  std::vector<unsigned char> src(size_t(sd.cells(rank)) * eb),
      dst(size_t(dd.cells(rank)) * eb);
  mapc::mpi::storeLocalPattern(spec.source, sd, rank, eb, tag, src.data());
  uint64_t bad = run(src.data(), dst.data(), MPI_COMM_WORLD) != 0;
  bad +=
      mapc::mpi::countLocalMismatches(spec.dest, dd, rank, eb, tag, dst.data());
  uint64_t allBad = 0;
  MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return allBad;
}

#endif
