//===- SourceRow.h - a replicated move read off one row of its table ------===//
//
// A vector replicated over every PE (003 6.2.1, "Data replication"; an
// all-gather) has a table of sources (sourcesOf) of toPes x toSlots cells
// that repeats one row of toSlots: every PE wants every element, in the
// same slots. The planner reads the row instead of the table: the move's
// shape and bound in closed form over the PEs, and the exchange step's
// built all-gather priced from it (AllGatherPrice.h), so that 200 elements
// over 1000 PEs plan without a table of 200,000 cells.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_SOURCEROW_H
#define MAPC_RUNTIME_SOURCEROW_H

#include "mapc/runtime/General.h"

#include <optional>

namespace mapc::rt {

/// A move whose table of sources is one row repeated on every PE of the
/// destination: cell (q, t) takes `cells[t]` on every PE q of `to`
/// (kNoSource where no PE holds anything).
struct SourceRow {
  std::vector<uint32_t> cells;
};

/// The row of the move from `from` to `to` when the destination replicates
/// on plain digits by whole PEs (each copy its first plus a multiple of the
/// slots, one per PE, the first within PE 0) and the source replicates
/// nothing: read off a walk of the first copy, as sourcesOf reads it.
/// Nullopt otherwise (the table may still repeat one row).
std::optional<SourceRow> sourceRowOf(const TileMap &from, const TileMap &to);

/// The table `row` stands for on a destination of `pes` PEs.
std::vector<uint32_t> sourcesOfRow(const SourceRow &row, int64_t pes);

/// analyseMove(from, to, table) from the row: the table's walk summed over
/// the PEs in closed form.
MoveShape analyseMove(const TileMap &from, const TileMap &to,
                      const SourceRow &row);

/// generalLowerBound(src, dst, ..., table) from the row.
int64_t generalLowerBound(const TileMap &src, const TileMap &dst,
                          unsigned elemBytes, bool copy,
                          const MachineShape &shape, const CostModel &cost,
                          const SourceRow &row);

/// Whether a pricing machine of `pes` PEs prices, or refuses, `step` from
/// `from` by the move's row alone: an exchange whose built all-gather
/// exchangeSchedule takes (AllGatherPrice.h), an exchange in place or a
/// digit exchange that must fail.
bool rowPricesStep(const GeneralStep &step, const TileMap &from, unsigned pes,
                   const SourceRow &row);

/// predictGeneralStep with the move's row: what rowPricesStep says priced
/// from it, anything else from the table, built here.
int64_t predictGeneralStep(const GeneralPlan &plan, size_t i,
                           const MachineShape &shape, const CostModel &cost,
                           const SourceRow &row);

} // namespace mapc::rt

#endif // MAPC_RUNTIME_SOURCEROW_H
