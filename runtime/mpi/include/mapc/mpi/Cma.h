//===- Cma.h - single-copy reads between ranks on one node ----------------===//
//
// Open MPI moves a large contiguous message between two processes of one
// node with one copy: the receiver reads the sender's buffer through Linux's
// cross-memory attach (process_vm_readv(2), "CMA"). A remap's blocks are not
// contiguous, and for those Open MPI's shared-memory transport packs every
// message into shared fragments and unpacks it again: two copies. The
// single-copy transport does what CMA does for contiguous messages, for the
// remap's runs: every receiver reads its elements straight from each
// sender's source buffer into its own destination buffer, one iovec per run
// of consecutive cells on each side (TrafficMatrix::sourceRuns, destRuns;
// a transpose's column block is one run in the sender's memory and many in
// the receiver's), kCmaBatch iovecs a side per system call. MPI only carries
// two small messages per pair of ranks: the sender's buffer address (its source
// is ready) and the receiver's "done" (the sender may return and reuse it).
//
// It needs every rank of the communicator on one node and the right to read
// the others' memory (ptrace access: same user and no Yama restriction, or
// CAP_SYS_PTRACE). cmaInfo() checks both once per communicator, with a probe
// read on every rank, and all ranks agree on the answer; otherwise remaps
// travel as messages (Transport::Messages).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MPI_CMA_H
#define MAPC_MPI_CMA_H

#include "mapc/mpi/Schedule.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mapc::mpi {

/// Whether the ranks of a communicator can read each other's memory.
struct CmaInfo {
  bool usable = false;
  /// Whether every rank is on one node (the shm transport needs only this).
  bool oneNode = false;
  /// Why not, the same text on every rank.
  std::string why;
  /// Every rank's process id.
  std::vector<int64_t> pids;
};

/// Collective on the first call for `comm` (every rank must call it then),
/// free afterwards: the answer is cached on the communicator as an MPI
/// attribute. The environment variable MAPC_MPI_TEST_CMA_FAIL=R makes rank
/// R's probe fail, as EPERM would (tests of the fallback).
const CmaInfo &cmaInfo(MPI_Comm comm);

/// A run of `cells` consecutive cells from cell `start`.
struct CmaRun {
  uint32_t start = 0, cells = 0;
};

/// What one rank reads from another: runs of the sender's source cells and
/// runs of the reader's destination cells, both covering the same elements
/// in the same order (their cell totals are equal).
struct CmaReads {
  std::vector<CmaRun> source, dest;
};

/// Reads `reads` (elements of `elementBytes` bytes) from process `pid`'s
/// buffer at address `remote` into `local`, at most kCmaBatch iovecs a side
/// per system call. Returns false, with the reason, when a read fails or
/// comes back short.
bool cmaRead(int64_t pid, uint64_t remote, unsigned char *local,
             const CmaReads &reads, unsigned elementBytes, std::string *why);

/// The transport's costs (LinkCosts::tr, tseg, tpiece, tcall), measured
/// with every rank reading the next one's memory at the same time (as in a
/// remap, so that ranks sharing caches or cores are priced so), each try
/// timed until the slowest rank is done, the best of seven. Collective (after
/// cmaInfo); the same on every rank. Returns false, leaving `c` alone, when
/// there are fewer than two ranks or the reads are not usable.
bool measureCmaCosts(MPI_Comm comm, LinkCosts &c);

} // namespace mapc::mpi

#endif
