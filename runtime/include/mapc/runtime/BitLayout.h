//===- BitLayout.h - radix-2 layouts and bit moves on device addresses ----===//
//
// A device address of a radix-2 layout is a bit string: m-bits (the offset
// inside one PE's array, element units) below p-bits (the PE number), 003
// 4.1.2. Address = m | p << mBits.
//
// BitLayout is 003's index bit map (4.1.3): for every device bit, the data
// index bit it holds (inverted or not), or -1 when the bit is disabled, in
// which case only addresses with the bit equal to `value` hold data.
//
// BitMove is a bijection of device addresses that permutes bits and then
// inverts some: g(a) = permute(a) xor flip, where bit i of a goes to bit
// to[i]. Every radix-2 remap is one (003 4.2.1): disabled bits are paired,
// one disabled in the source with one disabled in the destination, along the
// chains of 4.2.2, so that the garbage at empty addresses moves too and the
// data a layout holds lands exactly where the next layout wants it. A plan
// is a product of BitMoves; factoring one (003 4.4.7) is composition.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_BITLAYOUT_H
#define MAPC_RUNTIME_BITLAYOUT_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mapc::rt {

struct BitLayout {
  unsigned mBits = 0;         ///< memory bits (m0 .. m(mBits-1))
  unsigned pBits = 0;         ///< PE bits (p0 .. p(pBits-1))
  unsigned dataBits = 0;      ///< data index bits
  std::vector<int> dataBit;   ///< per device bit: data bit held, -1 disabled
  std::vector<uint8_t> value; ///< enabled: 1 = inverted; disabled: constant

  unsigned bits() const { return mBits + pBits; }
  uint64_t memorySize() const { return uint64_t(1) << mBits; }
  uint64_t peCount() const { return uint64_t(1) << pBits; }
  /// Does device address `a` hold data?
  bool holds(uint64_t a) const;
  /// The data index at `a` (only meaningful when holds(a)).
  uint64_t dataAt(uint64_t a) const;
  /// The device address of data index `d`.
  uint64_t addressOf(uint64_t d) const;
  /// "m0" .. / "p0" ..
  std::string bitName(unsigned bit) const;
  /// 003 4.1.3 notation, most significant first: [p: a2 !a0 | m: 1 a1].
  std::string str() const;
  /// Well formed: sizes agree, every data bit placed exactly once.
  bool valid(std::string *why = nullptr) const;
};

/// 003 4.1.3's frame for device bits, most significant first:
/// "[p: <bit n-1> .. <bit mBits> | m: <bit mBits-1> .. <bit 0>]".
std::string formatDeviceBits(unsigned mBits, unsigned bits,
                             const std::function<std::string(unsigned)> &bit);

struct BitMove {
  std::vector<unsigned> to; ///< bit i of a source address goes to bit to[i]
  uint64_t flip = 0;        ///< then these destination bits are inverted

  static BitMove identity(unsigned bits);
  unsigned bits() const { return unsigned(to.size()); }
  uint64_t apply(uint64_t a) const;
  BitMove inverse() const;
  /// The bit cycles, fixed bits included, in order of their lowest bit;
  /// each lists its bits so that bit c[k] goes to c[k + 1] (003 4.2.2).
  std::vector<std::vector<unsigned>> cycles() const;
  /// First this, then `next`.
  BitMove then(const BitMove &next) const;
  bool isIdentity() const;
  /// The layout `before` takes after this move.
  BitLayout applyTo(const BitLayout &before) const;
  bool operator==(const BitMove &o) const {
    return to == o.to && flip == o.flip;
  }
};

/// The move that takes data from `src` to `dst` (003 4.2.1), pairing
/// disabled bits along chains (4.2.2). Both layouts must have the same bit
/// counts and data bits; returns false and says why otherwise.
bool remapMove(const BitLayout &src, const BitLayout &dst, BitMove &move,
               std::string *why = nullptr);

/// Cycle notation of a move (003 4.2.2) with bits named as in `layout`;
/// inverted destination bits get `!`. Identity bits are left out.
std::string formatMove(const BitMove &move, const BitLayout &layout);

} // namespace mapc::rt

#endif
