//===- RandomHpf.h - random HPF block/cyclic(k) layouts for unit tests ----===//
#ifndef MAPC_TEST_UNIT_RANDOMHPF_H
#define MAPC_TEST_UNIT_RANDOMHPF_H

#include "ir/KTile.h"
#include "passes/Lowering.h"

#include "gtest/gtest.h"

#include <random>
#include <variant>
#include <vector>

namespace mapc::test {

/// A random HPF distribution of `shape` onto `procs` (one processor dim per
/// array dim): each dim block, cyclic or cyclic(k) with k in 1-9.
inline KTile randomBlockCyclic(std::mt19937 &rng,
                               const std::vector<int64_t> &shape,
                               const std::vector<int64_t> &procs) {
  std::vector<DistFormatSpec> f(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    f[d].kind = rng() % 2 ? DistFormatSpec::Block : DistFormatSpec::Cyclic;
    if (f[d].kind == DistFormatSpec::Cyclic && rng() % 2)
      f[d].arg = int64_t(1 + rng() % 9);
  }
  auto r = lowerDistribute(shape, f, procs);
  EXPECT_TRUE(std::holds_alternative<KTile>(r));
  return std::get<KTile>(r);
}

} // namespace mapc::test

#endif // MAPC_TEST_UNIT_RANDOMHPF_H
