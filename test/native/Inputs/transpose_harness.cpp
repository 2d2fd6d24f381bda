// Drives mapc --emit=cpp --target=native for examples/transpose.map on its
// own data, with the answer written out by hand rather than read from the
// layouts: Image(64, 64) starts one row per PE, so element (i0, i1) is at
// i0 + 64 * i1, and the transpose puts it at i1 + 64 * i0.
#include "mapc_program.h"
#include "native_check.h"

#include <cstdio>
#include <vector>

int main() {
  using namespace mapc_program;
  static_assert(remap_Image_1_source_cells == 4096, "64 x 64 cells");
  std::vector<float> rows(4096), columns(4096, -1.0f);
  for (int i1 = 0; i1 < 64; ++i1)
    for (int i0 = 0; i0 < 64; ++i0)
      rows[size_t(i0 + 64 * i1)] = float(i0) + 1000.0f * float(i1);
  remap_Image_1(rows.data(), columns.data());
  int wrong = 0;
  for (int i1 = 0; i1 < 64; ++i1)
    for (int i0 = 0; i0 < 64; ++i0)
      wrong += columns[size_t(i1 + 64 * i0)] != float(i0) + 1000.0f * float(i1);
  // The transpose again, in place: every element back where it started.
  std::vector<float> scratch(remap_Image_1_inplace_cells);
  remap_Image_1_inplace(columns.data(), scratch.data());
  for (int i1 = 0; i1 < 64; ++i1)
    for (int i0 = 0; i0 < 64; ++i0)
      wrong += columns[size_t(i0 + 64 * i1)] != float(i0) + 1000.0f * float(i1);
  std::printf("transpose by hand: %d wrong\n", wrong);
  bool good = CHECK_REMAP(float, remap_Image_1) && wrong == 0;
  return good ? 0 : 1;
}
