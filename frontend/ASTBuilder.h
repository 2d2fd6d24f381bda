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
  TokenLocator(llvm::SourceMgr &srcMgr, unsigned bufferId);
  llvm::SMLoc loc(size_t line, size_t charPositionInLine) const;
  llvm::SMLoc loc(const antlr4::Token *tok) const;

private:
  llvm::SourceMgr &srcMgr;
  unsigned bufferId;
  /// The byte offset of a code-point offset (ANTLR counts code points).
  size_t byteOf(size_t codePoint) const;

  llvm::StringRef text;
  /// Code-point offsets of line starts, counting only '\n' as ANTLR does
  /// (SourceMgr's own lookup refuses columns past a lone '\r').
  std::vector<size_t> lineStarts;
  /// Byte offset of each code point; empty when the text is ASCII.
  std::vector<size_t> bytes;
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
