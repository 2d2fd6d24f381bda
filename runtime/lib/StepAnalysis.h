//===- StepAnalysis.h - the structure of one plan step
//---------------------===//
//
// What the executor and the cost predictor both read off a step's move: the
// cycle types of 003 4.4.2 and the loops of functions 4.1-4.4.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_STEPANALYSIS_H
#define MAPC_RUNTIME_STEPANALYSIS_H

#include "mapc/runtime/Plan.h"

#include <string>
#include <vector>

namespace mapc::rt {

/// An even-parity (mp*) cycle (003 4.4.8): its one m-bit and, as a mask of
/// device address bits, its p-bits.
struct MpCycle {
  unsigned mBit = 0;
  uint64_t pMask = 0;
};

struct StepAnalysis {
  unsigned mBits = 0, pBits = 0;
  unsigned chunkBytes = 1; ///< bytes moved per chunk (element * 2^chunkBits)
  unsigned xferBytes = 1;  ///< bytes per transfer (at most 8)
  unsigned xfers = 1;      ///< transfers per chunk
  uint64_t chunkMask = 0;  ///< address bits inside a chunk
  /// Identity m-bits above the chunk, looped over (function 4.4).
  std::vector<unsigned> loopBits;
  std::vector<MpCycle> mps;
  /// (m*) bits and the data cycles of their offsets (function 4.2), each
  /// cycle listed so that the data at element k moves to element k + 1.
  uint64_t starMask = 0;
  std::vector<uint64_t> starOrder;      ///< all cycles, one after another
  std::vector<uint32_t> starCycleStart; ///< where each begins, then the end
  size_t starCycleCount() const {
    return starCycleStart.empty() ? 0 : starCycleStart.size() - 1;
  }
  bool movesPEs = false; ///< some p-bit moves or is inverted

  /// Xnet steps: m-bits xnetM .. xnetM + xnetBits - 1 trade places with
  /// p-bits xnetP .. (PE-bit numbering, not address bits).
  unsigned xnetM = 0, xnetP = 0, xnetBits = 0;

  /// The m-part of every address visited for a loop value (bits of
  /// loopBits), as `loopValue(i)`.
  uint64_t loopValue(uint64_t i) const;
  /// The offset bits of the (mp*) m-bits for PE address bits `pe` in
  /// parity phase `phase` (bit k for cycle k), 003 4.4.8.
  uint64_t parityBits(uint64_t peAddressBits, uint64_t phase) const;
};

/// Reads the structure of `step` applied to a layout of `before`'s shape;
/// false, with a reason, if the step's kind cannot carry its move out.
/// The data cycles (starOrder, 2^|star| entries) are listed only when
/// `listDataCycles` is set: the executor walks them, the predictor counts.
bool analyseStep(const Step &step, const BitLayout &before, unsigned elemBytes,
                 unsigned peWidth, StepAnalysis &out, std::string *why,
                 bool listDataCycles = true);

} // namespace mapc::rt

#endif
