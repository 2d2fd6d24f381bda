// Drives mapc --emit=cpp --target=native for ../emitted.test's mixed.map:
// every function, out of place and in place, on the harness's own data.
#include "mapc_program.h"
#include "native_check.h"

int main() {
  using namespace mixed;
  setThreads(2);
  bool good = true;
  good &= CHECK_REMAP(float, redistribute_A_1);
  good &= CHECK_REMAP(std::complex<double>, copy_B_2);
  good &= CHECK_REMAP(std::uint8_t, redistribute_U_3);
  good &= CHECK_REMAP(double, remap_G_4);
  good &= CHECK_REMAP(std::int16_t, remap_X_5);
  static_assert(kRemapCount == 5, "five statements");
  return good ? 0 : 1;
}
