//===- StrideKernel.h - loop nests over two k-Tile layouts ----------------===//
//
// For layouts with a DigitForm (HPF block, cyclic(k), block(n) on any PE
// count, digit maps, templates, sense, replication, padding: 003 ch. 3, 6,
// 7.1) the kernel walks the data space with one odometer per layout and
// data dim. When the unit-stride digits of both layouts lie in the same data
// dim it moves runs: stretches where both addresses advance by fixed steps
// (contiguous runs are block copies); when one side's runs are short
// (cyclic(k)) its low digits become a table and whole periods move at once.
// When they lie in different data dims
// (a transpose, in any number of dims) it moves 2-d tiles whose source rows
// and destination rows are both contiguous, as HPTT's macro-kernels do.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_STRIDEKERNEL_H
#define MAPC_NATIVE_STRIDEKERNEL_H

#include "Kernel.h"

#include "mapc/runtime/RemapSpec.h"

#include <memory>

namespace mapc::native {

/// Plans the strided kernel, or returns null when a layout has no DigitForm
/// (wrap-around offsets, Gray dims, affine-only layouts).
std::unique_ptr<Kernel> planStrideKernel(const rt::RemapSpec &spec);

} // namespace mapc::native

#endif
