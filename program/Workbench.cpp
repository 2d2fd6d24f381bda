//===- Workbench.cpp ------------------------------------------------------===//
#include "Workbench.h"
#include "ProgramRun.h"
#include "StatementCycles.h"

#include "backend/SvgEmitter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mapc;

namespace {

/// Reads --run --trace's text as it is written, line by line, into the
/// statements' states, keeping at most the page's cap of cell values (the
/// text itself is never held: a long program traces gigabytes).
class TraceReader : public llvm::raw_ostream {
public:
  TraceReader(std::vector<WorkbenchStatement> &statements, int64_t &budget)
      : statements(statements), budget(budget) {
    SetUnbuffered();
  }
  bool overCap = false; ///< some state was left out for the cap

private:
  std::vector<WorkbenchStatement> &statements;
  int64_t &budget;
  std::string partial;
  uint64_t written = 0;
  size_t reports = 0; ///< statements whose --run line has been seen
  WorkbenchStep *step = nullptr;

  void write_impl(const char *p, size_t n) override {
    written += n;
    for (size_t i = 0; i < n; ++i) {
      if (p[i] != '\n') {
        partial += p[i];
        continue;
      }
      line(partial);
      partial.clear();
    }
  }
  uint64_t current_pos() const override { return written; }

  void line(llvm::StringRef l) {
    if (reports >= statements.size())
      return;
    WorkbenchStatement &st = statements[reports];
    if (l.starts_with("trace ")) {
      llvm::SmallVector<llvm::StringRef, 4> words;
      l.split(words, ' ');
      unsigned n = 0;
      if (words.size() == 4 && words[2] == "step" &&
          !words[3].getAsInteger(10, n)) {
        st.states.emplace_back();
        step = &st.states.back();
        step->drawn = true;
        return;
      }
      // "trace ARRAY: ..." says why the statement is not (fully) traced.
      step = nullptr;
      size_t colon = l.find(": ");
      st.traceNote =
          colon == llvm::StringRef::npos ? l.str() : l.substr(colon + 2).str();
      return;
    }
    if (l.starts_with(st.label + ": ")) {
      st.run = l.str();
      ++reports;
      step = nullptr;
      return;
    }
    if (!step || !step->drawn)
      return;
    llvm::SmallVector<llvm::StringRef, 64> cells;
    l.split(cells, ' ', -1, false);
    WorkbenchDevice &d = step->device;
    if (d.rows == 0)
      d.rowLen = int64_t(cells.size());
    if (int64_t(cells.size()) != d.rowLen || budget < int64_t(cells.size())) {
      // Over the cap (or not a row): the state is left out whole.
      overCap |= budget < int64_t(cells.size());
      budget += int64_t(d.cells.size());
      step->drawn = false;
      d = WorkbenchDevice();
      return;
    }
    for (llvm::StringRef c : cells) {
      int64_t v = -1;
      if (c != "." && c.getAsInteger(10, v))
        v = -1;
      d.cells.push_back(v);
    }
    budget -= int64_t(cells.size());
    ++d.rows;
    d.fullRows = d.rows;
    d.fullRowLen = d.rowLen;
  }
};

std::string machineText(const Machine &m) {
  std::string s = m.kindName();
  if (m.kind == Machine::Hypercube) {
    unsigned dims = 0;
    while ((int64_t(1) << dims) < m.peCount())
      ++dims;
    s += ", " + std::to_string(dims) + " dims (" + std::to_string(m.peCount()) +
         " nodes)";
  } else {
    s += ", PEs " + m.gridText();
  }
  s += ", memory " + std::to_string(m.memory);
  if (m.kind == Machine::MasPar)
    s += ", cluster " + std::to_string(m.cluster);
  return s;
}

/// `l`'s device as a heat map, sampled down to kMaxHeatSide x kMaxHeatSide
/// (the top left cell of each block); false, leaving `d` empty, when the
/// page's cap is reached.
bool heatOf(const Layout &l, int64_t &budget, WorkbenchDevice &d) {
  std::vector<int64_t> shape = l.deviceShape();
  int64_t rowLen = std::max<int64_t>(shape[0], 1), rows = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    rows = std::min<int64_t>(rows * std::max<int64_t>(shape[i], 1), int64_t(1)
                                                                        << 40);
  d = WorkbenchDevice();
  d.rows = std::min(rows, kMaxHeatSide);
  d.rowLen = std::min(rowLen, kMaxHeatSide);
  if (budget < d.rows * d.rowLen) {
    d = WorkbenchDevice();
    return false;
  }
  budget -= d.rows * d.rowLen;
  d.fullRows = rows;
  d.fullRowLen = rowLen;
  d.sampled = d.rows < rows || d.rowLen < rowLen;
  for (int64_t r = 0; r < d.rows; ++r) {
    // The first row and cell of each block (r * rows < 2^48: no overflow).
    int64_t fr = r * rows / d.rows;
    for (int64_t c = 0; c < d.rowLen; ++c) {
      int64_t fc = c * rowLen / d.rowLen;
      d.cells.push_back(l.dataAt(fr * rowLen + fc));
    }
  }
  return true;
}

/// A layout as an inline SVG when small, else as a (sampled) heat map.
WorkbenchLayout layoutPicture(const Layout &l, const Program &program,
                              int64_t &budget, int64_t &drawnBudget) {
  WorkbenchLayout out;
  out.name = l.name;
  out.array = l.array;
  out.cells = l.deviceSize();
  if (const ArrayInfo *a = program.findArray(l.array))
    out.shape = a->shape;
  if (out.cells <= kMaxDrawnCells && budget >= out.cells &&
      drawnBudget >= out.cells) {
    budget -= out.cells;
    drawnBudget -= out.cells;
    SvgSize size = measureLayoutSvg(l, program, {});
    llvm::raw_string_ostream os(out.svg);
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << size.width
       << "\" height=\"" << size.height << "\">";
    drawLayoutSvg(l, program, {}, 0, 0, os);
    os << "</svg>\n";
    return out;
  }
  heatOf(l, budget, out.heat); // or neither: the page's cap is reached
  return out;
}

/// The plan text split at its steps: the lines of step k go to state k.
void splitPlanSteps(llvm::StringRef plan, std::vector<std::string> &steps) {
  llvm::SmallVector<llvm::StringRef, 16> lines;
  plan.split(lines, '\n');
  bool inStep = false;
  for (llvm::StringRef l : lines) {
    if (l.starts_with("  step ")) {
      steps.push_back(l.ltrim().str());
      inStep = true;
    } else if (inStep && l.starts_with("    ")) {
      steps.back() += "\n" + l.ltrim().str();
    } else {
      inStep = false;
    }
  }
}

} // namespace

