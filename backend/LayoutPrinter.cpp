//===- LayoutPrinter.cpp --------------------------------------------------===//
#include "backend/LayoutPrinter.h"

using namespace mapc;

void mapc::printDeviceContents(
    const Layout &layout, llvm::raw_ostream &os,
    llvm::function_ref<void(int64_t cellsPrinted)> onCells) {
  os << "layout " << layout.name << " of " << layout.array << "\n";
  std::vector<int64_t> shape = layout.deviceShape();
  int64_t rowLen = shape[0];
  int64_t rows = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    rows *= shape[i];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < rowLen; ++c) {
      if (c)
        os << ' ';
      int64_t v = layout.dataAt(r * rowLen + c);
      if (v < 0)
        os << '.';
      else
        os << v;
    }
    os << '\n';
    if (onCells)
      onCells((r + 1) * rowLen);
  }
}
