//===- SvgEmitter.h - `--emit=svg`: layouts drawn as the thesis draws them
//-===//
//
// A layout is drawn as 003 ch. 3 draws a device: one row per PE, memory
// along the row, each cell labelled with the data index it holds (fig.
// 3.1's tables). The PE grid's dims are nested boxes around the rows, a
// hypercube is drawn as its node grid (001 figs. 3-5), cells are coloured
// by data coordinate so tiles, blocks and cycles stand out, empty cells are
// hatched and replicated ones marked. The structure outside tests read is
// pinned in shared/design/language.md ("Pictures"): a `<g>` per layout with
// `data-layout` and `data-array`, a `<text>` per non-empty cell holding its
// data index, with `data-m` (memory address) and `data-pe` (flattened PE
// index, first PE dim fastest).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_BACKEND_SVGEMITTER_H
#define MAPC_BACKEND_SVGEMITTER_H

#include "ir/Diagnostics.h"
#include "ir/Program.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mapc {

/// A layout larger than this many device cells is not drawn cell by cell:
/// `--emit=svg` refuses it, `--emit=html` draws it as a heat map.
constexpr int64_t kMaxSvgCells = int64_t(1) << 16;
/// `--emit=svg` draws at most this many cells over all layouts (about
/// 150 MB of SVG).
constexpr int64_t kMaxSvgTotalCells = int64_t(1) << 20;

struct SvgOptions {
  /// Label cells with their data coordinates `(i0,i1,...)` instead of the
  /// linear data index (`--label=coords`); `data-index` then holds the
  /// index.
  bool coordLabels = false;
};

/// The size in pixels of a drawn layout.
struct SvgSize {
  int64_t width = 0, height = 0;
};

/// The `<defs>` every drawing refers to (the hatch of empty cells) and the
/// style of its classes; write them once per document or page.
void writeSvgDefs(llvm::raw_ostream &os);

/// The size `drawLayoutSvg` gives `layout`; it must have at most
/// kMaxSvgCells cells.
SvgSize measureLayoutSvg(const Layout &layout, const Program &program,
                         const SvgOptions &opts);

/// Draws `layout` (at most kMaxSvgCells cells) as one `<g>` with its top
/// left corner at (x, y).
void drawLayoutSvg(const Layout &layout, const Program &program,
                   const SvgOptions &opts, int64_t x, int64_t y,
                   llvm::raw_ostream &os);

/// `--emit=svg`: one SVG document holding every layout `--emit=layout`
/// prints, one under another. Reports layouts too large to draw at their
/// declarations and writes nothing then; returns false on error.
bool emitSvg(const Program &program, const SvgOptions &opts, Diagnostics &diags,
             llvm::raw_ostream &os);

/// The fill colour of data index `index` of an array of `shape`: the hue
/// follows the coordinate in dim 0 and the lightness the rest, so tiles
/// and blocks show as bands (the workbench's script computes the same).
std::string dataColour(int64_t index, llvm::ArrayRef<int64_t> shape);

/// Escapes `&`, `<`, `>` and `"` for XML text and attributes.
std::string xmlEscape(llvm::StringRef text);

} // namespace mapc

#endif
