//===- Shm.h - copies out of MPI-3 shared-memory windows ------------------===//
//
// The single-copy transport (Cma.h) reads with process_vm_readv, and the
// kernel pins every page it reads from: on 4 ranks sharing 2 cores the
// pinning costs about half as much as the copy (docs/mpi.md, "The 4-rank
// gap, examined"). Ranks of one node can instead map each other's buffers:
// memory allocated with MPI_Win_allocate_shared over the ranks of a node
// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) is mapped into every one of
// them, so a reader copies a sender's runs with plain loads and stores, a
// memcpy per piece, no system call and no pinning.
//
// allocShared() (or mapc_mpi_alloc_shared() from C) allocates such a buffer
// and registers its window: every rank of the node learns where each
// other rank's part of it lies in its owner's address space (the address
// the owner will post) and in its own (MPI_Win_shared_query). The shm
// transport (Transport::Shm) plans and synchronises exactly as cma does
// (the sender posts its source address; the reader sends "done" when it is
// through), and the reader looks the posted address up with sharedView():
// when the sender's source lies in a registered window it copies from the
// mapping, otherwise it falls back to process_vm_readv (when cmaInfo()
// says the reads work), otherwise execute() fails.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MPI_SHM_H
#define MAPC_MPI_SHM_H

#include "mapc/mpi/Cma.h"
#include "mapc/mpi/Schedule.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mapc::mpi {

/// Allocates `bytes` (page-aligned, zeroed) in an MPI-3 shared-memory
/// window over the ranks of `comm` that share this rank's node. Collective
/// over `comm`; each rank may ask for a different size (0 included: it
/// still gets a distinct pointer). Null when MPI refused.
void *allocShared(size_t bytes, MPI_Comm comm);

/// Frees a buffer of allocShared(); collective over the ranks of the node
/// it was allocated on. Null is ignored.
void freeShared(void *buffer);

/// Frees a buffer of allocShared() when its owner goes (collective).
struct FreeShared {
  void operator()(unsigned char *buffer) const { freeShared(buffer); }
};
using SharedBuffer = std::unique_ptr<unsigned char, FreeShared>;

/// allocShared() of `bytes` as a SharedBuffer; null when MPI refused.
inline SharedBuffer allocSharedBuffer(size_t bytes, MPI_Comm comm) {
  return SharedBuffer(static_cast<unsigned char *>(allocShared(bytes, comm)));
}

/// Whether [p, p + bytes) lies in one buffer of allocShared() (bytes may
/// be 0: then p must point into one).
bool inSharedWindow(const void *p, size_t bytes);

/// Where process `pid`'s bytes [address, address + bytes) are mapped in
/// this process, when they lie in one buffer of a window this process
/// shares with it; else null.
const unsigned char *sharedView(int64_t pid, uint64_t address, size_t bytes);

/// Copies `reads` (elements of `elementBytes` bytes) from `remote` (a
/// sender's source, mapped here) into `local`: a memcpy per piece that is
/// consecutive on both sides, the next destination run prefetched.
void shmCopy(const unsigned char *remote, unsigned char *local,
             const CmaReads &reads, unsigned elementBytes);

/// Whether every rank of `comm` is on this rank's node (collective on the
/// first call for `comm`, cached on it as cmaInfo() is).
bool oneNode(MPI_Comm comm);

/// The transport's costs (LinkCosts::tsh, tshrun), measured with every
/// rank copying out of the next rank's window at the same time: 1 MiB in
/// one piece against 8 bytes (Tsh), 64 KiB as 1024 pieces of 64 bytes
/// (Tshrun); each try timed until the slowest rank is done, the best of
/// seven. Collective; the same on every rank. Returns false, leaving `c`
/// alone, when there are fewer than two ranks or they span nodes.
bool measureShmCosts(MPI_Comm comm, LinkCosts &c);

} // namespace mapc::mpi

extern "C" {
/// C spelling of allocShared() / freeShared(), for callers of the code
/// --emit=cpp --target=mpi writes: buffers from here let a remap run on
/// the shm transport.
void *mapc_mpi_alloc_shared(size_t bytes, MPI_Comm comm);
void mapc_mpi_free_shared(void *buffer);
}

#endif
