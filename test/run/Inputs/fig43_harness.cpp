// Drives the code mapc --emit=cpp wrote for ../emitted-cpp.map: fills A
// in its first layout, runs every remap, checks every element and prints
// the ticks each remap took, for FileCheck to compare with --run's.
#include "mapc_program.h"

#include "mapc/runtime/Execute.h"

#include <cstdio>

using namespace mapc_program;

static bool check(const mapc::rt::MasPar &m, const mapc::rt::BitLayout &l) {
  for (uint64_t d = 0; d < (uint64_t(1) << l.dataBits); ++d) {
    uint64_t a = l.addressOf(d);
    uint64_t off = a & ((uint64_t(1) << l.mBits) - 1);
    if (m.memoryOf(unsigned(a >> l.mBits))[off] != uint8_t(d * 37 + 1))
      return false;
  }
  return true;
}

int main() {
  mapc::rt::MasPar m = makeMachine();
  const mapc::rt::BitLayout &src = remap_A_1_plan().source;
  for (uint64_t d = 0; d < (uint64_t(1) << src.dataBits); ++d) {
    uint64_t a = src.addressOf(d);
    m.memoryOf(unsigned(a >> src.mBits))[a & ((1u << src.mBits) - 1)] =
        uint8_t(d * 37 + 1);
  }
  struct Entry {
    const char *name;
    bool (*run)(mapc::rt::MasPar &, std::string *);
    const mapc::rt::Plan &(*plan)();
  } entries[] = {{"remap_A_1", remap_A_1, remap_A_1_plan},
                 {"remap_A_2", remap_A_2, remap_A_2_plan}};
  for (const Entry &e : entries) {
    int64_t before = m.ledger().total();
    std::string why;
    bool ok = e.run(m, &why) && check(m, e.plan().dest);
    std::printf("emitted %s: %s, ticks=%lld\n", e.name, ok ? "ok" : "WRONG",
                static_cast<long long>(m.ledger().total() - before));
    if (!ok)
      return 1;
  }
  return 0;
}
