//===- Diagnostics.cpp ----------------------------------------------------===//
#include "ir/Diagnostics.h"

using namespace mapc;

void Diagnostics::error(llvm::SMLoc loc, const llvm::Twine &msg,
                        const llvm::Twine &hint) {
  ++numErrors;
  if (numErrors > maxErrors)
    return;
  srcMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Error, msg);
  if (!hint.isTriviallyEmpty())
    note(loc, hint);
}

void Diagnostics::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  srcMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Warning, msg);
}

void Diagnostics::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  // A note without the source line: the error above already showed it.
  std::string text = msg.str();
  if (!loc.isValid()) {
    os << "note: " << text << "\n";
    return;
  }
  unsigned bufferId = srcMgr.FindBufferContainingLoc(loc);
  auto [line, col] = srcMgr.getLineAndColumn(loc, bufferId);
  llvm::StringRef file =
      srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  llvm::SMDiagnostic diag(srcMgr, loc, file, line, col - 1,
                          llvm::SourceMgr::DK_Note, text, "", {});
  diag.print(nullptr, os, /*ShowColors=*/false);
}

void Diagnostics::printSummary() {
  if (numErrors > maxErrors)
    os << "error: " << (numErrors - maxErrors)
       << " more errors not shown (first " << maxErrors << " printed)\n";
  if (numErrors)
    os << numErrors << (numErrors == 1 ? " error" : " errors")
       << " generated.\n";
}
