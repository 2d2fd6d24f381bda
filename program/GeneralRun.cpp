//===- GeneralRun.cpp - --emit=plan and --trace for general plans ---------===//
//
// General plans (003 ch. 6, runtime/General.h) carry a layout per step
// instead of a bit move, so their text and their trace differ from radix-2
// plans': a step is named by its method and the elements it moves, and the
// trace draws each step's layout on its own device, as --emit=layout does.
//
//===----------------------------------------------------------------------===//
#include "ProgramRun.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/NetworkExecute.h"
#include "passes/DigitPlanner.h"
#include "passes/FrameExchange.h"
#include "passes/FramePrice.h"

#include "llvm/Support/Format.h"

#include <optional>

using namespace mapc;

namespace {

/// What the printer reads of one step's move: its counts (MoveCounts.h)
/// when its layouts are counted from their runs, else its table of sources,
/// built when first asked for.
class StepMove {
public:
  StepMove(const rt::TileMap &from, const rt::TileMap &to, StepFigures how,
           int64_t minPerFamily)
      : from(from), to(to), how(how) {
    if (how == StepFigures::Counted)
      counts = rt::countMoveByRuns(
          from, to, rt::countingListLimit(from.dataSize()), minPerFamily);
  }
  const std::vector<uint32_t> &sources() {
    if (!table)
      table = rt::sourcesOf(from, to);
    return *table;
  }
  /// The moved and held cells of the step's first line.
  std::pair<int64_t, int64_t> movedAndHeld() {
    if (counts) {
      const rt::MoveShape m = rt::analyseMove(*counts, rt::pesOf(from));
      return {m.moved, m.held};
    }
    // Walked is the reference: every figure off the table.
    if (how == StepFigures::Counted) {
      if (auto same = rt::identityMoveFigures(from, to))
        return *same;
      // Families too small for the counts (as the 31 x 33 routes'), read
      // element by element off the runs, as the route's moves were: no
      // table of sources.
      if (auto byRuns = rt::moveFiguresByRuns(from, to))
        return *byRuns;
    }
    const rt::MoveShape m = rt::analyseMove(from, to, sources());
    return {m.moved, m.held};
  }
  /// Whether any figure so far came from the table.
  bool walked() const { return table.has_value(); }

