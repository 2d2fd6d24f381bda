//===- StatementCycles.cpp ------------------------------------------------===//
#include "StatementCycles.h"
#include "ProgramRun.h"
#include "TwoStage.h"

#include "passes/AffinePlanner.h"
#include "passes/DigitCycles.h"
#include "passes/GeneralPlanner.h"
#include "passes/RemapCycles.h"

using namespace mapc;

std::string mapc::statementCycles(const Program &program, const Statement &st,
                                  std::optional<unsigned> exchangeStart,
                                  std::string &why, std::string *hint) {
  why.clear();
  // The hints follow the ways planProgram refuses the same statement.
  auto say = [&](std::string text) {
    if (hint)
      *hint = std::move(text);
  };
  const std::string covers = "--emit=cycles covers radix-2 layouts (003 4.2, "
                             "5.1), Gray codes (001) and index digit maps "
                             "(003 6.1); ";
  // Sends to --emit=plan, which plans this statement (`how`, if said) on a
  // machine the simulators take; planProgram refuses a larger one before
  // any statement, and then the hint says that instead.
  const Machine &machine = program.machine;
  auto sayPlan = [&](const std::string &how) {
    if (machine.peCount() <= kMaxSimulatedPes)
      say(covers + "--emit=plan shows how this remap runs" + how);
    else
      say(covers +
          "--emit=plan cannot plan it either: it simulates at most "
          "2^20 " +
          (machine.kind == Machine::MasPar ? "PEs" : "nodes") + ", and this " +
          machine.kindName() + " has " + std::to_string(machine.peCount()) +
          "; declare a smaller machine");
  };
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
    // The general planner (003 ch. 6) takes any such layouts to its size;
    // on a network, where it routes every element hop by hop, also to 2^28
    // cells times the diameter (planProgram's limits).
    const Machine &mach = program.machine;
    const bool network = mach.kind != Machine::MasPar;
    const int64_t cells = std::max(fromMap->deviceSize(), toMap->deviceSize());
    const rt::NetworkShape net =
        network ? machineNetwork(mach) : rt::NetworkShape();
    if (network ? generalCellsFitNetwork(uint64_t(cells), net)
                : cells <= kMaxGeneralCells)
      sayPlan("");
    else if (cells >
             (network ? int64_t(1) << kMaxNetworkCellBits : kMaxGeneralCells))
      say(std::string("--emit=plan cannot plan it either: its general "
                      "planner takes layouts of at most ") +
          (network ? "2^20" : "2^28") +
          " device cells here; plan a smaller instance");
    else
      say("--emit=plan cannot plan it either: on a " +
          std::string(mach.kindName()) +
          " it simulates every hop of every element, at most 2^28 device "
          "cells times the diameter, and these layouts span " +
          std::to_string(cells) + " cells over a diameter of " +
          std::to_string(net.diameter()) +
          "; plan a smaller instance, or a machine with a smaller diameter "
          "(more mesh dims, or a hypercube)");
    return "";
  }
  if (auto *e = std::get_if<std::string>(&maps)) {
    why = *e;
    // A layout with XOR items has no k-Tile form. Against a layout that is
    // not a bit map, --emit=plan plans it in two stages through a bit map
    // without XOR items (TwoStage.h), as planProgram does: on a power-of-two
    // machine, without '*' items, within the general planner's size.
    const Layout &xorLayout = fromMap ? to : from;
    const Machine &mach = program.machine;
    auto stage = xorStageOf(xorLayout);
    std::string cannot;
    if (!machineIsRadix2(mach))
      cannot = "a layout with XOR items is GF(2)-affine (001), which needs a "
               "power-of-two machine";
    else if (!fromMap && !toMap)
      cannot = why;
    else if (auto *no = std::get_if<std::string>(&stage))
      cannot = *no;
    const bool network = mach.kind != Machine::MasPar;
    const int64_t cells =
        cannot.empty() ? (fromMap ? *fromMap : *toMap).deviceSize() : 0;
    if (cannot.empty() && !(network ? generalCellsFitNetwork(
                                          uint64_t(cells), machineNetwork(mach))
                                    : cells <= kMaxGeneralCells))
      cannot = network ? "its general stage routes every hop of every "
                         "element, at most 2^20 device cells and 2^28 cells "
                         "times the diameter"
                       : "its general stage takes layouts of at most 2^28 "
                         "device cells";
    if (cannot.empty())
      sayPlan(", in two stages through a bit map without XOR items");
    else
      say("--emit=plan cannot plan it either: " + cannot + "; remap " +
          st.array + " to a layout without XOR items or '*' first, then to '" +
          to.name + "'");
    return "";
  }
  const StatementBitMaps &m = std::get<StatementBitMaps>(maps);
  if (!m.src.isPermutation() || !m.dst.isPermutation()) {
    // Gray codes and XOR maps: 001's exchanges, then the cycles.
    std::string text = affineRemapText(m.src, m.dst, exchangeStart, why);
    const unsigned pBits = std::max(m.src.peBits, m.dst.peBits);
    if (!why.empty() && exchangeStart && *exchangeStart >= pBits)
      say(exchangeStartHint(pBits));
    else if (!why.empty())
      sayPlan("");
    return text;
  }
  auto cycles = remapCycles(m.src, m.dst);
  if (auto *e = std::get_if<std::string>(&cycles)) {
    why = *e;
    // Bit layouts of different devices: planned widened to the machine.
    say("--emit=plan plans this remap widened to the machine and shows its "
        "steps");
    return "";
  }
  return formatCycles(m.src, std::get<std::vector<Cycle>>(cycles));
}
