//===- DigitForm.h - a k-Tile layout as address digits per data dim -------===//
//
// Most k-Tile formats (003 3.2.6) that HPF and digit maps produce have no
// wrap-around offsets and no Gray dims. Then the device address of the
// element at data coordinates (c_0, c_1, ...) is a sum over the data dims,
//
//   address = base + sum_j A_j(c_j + o_TA_j),
//   A_j(u)  = sum_l digit_l(u) * stride_l,
//
// where digit_l(u) are the digits of u in the mixed radix of the k-Tile
// dims of group j (ikmap, 003 3.1.8) and stride_l the address step of k-Tile
// dim l (its place in the device template, negative for sense `-`).
// Replicated dims (o_K = `*`, 003 3.2.5) add digits that hold no data. That
// separable form is what the strided kernel iterates with odometers instead
// of evaluating the index map per element.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_DIGITFORM_H
#define MAPC_NATIVE_DIGITFORM_H

#include "mapc/runtime/TileMap.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mapc::native {

struct Digit {
  int64_t k = 1;      ///< radix
  int64_t stride = 0; ///< address step per unit of this digit
};

/// The address part of one data dim: A_j above, on u = c + offset.
struct AxisForm {
  std::vector<Digit> digits; ///< least significant first, fused
  int64_t offset = 0;        ///< o_TA of the data dim
  int64_t length = 1;        ///< a_j

  /// A_j(c + offset), the address part of coordinate c.
  int64_t addressOf(int64_t c) const;
};

struct DigitForm {
  int64_t base = 0;
  std::vector<AxisForm> axes;  ///< per data dim
  std::vector<Digit> replicas; ///< replicated dims: every value holds data

  /// The address of data coordinates `c` (replicas at their first value).
  int64_t addressOf(const int64_t *c) const;
};

/// The separable form of `tile`, or nothing when the format has wrap-around
/// offsets, Gray dims or a shape the form does not cover.
std::optional<DigitForm> digitFormOf(const rt::TileMap &tile);

/// Walks one axis coordinate by coordinate, keeping its address part.
class AxisCursor {
public:
  static constexpr unsigned kMaxDigits = 64;
  AxisCursor(const AxisForm &axis, int64_t c);
  int64_t address() const { return addr; }
  /// Coordinates left before the lowest digit carries.
  int64_t run() const;
  /// Moves on by n <= run() coordinates.
  void advance(int64_t n);
  /// The value of digit i (0 past the last digit).
  int64_t digitAt(unsigned i) const;
  /// Moves on by the product of digits 0 .. g-1's radices, which must all
  /// be 0 now: one step of digit g, with carries above it.
  void stepDigit(unsigned g);

private:
  const AxisForm *axis;
  int64_t addr = 0;
  int64_t digit[kMaxDigits] = {};
};

} // namespace mapc::native

#endif
