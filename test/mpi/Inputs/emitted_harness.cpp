// Runs every function of a --emit=cpp --target=mpi translation unit over
// the ranks of MPI_COMM_WORLD, twice (the first call plans, the second runs
// the cached plan), on the data set --run uses, and checks every element
// on every rank. Rank 0 prints "NAME: verified" or "NAME: MISMATCH, ...".
#include "mapc/mpi/Remap.h"

#include <cstdio>
#include <vector>

struct MapcMpiRemap {
  const char *name;
  int (*run)(const void *src, void *dst, MPI_Comm comm);
  mapc::rt::RemapSpec (*spec)();
  const mapc::mpi::MpiRemap *(*plan)();
};
extern const MapcMpiRemap mapc_mpi_remaps[];
extern const unsigned mapc_mpi_remap_count;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int failures = 0;
  for (unsigned k = 0; k < mapc_mpi_remap_count; ++k) {
    const MapcMpiRemap &r = mapc_mpi_remaps[k];
    mapc::rt::RemapSpec spec = r.spec();
    auto sd = mapc::mpi::distributionOf(spec.source, ranks);
    auto dd = mapc::mpi::distributionOf(spec.dest, ranks);
    unsigned eb = spec.elementBytes;
    std::vector<unsigned char> src(size_t(sd.cells(rank)) * eb),
        dst(size_t(dd.cells(rank)) * eb);
    uint64_t bad = 0, allBad = 0;
    int rc = 0;
    for (int call = 0; call < 2; ++call) {
      mapc::mpi::storeLocalPattern(spec.source, sd, rank, eb, k + 1 + call,
                                   src.data());
      rc |= r.run(src.data(), dst.data(), MPI_COMM_WORLD);
      bad += mapc::mpi::countLocalMismatches(spec.dest, dd, rank, eb,
                                             k + 1 + call, dst.data());
    }
    bad += rc != 0;
    MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    failures += allBad != 0;
    if (rank == 0) {
      if (allBad)
        std::printf("%s: MISMATCH, %llu wrong\n", r.name,
                    (unsigned long long)allBad);
      else
        std::printf("%s: verified\n", r.name);
    }
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
