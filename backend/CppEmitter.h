//===- CppEmitter.h - `--emit=cpp` and `--emit=header`: remaps as C++ -----===//
//
// Each remap statement becomes one C++ function that runs its plan on the
// simulated machine of the runtime library (MapcRuntime): the MasPar, or a
// hypercube or mesh network (rt::NetworkMachine). The plan itself is
// written out as literal tables, so the emitted code needs neither mapc nor
// LLVM: it compiles against runtime/include and links MapcRuntime only, and
// it is free of warnings under -Wall -Wextra -Werror.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_CPPEMITTER_H
#define MAPC_BACKEND_CPPEMITTER_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/Network.h"
#include "mapc/runtime/Plan.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapc {

/// One remap statement and the plan that carries it out.
struct EmittedRemap {
  std::string function;    ///< C identifier, e.g. "remap_A_1"
  std::string description; ///< e.g. "remap A: R -> C (input.map:12:1)"
  rt::Plan plan;
  /// Layouts that are not both radix-2 (003 ch. 6): this plan instead of
  /// `plan`, run by rt::executeGeneralPlan.
  std::optional<rt::GeneralPlan> general;
  uint64_t srcBase = 0,
           dstBase = 0; ///< byte offsets of the arrays in PE memory
  std::string label;    ///< e.g. "remap A: R -> C"
  std::string array;    ///< the array moved
  std::string target;   ///< the array that receives it (a copy's target)
  /// The data set `mapc --run` stores in `array` before its first statement
  /// (rt::storePattern's tag): the array's number in declaration order,
  /// from 1.
  uint64_t dataSet = 0;
  /// The statement's lower bound (its plan's, or over its stages).
  int64_t lowerBound = 0;
  /// A statement in two stages (program/TwoStage.h): each a remap of its
  /// own, emitted as FUNCTION_stageK, which FUNCTION runs in order; `plan`
  /// and `general` are then unused.
  std::vector<EmittedRemap> stages;
};

struct EmitOptions {
  std::string headerName = "mapc_program.h"; ///< what the .cpp #includes
  std::string guard = "MAPC_PROGRAM_H";
  unsigned peWidth = 32, peHeight = 32, clusterSize = 16;
  uint64_t memoryBytes = 0; ///< bytes per PE the program needs
  uint64_t scratchBase = 0; ///< scratch region for in-place brute-force steps
  /// A hypercube or mesh machine (001, 002) instead of the MasPar: the
  /// plans run on rt::NetworkMachine(network, kMemoryBytes), and peWidth,
  /// peHeight and clusterSize are not used.
  bool onNetwork = false;
  rt::NetworkShape network;
};

/// The header: namespace mapc_program with the machine's type `Machine`
/// (mapc::rt::MasPar, or mapc::rt::NetworkMachine when opts.onNetwork), its
/// constants (MasPar: kPeWidth, kPeHeight, kClusterSize; network: kCube,
/// kDims, kDimSizes; both: kMemoryBytes), `Machine makeMachine()`, and per
/// remap `bool FUNCTION(Machine &, std::string *why = nullptr)` (the type
/// spelled out) and `const mapc::rt::Plan &FUNCTION_plan()` (for a general
/// remap, 003 ch. 6: `const mapc::rt::GeneralPlan &FUNCTION_plan()`), then
/// a table
/// of all remaps in program order, `const RemapEntry *remaps()` and
/// `unsigned remapCount()`: each entry's function name, label, array and
/// target names, the regions' bases, the data set --run fills the array
/// with, and pointers to FUNCTION (`bool (*)(Machine &, std::string *)`)
/// and FUNCTION_plan (`plan` for a radix-2 or affine plan, `generalPlan`
/// for a general one; the other is null), the statement's lower bound, and
/// for a statement in two stages (both plans null) its stages' entries,
/// each with its own function FUNCTION_stageK and plan. kMemoryBytes is at
/// least opts.memoryBytes and at least what the regions of every remap
/// reach.
///
/// Function names that are not usable C++ identifiers, or that repeat, are
/// changed (invalid characters to '_', a numeric suffix); emitHeader and
/// emitSource change them in the same way.
void emitHeader(const std::vector<EmittedRemap> &remaps,
                const EmitOptions &opts, llvm::raw_ostream &os);

/// The definitions: each plan rebuilt from literal tables in a
/// function-local static (affine layouts and exchange steps included), each
/// function a call of rt::executePlan (rt::executeNetworkPlan on a
/// network), and the remap table.
void emitSource(const std::vector<EmittedRemap> &remaps,
                const EmitOptions &opts, llvm::raw_ostream &os);

} // namespace mapc

#endif