  const rt::TileMap &from, &to;
  const StepFigures how;
  std::optional<rt::MoveCounts> counts;

private:
  std::optional<std::vector<uint32_t>> table;
};

/// An exchange step's rounds when the destination replicates nothing: as
/// many as the busiest PE sends or receives between PEs (König; the
/// schedule's rounds, runtime/PairSchedule.h), from the counts' totals per
/// PE or else the table.
int64_t exchangeDegree(StepMove &move, unsigned pes) {
  if (move.counts) {
    const rt::PeTotals t = move.counts->peTotals();
    int64_t degree = 0;
    for (size_t p = 0; p < t.sent.size(); ++p)
      degree =
          std::max({degree, t.sent[p] - t.kept[p], t.received[p] - t.kept[p]});
    return degree;
  }
  const std::vector<uint32_t> &sources = move.sources();
  std::vector<int64_t> out(pes, 0), in(pes, 0);
  const int64_t fromSlots = rt::slotsOf(move.from),
                toSlots = rt::slotsOf(move.to);
  int64_t degree = 0;
  for (size_t c = 0; c < sources.size(); ++c) {
    if (sources[c] == rt::kNoSource)
      continue;
    const int64_t p = int64_t(sources[c]) / fromSlots, q = int64_t(c) / toSlots;
    if (p != q)
      degree = std::max({degree, ++out[size_t(p)], ++in[size_t(q)]});
  }
  return degree;
}

/// An exchange step's rounds: how many, and for small steps (at most 16
/// PEs and 16 rounds) which PE sends to which in each, as 003 fig. 6.3
/// draws function 6.1's diagonals.
void printExchangeRounds(StepMove &move, bool inPlace, llvm::raw_ostream &os) {
  const rt::TileMap &before = move.from, &after = move.to;
  rt::ExchangeRoundList rounds;
  std::vector<rt::ExchangeSend> fanOut;
  unsigned pes = unsigned(std::max(rt::pesOf(before), rt::pesOf(after)));
  if (!after.replicates()) {
    // No copies: a large step's count needs no schedule.
    const int64_t degree = exchangeDegree(move, pes);
    if (pes > 16 || degree > 16) {
      os << "    rounds: " << degree
         << ", each PE sending and receiving at most one element per round\n";
      return;
    }
  }
  if (!rt::exchangeSchedule(before, after, move.sources(), pes, rounds, fanOut,
                            /*forward=*/!inPlace))
    return;
  os << "    rounds: " << rounds.size()
     << ", each PE sending and receiving at most one element per round";
  if (!fanOut.empty())
    os << "; then " << fanOut.size()
       << " copies of received elements inside their PEs";
  os << "\n";
  if (pes > 16 || rounds.size() > 16)
    return;
  for (size_t r = 0; r < rounds.size(); ++r) {
    os << "    round " << (r + 1) << ":";
    std::vector<rt::ExchangeSend> sends = rounds[r].vec();
    std::sort(sends.begin(), sends.end(),
              [](const rt::ExchangeSend &x, const rt::ExchangeSend &y) {
                return x.srcPe < y.srcPe;
              });
    for (const rt::ExchangeSend &e : sends)
      os << " " << e.srcPe << ">" << e.dstPe;
    os << "\n";
  }
}

/// The digit exchange of a step: read off the digits when its layouts are
/// digit frames that align (FrameExchange.h: the shape the finder reads off
/// the table), else found on the table.
std::optional<rt::DigitExchangeShape> digitExchangeOf(StepMove &move) {
  if (move.how == StepFigures::Counted)
    if (auto frames = alignedFrames(move.from, move.to))
      if (auto d = heldFramesOverOneFactorisation(frames->first, frames->second)
                       ? frameDigitExchange(frames->first, frames->second)
                       : std::nullopt)
        return d;
  rt::DigitExchangeShape d;
  if (!rt::findDigitExchange(move.from, move.to, move.sources(), d, nullptr))
    return std::nullopt;
  return d;
}

/// The most elements one send of the exchange `d` carries: the widest
/// transfer of its tally (a wide element goes 8 bytes at a time, one
/// element a send), or walked, of its listed sequences.
unsigned mostPerSend(const rt::DigitExchangeShape &d, unsigned elemBytes,
                     bool inPlace, StepFigures how) {
  unsigned most = 0;
  if (how == StepFigures::Walked) {
    for (const auto &q :
         rt::digitExchangeSequences(d, elemBytes, inPlace).rounds)
      for (const rt::DigitExchangeTransfer &t : q)
        most = std::max(most, t.elems);
    return most;
  }
  const rt::DigitExchangeTally tally =
      rt::digitExchangeTally(d, elemBytes, inPlace);
  return !tally.transfers ? 0 : elemBytes >= 8 ? 1 : tally.widest / elemBytes;
}

/// A digit exchange step's digits and rounds (003 function 6.1): round k
/// sends from the PE of digit x to that of digit x + k (mod b); for small
/// steps (at most 16 PEs), which PE sends to which, as fig. 6.3 draws them.
void printDigitExchange(StepMove &move, unsigned elemBytes, bool inPlace,
                        llvm::raw_ostream &os,
                        const rt::MachineShape *machine) {
  const std::optional<rt::DigitExchangeShape> found = digitExchangeOf(move);
  if (!found)
    return;
  const rt::DigitExchangeShape &d = *found;
  const unsigned chunk = mostPerSend(d, elemBytes, inPlace, move.how);
  os << "    digits: base " << d.base;
  if (d.foldsPePermutation())
    os << ", PE digits from a table";
  else
    os << ", PE digit of weight " << d.peWeight;
  if (d.firstPe > 0)
    os << ", on PEs " << d.firstPe << "-" << d.firstPe + d.pes - 1;
  os << ", memory digit of weight " << d.slotWeight;
  if (d.destSlotWeight != d.slotWeight)
    os << " (" << d.destSlotWeight << " on arrival)";
  if (d.firstSlot > 0)
    os << ", on slots " << d.firstSlot << "-" << d.firstSlot + d.slots - 1;
  os << "; rounds: " << d.base - 1 << " (k and " << d.base
     << " - k paired), up to " << chunk
     << (chunk == 1 ? " element" : " elements") << " per send\n";
  if (d.foldsPermutation()) {
    // How many chunks change places beside the exchange itself.
    const int64_t moved = d.highs() - d.highsKept();
    os << "    memory permutation folded in (003 6.2.2 (i)-(ii), (iv)-(v)): "
       << moved << " of " << d.highs() << " runs of " << d.chunk
       << (d.chunk == 1 ? " element" : " elements")
       << " change places with per-PE offsets\n";
  }
  if (d.foldsPePermutation())
    os << "    processor permutation folded in (003 6.2.2 (i)-(ii), (iv)-(v)): "
          "each PE's digits and each round's destinations from a schedule "
          "table; round 0 sends the elements that keep their digit\n";
  // Function 6.1's rounds or partial ones, the cheaper (DigitExchange.h).
  bool partial = false;
  if (machine) {
    const rt::MasPar m = rt::MasPar::pricing(machine->width, machine->height,
                                             machine->clusterSize);
    const rt::DigitExchangeRoundsChoice c =
        rt::digitExchangeRoundsChoice(m, d, elemBytes, inPlace);
    partial = c.partial;
    // Said only where partial rounds were searched.
    if (c.partialRounds > 0)
      os << "    rounds run: " << (c.partial ? "partial" : "function 6.1's")
         << ", partial rounds (" << c.partialRounds
         << " found by a greedy search, only some PEs sending) "
         << c.partialTicks << " ticks of sends and schedule entries against "
         << c.fullTicks << " for function 6.1's\n";
  }
  if (d.pes > 16 || partial)
    return;
  for (int64_t k = d.foldsPePermutation() ? 0 : 1; k < d.base; ++k) {
    os << "    round " << k << ":";
    // The PEs counted from firstPe (the others idle).
    for (int64_t p = 0; p < d.pes; ++p) {
      os << " " << d.firstPe + p << ">";
      if (d.foldsPePermutation()) {
        const int64_t x = d.sendDigit[size_t(p)];
        os << d.firstPe + d.destPe[size_t(p * d.base + (x + k) % d.base)];
        continue;
      }
      const int64_t x = p / d.peWeight % d.base;
      os << d.firstPe + p + ((x + k) % d.base - x) * d.peWeight;
    }
    os << "\n";
  }
}

} // namespace

