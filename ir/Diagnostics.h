//===- Diagnostics.h - file:line:col errors with a caret and a hint -------===//
//
// A thin layer over llvm::SourceMgr. Every error names its location, says
// what is wrong, and may carry a hint that says how to fix it; the hint is
// printed as a note at the same location. After `maxErrors` errors the rest
// are counted but not printed, so huge broken inputs stay readable.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_DIAGNOSTICS_H
#define MAPC_IR_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mapc {

class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &srcMgr, llvm::raw_ostream &os)
      : srcMgr(srcMgr), os(os) {}

  /// Reports an error at `loc`; `hint` (if not empty) says how to fix it.
  void error(llvm::SMLoc loc, const llvm::Twine &msg,
             const llvm::Twine &hint = "");
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);

  unsigned errorCount() const { return numErrors; }
  bool hadError() const { return numErrors != 0; }
  /// Prints "N errors generated" when any were suppressed or counted.
  void printSummary();

  llvm::SourceMgr &sourceMgr() { return srcMgr; }

  unsigned maxErrors = 50;

private:
  void note(llvm::SMLoc loc, const llvm::Twine &msg);

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
  unsigned numErrors = 0;
};

} // namespace mapc

#endif
