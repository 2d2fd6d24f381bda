//===- ProgramRun.h - plans for a whole program, and running them ---------===//
//
// Puts every array of a program in one region of PE memory, plans every
// statement that moves data (remap, copy, redistribute, realign, reshape)
// and runs the plans in order on the simulated MasPar, or on the simulated
// hypercube or mesh (NetworkRun.cpp), checking every element against the
// destination layout's index map (language.md "--run").
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TOOLS_PROGRAMRUN_H
#define MAPC_TOOLS_PROGRAMRUN_H

#include "ir/Diagnostics.h"
#include "ir/Program.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/Network.h"
#include "passes/RemapPlanner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>

namespace mapc {

struct StatementPlan {
  const Statement *statement = nullptr;
  std::string label; ///< "remap A: R -> C"
  std::string cycles;
  std::string function; ///< a C identifier for emitted code
  rt::Plan plan;
  /// Layouts that are not both radix-2 bit maps (003 ch. 6): this plan
  /// instead of `plan`.
  std::optional<rt::GeneralPlan> general;
  uint64_t srcBase = 0, dstBase = 0; ///< byte offsets in PE memory
  /// CPU milliseconds the planning thread spent in the general planner on
  /// this statement (0 for other plans): what a benchmark reads of a
  /// first plan in a fresh process; never printed, so plans stay the same
  /// text from run to run.
  double planningCpuMs = 0;
  /// A layout with XOR items against one that is not a bit map: two whole
  /// plans of their own (each with `plan` or `general`, its bases and its
  /// bound), run one after the other through the bit map without XOR
  /// items `via` (TwoStage.h). `plan` and `general` are then unused.
  std::vector<StatementPlan> stages;
  std::string via;
  /// The bit maps priced for `via`, each with its total, in order.
  std::vector<std::pair<std::string, int64_t>> viaPrices;
  /// With stages: the statement's bound, from the table of sources of the
  /// whole remap (no plan can beat it, whatever it goes through).
  int64_t stagesLowerBound = 0;
};

/// The plans `sp` runs in order: its stages, or itself.
inline llvm::ArrayRef<StatementPlan> stagesOf(const StatementPlan &sp) {
  return sp.stages.empty() ? llvm::ArrayRef<StatementPlan>(sp)
                           : llvm::ArrayRef<StatementPlan>(sp.stages);
}
/// The statement's predicted ticks and lower bound, over its stages.
int64_t predictedTicksOf(const StatementPlan &sp);
int64_t lowerBoundOf(const StatementPlan &sp);

struct ProgramPlans {
  rt::MachineShape shape; ///< maspar
  bool radix2 = true;     ///< a power-of-two PE grid or power-of-two mesh sides
  bool onNetwork = false; ///< a hypercube or mesh machine (001, 002)
  rt::NetworkShape network;
  uint64_t nodeElements = 0; ///< network: the machine's memory, elements
  unsigned mBits = 0, pBits = 0;
  uint64_t memoryBytes = 0; ///< per PE, all regions and the scratch
  uint64_t scratchBase = 0;
  std::map<std::string, uint64_t> arrayBase;
  /// The data set --run first stores in each array (rt::storePattern's
  /// tag): its number in declaration order, from 1. Emitted code's remap
  /// table carries it so that a harness fills arrays the same way.
  std::map<std::string, uint64_t> arrayDataSet;
  std::vector<StatementPlan> statements;
};

/// General plans on a mesh or hypercube route every element while
/// planning: their layouts span at most 2^kMaxNetworkCellBits device cells.
constexpr unsigned kMaxNetworkCellBits = 20;

/// Does `mach` run the radix-2, Gray-code and XOR planners (003 ch. 4-5,
/// 001)? A power-of-two PE count, and a power-of-two MasPar grid width or
/// power-of-two mesh sides.
bool machineIsRadix2(const Machine &mach);

/// The most PEs (MasPar) or nodes (hypercube, mesh) the simulators take:
/// planProgram refuses a larger machine at its declaration.
constexpr int64_t kMaxSimulatedPes = int64_t(1) << 20;

/// The hypercube or mesh `mach` declares (001, 002), as planProgram plans
/// on it.
rt::NetworkShape machineNetwork(const Machine &mach);

/// Can a general plan on `network` take layouts of `cells` device cells?
/// Its planner routes every element hop by hop (NetworkGeneral.cpp): at
/// most 2^kMaxNetworkCellBits cells, and cells times the diameter at most
/// rt::kMaxSimulatedHops.
bool generalCellsFitNetwork(uint64_t cells, const rt::NetworkShape &network);

/// What to do about an --exchange-start past the layouts' `pBits` PE bits
/// (ExchangeDecomposition.cpp refuses it).
std::string exchangeStartHint(unsigned pBits);

/// Plans every data-moving statement; reports what cannot be planned at
/// the statement's location. `what` names the driver option for messages.
/// `exchangeStart`: the p-bit Gray-code exchanges start in (001 fig. 5).
bool planProgram(const Program &program, PlannerKind kind, const char *what,
                 Diagnostics &diags, ProgramPlans &out,
                 std::optional<unsigned> exchangeStart = std::nullopt);

/// --emit=plan's text.
void printPlans(const ProgramPlans &plans, llvm::raw_ostream &os);

/// --run (and --trace): executes, verifies and reports. With
/// `memoryDigest` it ends with `memory: B bytes per PE, fnv1a64=0x...`
/// (rt::memoryDigest). Returns false on a mismatch or failure.
bool runPlans(const ProgramPlans &plans, bool trace, bool memoryDigest,
              llvm::raw_ostream &os);

/// What --run does around every statement on either machine: it gives each
/// array its data set before the array's first statement (a copy hands the
/// source's on), checks the destination after the statement, and prints
/// the report line pinned in language.md.
class RunBook {
public:
  using MemoryOf = std::function<uint8_t *(unsigned node)>;
  RunBook(const ProgramPlans &plans, MemoryOf memoryOf, llvm::raw_ostream &os)
      : tag(plans.arrayDataSet), memoryOf(std::move(memoryOf)), os(os) {}

