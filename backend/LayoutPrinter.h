//===- LayoutPrinter.h - `--emit=layout`: device contents as text ---------===//
#ifndef MAPC_BACKEND_LAYOUTPRINTER_H
#define MAPC_BACKEND_LAYOUTPRINTER_H

#include "ir/Program.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mapc {

/// Prints the pinned format of shared/design/language.md: a header line
/// `layout NAME of ARRAY`, then one line per value of the flattened PE dims
/// (device dim 1 fastest) holding device dim 0's cells: the linear data index
/// stored there, or `.` where the address is empty. `onCells`, if given, is
/// told after each row how many cells were printed so far (for progress).
void printDeviceContents(
    const Layout &layout, llvm::raw_ostream &os,
    llvm::function_ref<void(int64_t cellsPrinted)> onCells = nullptr);

} // namespace mapc

#endif
