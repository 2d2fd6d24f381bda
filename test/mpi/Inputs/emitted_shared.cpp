// Calls the functions of a --emit=cpp --target=mpi translation unit through
// its header on buffers from mapc_mpi_alloc_shared (MPI-3 shared windows):
// under auto with the shared-memory copies priced free, the single-copy
// reads and the messages dear (so auto picks shm wherever there is traffic),
// then with --mpi-transport=shm forced, then on ordinary buffers with shm
// forced (the reads stand in). Every element is checked on every rank. Rank 0
// prints, per function and case, "NAME CASE: verified, ran ALGORITHM, W from
// windows, F read" (W and F: senders' sources copied out of windows and read
// with process_vm_readv, summed over the ranks) or a mismatch.
#include "program.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct Outcome {
  uint64_t bad = 0, copies = 0, fallbacks = 0;
};

Outcome run(const MapcMpiRemap &r, uint64_t tag, bool shared) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  mapc::rt::RemapSpec spec = r.spec();
  auto sd = mapc::mpi::distributionOf(spec.source, ranks);
  auto dd = mapc::mpi::distributionOf(spec.dest, ranks);
  unsigned eb = spec.elementBytes;
  size_t srcBytes = size_t(sd.cells(rank)) * eb,
         dstBytes = size_t(dd.cells(rank)) * eb;
  std::vector<unsigned char> srcHeap(srcBytes + 1), dstHeap(dstBytes + 1);
  auto *src = shared ? static_cast<unsigned char *>(
                           mapc_mpi_alloc_shared(srcBytes, MPI_COMM_WORLD))
                     : srcHeap.data();
  auto *dst = shared ? static_cast<unsigned char *>(
                           mapc_mpi_alloc_shared(dstBytes, MPI_COMM_WORLD))
                     : dstHeap.data();
  mapc::mpi::storeLocalPattern(spec.source, sd, rank, eb, tag, src);
  uint64_t mine[3] = {uint64_t(r.run(src, dst, MPI_COMM_WORLD) != 0), 0, 0};
  mine[0] += mapc::mpi::countLocalMismatches(spec.dest, dd, rank, eb, tag, dst);
  if (const mapc::mpi::MpiRemap *plan = r.plan()) {
    mine[1] = plan->lastTimes().shmCopies;
    mine[2] = plan->lastTimes().shmFallbacks;
  }
  uint64_t all[3] = {0, 0, 0};
  MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (shared) {
    mapc_mpi_free_shared(src);
    mapc_mpi_free_shared(dst);
  }
  return {all[0], all[1], all[2]};
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failures = 0;
  struct Case {
    const char *name;
    mapc::mpi::Transport transport;
    bool shared;
  };
  for (Case c : {Case{"auto", mapc::mpi::Transport::Auto, true},
                 Case{"shm", mapc::mpi::Transport::Shm, true},
                 Case{"shm-heap", mapc::mpi::Transport::Shm, false}}) {
    mapc::mpi::MpiOptions options;
    options.transport = c.transport;
    // Every cost given, so that the pick does not depend on the load.
    options.ts = 1e-6;
    options.to = 1e-7;
    options.tw = 1e-7;
    options.tc = 1e-10;
    options.tq = 0;
    options.tsh = 0;
    options.tshrun = 0;
    options.tcall = 1;
    mapc_mpi_set_options(options);
    for (unsigned k = 0; k < mapc_mpi_remap_count; ++k) {
      const MapcMpiRemap &r = mapc_mpi_remaps[k];
      Outcome o = run(r, k + 1, c.shared);
      failures += o.bad != 0;
      const mapc::mpi::MpiRemap *plan = r.plan();
      if (rank == 0)
        std::printf("%s %s: %s, ran %s, %llu from windows, %llu read\n", r.name,
                    c.name, o.bad ? "MISMATCH" : "verified",
                    plan ? mapc::mpi::algorithmName(plan->chosen().algorithm)
                         : "nothing",
                    (unsigned long long)o.copies,
                    (unsigned long long)o.fallbacks);
    }
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
