//===- ExchangeStep.h - 001's exchanges on the simulated MasPar -----------===//
//
// An exchange x_j ^= parity(x & S) (Affine.h) on the MasPar: when j is an
// m-bit every PE swaps slot pairs (s, s ^ 2^j) where its condition holds,
// with direct loads and stores; when j is a p-bit every PE where the
// condition holds trades its slot with the PE across bit j, through the
// router or the xnet, whichever the cost model prices lower (xnet: two
// sends of distance 2^k along one grid axis, one each way). Slots travel in
// chunks of up to 64 bits over the low m-bits the condition ignores.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_EXCHANGESTEP_H
#define MAPC_RUNTIME_EXCHANGESTEP_H

#include "mapc/runtime/Execute.h"

namespace mapc::rt {

/// Runs the step's first exchange order, one exchange after another, on
/// data in layout `before`. Chunks and PEs where neither partner can hold
/// data (a disabled bit the exchange leaves alone has the wrong value)
/// are skipped.
bool runExchangeStep(MasPar &m, const Step &step, const AffineLayout &before,
                     unsigned elemBytes, uint64_t readBase, uint64_t writeBase,
                     bool copyFirst, std::string *why);

/// The ticks runExchangeStep charges, from the step alone.
int64_t predictExchangeStep(const Step &step, const AffineLayout &before,
                            unsigned elemBytes, bool copyFirst,
                            const MachineShape &shape, const CostModel &cost);

} // namespace mapc::rt

#endif
