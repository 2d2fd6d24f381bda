// Calls the functions of a --emit=cpp --target=mpi translation unit through
// the header --emit=header --target=mpi writes for it, under each algorithm
// that mapc_mpi_set_options forces in turn, and checks every element on
// every rank. Rank 0 prints "NAME ALGORITHM: verified" or a mismatch.
#include "program.h"

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int failures = 0;
  for (mapc::mpi::Algorithm a :
       {mapc::mpi::Algorithm::Pairwise, mapc::mpi::Algorithm::Bruck,
        mapc::mpi::Algorithm::Alltoallv}) {
    mapc::mpi::MpiOptions options;
    options.algorithm = a;
    mapc_mpi_set_options(options);
    for (unsigned k = 0; k < mapc_mpi_remap_count; ++k) {
      const MapcMpiRemap &r = mapc_mpi_remaps[k];
      mapc::rt::RemapSpec spec = r.spec();
      auto sd = mapc::mpi::distributionOf(spec.source, ranks);
      auto dd = mapc::mpi::distributionOf(spec.dest, ranks);
      unsigned eb = spec.elementBytes;
      std::vector<unsigned char> src(size_t(sd.cells(rank)) * eb),
          dst(size_t(dd.cells(rank)) * eb);
      mapc::mpi::storeLocalPattern(spec.source, sd, rank, eb, k + 1,
                                   src.data());
      uint64_t bad = r.run(src.data(), dst.data(), MPI_COMM_WORLD) != 0;
      bad += mapc::mpi::countLocalMismatches(spec.dest, dd, rank, eb, k + 1,
                                             dst.data());
      uint64_t allBad = 0;
      MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      failures += allBad != 0;
      // The plan the call made must have run the forced algorithm.
      const mapc::mpi::MpiRemap *plan = r.plan();
      if (rank == 0)
        std::printf("%s %s: %s, ran %s\n", r.name, mapc::mpi::algorithmName(a),
                    allBad ? "MISMATCH" : "verified",
                    plan ? mapc::mpi::algorithmName(plan->chosen().algorithm)
                         : "nothing");
    }
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
