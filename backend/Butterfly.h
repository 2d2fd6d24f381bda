//===- Butterfly.h - FFT communication on a k-d mesh (002) ----------------===//
//
// An m-d FFT communication is a sequence of steps C(p, q): every element
// exchanges with the one whose index differs in bit q of data dim p (002
// 2.2), in postmorphism order (p = 0 first, q = 0 first within p). A layout
// that is a radix-2 bit map turns each step into a mesh communication (002
// 2.3): the translating function g(p, q) = (i, w) of 002 thm 7, 11 and 14
// reads it off the layout's index bit map. Flipping the data bit flips the
// device bits whose row holds it: no PE bit means the step is local, one PE
// bit (bit b of mesh dim i) the single dimensional communication
// sd(i, 2^b), several PE bits (Gray codes, XOR maps) a communication whose
// vector differs by node. The total distance of an optimal mapping is the
// mesh's diameter (002 thm 1, 6, 18).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_BUTTERFLY_H
#define MAPC_BACKEND_BUTTERFLY_H

#include "ir/BitMap.h"
#include "ir/Diagnostics.h"
#include "ir/Program.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <variant>
#include <vector>

namespace mapc {

/// What one FFT step C(p, q) becomes on the mesh.
struct ButterflyStep {
  enum Kind {
    Local,     ///< only memory bits change: no communication
    SingleDim, ///< sd(meshDim, distance)
    Nonuniform ///< several PE bits change; distance is the largest one
  };
  Kind kind = Local;
  unsigned dataDim = 0, bit = 0; ///< p and q
  unsigned meshDim = 0;          ///< SingleDim: i
  int64_t distance = 0;          ///< SingleDim: w; Nonuniform: max distance
};

/// All steps of the FFT communication of one array, their total distance
/// and the mesh's diameter.
struct ButterflyReport {
  std::vector<ButterflyStep> steps;
  int64_t total = 0;
  int64_t diameter = 0;
};

/// The diameter of a mesh: sum of (P_i - 1) (002 thm 1).
int64_t meshDiameter(llvm::ArrayRef<int64_t> mesh);

/// The translating function for linear data bit x (002 thm 14): the mesh
/// communication of flipping it under `map` on `mesh` (power-of-two dims;
/// PE bits split over them in order, dim 0 lowest). dataDim/bit are left 0.
ButterflyStep translateBit(const IndexBitMap &map, llvm::ArrayRef<int64_t> mesh,
                           unsigned x);

/// Every step C(p, q) of an array of `shape` laid out by `map`, or why
/// they cannot be computed (lengths that are not powers of two, a layout
/// with more PE bits than the mesh).
std::variant<ButterflyReport, std::string>
analyzeButterfly(const IndexBitMap &map, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> mesh);

/// `C(p, q) -> ...` lines and the `total distance T, diameter D` line.
void printButterfly(const ButterflyReport &report, llvm::raw_ostream &os);

enum class ButterflyOutcome {
  Printed,  ///< every array was analysed
  Errors,   ///< some arrays were reported through the diagnostics
  NoNetwork ///< the machine is not a mesh or hypercube: nothing to analyse
};

/// --emit=butterfly: the analysis of every array's initial mapping, in
/// declaration order; layouts that are not radix-2 bit maps are reported
/// at the array.
ButterflyOutcome emitButterfly(const Program &program, Diagnostics &diags,
                               llvm::raw_ostream &os);

} // namespace mapc

#endif
