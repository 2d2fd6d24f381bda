//===- PicturesTest.cpp - --emit=svg and the workbench page ---------------===//
//
// Property test: for 3000 random k-Tile formats (templates, senses,
// Gray codes, empty dims, replication), the SVG drawing's cells are read
// back and checked cell by cell against g_K (KTile::dataAt): every
// non-empty cell once, with its data index, its address and its copies;
// no text for an empty cell. And the page keeps any text inside its script
// and markup.
//
//===----------------------------------------------------------------------===//
#include "RandomTile.h"
#include "backend/HtmlEmitter.h"
#include "backend/SvgEmitter.h"

#include "gtest/gtest.h"

#include <map>

using namespace mapc;
using mapc::test::randomTile;

namespace {

struct Cell {
  int64_t value = -1;
  unsigned copies = 1;
  int64_t index = -1; ///< data-index, with --label=coords
};

/// Reads `NAME="123"` at the front of `s`; false if it is not there.
bool eatNumber(llvm::StringRef &s, llvm::StringRef name, int64_t &value) {
  if (!s.consume_front(name) || !s.consume_front("=\""))
    return false;
  size_t end = s.find('"');
  if (end == llvm::StringRef::npos || s.substr(0, end).getAsInteger(10, value))
    return false;
  s = s.drop_front(end + 1);
  return true;
}

/// The `<text data-m data-pe>` cells of one drawing, by (pe, m).
std::map<std::pair<int64_t, int64_t>, Cell> readCells(const std::string &svg,
                                                      unsigned &duplicates) {
  std::map<std::pair<int64_t, int64_t>, Cell> cells;
  duplicates = 0;
  llvm::StringRef rest(svg);
  for (size_t at = rest.find(" data-m="); at != llvm::StringRef::npos;
       at = rest.find(" data-m=")) {
    rest = rest.drop_front(at + 1);
    int64_t m = -1, pe = -1, copies = 1, index = -1;
    EXPECT_TRUE(eatNumber(rest, "data-m", m));
    EXPECT_TRUE(rest.consume_front(" ") && eatNumber(rest, "data-pe", pe));
    if (rest.starts_with(" data-replicated")) {
      EXPECT_TRUE(rest.consume_front(" ") &&
                  eatNumber(rest, "data-replicated", copies));
    }
    if (rest.starts_with(" data-index")) {
      EXPECT_TRUE(rest.consume_front(" ") &&
                  eatNumber(rest, "data-index", index));
    }
    EXPECT_TRUE(rest.consume_front(">"));
    llvm::StringRef label = rest.substr(0, rest.find("</text>"));
    Cell c;
    if (label.getAsInteger(10, c.value))
      c.value = -1; // coordinates
    c.copies = unsigned(copies);
    c.index = index;
    auto key = std::make_pair(pe, m);
    duplicates += cells.count(key);
    cells[key] = c;
  }
  return cells;
}

Program programWith(const KTile &t, Machine::Kind kind) {
  Program p;
  p.machine.kind = kind;
  ArrayInfo a;
  a.name = "A";
  for (const SpaceDim &d : t.data)
    a.shape.push_back(d.len);
  p.arrays.push_back(a);
  Layout l;
  l.name = "L";
  l.array = "A";
  l.tile = t;
  p.layouts.push_back(l);
  p.numStaticLayouts = 1;
  return p;
}

TEST(Pictures, RandomLayoutsDrawEveryCellOnce) {
  std::mt19937 rng(15);
  int drawn = 0;
  for (int i = 0; i < 3000; ++i) {
    KTile t = randomTile(rng);
    if (t.deviceSize() > kMaxSvgCells)
      continue;
    SCOPED_TRACE(i);
    bool coords = i % 3 == 0;
    Program p = programWith(t, i % 2 ? Machine::Hypercube : Machine::MasPar);
    const Layout &l = p.layouts[0];
    std::string svg;
    llvm::raw_string_ostream os(svg);
    SvgOptions opts;
    opts.coordLabels = coords;
    drawLayoutSvg(l, p, opts, 0, 0, os);
    os.flush();
    unsigned duplicates = 0;
    auto cells = readCells(svg, duplicates);
    EXPECT_EQ(duplicates, 0u);
    std::vector<int64_t> shape = l.deviceShape();
    int64_t rowLen = shape[0], held = 0;
    std::map<int64_t, unsigned> copies;
    for (int64_t a = 0; a < l.deviceSize(); ++a)
      if (int64_t v = l.dataAt(a); v >= 0)
        ++copies[v];
    for (int64_t a = 0; a < l.deviceSize(); ++a) {
      int64_t v = l.dataAt(a);
      auto it = cells.find({a / rowLen, a % rowLen});
      if (v < 0) {
        EXPECT_TRUE(it == cells.end()) << "text in empty cell " << a;
        continue;
      }
      ++held;
      ASSERT_TRUE(it != cells.end()) << "no text for cell " << a;
      EXPECT_EQ(coords ? it->second.index : it->second.value, v) << a;
      EXPECT_EQ(it->second.copies, copies[v]) << a;
    }
    EXPECT_EQ(int64_t(cells.size()), held);
    // One group, closed.
    EXPECT_EQ(svg.find("<g class=\"mapc-layout\" data-layout=\"L\" "
                       "data-array=\"A\" data-pes=\"" +
                       std::to_string(l.deviceSize() / rowLen) +
                       "\" data-memory=\"" + std::to_string(rowLen) + "\""),
              0u);
    EXPECT_EQ(svg.rfind("</g>\n"), svg.size() - 5);
    ++drawn;
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(drawn, 2000);
}

TEST(Pictures, ColoursFollowDataCoordinates) {
  std::vector<int64_t> shape{6, 4};
  // Same dim-0 coordinate: same hue; another: another hue.
  EXPECT_EQ(dataColour(7, shape).substr(0, 8),
            dataColour(13, shape).substr(0, 8));
  EXPECT_NE(dataColour(7, shape), dataColour(8, shape));
  EXPECT_EQ(dataColour(0, shape), "hsl(0,70%,86%)");
  EXPECT_EQ(dataColour(5, shape), "hsl(250,70%,86%)");
  EXPECT_EQ(dataColour(18, shape), "hsl(0,70%,56%)");
}

TEST(Pictures, PageKeepsTextInItsPlace) {
  WorkbenchPage page;
  page.title = "a<b>&\"c\".map";
  WorkbenchStatement st;
  st.label = "remap A: </script><script>alert(1)</script> -> B";
  st.plan = "<!-- <script> \\ \"quoted\" \n\ttab";
  st.cycles = "(m0, p0)";
  WorkbenchStep s;
  s.drawn = true;
  s.device.rows = 1;
  s.device.rowLen = 2;
  s.device.cells = {1, -1};
  s.text = "</script> <!-- \\ \"quoted\" \n\ttab";
  st.states = {s, s};
  page.statements.push_back(st);
  std::string html;
  llvm::raw_string_ostream os(html);
  emitHtml(page, os);
  os.flush();
  // Only the page's own two scripts close.
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_NE(html.find("<title>mapc: a&lt;b&gt;&amp;&quot;c&quot;.map</title>"),
            std::string::npos);
  EXPECT_NE(html.find("\"cells\":[1,-1]"), std::string::npos);
  EXPECT_NE(html.find("\\\\ \\\"quoted\\\" \\n\\u0009tab"), std::string::npos);
}

} // namespace
