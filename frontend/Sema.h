//===- Sema.h - check a .map AST and lower it to the mapping IR -----------===//
#ifndef MAPC_FRONTEND_SEMA_H
#define MAPC_FRONTEND_SEMA_H

#include "frontend/AST.h"
#include "ir/Diagnostics.h"
#include "ir/Program.h"

namespace mapc {

/// Resolves names, checks every declaration and statement (003 B.2.1's
/// k-Tile errors, HPF's rules, machine limits) and lowers all mappings to
/// k-Tile formats. Reports every problem it finds; the returned program is
/// meaningful only when diags.hadError() is false.
Program analyze(const ast::Program &ast, Diagnostics &diags);

} // namespace mapc

#endif
