//===- ASTBuilder.h - parse tree to AST (internal to the front end) -------===//
#ifndef MAPC_FRONTEND_ASTBUILDER_H
#define MAPC_FRONTEND_ASTBUILDER_H

#include "MapParser.h"
#include "frontend/AST.h"
#include "ir/Diagnostics.h"

namespace mapc {

/// Maps ANTLR tokens to SMLocs in the SourceMgr buffer being parsed.
class TokenLocator {
public:
  TokenLocator(llvm::SourceMgr &srcMgr, unsigned bufferId)
      : srcMgr(srcMgr), bufferId(bufferId) {}
  llvm::SMLoc loc(size_t line, size_t charPositionInLine) const;
  llvm::SMLoc loc(const antlr4::Token *tok) const;

private:
  llvm::SourceMgr &srcMgr;
  unsigned bufferId;
};

/// A source position as ANTLR counts it: 1-based line, 0-based column.
using TextPos = std::pair<size_t, size_t>;

/// Builds the AST; the only code that looks inside ANTLR contexts.
/// Statements that contain a syntax error (one of `errors`) are left out, so
/// that recovery guesses do not turn into misleading semantic errors.
ast::Program buildAST(MapParser::ProgramContext *tree,
                      const TokenLocator &locator, Diagnostics &diags,
                      const std::vector<TextPos> &errors);

} // namespace mapc

#endif
