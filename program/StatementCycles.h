//===- StatementCycles.h - a statement's remap in cycle notation ----------===//
//
// What `--emit=cycles` prints after `remap ARRAY: FROM -> TO:` for one
// data-moving statement, shared by --emit=cycles and the --emit=html
// workbench: radix-2 cycles (003 4.2.2), 001's exchanges then cycles for
// Gray codes and XOR maps, or digit cycles for index digit maps (003 6.1).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TOOLS_STATEMENTCYCLES_H
#define MAPC_TOOLS_STATEMENTCYCLES_H

#include "ir/Program.h"

#include <optional>
#include <string>

namespace mapc {

/// The cycle text of `st` (empty for the identity), or, when the remap has
/// no cycle notation, an empty string and the reason in `why`, and in
/// `hint` (when given) what shows the remap instead: --emit=plan only where
/// it plans the statement, else what to change.
std::string statementCycles(const Program &program, const Statement &st,
                            std::optional<unsigned> exchangeStart,
                            std::string &why, std::string *hint = nullptr);

} // namespace mapc

#endif
