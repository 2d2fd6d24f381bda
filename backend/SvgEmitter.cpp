//===- SvgEmitter.cpp -----------------------------------------------------===//
#include "backend/SvgEmitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mapc;

namespace {

constexpr int64_t kCellH = 18, kTitleH = 22, kHeaderH = 14, kMargin = 8;
/// Extra space between groups of rows per nesting level of the PE grid.
constexpr int64_t kNestGap = 6;
/// Room a node of a hypercube takes above its cells for its label.
constexpr int64_t kNodeLabelH = 14, kNodeGap = 10;

unsigned log2Exact(int64_t v) {
  unsigned l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return (int64_t(1) << l) == v ? l : ~0u;
}

/// The data coordinates of linear index `index` (dim 0 fastest).
std::vector<int64_t> coordsOf(int64_t index, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> c;
  for (int64_t len : shape) {
    len = std::max<int64_t>(len, 1);
    c.push_back(index % len);
    index /= len;
  }
  return c;
}

std::string cellLabel(int64_t index, llvm::ArrayRef<int64_t> shape,
                      bool coords) {
  if (!coords)
    return std::to_string(index);
  std::string s = "(";
  std::vector<int64_t> c = coordsOf(index, shape);
  for (size_t i = 0; i < c.size(); ++i)
    s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

/// Where everything of one layout goes. Row mode (maspar, mesh): PE r's
/// row is at rowY[r], boxes nest the PE grid's dims. Grid mode
/// (hypercube): node r is a box in a square-ish grid of nodes.
struct Geometry {
  std::vector<int64_t> shape; ///< device shape: memory, PE dims
  std::vector<int64_t> dataShape;
  int64_t rowLen = 1, rows = 1;
  int64_t cellW = 20, labelW = 0;
  bool grid = false;
  unsigned cubeBits = 0;
  int64_t gridCols = 1; ///< nodes per line of the node grid
  /// Row mode: group sizes (in rows) of the nested PE boxes, innermost
  /// first, and each row's top.
  std::vector<int64_t> groups;
  int64_t width = 0, height = 0;

  int64_t rowTop(int64_t r) const {
    if (grid)
      return kTitleH + (r / gridCols) * (kNodeLabelH + kCellH + kNodeGap) +
             kNodeLabelH;
    int64_t y = kTitleH + kHeaderH + r * kCellH;
    for (size_t j = 0; j < groups.size(); ++j)
      y += (r / groups[j]) * kNestGap;
    return y;
  }
  int64_t rowLeft(int64_t r) const {
    if (grid)
      return kMargin + (r % gridCols) * (rowLen * cellW + kNodeGap);
    return kMargin + labelW;
  }
};

Geometry geometryOf(const Layout &layout, const Program &program,
                    const SvgOptions &opts) {
  Geometry g;
  g.shape = layout.deviceShape();
  if (const ArrayInfo *a = program.findArray(layout.array))
    g.dataShape = a->shape;
  g.rowLen = std::max<int64_t>(g.shape[0], 1);
  for (size_t i = 1; i < g.shape.size(); ++i)
    g.rows *= std::max<int64_t>(g.shape[i], 1);
  // The widest label decides the cell width.
  int64_t dataSize = 1;
  for (int64_t len : g.dataShape)
    dataSize *= std::max<int64_t>(len, 1);
  size_t chars = cellLabel(std::max<int64_t>(dataSize - 1, 0), g.dataShape,
                           opts.coordLabels)
                     .size();
  chars = std::max(chars, std::to_string(g.rowLen - 1).size());
  g.cellW = std::max<int64_t>(20, int64_t(chars) * 7 + 8);
  g.cubeBits = log2Exact(g.rows);
  g.grid = program.machine.kind == Machine::Hypercube && g.cubeBits != ~0u &&
           g.rows > 1;
  if (g.grid) {
    g.gridCols = int64_t(1) << ((g.cubeBits + 1) / 2);
    int64_t lines = (g.rows + g.gridCols - 1) / g.gridCols;
    g.width = 2 * kMargin + g.gridCols * (g.rowLen * g.cellW + kNodeGap);
    g.height = kTitleH + lines * (kNodeLabelH + kCellH + kNodeGap) + kMargin;
    return g;
  }
  // Nested boxes for PE grids of two or more dims (length-1 dims add none).
  int64_t size = 1;
  for (size_t i = 1; i + 1 < g.shape.size(); ++i) {
    int64_t next = size * std::max<int64_t>(g.shape[i], 1);
    if (next != size && next < g.rows)
      g.groups.push_back(next);
    size = next;
  }
  // Each coordinate of a multi-dim PE label may have several digits.
  std::string widest = "PE " + std::to_string(g.rows - 1);
  if (g.shape.size() > 2) {
    widest = "PE (";
    for (size_t i = 1; i < g.shape.size(); ++i)
      widest += std::to_string(g.shape[i] - 1) + ",";
  }
  g.labelW = int64_t(widest.size()) * 7 + 10;
  g.width = 2 * kMargin + g.labelW + g.rowLen * g.cellW +
            2 * int64_t(g.groups.size()) * 2;
  g.height =
      g.rowTop(g.rows - 1) + kCellH + kMargin + int64_t(g.groups.size()) * 2;
  return g;
}

std::string titleOf(const Layout &layout, const Program &program,
                    llvm::ArrayRef<int64_t> shape) {
  std::string t = "layout " + layout.name + " of " + layout.array + " (" +
                  program.machine.kindName();
  for (size_t i = 1; i < shape.size(); ++i)
    t += (i > 1 ? " x " : ", PEs ") + std::to_string(shape[i]);
  return t + ", memory " + std::to_string(shape[0]) + ")";
}

std::string peLabel(const Geometry &g, int64_t r) {
  if (g.grid) {
    std::string bits;
    for (unsigned b = g.cubeBits; b-- > 0;)
      bits += ((r >> b) & 1) ? '1' : '0';
    return "node " + bits;
  }
  if (g.shape.size() <= 2)
    return "PE " + std::to_string(r);
  std::string s = "PE (";
  int64_t rest = r;
  for (size_t i = 1; i < g.shape.size(); ++i) {
    int64_t len = std::max<int64_t>(g.shape[i], 1);
    s += (i > 1 ? "," : "") + std::to_string(rest % len);
    rest /= len;
  }
  return s + ")";
}

} // namespace

std::string mapc::xmlEscape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string mapc::dataColour(int64_t index, llvm::ArrayRef<int64_t> shape) {
  int64_t len0 = shape.empty() ? 1 : std::max<int64_t>(shape[0], 1);
  int64_t rest = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    rest *= std::max<int64_t>(shape[i], 1);
  int64_t hue = (index % len0) * 300 / len0;
  int64_t light = 86 - (rest > 1 ? (index / len0) % rest * 40 / rest : 0);
  return "hsl(" + std::to_string(hue) + ",70%," + std::to_string(light) + "%)";
}

void mapc::writeSvgDefs(llvm::raw_ostream &os) {
  os << "<defs><pattern id=\"mapc-hatch\" width=\"6\" height=\"6\" "
        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        "<rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b0b0b0\" "
        "stroke-width=\"2\"/></pattern></defs>\n"
        "<style>.mapc-cell{stroke:#fff;stroke-width:1}"
        ".mapc-layout text{font-family:monospace;font-size:11px}"
        "text[data-m]{text-anchor:middle;dominant-baseline:central}"
        ".mapc-rep{fill:#000}.mapc-box{fill:none;stroke:#888}"
        ".mapc-title{font-weight:bold;font-size:13px}"
        ".mapc-dim{fill:#666}</style>\n";
}

SvgSize mapc::measureLayoutSvg(const Layout &layout, const Program &program,
                               const SvgOptions &opts) {
  Geometry g = geometryOf(layout, program, opts);
  // The bold title is about 8 px a character.
  int64_t title = int64_t(titleOf(layout, program, g.shape).size()) * 8;
  return {std::max(g.width, title + 2 * kMargin), g.height};
}

void mapc::drawLayoutSvg(const Layout &layout, const Program &program,
                         const SvgOptions &opts, int64_t x, int64_t y,
                         llvm::raw_ostream &os) {
  assert(layout.deviceSize() <= kMaxSvgCells && "too large to draw");
  Geometry g = geometryOf(layout, program, opts);
  int64_t cells = g.rows * g.rowLen;
  // Data indices held by more than one cell are replicated (003 3.2.3).
  std::vector<int64_t> data(static_cast<size_t>(cells));
  llvm::DenseMap<int64_t, unsigned> copies;
  for (int64_t a = 0; a < cells; ++a) {
    data[size_t(a)] = layout.dataAt(a);
    if (data[size_t(a)] >= 0)
      ++copies[data[size_t(a)]];
  }
  os << "<g class=\"mapc-layout\" data-layout=\"" << xmlEscape(layout.name)
     << "\" data-array=\"" << xmlEscape(layout.array) << "\" data-pes=\""
     << g.rows << "\" data-memory=\"" << g.rowLen << "\" transform=\"translate("
     << x << "," << y << ")\">\n";
  os << "<text class=\"mapc-title\" x=\"" << kMargin << "\" y=\"15\">"
     << xmlEscape(titleOf(layout, program, g.shape)) << "</text>\n";
  if (!g.grid) {
    // Memory addresses above the columns.
    for (int64_t c = 0; c < g.rowLen; ++c)
      os << "<text class=\"mapc-dim\" x=\"" << g.rowLeft(0) + c * g.cellW + 2
         << "\" y=\"" << kTitleH + kHeaderH - 4 << "\">" << c << "</text>";
    os << "\n";
    // The PE grid's dims as nested boxes, innermost first.
    for (size_t j = 0; j < g.groups.size(); ++j) {
      int64_t pad = 2 * int64_t(j + 1);
      for (int64_t r0 = 0; r0 < g.rows; r0 += g.groups[j]) {
        int64_t top = g.rowTop(r0) - pad;
        int64_t bottom = g.rowTop(r0 + g.groups[j] - 1) + kCellH + pad;
        os << "<rect class=\"mapc-box\" x=\"" << g.rowLeft(0) - pad << "\" y=\""
           << top << "\" width=\"" << g.rowLen * g.cellW + 2 * pad
           << "\" height=\"" << bottom - top << "\"/>";
      }
      os << "\n";
    }
  }
  for (int64_t r = 0; r < g.rows; ++r) {
    int64_t top = g.rowTop(r), left = g.rowLeft(r);
    if (g.grid) {
      os << "<rect class=\"mapc-box\" x=\"" << left - 2 << "\" y=\""
         << top - kNodeLabelH << "\" width=\"" << g.rowLen * g.cellW + 4
         << "\" height=\"" << kNodeLabelH + kCellH + 2 << "\"/>";
      os << "<text class=\"mapc-dim\" x=\"" << left << "\" y=\"" << top - 3
         << "\">" << peLabel(g, r) << "</text>";
    } else {
      os << "<text class=\"mapc-dim\" x=\"" << kMargin << "\" y=\"" << top + 13
         << "\">" << peLabel(g, r) << "</text>";
    }
    for (int64_t c = 0; c < g.rowLen; ++c) {
      int64_t v = data[size_t(r * g.rowLen + c)];
      int64_t cx = left + c * g.cellW;
      os << "<rect class=\"mapc-cell\" x=\"" << cx << "\" y=\"" << top
         << "\" width=\"" << g.cellW << "\" height=\"" << kCellH << "\" fill=\""
         << (v < 0 ? std::string("url(#mapc-hatch)")
                   : dataColour(v, g.dataShape))
         << "\"/>";
      if (v < 0)
        continue;
      if (copies[v] > 1)
        os << "<path class=\"mapc-rep\" d=\"M" << cx + g.cellW - 6 << " " << top
           << "h6v6z\"/>";
      os << "<text x=\"" << cx + g.cellW / 2 << "\" y=\"" << top + kCellH / 2
         << "\" data-m=\"" << c << "\" data-pe=\"" << r << "\"";
      if (copies[v] > 1)
        os << " data-replicated=\"" << copies[v] << "\"";
      if (opts.coordLabels)
        os << " data-index=\"" << v << "\"";
      os << ">" << cellLabel(v, g.dataShape, opts.coordLabels) << "</text>";
    }
    os << "\n";
  }
  os << "</g>\n";
}

bool mapc::emitSvg(const Program &program, const SvgOptions &opts,
                   Diagnostics &diags, llvm::raw_ostream &os) {
  int64_t total = 0;
  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    const Layout &l = program.layouts[i];
    if (l.deviceSize() > kMaxSvgCells) {
      diags.error(l.loc,
                  "layout '" + l.name + "' has " +
                      std::to_string(l.deviceSize()) +
                      " device cells, too many to draw one by one",
                  "--emit=svg draws at most 65536 cells per layout; "
                  "--emit=html draws larger ones as heat maps");
      continue;
    }
    total += l.deviceSize();
    if (total > kMaxSvgTotalCells) {
      diags.error(l.loc,
                  "with layout '" + l.name +
                      "' the drawing holds more than 2^20 cells",
                  "--emit=svg draws at most 2^20 cells in all; split the "
                  "program or use --emit=html, which draws heat maps");
      break;
    }
  }
  if (diags.hadError())
    return false;
  int64_t width = 0, height = 0;
  std::vector<SvgSize> sizes;
  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    sizes.push_back(measureLayoutSvg(program.layouts[i], program, opts));
    width = std::max(width, sizes.back().width);
    height += sizes.back().height;
  }
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
     << height << "\">\n";
  writeSvgDefs(os);
  int64_t y = 0;
  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    drawLayoutSvg(program.layouts[i], program, opts, 0, y, os);
    y += sizes[i].height;
  }
  os << "</svg>\n";
  return true;
}
