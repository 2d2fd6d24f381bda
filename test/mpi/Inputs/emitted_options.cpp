// Calls the functions of a --emit=cpp --target=mpi translation unit through
// the header --emit=header --target=mpi writes for it, under each algorithm
// that mapc_mpi_set_options forces in turn, and checks every element on
// every rank. Rank 0 prints "NAME ALGORITHM: verified" or a mismatch.
#include "emitted_check.h"
#include "program.h"

#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failures = 0;
  for (mapc::mpi::Algorithm a :
       {mapc::mpi::Algorithm::Pairwise, mapc::mpi::Algorithm::Bruck,
        mapc::mpi::Algorithm::Alltoallv}) {
    mapc::mpi::MpiOptions options;
    options.algorithm = a;
    mapc_mpi_set_options(options);
    for (unsigned k = 0; k < mapc_mpi_remap_count; ++k) {
      const MapcMpiRemap &r = mapc_mpi_remaps[k];
      uint64_t allBad = runAndCount(r.run, r.spec(), k + 1);
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
