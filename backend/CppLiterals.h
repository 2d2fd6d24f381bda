//===- CppLiterals.h - C++ literal text shared by the emitters ------------===//
//
// The simulator, native and MPI emitters write layouts and plans as C++
// literals; these are the spellings they share. Layouts are written as calls
// to the builders of mapc/runtime/LayoutLiterals.h.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_CPPLITERALS_H
#define MAPC_BACKEND_CPPLITERALS_H

#include "mapc/runtime/RemapSpec.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace mapc::cpp {

inline std::string u64(uint64_t v) { return std::to_string(v) + "u"; }

inline std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llxu", static_cast<unsigned long long>(v));
  return buf;
}

/// INT64_MIN has no literal: 9223372036854775808 does not fit int64_t.
inline std::string i64(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min())
    return "(-9223372036854775807 - 1)";
  return std::to_string(v);
}

/// `{a, b, c}` with each element written by `item`.
template <typename T, typename F>
std::string list(const std::vector<T> &v, F &&item) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + item(v[i]);
  return s + "}";
}

/// The body of a C++ string literal, or (inComment) the text of a `//`
/// comment: printable ASCII stays, the rest becomes escapes.
std::string escaped(const std::string &s, bool inComment = false);

/// `"..."`: `s` as a C++ string literal.
std::string quoted(const std::string &s);

/// `s` as the text of a `//` comment: on one line, never ending in a
/// backslash (which would splice the next line into it).
std::string commentText(const std::string &s);

/// An include guard: `prefix` and `header` upper-cased, every character
/// that may not stand in an identifier made `_`.
std::string includeGuard(const std::string &prefix, const std::string &header);

/// `mapc::rt::literal::tileMap(...)`: a k-Tile format (003 3.2.6).
std::string tileMapLiteral(const rt::TileMap &t);

/// `mapc::rt::literal::affineLayout(...)`: a GF(2)-affine layout (003 4.1.3).
std::string affineLiteral(const rt::AffineLayout &l);

/// `mapc::rt::DeviceLayout::fromTile(...)` or `fromAffine(...)`.
std::string deviceLayoutLiteral(const rt::DeviceLayout &l);

} // namespace mapc::cpp

#endif
