//===- HtmlEmitter.h - `--emit=html`: the workbench page ------------------===//
//
// One self-contained HTML page (inline CSS and script, nothing fetched) in
// the spirit of 003 app. B.6's workbench: every layout of a program, and
// for every statement its cycles, its plan with predicted ticks and lower
// bound, and the device after every plan step with the elements that moved
// in that step highlighted, stepped with buttons or the arrow keys.
//
// The page is written from plain data (`WorkbenchPage`) that the driver
// fills from the planner and the simulator's trace (program/
// Workbench.cpp), so this file knows nothing about plans.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_HTMLEMITTER_H
#define MAPC_BACKEND_HTMLEMITTER_H

#include "ir/Program.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mapc {

/// A device drawn by the page's script: `rows` rows (one per PE, first PE
/// dim fastest) of `rowLen` cells, row by row, -1 for an empty cell. A
/// `sampled` device is a heat map of a larger one: each value is the cell
/// at the top left of its block of `fullRows / rows` x `fullRowLen /
/// rowLen` cells.
struct WorkbenchDevice {
  int64_t rows = 0, rowLen = 0;
  std::vector<int64_t> cells;
  bool sampled = false;
  int64_t fullRows = 0, fullRowLen = 0;
};

struct WorkbenchLayout {
  std::string name, array;
  std::vector<int64_t> shape; ///< the array's shape (for colours)
  int64_t cells = 0;
  /// Drawn cell by cell (SvgEmitter's `<g>`, already written), or, when
  /// empty, `heat` as a heat map.
  std::string svg;
  WorkbenchDevice heat;
};

struct WorkbenchStep {
  std::string text;       ///< the step's lines of --emit=plan
  WorkbenchDevice device; ///< --run --trace's rows after the step
  bool drawn = false;     ///< false: over the page's cap, not kept
};

struct WorkbenchStatement {
  std::string label;    ///< "remap A: R -> C"
  std::string location; ///< "file:line:col"
  std::string cycles;   ///< as --emit=cycles, or why there are none
  std::string plan;     ///< as --emit=plan
  std::string run;      ///< --run's line
  int64_t predictedTicks = 0, lowerBound = 0;
  std::vector<int64_t> shape; ///< the array's shape (for colours)
  std::string traceNote;      ///< why some steps are not drawn
  /// False: too large for --trace, the states are the layouts before and
  /// after the statement, as heat maps.
  bool traced = true;
  /// State 0 is the device before the first step.
  std::vector<WorkbenchStep> states;
};

struct WorkbenchPage {
  std::string title; ///< the input file
  std::string machine;
  bool hypercube = false; ///< draw devices as node grids
  std::vector<WorkbenchLayout> layouts;
  std::vector<WorkbenchStatement> statements;
  std::vector<std::string> notes; ///< what the caps left out
};

/// The most device cells a page shows cell by cell; larger devices are
/// heat maps.
constexpr int64_t kMaxDrawnCells = 4096;
/// The most device cells a page draws cell by cell in all: an SVG cell
/// takes about 140 bytes, so this keeps the drawn layouts near 9 MB (a
/// page of 4096 tiny arrays was 580 MB); later small layouts are heat maps.
constexpr int64_t kMaxPageDrawnCells = int64_t(1) << 16;
/// A heat map has at most this many rows and as many cells per row.
constexpr int64_t kMaxHeatSide = 256;
/// The most cell values one page holds in all (about 30 MB of page).
constexpr int64_t kMaxPageValues = int64_t(1) << 22;

/// Writes the page.
void emitHtml(const WorkbenchPage &page, llvm::raw_ostream &os);

/// The page's style sheet and script (WorkbenchAssets.cpp).
extern const char *const kWorkbenchCss;
extern const char *const kWorkbenchScript;

} // namespace mapc

#endif