size_t mapc::printGeneralSteps(const rt::GeneralPlan &p, StepFigures how,
                               llvm::raw_ostream &os, int64_t minPerFamily,
                               const rt::MachineShape *machine,
                               size_t firstStep) {
  size_t walked = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const rt::GeneralStep &s = p.steps[i];
    StepMove move(p.layoutAfter(int(i) - 1), s.to, how, minPerFamily);
    const auto [moved, held] = move.movedAndHeld();
    os << "  step " << (i + firstStep) << ": "
       << rt::generalStepKindName(s.kind) << (s.inPlace ? " in place" : "")
       << ", " << moved << " of " << held
       << " held cells take an element from another cell, " << s.predictedTicks
       << " ticks\n";
    os << "    why: " << s.why << "\n";
    if (s.kind == rt::GeneralStepKind::Exchange)
      printExchangeRounds(move, s.inPlace, os);
    if (s.kind == rt::GeneralStepKind::DigitExchange)
      printDigitExchange(move, p.elemBytes, s.inPlace, os, machine);
    walked += move.walked();
  }
  return walked;
}

void mapc::printGeneralPlan(const StatementPlan &sp, bool onNetwork,
                            llvm::raw_ostream &os,
                            const rt::MachineShape *machine, size_t firstStep,
                            const char *totalName) {
  const rt::GeneralPlan &p = *sp.general;
  os << sp.label << " (" << p.planner << " planner, " << p.elemBytes * 8
     << "-bit elements, " << (p.copy ? "copy" : "in place") << ")\n";
  printGeneralSteps(p, StepFigures::Counted, os, rt::kCountingMinPerFamily,
                    machine, firstStep);
  if (p.steps.empty())
    os << "  no data moves\n";
  printPlanTotal(p.predictedTicks, p.lowerBound, onNetwork, os, totalName);
}

void mapc::printPlanTotal(int64_t predictedTicks, int64_t lowerBound,
                          bool onNetwork, llvm::raw_ostream &os,
                          const char *name) {
  double ratio = predictedTicks ? double(lowerBound) / predictedTicks : 1.0;
  os << "  " << name << ": " << predictedTicks << " ticks (";
  if (onNetwork)
    os << "element transfers in sequence";
  else
    os << llvm::format("%.1f",
                       predictedTicks * rt::kNanosecondsPerTick / 1000.0)
       << " us";
  os << "), lower bound " << lowerBound << " ticks, bound/plan "
     << llvm::format("%.2f", ratio) << "\n";
}

