//===- ExchangeDecomposition.h - affine remaps as exchanges + a permutation
//===//
//
// A remap between two GF(2)-affine layouts is an affine bijection of device
// addresses g(a) = A a xor c (rt::affineRemapMove). It factors as
//
//   g = permutation-with-inversions o E_k o ... o E_1
//
// where each E is one of 001's conditional exchanges x_j ^= parity(x & S)
// on the source's device bits, and the permutation is left to the radix-2
// planner (003 ch. 4). Each exchange changes one row of the matrix, so no
// factoring has fewer exchanges than A, or A^-1, has rows with more than one
// bit: that is `lowerBound`, and the factoring below meets it whenever its
// greedy order finds a fixable row at every step. It does for 001's
// problems: Gray <-> binary on n bits gives n - 1 exchanges (001 thm 5) and
// a reshape one per dimension in D (001 lemma 2, definition 3).
//
// How: match every column i to a row of A holding bit i (rows with one bit
// are forced; that match is the permutation), then bring B = A'^-1 to the
// identity one row at a time, row j in one exchange exactly when the current
// A' has A'_jj = 1. E_1 is the first row fixed. If no row is fixable, the
// rest is reduced by plain elimination to a permutation, which joins the
// permutation part (a longer but always valid factoring).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_EXCHANGEDECOMPOSITION_H
#define MAPC_PASSES_EXCHANGEDECOMPOSITION_H

#include "mapc/runtime/Affine.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mapc {

struct AffineFactoring {
  std::vector<rt::Exchange> exchanges; ///< applied first, E_1 first
  rt::BitMove permutation;             ///< then this
  unsigned lowerBound = 0;             ///< fewest exchanges any factoring has
};

/// Factors `g`. `firstTarget`: when set, the first exchange is in that
/// device bit if it can be, and the rest follow in decreasing bit order,
/// cyclically (001 fig. 5's starting dimension); by default the highest
/// fixable bit goes first (001 fig. 4: dims n-2 down to 0).
AffineFactoring factorAffine(const rt::AffineMove &g,
                             std::optional<unsigned> firstTarget = {});

/// The move from `src` to `dst` (rt::affineRemapMove) and its factoring.
struct AffineRemap {
  rt::AffineMove move;
  AffineFactoring factoring;
};

/// affineRemapMove then factorAffine, the exchanges starting in p-bit
/// `exchangeStart` when it is given; or why not (the layouts do not fit, or
/// there is no such p-bit).
std::variant<AffineRemap, std::string>
factorRemap(const rt::AffineLayout &src, const rt::AffineLayout &dst,
            std::optional<unsigned> exchangeStart);

/// The exchanges that realise the linear map `linear` (which must need no
/// permutation: its factoring's permutation is the identity) with targets
/// in exactly the order `targets`, or nothing if some target cannot come
/// next in one exchange. 001 thm 2 gives each data set its own order.
std::optional<std::vector<rt::Exchange>>
exchangesInOrder(const rt::AffineMove &linear,
                 const std::vector<unsigned> &targets);

/// 001 thm 2's orders for `ops`: one per data set, each a rotation of the
/// targets, or nothing when there are fewer than two targets, a target
/// repeats, or some rotation cannot be realised exchange by exchange.
std::optional<std::vector<std::vector<rt::Exchange>>>
rotatedOrders(const std::vector<rt::Exchange> &ops, unsigned bits);

} // namespace mapc

#endif
