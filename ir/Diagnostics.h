//===- Diagnostics.h - file:line:col errors with a caret and a hint -------===//
//
// A thin layer over llvm::SourceMgr. Every error names its location, says
// what is wrong, and may carry a hint that says how to fix it; the hint is
// printed as a note at the same location. Diagnostics are kept and printed
// in source order by flush(), whatever order the checks ran in; after
// `maxErrors` errors the rest are counted but not printed.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_DIAGNOSTICS_H
#define MAPC_IR_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace mapc {

class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &srcMgr, llvm::raw_ostream &os)
      : srcMgr(srcMgr), os(os) {}
  ~Diagnostics() { flush(); }

  /// Reports an error at `loc`; `hint` (if not empty) says how to fix it.
  void error(llvm::SMLoc loc, const llvm::Twine &msg,
             const llvm::Twine &hint = "");
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);
  /// A note that belongs to the diagnostic before it.
  void note(llvm::SMLoc loc, const llvm::Twine &msg);

  unsigned errorCount() const { return numErrors; }
  bool hadError() const { return numErrors != 0; }
  /// Prints what is pending in source order, then "N errors generated".
  void printSummary();
  /// Prints what is pending in source order.
  void flush();

  llvm::SourceMgr &sourceMgr() { return srcMgr; }

  unsigned maxErrors = 50;

private:
  struct Note {
    llvm::SMLoc loc;
    std::string msg;
  };
  struct Entry {
    llvm::SMLoc loc;
    llvm::SourceMgr::DiagKind kind;
    std::string msg;
    std::vector<Note> notes;
  };
  /// Errors kept beyond this many are only counted (bounded memory).
  static constexpr unsigned kMaxKept = 1000;

  void printNote(const Note &n);
  void printMessage(const Entry &e);
  /// SourceMgr's line and column of `loc`, the line counting a lone '\r'
  /// (an old Mac line end) as a line end too: SourceMgr counts lines by
  /// '\n' alone but starts its columns and the source line it shows after
  /// either.
  std::pair<unsigned, unsigned> lineAndColumn(llvm::SMLoc loc,
                                              unsigned bufferId);

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
  std::vector<Entry> pending;
  /// Per buffer, the offsets of its lone '\r's, ascending (found once).
  std::map<unsigned, std::vector<size_t>> loneReturns;
  bool lastKept = false;
  unsigned numErrors = 0, numKept = 0, numPrinted = 0;
};

} // namespace mapc

#endif
