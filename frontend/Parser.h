//===- Parser.h - .map text to AST ----------------------------------------===//
#ifndef MAPC_FRONTEND_PARSER_H
#define MAPC_FRONTEND_PARSER_H

#include "frontend/AST.h"
#include "ir/Diagnostics.h"

namespace mapc {

/// Largest .map file accepted; larger inputs get a diagnostic, not a parse.
constexpr size_t kMaxSourceBytes = 2u << 20;

/// Parses the buffer `bufferId` of the diagnostics' SourceMgr. Syntax errors
/// are reported (the parser recovers and goes on) and the AST of what could
/// be parsed is returned; check diags.hadError().
ast::Program parseMap(unsigned bufferId, Diagnostics &diags);

/// Prints the AST with file:line:col positions (`--emit=ast`).
void printAST(const ast::Program &program, llvm::SourceMgr &srcMgr,
              llvm::raw_ostream &os);

} // namespace mapc

#endif
