//===- MoveRuns.h - internal: a move as families of runs (MoveCounts.h) ---===//
#ifndef MAPC_RUNTIME_LIB_MOVERUNS_H
#define MAPC_RUNTIME_LIB_MOVERUNS_H

#include "mapc/runtime/TileMap.h"

#include <optional>
#include <vector>

namespace mapc::rt {

/// Elements (t, m) in [0, len) x [0, reps) that go from PE `peA` to PE
/// `peB`, from slot a0 + sa t + da m to slot b0 + sb t + db m.
struct MoveFamily {
  uint32_t peA = 0, peB = 0;
  int64_t len = 1, reps = 1;
  int64_t a0 = 0, sa = 0, da = 0;
  int64_t b0 = 0, sb = 0, db = 0;
};

/// A move's families per data dim: each element of the array is one
/// element of every dim's families, its PE and slot the sums of theirs
/// (the constants go with data dim 0, or with the dim feeding their PE dim).
struct MoveByDims {
  std::vector<std::vector<MoveFamily>> dims;
  /// Whether the two PE numbers are equal exactly when every dim's parts
  /// are: each PE dim fed by the same data dim in both layouts, with the
  /// same constant and place.
  bool peByDim = false;
};

/// The elements of an array in layout `from` and in layout `to` as
/// families per data dim (MoveCounts.h says when and why); nothing when a
/// layout is not of that kind (a PE dim fed by two data dims among others)
/// or the families would be too many. `listLimit`: the most runs a layout
/// is listed by one by one.
std::optional<MoveByDims> moveFamilies(const TileMap &from, const TileMap &to,
                                       int64_t listLimit = int64_t(1) << 16);

/// The (t, m) in [0, len) x [0, reps) with c + alpha t + beta m = 0.
int64_t countOnLine(int64_t len, int64_t reps, int64_t c, int64_t alpha,
                    int64_t beta);

} // namespace mapc::rt

#endif
