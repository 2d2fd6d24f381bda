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
  if (!loc.isValid()) {
    os << "note: " << msg << "\n";
    return;
  }
  unsigned bufferId = srcMgr.FindBufferContainingLoc(loc);
  auto [line, col] = srcMgr.getLineAndColumn(loc, bufferId);
  os << srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier() << ":" << line
     << ":" << col << ": note: " << msg << "\n";
}

void Diagnostics::printSummary() {
  if (numErrors > maxErrors)
    os << "error: " << (numErrors - maxErrors)
       << " more errors not shown (first " << maxErrors << " printed)\n";
  if (numErrors)
    os << numErrors << (numErrors == 1 ? " error" : " errors")
       << " generated.\n";
}