  /// Before `sp` runs: fills its array if nothing has yet.
  void before(const StatementPlan &sp);
  /// After it ran (or failed, with `why`): checks and reports.
  void after(const StatementPlan &sp, bool ran, const std::string &why,
             int64_t ticks);
  /// Can --trace print `sp` on `nodes` nodes? Says why not when it cannot.
  bool traceable(const StatementPlan &sp, uint64_t nodes);
  /// --memory-digest's closing line; `unit` is "PE" or "node".
  void digest(uint64_t bytes, const char *unit, uint64_t fnv);
  bool allGood() const { return good; }

private:
  std::map<std::string, uint64_t> tag; ///< data set each array holds
  std::map<std::string, bool> filled;
  MemoryOf memoryOf;
  llvm::raw_ostream &os;
  bool good = true;
};

/// --emit=plan's closing line of a plan: `  total: T ticks (... us), lower
/// bound B ticks, bound/plan R`; on a network ticks are element transfers
/// in sequence (GeneralRun.cpp).
void printPlanTotal(int64_t predictedTicks, int64_t lowerBound, bool onNetwork,
                    llvm::raw_ostream &os, const char *name = "total");

/// Where --emit=plan reads a general step's figures (its moved cells,
/// rounds and digits): from the move's counts (MoveCounts.h) or digits
/// (FrameExchange.h) where they exist, or always from a walk of its table
/// of sources, the reference tests compare with.
enum class StepFigures { Counted, Walked };
/// --emit=plan's lines for the steps of `plan`; returns how many steps
/// walked their elements (GeneralRun.cpp). `minPerFamily`: as
/// rt::countMoveByRuns's (tests lower it to count small moves). With the
/// MasPar `machine`, a digit exchange also says which rounds it runs.
size_t printGeneralSteps(const rt::GeneralPlan &plan, StepFigures how,
                         llvm::raw_ostream &os,
                         int64_t minPerFamily = rt::kCountingMinPerFamily,
                         const rt::MachineShape *machine = nullptr,
                         size_t firstStep = 1);
/// --emit=plan's text for a general plan (GeneralRun.cpp); on a network
/// ticks are element transfers in sequence. A stage of a statement numbers
/// its steps from `firstStep` and names its total `totalName`.
void printGeneralPlan(const StatementPlan &sp, bool onNetwork,
                      llvm::raw_ostream &os,
                      const rt::MachineShape *machine = nullptr,
                      size_t firstStep = 1, const char *totalName = "total");
/// --trace for a general plan: runs it on a twin machine whose elements are
/// their data indices and prints the device after every step, each layout
/// drawn on its own device as --emit=layout draws it (GeneralRun.cpp).
/// A later stage of a statement numbers its steps after `stepOffset` and
/// leaves out the state before them (`showStart`), its stage before's last.
void traceGeneralPlan(const ProgramPlans &plans, const StatementPlan &sp,
                      llvm::raw_ostream &os, unsigned stepOffset = 0,
                      bool showStart = true);

/// The number of steps `sp` (one stage) runs: what --trace numbers.
size_t stepCount(const StatementPlan &sp);

/// --trace of a statement, stage by stage: a general stage by
/// traceGeneralPlan, a radix-2 or affine one by `traceBits` (the machine's
/// own), each told the steps before it and whether it is the first.
void traceStages(
    const ProgramPlans &plans, const StatementPlan &statement,
    llvm::raw_ostream &os,
    const std::function<void(const StatementPlan &, unsigned stepOffset,
                             bool first)> &traceBits);

/// runPlans for a hypercube or mesh machine (NetworkRun.cpp).
bool runNetworkPlans(const ProgramPlans &plans, bool trace, bool memoryDigest,
                     llvm::raw_ostream &os);

/// --trace's rows (language.md): one line per node, its slots in order,
/// the data index held or `.` where `now` holds nothing.
void printTraceRows(
    const rt::AffineLayout &now, unsigned nodes,
    const std::function<uint64_t(unsigned node, uint64_t slot)> &valueAt,
    llvm::raw_ostream &os);

/// The statement planProgram or runPlans (or the network runs) works on in
/// this thread, or none: where an allocation failure (std::bad_alloc, which
/// the driver lets `new` throw) is reported (tools/mapc/mapc.cpp).
const Statement *statementInProgress();
/// Sets it (nullptr: none), for the loops over statements.
void setStatementInProgress(const Statement *st);

} // namespace mapc

#endif
