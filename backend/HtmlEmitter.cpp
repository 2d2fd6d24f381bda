//===- HtmlEmitter.cpp ----------------------------------------------------===//
#include "backend/HtmlEmitter.h"
#include "backend/SvgEmitter.h"

#include "llvm/Support/Format.h"

using namespace mapc;

namespace {

/// A JSON string. `<` is written `\u003c` so that no text can close (or
/// open a comment in) the script element that holds the data.
void jsonString(llvm::StringRef s, llvm::raw_ostream &os) {
  os << '"';
  for (char c : s) {
    switch (c) {
    case '"':
      os << "\\\"";
      break;
    case '\\':
      os << "\\\\";
      break;
    case '\n':
      os << "\\n";
      break;
    case '<':
      os << "\\u003c";
      break;
    default:
      if ((unsigned char)c < 0x20)
        os << llvm::format("\\u%04x", unsigned((unsigned char)c));
      else
        os << c;
    }
  }
  os << '"';
}

void jsonDevice(const WorkbenchDevice &d, llvm::raw_ostream &os) {
  os << "{\"rows\":" << d.rows << ",\"rowLen\":" << d.rowLen
     << ",\"sampled\":" << (d.sampled ? "true" : "false")
     << ",\"fullRows\":" << d.fullRows << ",\"fullRowLen\":" << d.fullRowLen
     << ",\"cells\":[";
  for (size_t i = 0; i < d.cells.size(); ++i) {
    if (i)
      os << ',';
    os << d.cells[i];
  }
  os << "]}";
}

void jsonData(const WorkbenchPage &page, llvm::raw_ostream &os) {
  os << "{\"hypercube\":" << (page.hypercube ? "true" : "false")
     << ",\"maxDrawnCells\":" << kMaxDrawnCells << ",\"layouts\":[";
  for (size_t i = 0; i < page.layouts.size(); ++i) {
    const WorkbenchLayout &l = page.layouts[i];
    os << (i ? ",\n" : "\n") << "{\"name\":";
    jsonString(l.name, os);
    os << ",\"shape\":[";
    for (size_t k = 0; k < l.shape.size(); ++k)
      os << (k ? "," : "") << l.shape[k];
    os << "],\"heat\":";
    if (l.svg.empty() && !l.heat.cells.empty())
      jsonDevice(l.heat, os);
    else
      os << "null";
    os << "}";
  }
  os << "],\n\"statements\":[";
  for (size_t i = 0; i < page.statements.size(); ++i) {
    const WorkbenchStatement &st = page.statements[i];
    os << (i ? ",\n" : "\n") << "{\"shape\":[";
    for (size_t k = 0; k < st.shape.size(); ++k)
      os << (k ? "," : "") << st.shape[k];
    os << "],\"traced\":" << (st.traced ? "true" : "false") << ",\"states\":[";
    for (size_t k = 0; k < st.states.size(); ++k) {
      const WorkbenchStep &s = st.states[k];
      os << (k ? ",\n" : "\n") << "{\"text\":";
      jsonString(s.text, os);
      os << ",\"device\":";
      if (s.drawn)
        jsonDevice(s.device, os);
      else
        os << "null";
      os << "}";
    }
    os << "]}";
  }
  os << "]}";
}

void statementHtml(const WorkbenchStatement &st, size_t index,
                   llvm::raw_ostream &os) {
  os << "<article class=\"statement\" id=\"statement-" << index
     << "\" data-statement=\"" << index << "\" tabindex=\"0\">\n";
  os << "<h3>" << xmlEscape(st.label) << " <span class=\"where\">"
     << xmlEscape(st.location) << "</span></h3>\n";
  os << "<p class=\"summary\">predicted <b class=\"ticks\">"
     << st.predictedTicks << "</b> ticks, lower bound <b class=\"bound\">"
     << st.lowerBound << "</b> ticks";
  if (st.predictedTicks > 0)
    os << llvm::format(", bound/plan %.2f",
                       double(st.lowerBound) / double(st.predictedTicks));
  os << "</p>\n";
  os << "<h4>cycles</h4><pre class=\"cycles\">" << xmlEscape(st.cycles)
     << "</pre>\n";
  os << "<details open><summary>plan</summary><pre class=\"plan\">"
     << xmlEscape(st.plan) << "</pre></details>\n";
  if (!st.run.empty())
    os << "<pre class=\"run\">" << xmlEscape(st.run) << "</pre>\n";
  if (!st.traceNote.empty())
    os << "<p class=\"note\">" << xmlEscape(st.traceNote) << "</p>\n";
  if (st.states.empty()) {
    os << "</article>\n";
    return;
  }
  os << "<div class=\"viewer\">\n"
        "<div class=\"controls\"><button class=\"prev\" "
        "title=\"previous step (ArrowLeft)\">&#9664; previous</button> "
        "<span class=\"stepname\"></span> <button class=\"next\" "
        "title=\"next step (ArrowRight)\">next &#9654;</button></div>\n"
        "<pre class=\"steptext\"></pre>\n"
        "<div class=\"device\"></div>\n</div>\n</article>\n";
}

} // namespace

void mapc::emitHtml(const WorkbenchPage &page, llvm::raw_ostream &os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
        "\n<title>mapc: "
     << xmlEscape(page.title) << "</title>\n<style>\n"
     << kWorkbenchCss << "</style>\n</head>\n<body>\n";
  os << "<header><h1>mapc workbench: " << xmlEscape(page.title)
     << "</h1><p class=\"machine\">" << xmlEscape(page.machine)
     << "</p><p class=\"help\">Step through a statement's plan with its "
        "buttons, or click the statement and use the ArrowLeft and "
        "ArrowRight keys. Cells that took another element in the step shown "
        "are outlined in red, and the other cells fade.</p></header>\n";
  // The hatch of empty cells, shared by every inline SVG.
  os << "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\">";
  writeSvgDefs(os);
  os << "</svg>\n";
  for (const std::string &n : page.notes)
    os << "<p class=\"note\">" << xmlEscape(n) << "</p>\n";
  os << "<section id=\"layouts\"><h2>Layouts</h2>\n";
  for (size_t i = 0; i < page.layouts.size(); ++i) {
    const WorkbenchLayout &l = page.layouts[i];
    os << "<figure class=\"layout\" data-layout=\"" << xmlEscape(l.name)
       << "\" data-array=\"" << xmlEscape(l.array) << "\">\n";
    if (!l.svg.empty()) {
      os << l.svg;
    } else if (!l.heat.cells.empty()) {
      os << "<figcaption>layout " << xmlEscape(l.name) << " of "
         << xmlEscape(l.array) << ": " << l.cells
         << " cells, drawn as a heat map of data index"
         << (l.heat.sampled ? " (one cell of every block)" : "")
         << "</figcaption>\n<div class=\"heat\" data-layout-index=\"" << i
         << "\"></div>\n";
    } else {
      os << "<figcaption>layout " << xmlEscape(l.name) << " of "
         << xmlEscape(l.array) << ": " << l.cells
         << " cells, not drawn (the page's cap is reached)</figcaption>\n";
    }
    os << "</figure>\n";
  }
  os << "</section>\n<section id=\"statements\"><h2>Statements</h2>\n";
  if (page.statements.empty())
    os << "<p>The program moves no data.</p>\n";
  for (size_t i = 0; i < page.statements.size(); ++i)
    statementHtml(page.statements[i], i, os);
  os << "</section>\n<script type=\"application/json\" id=\"mapc-data\">";
  jsonData(page, os);
  os << "</script>\n<script>\n" << kWorkbenchScript << "</script>\n";
  os << "</body>\n</html>\n";
}
