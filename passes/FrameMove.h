//===- FrameMove.h - a digit permutation read off its digits --------------===//
//
// 003 6.2.2's candidates (DigitPlanner.cpp) price a dozen moves between
// digit frames (one memory and one PE device dim, each as long as the
// product of its digits) over the same data digits, every cell held. Such
// a move is a digit permutation (003 6.2): each digit keeps its value and
// changes place, so a source cell's slot and PE are sums of one weight per
// digit, and what the planner asks of the move follows from the weights:
//
// - no element changes PE iff every digit has the same PE weight on both
//   sides (the PE numbers are linear in the digit values, each free to be
//   0 or 1; likewise slots for "every element keeps its slot");
// - each source slot feeds one destination slot iff every memory digit of
//   the destination is a memory digit of the source (its value is then
//   read off the source slot; else two cells of one source slot differing
//   only in that digit land in different slots); and the other way round;
// - the elements PE p sends away: those whose destination PE is not p. The
//   destination PE depends on p's digits and the source memory digits that
//   go to the PEs, not on those that stay in memory, so each value of the
//   former stands for the product of the latter's bases.
//
// The table of sources is walked as an odometer of the destination's digits
// (no division per cell).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_FRAMEMOVE_H
#define MAPC_PASSES_FRAMEMOVE_H

#include "mapc/runtime/General.h"

#include <cstdint>
#include <vector>

namespace mapc {

/// Each digit's weight in a digit frame's slot number and in its PE number
/// (003 3.2.2's skmap per digit): one of the two is 0.
struct DigitWeights {
  std::vector<int64_t> slot, pe;
  explicit DigitWeights(const rt::TileMap &t)
      : slot(t.kdims.size(), 0), pe(t.kdims.size(), 0) {
    for (size_t dim = 0; dim < 2; ++dim) {
      int64_t place = 1;
      for (unsigned l : t.m[dim]) {
        (dim == 0 ? slot : pe)[l] = place;
        place *= t.kdims[l].tk;
      }
    }
  }
};

/// `weight` (indexed by k-Tile dim) for the values of a digit of `from`
/// read in `to`: a digit reversed on one side only takes u to b - 1 - u
/// (003 6.1), so its weight is negated and (b - 1) x weight is added to
/// `offset`.
std::vector<int64_t> countedDown(const rt::TileMap &from, const rt::TileMap &to,
                                 std::vector<int64_t> weight, int64_t &offset);

/// An odometer over some digits, least significant first: `step` moves to
/// the next value and adds to `sum` what that changes of the sum of digit
/// value x weight; false after the last value (back at 0).
struct DigitOdometer {
  std::vector<int64_t> base, weight, value;
  void add(int64_t b, int64_t w) {
    base.push_back(b);
    weight.push_back(w);
    value.push_back(0);
  }
  bool step(int64_t &sum) {
    for (size_t i = 0; i < base.size(); ++i) {
      if (++value[i] < base[i]) {
        sum += weight[i];
        return true;
      }
      value[i] = 0;
      sum -= (base[i] - 1) * weight[i];
    }
    return false;
  }
};

/// The digits of digit frame `t`'s device dim `dim` that take more than
/// one value, least significant first (a digit of base 1 is always 0).
std::vector<unsigned> frameDigitsOf(const rt::TileMap &t, size_t dim);

/// For every value of digit frame `t`'s device dim `dim` (0 memory, 1 PEs),
/// in order, the sum over its digits of digit value x `weight` (indexed by
/// k-Tile dim): counted like an odometer, no division.
std::vector<int64_t> frameDigitSums(const rt::TileMap &t, size_t dim,
                                    const std::vector<int64_t> &weight);

/// rt::sourcesOf(from, to) for two digit frames (device [memory, PEs],
/// plain dims as long as their digits' product) over the same k-Tile dims,
/// in which every cell holds one element (a digit reversed on one side
/// only takes u to b - 1 - u).
std::vector<uint32_t> frameSources(const rt::TileMap &from,
                                   const rt::TileMap &to);
/// The same into `out`, whose memory a caller pricing many moves reuses
/// (a table of 10^6 cells costs more in fresh pages than in filling).
void frameSources(const rt::TileMap &from, const rt::TileMap &to,
                  std::vector<uint32_t> &out);

/// What 003 6.2.2's planner reads of the move's rt::MoveShape, from the
/// digits alone (frames as for frameSources): its fields as analyseMove
/// gives them; `leaving` only if `withLeaving`, else empty.
struct FrameShape {
  bool local = true, keepsSlots = true;
  bool slotUniformFrom = true, slotUniformTo = true;
  std::vector<int64_t> leaving;
};
FrameShape frameShape(const rt::TileMap &from, const rt::TileMap &to,
                      bool withLeaving);

} // namespace mapc

#endif // MAPC_PASSES_FRAMEMOVE_H
