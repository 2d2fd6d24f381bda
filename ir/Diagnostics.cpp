//===- Diagnostics.cpp ----------------------------------------------------===//
#include "ir/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Unicode.h"

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

std::pair<unsigned, unsigned> Diagnostics::lineAndColumn(llvm::SMLoc loc,
                                                         unsigned bufferId) {
  auto [line, col] = srcMgr.getLineAndColumn(loc, bufferId);
  auto found = loneReturns.find(bufferId);
  if (found == loneReturns.end()) {
    std::vector<size_t> at;
    llvm::StringRef text = srcMgr.getMemoryBuffer(bufferId)->getBuffer();
    for (size_t k = text.find('\r'); k != llvm::StringRef::npos;
         k = text.find('\r', k + 1))
      if (k + 1 == text.size() || text[k + 1] != '\n')
        at.push_back(k);
    found = loneReturns.emplace(bufferId, std::move(at)).first;
  }
  const size_t offset = size_t(
      loc.getPointer() - srcMgr.getMemoryBuffer(bufferId)->getBufferStart());
  const std::vector<size_t> &returns = found->second;
  line += unsigned(std::lower_bound(returns.begin(), returns.end(), offset) -
                   returns.begin());
  return {line, col};
}

void Diagnostics::printNote(const Note &n) {
  // A note without the source line: the error above already showed it.
  if (!n.loc.isValid()) {
    os << "note: " << n.msg << "\n";
    return;
  }
  unsigned bufferId = srcMgr.FindBufferContainingLoc(n.loc);
  auto [line, col] = lineAndColumn(n.loc, bufferId);
  os << srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier() << ":" << line
     << ":" << col << ": note: " << n.msg << "\n";
}

void Diagnostics::printMessage(const Entry &e) {
  // A line of ordinary length prints as SourceMgr prints it; a long one (a
  // generated or broken file) as a window around the caret, so that one
  // diagnostic stays a few hundred bytes however long the line is. A line
  // with any byte past ASCII prints here too, whatever its length:
  // SourceMgr prints such a line without its caret (its columns would be
  // bytes), where the caret here stands under the character, counted in
  // display columns (llvm::sys::unicode::columnWidthUTF8).
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
  const llvm::StringRef lineText = text.slice(begin, end);
  const bool ascii = llvm::all_of(
      lineText, [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  auto [line, col] = lineAndColumn(e.loc, bufferId);
  if (end - begin <= 2 * kWindow + 40 && ascii &&
      line == srcMgr.getLineAndColumn(e.loc, bufferId).first) {
    srcMgr.PrintMessage(os, e.loc, e.kind, e.msg);
    return;
  }
  os << srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier() << ":" << line
     << ":" << col << ": "
     << (e.kind == llvm::SourceMgr::DK_Error ? "error" : "warning") << ": "
     << e.msg << "\n";
  size_t from = at > begin + kWindow ? at - kWindow : begin;
  size_t to = std::min(end, at + kWindow);
  // The window's ends on whole UTF-8 characters (no continuation byte).
  auto continuation = [&](size_t k) {
    return (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
  };
  while (from < at && continuation(from))
    ++from;
  while (to < end && to > at && continuation(to))
    --to;
  const std::string lead = from > begin ? "..." : "";
  std::string window =
      lead + text.slice(from, to).str() + (to < end ? "..." : "");
  for (char &c : window)
    if (static_cast<unsigned char>(c) < 0x20)
      c = ' ';
  const size_t prefix = lead.size() + (at - from);
  const int width = llvm::sys::unicode::columnWidthUTF8(
      llvm::StringRef(window).take_front(prefix));
  os << window << "\n"
     << std::string(width >= 0 ? size_t(width) : prefix, ' ') << "^\n";
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
    os << "mapc: note: " << (numErrors - maxErrors)
       << " more errors not shown (the first " << maxErrors
       << " are printed); fix those and run mapc again\n";
  if (numErrors)
    os << numErrors << (numErrors == 1 ? " error" : " errors")
       << " generated.\n";
}
