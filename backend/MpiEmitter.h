//===- MpiEmitter.h - C++ for the MPI target (--emit=cpp --target=mpi) ----===//
//
// One function per data-moving statement, for the user's own MPI program:
//
//   int remap_A_1(const void *src, void *dst, MPI_Comm comm);
//
// src holds the calling rank's cells of the source layout, dst its cells of
// the destination layout (docs/mpi.md: rank r holds a block of consecutive
// PEs, its cells in address order); every rank of comm calls it together.
// The first call on a communicator plans (measuring Ts, Tw and Tc and
// choosing 004's algorithm), later calls only execute. Returns 0, or 1 after
// printing why to stderr. mapc_mpi_set_options() sets the algorithm and the
// model's costs for later plans. The code links MapcMpi and MapcRuntime.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_MPIEMITTER_H
#define MAPC_BACKEND_MPIEMITTER_H

#include "mapc/runtime/RemapSpec.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mapc {

struct MpiEmitted {
  std::string function;    ///< C identifier
  std::string label;       ///< "remap A: R -> C"
  std::string description; ///< label and file:line:col
  rt::RemapSpec spec;
};

/// Writes the whole translation unit. It includes no header of its own,
/// so it builds alone.
void emitMpiSource(const std::vector<MpiEmitted> &remaps,
                   llvm::raw_ostream &os);

/// Writes the header that declares the source's functions, table and
/// mapc_mpi_set_options for the caller (--emit=header --target=mpi).
void emitMpiHeader(const std::vector<MpiEmitted> &remaps,
                   const std::string &headerName, llvm::raw_ostream &os);

} // namespace mapc

#endif
