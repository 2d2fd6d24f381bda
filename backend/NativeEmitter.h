//===- NativeEmitter.h - native remaps as C++ for other programs ----------===//
//
// `--emit=cpp --target=native` and `--emit=header --target=native`: one
// function per data-moving statement that moves the caller's array, typed
// by its element type, between two buffers in the native target's layout
// (one contiguous buffer per layout, memory fastest; docs/native.md). The
// two layouts are written as literal rt::TileMap / rt::AffineLayout data;
// each function plans once (a function-local static) through MapcNative.
// The emitted code needs no simulator, no mapc and no LLVM: it compiles
// against the runtime's and the native target's headers and links
// MapcNative and MapcRuntime, free of warnings under -Wall -Wextra -Werror.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_NATIVEEMITTER_H
#define MAPC_BACKEND_NATIVEEMITTER_H

#include "ir/Program.h"
#include "mapc/runtime/RemapSpec.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mapc {

/// One data-moving statement for the native emitter.
struct NativeEmitted {
  std::string function;    ///< C identifier, e.g. "remap_A_1"
  std::string description; ///< e.g. "remap A: R -> C (input.map:12:1)"
  rt::RemapSpec spec;
  ElemType elementType = ElemType::F32;
};

struct NativeEmitOptions {
  std::string headerName = "mapc_program.h"; ///< what the .cpp #includes
  std::string nameSpace = "mapc_program";    ///< a C++ identifier
};

/// The C++ type of an element: float, std::uint16_t, std::complex<double>...
const char *cppElementType(ElemType t);

/// Is `name` usable as the emitted namespace (identifiers joined by `::`,
/// none a C++ keyword)?
bool isEmittableNamespace(const std::string &name);

/// The header: in namespace opts.nameSpace, per statement
///   constexpr std::size_t F_source_cells, F_dest_cells, F_inplace_cells;
///   void F(const T *src, T *dst);
///   void F_inplace(T *buf, T *scratch);
///   const mapc::rt::RemapSpec &F_spec();
/// and `kRemapCount` and `void setThreads(unsigned)`.
void emitNativeHeader(const std::vector<NativeEmitted> &remaps,
                      const NativeEmitOptions &opts, llvm::raw_ostream &os);

/// The definitions.
void emitNativeSource(const std::vector<NativeEmitted> &remaps,
                      const NativeEmitOptions &opts, llvm::raw_ostream &os);

} // namespace mapc

#endif
