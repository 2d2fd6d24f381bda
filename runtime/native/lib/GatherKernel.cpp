//===- GatherKernel.cpp ---------------------------------------------------===//
#include "GatherKernel.h"

#include "Parallel.h"

#include <algorithm>
#include <cstring>

using namespace mapc;
using namespace mapc::native;

namespace {

class GatherKernel final : public Kernel {
public:
  rt::RemapSpec spec;
  std::string reason;

  void run(const uint8_t *src, uint8_t *dst,
           const ThreadBudget &threads) const override {
    const rt::DeviceLayout &S = spec.source, &D = spec.dest;
    const size_t sz = spec.elementBytes;
    constexpr int64_t kChunk = 4096;
    uint64_t items = uint64_t((D.size() + kChunk - 1) / kChunk);
    // Each element costs far more than its bytes: start threads early.
    uint64_t weight = uint64_t(D.size()) * 64;
    parallelRanges(threads, items, weight, [&](uint64_t b, uint64_t e) {
      for (uint64_t item = b; item < e; ++item) {
        int64_t a0 = int64_t(item) * kChunk;
        int64_t a1 = std::min(a0 + kChunk, D.size());
        for (int64_t a = a0; a < a1; ++a) {
          int64_t d = D.dataAt(a);
          if (d >= 0)
            std::memcpy(dst + a * sz, src + S.firstAddressOf(d) * sz, sz);
        }
      }
    });
  }

  std::string describe() const override {
    return "gather: every destination cell reads its source through the two "
           "index maps (" +
           reason + ")";
  }
};

} // namespace

std::unique_ptr<Kernel>
mapc::native::planGatherKernel(const rt::RemapSpec &spec, std::string reason) {
  auto k = std::make_unique<GatherKernel>();
  k->spec = spec;
  k->reason = std::move(reason);
  return k;
}
