//===- Distribution.h - a layout's PEs spread over MPI ranks
//---------------===//
//
// The MPI target (language.md "Targets") spreads a layout's P PEs over R
// ranks in blocks of consecutive linear PE indices: rank r holds PEs
// floor(r P / R) up to floor((r + 1) P / R) - 1, as even as blocks can be;
// R need not divide P, and when R > P some ranks hold none. A device address
// is m + M * pe (memory fastest), so a rank's cells are one contiguous range
// of addresses, and its local buffer is that range in address order.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MPI_DISTRIBUTION_H
#define MAPC_MPI_DISTRIBUTION_H

#include <cstdint>

namespace mapc::mpi {

class BlockDistribution {
public:
  BlockDistribution() = default;
  /// `pes` PEs of `memory` cells each over `ranks` ranks (ranks >= 1).
  BlockDistribution(int64_t pes, int64_t memory, int ranks)
      : pes_(pes), memory_(memory), ranks_(ranks) {}

  int ranks() const { return ranks_; }
  int64_t pes() const { return pes_; }
  int64_t memory() const { return memory_; }

  /// The first PE of rank r (r may be ranks(): then pes()).
  int64_t firstPe(int r) const { return int64_t((__int128)pes_ * r / ranks_); }
  /// The rank holding `pe`: the largest r with firstPe(r) <= pe.
  int rankOfPe(int64_t pe) const {
    return int(((__int128)(pe + 1) * ranks_ - 1) / pes_);
  }
  int64_t firstAddress(int r) const { return firstPe(r) * memory_; }
  /// Cells rank r holds.
  int64_t cells(int r) const { return (firstPe(r + 1) - firstPe(r)) * memory_; }
  int rankOf(int64_t address) const { return rankOfPe(address / memory_); }

private:
  int64_t pes_ = 1, memory_ = 1;
  int ranks_ = 1;
};

} // namespace mapc::mpi

#endif
