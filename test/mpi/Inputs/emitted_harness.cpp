// Runs every function of a --emit=cpp --target=mpi translation unit over
// the ranks of MPI_COMM_WORLD, twice (the first call plans, the second runs
// the cached plan), on the data set --run uses, and checks every element
// on every rank. Rank 0 prints "NAME: verified" or "NAME: MISMATCH, ...".
#include "emitted_check.h"

#include <cstdio>

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
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failures = 0;
  for (unsigned k = 0; k < mapc_mpi_remap_count; ++k) {
    const MapcMpiRemap &r = mapc_mpi_remaps[k];
    uint64_t allBad = 0;
    for (int call = 0; call < 2; ++call)
      allBad += runAndCount(r.run, r.spec(), k + 1 + call);
    failures += allBad != 0;
    if (rank == 0) {
      if (allBad)
        std::printf("%s: MISMATCH, %llu wrong\n", r.name,
                    (unsigned long long)allBad);
      else
        std::printf("%s: verified\n", r.name);
    }
  }
  // Every plan priced with the same measured costs: the link costs are
  // measured on the first call for the communicator, not per statement.
  bool same = true;
  const mapc::mpi::MpiRemap *firstPlan =
      mapc_mpi_remap_count ? mapc_mpi_remaps[0].plan() : nullptr;
  for (unsigned k = 1; firstPlan && k < mapc_mpi_remap_count; ++k) {
    const mapc::mpi::MpiRemap *plan = mapc_mpi_remaps[k].plan();
    const mapc::mpi::LinkCosts &a = firstPlan->costs();
    same = same && plan && plan->costs().ts == a.ts &&
           plan->costs().tw == a.tw && plan->costs().tc == a.tc &&
           plan->costs().to == a.to && plan->costs().tq == a.tq;
  }
  if (rank == 0)
    std::printf("link costs: %s\n",
                same ? "measured once" : "measured per statement");
  MPI_Finalize();
  return failures ? 1 : 0;
}
