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

void Diagnostics::printMessage(const Entry &e) {
  // A line of ordinary length prints as SourceMgr prints it; a long one (a
  // generated or broken file) as a window around the caret, so that one
  // diagnostic stays a few hundred bytes however long the line is.
  constexpr size_t kWindow = 80;
  if (!e.loc.isValid()) {
    srcMgr.PrintMessage(os, e.loc, e.kind, e.msg);
    return;
  }
  unsigned bufferId = srcMgr.FindBufferContainingLoc(e.loc);
  llvm::StringRef text = srcMgr.getMemoryBuffer(bufferId)->getBuffer();
  size_t at = size_t(e.loc.getPointer() - text.begin());
  size_t begin = text.substr(0, at).find_last_of("\n\r");
  begin = begin == llvm::StringRef::npos ? 0 : begin + 1;
  size_t end = text.find_first_of("\n\r", at);
  if (end == llvm::StringRef::npos)
    end = text.size();
  if (end - begin <= 2 * kWindow + 40) {
    srcMgr.PrintMessage(os, e.loc, e.kind, e.msg);
    return;
  }
  auto [line, col] = srcMgr.getLineAndColumn(e.loc, bufferId);
  os << srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier() << ":" << line
     << ":" << col << ": "
     << (e.kind == llvm::SourceMgr::DK_Error ? "error" : "warning") << ": "
     << e.msg << "\n";
  size_t from = at > begin + kWindow ? at - kWindow : begin;
  size_t to = std::min(end, at + kWindow);
  std::string window = (from > begin ? "..." : "") +
                       text.slice(from, to).str() + (to < end ? "..." : "");
  for (char &c : window)
    if (static_cast<unsigned char>(c) < 0x20)
      c = ' ';
  os << window << "\n"
     << std::string((from > begin ? 3 : 0) + (at - from), ' ') << "^\n";
}

void Diagnostics::flush() {
  std::stable_sort(pending.begin(), pending.end(),
                   [](const Entry &a, const Entry &b) {
                     return a.loc.getPointer() < b.loc.getPointer();
                   });
  for (const Entry &e : pending) {
    if (e.kind == llvm::SourceMgr::DK_Error && numPrinted++ >= maxErrors)
      continue;
    printMessage(e);
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
