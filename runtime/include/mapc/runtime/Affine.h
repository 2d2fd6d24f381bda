//===- Affine.h - radix-2 layouts as GF(2)-affine maps (001, 003 4.1) -----===//
//
// A binary-reflected Gray code is not a bit permutation: g_m = b_m xor
// b_(m+1) (001 lemma 1). So a radix-2 layout in general is an affine map
// over GF(2) from data index bits to device address bits:
//
//   address bit i = parity(row[i] & d) xor constant bit i   (i enabled)
//   address bit i = constant bit i                          (i disabled)
//
// with the enabled rows linearly independent (every data index has one
// address). A bit permutation layout (BitLayout) is the case where every
// enabled row has one bit. Device bits are numbered as in BitLayout: m0 ..
// m(mBits-1), then p0 .. (address = m | p << mBits).
//
// A remap between two affine layouts is an affine bijection of device
// addresses, AffineMove: a -> M a xor c. 001's exchanges are its elementary
// pieces: Exchange{j, S} sets address bit j to bit j xor parity(a & S)
// (S not holding j), i.e. "exchange with the neighbour in dim j where the
// bits S have odd parity" (001 fig. 4: j = d, S = {d + 1}).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_AFFINE_H
#define MAPC_RUNTIME_AFFINE_H

#include "mapc/runtime/BitLayout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapc::rt {

inline unsigned parity64(uint64_t v) { return unsigned(__builtin_parityll(v)); }

struct AffineLayout {
  unsigned mBits = 0, pBits = 0, dataBits = 0;
  std::vector<uint64_t> row; ///< per device bit: data bits XORed into it
  uint64_t constant = 0;     ///< per device bit: XOR constant, or the
                             ///< disabled bit's value
  uint64_t disabled = 0;     ///< device bits that hold no data bit

  unsigned bits() const { return mBits + pBits; }
  static AffineLayout fromBits(const BitLayout &l);
  /// Every enabled row a single data bit: the layout as a BitLayout.
  std::optional<BitLayout> asBitLayout() const;
  /// Does device address `a` hold data?
  bool holds(uint64_t a) const { return ((a ^ constant) & disabled) == 0; }
  uint64_t addressOf(uint64_t d) const;
  /// How many device addresses hold data: 2^(enabled bits).
  uint64_t heldCount() const {
    return uint64_t(1) << (bits() - __builtin_popcountll(disabled));
  }
  std::string bitName(unsigned bit) const;
  /// 003 4.1.3 notation extended: a bit that XORs several data bits is
  /// written a3^a2; `!` marks a constant 1. [p: a3 a3^a2 | m: 1 !a0]
  std::string str() const;
  /// Sizes agree, rows name only data bits, disabled rows are empty, and
  /// the enabled rows are dataBits independent vectors.
  bool valid(std::string *why = nullptr) const;
};

/// Inverts an AffineLayout once so that the data index at an address is
/// quick to find: d = parity(dataRow[k] & a) xor dataConstant bit k.
class AffineDecoder {
public:
  explicit AffineDecoder(const AffineLayout &l);
  uint64_t dataAt(uint64_t a) const;

private:
  std::vector<uint64_t> dataRow;
  uint64_t dataConstant = 0;
};

/// x_bit ^= parity(x & condition); `condition` never holds `bit`.
struct Exchange {
  unsigned bit = 0;
  uint64_t condition = 0;
  bool operator==(const Exchange &o) const {
    return bit == o.bit && condition == o.condition;
  }
};

/// An affine bijection of device addresses: bit i of the result is
/// parity(row[i] & a) xor constant bit i.
struct AffineMove {
  std::vector<uint64_t> row;
  uint64_t constant = 0;

  static AffineMove identity(unsigned bits);
  static AffineMove fromBitMove(const BitMove &m);
  static AffineMove fromExchange(unsigned bits, const Exchange &e);
  /// The exchanges applied in order, the first first.
  static AffineMove fromExchanges(unsigned bits,
                                  const std::vector<Exchange> &order);
  unsigned bits() const { return unsigned(row.size()); }
  uint64_t apply(uint64_t a) const;
  /// First this, then `next`.
  AffineMove then(const AffineMove &next) const;
  AffineMove inverse() const;
  bool isIdentity() const;
  /// Every row a single bit: the move as a BitMove.
  std::optional<BitMove> asBitMove() const;
  /// The layout `before` takes after this move.
  AffineLayout applyTo(const AffineLayout &before) const;
  bool operator==(const AffineMove &o) const {
    return row == o.row && constant == o.constant;
  }
};

/// How many addresses holding data under `l` the move `g` changes: the
/// held ones minus g's fixed points among them, which solve (A + I) a = c
/// with a's disabled bits at their values (0 or 2^(n - rank) of them).
uint64_t countMoved(const AffineLayout &l, const AffineMove &g);

/// The move that takes data from `src` to `dst`: a bijection g of device
/// addresses with g(src.addressOf(d)) = dst.addressOf(d) for every d.
/// Disabled bits are paired as remapMove pairs them when both layouts are
/// bit permutations; otherwise a disabled bit of one layout at the same
/// position as a disabled bit of the other stays put and the rest pair in
/// order. Returns false and says why when the layouts do not fit.
bool affineRemapMove(const AffineLayout &src, const AffineLayout &dst,
                     AffineMove &move, std::string *why = nullptr);

} // namespace mapc::rt

#endif
