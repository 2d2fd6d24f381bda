//===- Diagnostics.cpp ----------------------------------------------------===//
#include "ir/Diagnostics.h"

#include <algorithm>

using namespace mapc;

void Diagnostics::error(llvm::SMLoc loc, const llvm::Twine &msg,
                        const llvm::Twine &hint) {
  ++numErrors;
  lastKept = numKept < kMaxKept;
  if (!lastKept)
    return;
  ++numKept;
  pending.push_back({loc, llvm::SourceMgr::DK_Error, msg.str(), {}});
  if (!hint.isTriviallyEmpty())
    pending.back().notes.push_back({loc, hint.str()});
}

void Diagnostics::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  pending.push_back({loc, llvm::SourceMgr::DK_Warning, msg.str(), {}});
  lastKept = true;
}

void Diagnostics::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (lastKept && !pending.empty())
    pending.back().notes.push_back({loc, msg.str()});
}

void Diagnostics::printNote(const Note &n) {
  // A note without the source line: the error above already showed it.
  if (!n.loc.isValid()) {
    os << "note: " << n.msg << "\n";
    return;
  }
  unsigned bufferId = srcMgr.FindBufferContainingLoc(n.loc);
  auto [line, col] = srcMgr.getLineAndColumn(n.loc, bufferId);
  os << srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier() << ":" << line
     << ":" << col << ": note: " << n.msg << "\n";
}

void Diagnostics::flush() {
  std::stable_sort(pending.begin(), pending.end(),
                   [](const Entry &a, const Entry &b) {
                     return a.loc.getPointer() < b.loc.getPointer();
                   });
  for (const Entry &e : pending) {
    if (e.kind == llvm::SourceMgr::DK_Error && numPrinted++ >= maxErrors)
      continue;
    srcMgr.PrintMessage(os, e.loc, e.kind, e.msg);
    for (const Note &n : e.notes)
      printNote(n);
  }
  pending.clear();
}

void Diagnostics::printSummary() {
  flush();
  if (numErrors > maxErrors)
    os << "error: " << (numErrors - maxErrors)
       << " more errors not shown (first " << maxErrors << " printed)\n";
  if (numErrors)
    os << numErrors << (numErrors == 1 ? " error" : " errors")
       << " generated.\n";
}
