//===- StatementCycles.cpp ------------------------------------------------===//
#include "StatementCycles.h"

#include "passes/AffinePlanner.h"
#include "passes/DigitCycles.h"
#include "passes/RemapCycles.h"

using namespace mapc;

std::string mapc::statementCycles(const Program &program, const Statement &st,
                                  std::optional<unsigned> exchangeStart,
                                  std::string &why) {
  why.clear();
  auto maps = statementBitMaps(program, st);
  const Layout &from = program.layouts[st.from], &to = program.layouts[st.to];
  auto fromMap = from.tileMap(), toMap = to.tileMap();
  if (std::holds_alternative<std::string>(maps) && fromMap && toMap) {
    // Not radix 2: index digit maps (003 6.1), in the digit notation.
    DigitCycleText d = digitRemapText(*fromMap, *toMap, from.name, to.name);
    if (d.ok)
      return d.text;
    why = std::get<std::string>(maps) + "; nor is it an index digit map (" +
          d.why + ")";
    return "";
  }
  if (auto *e = std::get_if<std::string>(&maps)) {
    why = *e;
    return "";
  }
  const StatementBitMaps &m = std::get<StatementBitMaps>(maps);
  if (!m.src.isPermutation() || !m.dst.isPermutation()) {
    // Gray codes and XOR maps: 001's exchanges, then the cycles.
    return affineRemapText(m.src, m.dst, exchangeStart, why);
  }
  auto cycles = remapCycles(m.src, m.dst);
  if (auto *e = std::get_if<std::string>(&cycles)) {
    why = *e;
    return "";
  }
  return formatCycles(m.src, std::get<std::vector<Cycle>>(cycles));
}