void mapc::traceGeneralPlan(const ProgramPlans &plans, const StatementPlan &sp,
                            llvm::raw_ostream &os, unsigned stepOffset,
                            bool showStart) {
  const rt::GeneralPlan &p = *sp.general;
  const std::string &array = sp.statement->array;
  // The plan runs as --run runs it, its own element size and regions (a
  // wider twin may not run in place where the plan does), once per
  // plane: each element holds bytes [j eb, (j + 1) eb) of its data index in
  // pass j, and the steps' cells put the planes together. The plan moves
  // elements whatever they hold, so every pass moves them alike. A trace
  // spans at most 65,536 cells (ProgramRun.cpp): the steps' cells are kept
  // and printed after the last pass.
  const unsigned eb = std::min(8u, p.elemBytes);
  unsigned indexBytes = 1;
  while (indexBytes < 8 && uint64_t(p.source.dataSize()) >> (8 * indexBytes))
    ++indexBytes;
  const unsigned planes = (indexBytes + eb - 1) / eb;
  std::vector<rt::TileMap> layouts{p.source};
  std::vector<std::vector<uint64_t>> cells;
  std::string why;
  bool ran = true;
  size_t stepsRun = SIZE_MAX; // in every pass so far
  for (unsigned plane = 0; plane < planes; ++plane) {
    std::optional<rt::MasPar> maspar;
    std::optional<rt::NetworkMachine> network;
    if (plans.onNetwork)
      network.emplace(plans.network, plans.memoryBytes);
    else
      maspar.emplace(plans.shape.width, plans.shape.height, plans.memoryBytes,
                     plans.shape.clusterSize);
    auto memoryOf = [&](unsigned pe) {
      return network ? network->memory(pe) : maspar->memoryOf(pe);
    };
    const rt::Regions regions{{sp.srcBase}, {sp.dstBase}, {plans.scratchBase}};
    const unsigned shift = 8 * eb * plane;
    rt::forEachAddress(p.source, p.elemBytes,
                       p.copy ? regions.src.base : regions.dst.base,
                       [&](uint64_t d, unsigned pe, uint64_t at) {
                         for (unsigned k = 0; k < eb; ++k)
                           memoryOf(pe)[at + k] = uint8_t(d >> (shift + 8 * k));
                       });
    size_t steps = 0;
    auto keep = [&](unsigned step, const rt::TileMap &now) {
      uint64_t base = p.copy ? regions.src.base : regions.dst.base, unused;
      if (step > 0)
        rt::stepRegions(p, step - 1, regions, unused, base);
      if (plane == 0 && step > 0)
        layouts.push_back(now);
      if (cells.size() <= step)
        cells.emplace_back(size_t(now.deviceSize()), 0);
      const int64_t slots = rt::slotsOf(now);
      std::vector<uint64_t> &at = cells[step];
      for (int64_t a = 0; a < now.deviceSize(); ++a) {
        if (now.dataAt(a) < 0)
          continue;
        const uint8_t *mem = memoryOf(unsigned(a / slots)) + base +
                             uint64_t(a % slots) * p.elemBytes;
        for (unsigned k = 0; k < eb; ++k)
          at[size_t(a)] |= uint64_t(mem[k]) << (shift + 8 * k);
      }
      steps = step + 1;
    };
    keep(0, p.source);
    bool passRan =
        network ? rt::executeGeneralPlan(*network, p, regions, keep, &why)
                : rt::executeGeneralPlan(*maspar, p, regions, keep, &why);
    stepsRun = std::min(stepsRun, steps);
    if (!passRan) {
      ran = false;
      break;
    }
  }
  for (size_t step = showStart ? 0 : 1; step < stepsRun; ++step) {
    const rt::TileMap &now = layouts[step];
    os << "trace " << array << " step " << step + stepOffset << "\n";
    const int64_t slots = rt::slotsOf(now), count = now.deviceSize();
    for (int64_t a = 0; a < count; ++a) {
      if (a % slots)
        os << " ";
      if (now.dataAt(a) < 0)
        os << ".";
      else
        os << cells[step][size_t(a)];
      if (a % slots == slots - 1)
        os << "\n";
    }
  }
  if (!ran)
    os << "trace " << array << ": the traced run stopped: " << why << "\n";
}
