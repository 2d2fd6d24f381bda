//===- Transpose.h - in-register transposes of 4- and 8-byte cells --------===//
//
// The tile kernels end in a transpose: a block whose rows were read from
// the source is written out by columns. Gathering each column (one load
// per cell) costs more than the memory traffic itself on one core; a
// transpose in registers loads and stores whole vectors and shuffles them
// (16 x 16 cells of 4 bytes in 64 shuffles on AVX-512, 8 x 8 in 24 on
// AVX2). The library is built for baseline x86-64, so the vector code is
// compiled with target attributes and chosen at run time
// (__builtin_cpu_supports); hosts without it keep the kernels' other paths.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_TRANSPOSE_H
#define MAPC_NATIVE_TRANSPOSE_H

#include <cstddef>
#include <cstdint>

namespace mapc::native {

/// The side of the square blocks the host transposes in registers for
/// cells of `cellBytes` bytes (16 or 8 with AVX-512, 8 or 4 with AVX2), or
/// 0 when it has no such transpose (other sizes, other machines).
/// MAPC_NATIVE_TRANSPOSE=avx2 or =off in the environment caps it (tests and
/// benchmarks compare the paths).
unsigned transposeSide(size_t cellBytes);

/// True when the host has the AVX2 transposes (side 8 for 4-byte cells, 4
/// for 8-byte cells), which an AVX-512 host has too.
bool hostHasAvx2Transpose();

/// Moves a rows x cols block of cells of `cellBytes` bytes: the cell in row
/// r, column c, at in[r] + c * cellBytes, goes to out[c] + r * cellBytes,
/// in blocks of side x side. `side` is transposeSide(cellBytes) or, when
/// hostHasAvx2Transpose(), the AVX2 side; rows and cols are multiples of
/// it. With `stream`, columns whose start is aligned to the vector width
/// are written with non-temporal stores (the caller fences).
void transposeCells(size_t cellBytes, unsigned side, const uint8_t *const *in,
                    uint8_t *const *out, size_t rows, size_t cols, bool stream);

} // namespace mapc::native

#endif
