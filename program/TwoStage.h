//===- TwoStage.h - remaps between a layout with XOR items and any other --===//
//
// A `bits` layout with XOR items (an invertible GF(2)-affine map, 001) has
// no k-Tile form, so the general planner (003 ch. 6) cannot take it, and a
// layout that is not a bit map has no GF(2)-affine form, so the affine
// planners cannot take that. A remap between two such layouts runs in two
// stages through the bit map without XOR items closest to the first
// (DigitMap::withoutXor): the affine planner between the two bit maps and
// the general planner between the plain one and the other layout.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PROGRAM_TWOSTAGE_H
#define MAPC_PROGRAM_TWOSTAGE_H

#include "ir/BitMap.h"
#include "ir/DigitMap.h"
#include "mapc/runtime/Affine.h"
#include "mapc/runtime/TileMap.h"

#include <string>
#include <variant>
#include <vector>

namespace mapc {

/// The most bit maps planProgram prices for the stage between, besides the
/// layout with XOR items without them: the other bit maps of the array in
/// the program, in order (each costs two plans).
constexpr size_t kMaxViaCandidates = 4;

/// The layout between the stages, in the three forms the planners take.
struct XorStage {
  IndexBitMap withXorBits; ///< the layout with XOR items, for the affine ones
  DigitMap plain;          ///< its digits' withoutXor()
  IndexBitMap bits;        ///< plain, for the affine planners
  rt::TileMap tiles;       ///< plain, for the general planners
  std::string text;        ///< plain as `bits [...]`, for --emit=plan
  /// Both maps as the runtime evaluates them, for the tables of sources:
  /// an address is a few parities of the data index, not a digit walk.
  rt::AffineLayout withXorAffine, plainAffine;
};

/// The stage for `layout`, a digit map with XOR items, or why there is none
/// (a replicated `*` item: the affine planners replicate nothing).
std::variant<XorStage, std::string> xorStageOf(const Layout &layout);

/// The table of sources (rt::sourcesOf's form: per cell of `to`, the cell
/// of the source holding its element) of the whole remap from the layout
/// with XOR items to `to`, for the statement's lower bound.
std::vector<uint32_t> sourcesFromXor(const XorStage &stage,
                                     const rt::TileMap &to);
/// The same for the remap from `from` to the layout with XOR items.
std::vector<uint32_t> sourcesToXor(const rt::TileMap &from,
                                   const XorStage &stage);

} // namespace mapc

#endif
