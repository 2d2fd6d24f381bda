//===- Lowering.h - passes that build or transform k-Tile formats ---------===//
//
// Each pass is a free function; its machinery lives in an anonymous
// namespace in its own file. A pass that cannot express its input as a
// k-Tile format returns a LoweringError with a message and a hint, which
// Sema turns into a diagnostic at the right place.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PASSES_LOWERING_H
#define MAPC_PASSES_LOWERING_H

#include "ir/KTile.h"
#include "ir/Program.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <variant>

namespace mapc {

struct LoweringError {
  std::string message;
  std::string hint;
  int argument = -1;  ///< which format or subscript it concerns, if known
  int64_t stride = 0; ///< a stride the target's tiles do not factor
};
using LowerResult = std::variant<KTile, LoweringError>;

// ---- HPF (003 7.1) ------------------------------------------------------

struct DistFormatSpec {
  enum Kind { Star, Block, Cyclic } kind = Star;
  int64_t arg = 0; ///< block(n) / cyclic(n); 0 when not given
};

/// DISTRIBUTE onto a processor arrangement (003 7.1.4): BLOCK is 1d
/// hierarchical, CYCLIC 1d cut'n'stack, `*` memory; distributed dims take the
/// processor dims in order; local parts are stored column-major in memory.
/// Lengths the processors do not divide are padded with a data template.
LowerResult lowerDistribute(llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<DistFormatSpec> formats,
                            llvm::ArrayRef<int64_t> procs);

/// One align subscript of the target, in alignee terms.
struct AlignSubSpec {
  enum Kind { Replicate, Constant, Dummy } kind = Dummy;
  unsigned dummy = 0; ///< alignee dim (Dummy)
  int64_t stride = 1; ///< coefficient of the dummy (may be negative)
  int64_t offset = 0; ///< constant term (Constant: the position)
};

/// ALIGN alignee WITH target (003 7.1.1): permutation, offset, stride,
/// reversal, replication and constants, applied to the target's format.
/// Alignee dims that no subscript uses are collapsed into memory.
LowerResult lowerAlign(llvm::ArrayRef<int64_t> aligneeShape,
                       const KTile &target, llvm::ArrayRef<AlignSubSpec> subs);

// ---- standard mappings and transforms (003 5.3.4, 5.3.5, B.6.1) ---------

enum class StandardMapping {
  Hierarchical1d,
  Hierarchical2d,
  CutNStack1d,
  CutNStack2d,
  Scan1d
};

/// Builds a standard mapping of an array of `shape` on a machine whose PE
/// set is viewed as `pes1d` PEs (1d mappings) or the grid `pes2d` (2d).
LowerResult lowerStandardMapping(StandardMapping kind,
                                 llvm::ArrayRef<int64_t> shape, int64_t pes1d,
                                 llvm::ArrayRef<int64_t> pes2d);

// ---- FFT mappings on a k-d mesh (002 sections 4-6) -----------------------

/// The mesh of 002 2.1 that a network machine is: a mesh's PE grid, or n
/// dims of size 2 for a hypercube of 2^n nodes. Empty for maspar.
std::vector<int64_t> meshShapeOf(const Machine &machine);

enum class FftMapping {
  Identical, ///< 002 algorithm 1: linear data bit x at device bit x
  MkShuffle  ///< 002 algorithm 4: the m-k shuffle of theorem 10
};

/// `fftidentity` or `mkshuffle` (any case), else nothing.
std::optional<FftMapping> parseFftMapping(llvm::StringRef name);

/// The m-k shuffle S(x) of 002 thm 10 over n cards, m dealers, k gamblers:
/// R(x, k) * n/k + Q(R(x, n/m), k) * m + Q(x, n/m). Needs m | n, k | n/m.
unsigned mkShuffle(unsigned x, unsigned n, unsigned m, unsigned k);

/// Builds an FFT mapping of an array of `shape` (power-of-two lengths, at
/// least as many elements as PEs) on `machine` (a mesh or hypercube, or any
/// power-of-two PE grid). The bits beyond the PEs go to memory: the low
/// linear bits for Identical, the low bits of every data dim for MkShuffle.
LowerResult lowerFftMapping(FftMapping kind, llvm::ArrayRef<int64_t> shape,
                            const Machine &machine);

/// Index bit reversal of data dim `dim` (003 5.3.5 bitrev): the dim's
/// length must be a power of two and its k-Tile dims plain.
LowerResult bitReverse(const KTile &tile, unsigned dim);

// ---- canonical form (003 5.1.2) -----------------------------------------

/// Rewrites a verified format into mapc's canonical form: length-1 k-Tile
/// dims dropped, needlessly split dims merged (5.1.2 ii), and empty dims
/// numbered in the order m references them (5.1.2 iii). The device shape is
/// kept as written (5.1.2 i and iv would change what the user declared).
KTile canonicalize(const KTile &tile);

} // namespace mapc

#endif
