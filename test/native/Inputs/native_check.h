// Checks one function pair mapc --emit=cpp --target=native wrote, on the
// harness's own data: every source cell that holds data gets a value made
// from its data index, padding a marker; after the out-of-place call every
// destination cell must hold its element's value (padding untouched), and
// after the in-place call the buffer's first dest_cells cells must too.
// The index maps come from FUNCTION_spec() (mapc/runtime/RemapSpec.h).
#ifndef NATIVE_CHECK_H
#define NATIVE_CHECK_H

#include "mapc/runtime/RemapSpec.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

template <typename T> struct IsComplex : std::false_type {};
template <typename T> struct IsComplex<std::complex<T>> : std::true_type {};

/// The harness's element for data index d (distinct for the sizes used).
template <typename T> T valueOf(int64_t d) {
  if constexpr (IsComplex<T>::value)
    return T(typename T::value_type(d) + 0.25, -typename T::value_type(d));
  else if constexpr (std::is_floating_point_v<T>)
    return T(d) + T(0.5);
  else
    return T(d % 200 + 7);
}

/// A value no element has.
template <typename T> T padding() {
  if constexpr (IsComplex<T>::value)
    return T(-1, -1);
  else if constexpr (std::is_floating_point_v<T>)
    return T(-1);
  else
    return T(3);
}

template <typename T, typename Out, typename InPlace>
bool checkRemap(const char *name, Out out, InPlace inPlace,
                const mapc::rt::RemapSpec &spec, size_t sourceCells,
                size_t destCells, size_t inPlaceCells) {
  const mapc::rt::DeviceLayout &from = spec.source, &to = spec.dest;
  if (size_t(from.size()) != sourceCells || size_t(to.size()) != destCells ||
      inPlaceCells != std::max(sourceCells, destCells) ||
      spec.elementBytes != sizeof(T)) {
    std::printf("emitted %s: WRONG sizes\n", name);
    return false;
  }
  std::vector<T> src(sourceCells, padding<T>()), dst(destCells, padding<T>());
  for (int64_t a = 0; a < from.size(); ++a)
    if (int64_t d = from.dataAt(a); d >= 0)
      src[size_t(a)] = valueOf<T>(d);
  out(src.data(), dst.data());
  size_t wrong = 0;
  for (int64_t a = 0; a < to.size(); ++a) {
    int64_t d = to.dataAt(a);
    wrong += dst[size_t(a)] != (d >= 0 ? valueOf<T>(d) : padding<T>());
  }
  std::vector<T> buf(inPlaceCells, padding<T>()), scratch(inPlaceCells);
  std::copy(src.begin(), src.end(), buf.begin());
  inPlace(buf.data(), scratch.data());
  size_t wrongInPlace = 0;
  for (int64_t a = 0; a < to.size(); ++a)
    if (int64_t d = to.dataAt(a); d >= 0)
      wrongInPlace += buf[size_t(a)] != valueOf<T>(d);
  std::printf("emitted %s: %s, %zu cells, %zu wrong, in place %zu wrong\n",
              name, wrong || wrongInPlace ? "WRONG" : "ok", destCells, wrong,
              wrongInPlace);
  return !wrong && !wrongInPlace;
}

#define CHECK_REMAP(T, F)                                                      \
  checkRemap<T>(#F, F, F##_inplace, F##_spec(), F##_source_cells,              \
                F##_dest_cells, F##_inplace_cells)

#endif