bool mapc::buildWorkbench(const WorkbenchRequest &req, Diagnostics &diags,
                          WorkbenchPage &page, bool &allVerified) {
  const Program &program = *req.program;
  ProgramPlans plans;
  if (!program.statements.empty() &&
      !planProgram(program, req.planner, "--emit=html", diags, plans,
                   req.exchangeStart))
    return false;
  page.title = req.fileName;
  page.machine = machineText(program.machine);
  page.hypercube = program.machine.kind == Machine::Hypercube;
  int64_t budget = kMaxPageValues, drawnBudget = kMaxPageDrawnCells;
  bool layoutsCut = false;
  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    page.layouts.push_back(
        layoutPicture(program.layouts[i], program, budget, drawnBudget));
    layoutsCut |= page.layouts.back().svg.empty() &&
                  page.layouts.back().heat.cells.empty();
  }
  if (layoutsCut)
    page.notes.push_back("Some layouts are not drawn: a page holds at most "
                         "2^22 cell values.");

  ProgramPlans one = plans;
  one.statements.clear();
  for (const StatementPlan &sp : plans.statements) {
    WorkbenchStatement st;
    st.label = sp.label;
    auto lc = req.srcMgr->getLineAndColumn(sp.statement->loc);
    st.location = req.fileName + ":" + std::to_string(lc.first) + ":" +
                  std::to_string(lc.second);
    std::string why;
    st.cycles = statementCycles(program, *sp.statement, req.exchangeStart, why);
    if (!why.empty())
      st.cycles = "no cycle notation: " + why;
    else if (st.cycles.empty())
      st.cycles = "(identity)";
    one.statements = {sp};
    llvm::raw_string_ostream planText(st.plan);
    printPlans(one, planText);
    st.predictedTicks = predictedTicksOf(sp);
    st.lowerBound = lowerBoundOf(sp);
    if (const ArrayInfo *a = program.findArray(sp.statement->array))
      st.shape = a->shape;
    page.statements.push_back(std::move(st));
  }
  // The same run --run --trace prints, read as it is written.
  TraceReader reader(page.statements, budget);
  allVerified = runPlans(plans, /*trace=*/true, /*memoryDigest=*/false, reader);
  reader.flush();
  for (WorkbenchStatement &st : page.statements) {
    std::vector<std::string> steps;
    splitPlanSteps(st.plan, steps);
    for (size_t k = 1; k < st.states.size() && k <= steps.size(); ++k)
      st.states[k].text = steps[k - 1];
  }
  // Statements too large to trace: the layouts before and after, as heat
  // maps, so that large devices are seen too.
  for (size_t i = 0; i < page.statements.size(); ++i) {
    WorkbenchStatement &st = page.statements[i];
    const Statement &s = *plans.statements[i].statement;
    if (!st.states.empty() || st.traceNote.empty())
      continue;
    st.traced = false;
    const Layout &from = program.layouts[s.from], &to = program.layouts[s.to];
    st.states.resize(2);
    st.states[0].text = "layout " + from.name + " before the statement";
    st.states[1].text = "layout " + to.name +
                        " after the statement (the steps between are not "
                        "traced: " +
                        st.traceNote + ")";
    for (int k = 0; k < 2; ++k) {
      st.states[k].drawn = heatOf(k ? to : from, budget, st.states[k].device);
      reader.overCap |= !st.states[k].drawn;
    }
  }
  if (reader.overCap)
    page.notes.push_back("Some plan steps are not drawn: a page holds at most "
                         "2^22 cell values.");
  return true;
}
