//===- RemapSpec.h - a program's statements as target-independent remaps --===//
//
// Turns a checked program's data-moving statements into rt::RemapSpec, the
// description every target plans from (runtime/include/mapc/runtime/
// RemapSpec.h): the simulators, the native CPU target and MPI.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_REMAPSPEC_H
#define MAPC_PASSES_REMAPSPEC_H

#include "ir/Program.h"
#include "mapc/runtime/RemapSpec.h"

#include <string>

namespace mapc {

/// "remap", "copy", "redistribute", "realign" or "reshape".
const char *statementKindWord(Statement::Kind kind);

/// The statement as --run reports it: "remap A: R -> C" (a copy names its
/// target: "copy A to B: R -> C").
std::string statementLabel(const Program &program, const Statement &st);

/// A C identifier for the statement's emitted function: "remap_A_3", where
/// 3 is its number among the program's statements, from 1.
std::string statementFunction(const Statement &st, unsigned number);

/// The layout's index map on its own device (the device template of its
/// format; an index bit or digit map's memory and PE counts), with its
/// GF(2)-affine form when every device length is a power of two and the map
/// is affine.
rt::DeviceLayout deviceLayoutOf(const Layout &layout);

/// The statement as a target-independent remap.
rt::RemapSpec remapSpecOf(const Program &program, const Statement &st);

} // namespace mapc

#endif
