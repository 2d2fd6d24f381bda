//===- Resignify.h - re-signification across device dims (003 6.3.4) -----===//
//
// Two digits neighbouring in the data index, one in the PE number (base
// b1) and one in the slot number (base b0), exchange their significance:
//
//   forward  b1 a1 | b0 a0  ->  b1 a0' | b0 a1'
//   inverse  b1 a0' | b0 a1'  ->  b1 a1 | b0 a0
//
// where a = b0 a1 + a0 = b1 a1' + a0' is the part of the data index the two
// digits hold. The device dims keep their sizes and every other digit stays,
// so the step is a rectangular transpose between a PE digit and a memory
// digit. 6.3.4 derives the destination with one multiply, one division and
// one modulus: forward, with x the PE digit and y the slot digit, a = b0 x +
// y (b0 x is a per-PE constant), x' = a mod b1, y' = a / b1; inverse, a = b1
// y + x, x' = a / b0, y' = a mod b0. resig_mp sends the elements brute force
// (6.3.5) with skewed starts (6.3.8): its items are the values of the slot
// digit, each the identity slot digits below it in chunks of up to 64 bits
// (as the digit exchange's), one division per value.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_RESIGNIFY_H
#define MAPC_RUNTIME_RESIGNIFY_H

#include "mapc/runtime/General.h"
#include "mapc/runtime/TransferRounds.h"

namespace mapc::rt {

/// The two digits: the PE digit's base b1 and place (the product of the PE
/// digits below it), the slot digit's base b0 and place, and which form.
struct ResignifyShape {
  int64_t peBase = 0, slotBase = 0, peWeight = 0, slotWeight = 0;
  int64_t pes = 0, slots = 0; ///< of both layouts
  bool inverse = false;
  /// Where the element of cell (pe, slot) goes, as pe * slots + slot.
  int64_t destOf(int64_t pe, int64_t slot) const;
};

/// Whether every cell's element goes where `shape` sends it: `sources` (a
/// table of pes x slots cells) reads cell c at destOf(c) for every c.
/// findResignification's check of a candidate, without a division a cell.
bool resignifiesEveryCell(const ResignifyShape &shape,
                          const std::vector<uint32_t> &sources);

/// Whether the move `sources` (sourcesOf(from, to)) is one re-signification
/// of a PE digit and a slot digit, every cell of both layouts held; fills
/// `shape` if so. Candidates come from the divisors of the slots and PEs,
/// the slot digit's place from the first of PE 0's elements that moves;
/// every cell is checked, so a yes is exact.
bool findResignification(const TileMap &from, const TileMap &to,
                         const std::vector<uint32_t> &sources,
                         ResignifyShape &shape, std::string *why);

/// Each PE's items for `shape` in its sending order (6.3.8's skew): one per
/// value of its slot digit and high slot digits and chunk. In place the
/// elements that keep their cell are left out.
std::vector<std::vector<SendItem>>
resignifyTransfers(const ResignifyShape &shape, unsigned elemBytes,
                   bool inPlace);

/// A floor on the ticks of the in-place resig_mp from `from` to `to`
/// (`sources` = sourcesOf(from, to)) on a machine of `shape` priced by
/// `cost`: inPlaceTransfersFloor of its items, so that a planner can leave
/// unpriced a step that cannot win (its rounds, 6.3.9's, are the dear part
/// of planning). -1 when the move is not one re-signification.
int64_t resignifyInPlaceFloor(const TileMap &from, const TileMap &to,
                              const std::vector<uint32_t> &sources,
                              unsigned elemBytes, const MachineShape &shape,
                              const CostModel &cost);

} // namespace mapc::rt

#endif
