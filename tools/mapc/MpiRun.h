//===- MpiRun.h - the driver's --target=mpi ------------------------------===//
//
// `mpirun -np R mapc FILE.map --run --target=mpi` runs every data-moving
// statement over R ranks (runtime/mpi) and rank 0 prints the line pinned in
// language.md "Targets"; `--emit=plan --target=mpi` prices 004's algorithms
// for the rank count (under mpirun, or --ranks); `--emit=cpp --target=mpi`
// writes one function per statement for the user's MPI program, and
// `--emit=header --target=mpi` their declarations.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TOOLS_MPIRUN_H
#define MAPC_TOOLS_MPIRUN_H

#include "ir/Program.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mapc {

/// Where the driver writes the user's errors: stderr, or nothing on the
/// ranks past the first under mpirun (mapc.cpp).
llvm::raw_ostream &userErrs();
/// The driver's `mapc: error: ` line on userErrs(), for its message.
llvm::raw_ostream &driverError();

/// The --mpi-* options and --ranks, shown by --help beside mapc's own.
llvm::cl::OptionCategory &mpiOptionCategory();
/// The name of the first of those options the command line gives (without
/// its dashes), or empty: they mean nothing without --target=mpi.
std::string givenMpiOption();

enum class MpiMode { Run, Plan, Cpp, Header };

/// What the driver lends --target=mpi: the input's name and sources (for
/// file:line:col in emitted comments), and its -o handling.
struct MpiDriver {
  std::string inputFile;
  std::string headerName; ///< --header-name, for --emit=header's guard
  const llvm::SourceMgr *srcMgr = nullptr;
  std::function<std::unique_ptr<llvm::ToolOutputFile>()> openOutput;
  std::function<int(llvm::ToolOutputFile &, int)> finish;
  /// main's argv: mapc runs mapc-mpi with it (runMpiTarget).
  std::vector<const char *> commandLine;
};

/// Runs `mode` for the checked `program`; returns the exit code (0, 1 on a
/// mismatch, 2 on a usage error). Initialises and finalises MPI itself.
int runMpiTarget(const Program &program, MpiMode mode, const MpiDriver &driver);

} // namespace mapc

#endif
