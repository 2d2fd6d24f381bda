//===- CppLiterals.h - C++ literal text shared by the emitters ------------===//
//
// The simulator, native and MPI emitters write layouts and plans as C++
// literals; these are the spellings they share.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_CPPLITERALS_H
#define MAPC_BACKEND_CPPLITERALS_H

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

} // namespace mapc::cpp

#endif
