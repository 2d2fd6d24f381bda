//===- ProgramRun.cpp -----------------------------------------------------===//
#include "ProgramRun.h"
#include "Progress.h"
#include "TwoStage.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/Execute.h"
#include "mapc/runtime/General.h"
#include "mapc/runtime/NetworkExecute.h"
#include "mapc/runtime/NetworkReplication.h"
#include "passes/AffinePlanner.h"
#include "passes/GeneralPlanner.h"
#include "passes/NetworkGeneralPlanner.h"
#include "passes/NetworkPlanner.h"
#include "passes/RemapCycles.h"
#include "passes/RemapSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <ctime>

using namespace mapc;

namespace {

/// The simulated memory --run may allocate, over all PEs.
constexpr uint64_t kMaxSimulatedBytes = uint64_t(1) << 28;

unsigned log2Exact(int64_t v) {
  unsigned l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return (int64_t(1) << l) == v ? l : ~0u;
}

/// CPU milliseconds this thread has run (StatementPlan::planningCpuMs).
double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

} // namespace

namespace {
thread_local const Statement *inProgress = nullptr;
} // namespace

const Statement *mapc::statementInProgress() { return inProgress; }
void mapc::setStatementInProgress(const Statement *st) { inProgress = st; }

/// An affine plan's remap in words: its exchanges, then the cycles of the
/// permutation left (003 4.2.2 notation on the virtual layout's bits).
static std::string affineCycles(const rt::Plan &plan) {
  std::vector<rt::Exchange> exchanges;
  rt::BitMove rest = rt::BitMove::identity(plan.source.bits());
  for (const rt::Step &st : plan.steps)
    if (st.kind == rt::StepKind::Exchange)
      exchanges.insert(exchanges.end(), st.exchanges[0].begin(),
                       st.exchanges[0].end());
    else
      rest = rest.then(st.move);
  return remapText(exchanges, rest, plan.source);
}

/// Do two bit maps hold the same data bit, inverted alike, in every device
/// bit?
static bool sameBitMap(const IndexBitMap &a, const IndexBitMap &b) {
  if (a.memoryBits != b.memoryBits || a.peBits != b.peBits ||
      a.dataBits != b.dataBits || a.bits.size() != b.bits.size())
    return false;
  for (size_t i = 0; i < a.bits.size(); ++i)
    if (a.bits[i].enabled != b.bits[i].enabled ||
        a.bits[i].dataBit != b.bits[i].dataBit ||
        a.bits[i].value != b.bits[i].value ||
        a.bits[i].alsoXor != b.bits[i].alsoXor)
      return false;
  return true;
}

/// Does `plan` write through the scratch region? rt::executePlan sends an
/// in-place brute-force step there (a copy's first step writes the target).
static bool planNeedsScratch(const rt::Plan &plan) {
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].kind == rt::StepKind::BruteForce &&
        !(plan.copy && i == 0))
      return true;
  return false;
}

/// The same for a general plan: does a step write the scratch region
/// (rt::stepRegions)?
static bool planNeedsScratch(const rt::GeneralPlan &plan) {
  const rt::Regions probe{{0}, {1}, {2}};
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    uint64_t read, write;
    rt::stepRegions(plan, i, probe, read, write);
    if (write == probe.scratch.base)
      return true;
  }
  return false;
}

std::string mapc::exchangeStartHint(unsigned pBits) {
  return pBits == 0 ? "these layouts have no PE bits to start the exchanges "
                      "in: drop --exchange-start"
                    : "give --exchange-start a PE bit from 0 to " +
                          std::to_string(pBits - 1) + ", or drop it";
}

bool mapc::machineIsRadix2(const Machine &mach) {
  if (log2Exact(mach.peCount()) == ~0u)
    return false;
  if (mach.kind == Machine::MasPar)
    return log2Exact(mach.pes.empty() ? 1 : mach.pes[0]) != ~0u;
  for (int64_t side : mach.pes)
    if (log2Exact(side) == ~0u)
      return false;
  return true;
}

rt::NetworkShape mapc::machineNetwork(const Machine &mach) {
  if (mach.kind == Machine::Hypercube)
    return rt::NetworkShape::booleanCube(log2Exact(mach.peCount()));
  std::vector<unsigned> dims;
  for (int64_t d : mach.pes)
    dims.push_back(unsigned(std::min<int64_t>(d, 1 << 30)));
  return rt::NetworkShape::mesh(dims);
}

bool mapc::generalCellsFitNetwork(uint64_t cells,
                                  const rt::NetworkShape &network) {
  return cells <= (uint64_t(1) << kMaxNetworkCellBits) &&
         cells * std::max<uint64_t>(network.diameter(), 1) <=
             rt::kMaxSimulatedHops;
}

bool mapc::planProgram(const Program &program, PlannerKind kind,
                       const char *what, Diagnostics &diags, ProgramPlans &out,
                       std::optional<unsigned> exchangeStart) {
  const Machine &mach = program.machine;
  llvm::SMLoc at =
      program.statements.empty() ? llvm::SMLoc() : program.statements[0].loc;
  // Messages about the machine's shape point at its declaration (the
  // default machine is valid, so `at` is only a fallback).
  llvm::SMLoc machineAt = mach.loc.isValid() ? mach.loc : at;
  unsigned pBits = 0;
  if (mach.kind != Machine::MasPar) {
    // A Boolean cube or a k-d mesh (001, 002): `memory` counts elements.
    if (mach.peCount() > kMaxSimulatedPes) {
      diags.error(machineAt,
                  std::string(what) + " simulates at most 2^20 nodes; the " +
                      mach.kindName() + " has " +
                      std::to_string(mach.peCount()),
                  "declare a smaller machine");
      return false;
    }
    // Power-of-two sides run the radix-2 and Gray-code planners (001, 003
    // ch. 4); any other side, and any layout that is not a bit map, takes
    // the general planner's Route steps (003 ch. 6).
    out.radix2 = machineIsRadix2(mach);
    pBits = out.radix2 ? log2Exact(mach.peCount()) : 0;
    out.onNetwork = true;
    out.network = machineNetwork(mach);
    out.nodeElements = uint64_t(mach.memory);
  } else {
    // Any PE grid runs general plans (003 ch. 6); power-of-two grids also
    // run the radix-2 planners (003 ch. 4-5).
    if (mach.peCount() > kMaxSimulatedPes) {
      diags.error(machineAt,
                  std::string(what) +
                      " simulates at most 2^20 PEs; the "
                      "machine has " +
                      std::to_string(mach.peCount()),
                  "declare a smaller PE grid");
      return false;
    }
    int64_t width = mach.pes.empty() ? 1 : mach.pes[0];
    out.shape.width = unsigned(width);
    out.shape.height = unsigned(mach.peCount() / width);
    out.radix2 = machineIsRadix2(mach);
    pBits = out.radix2 ? log2Exact(mach.peCount()) : 0;
    unsigned cluster = unsigned(std::min<int64_t>(mach.cluster, 1 << 20));
    if (log2Exact(cluster) == ~0u) {
      diags.error(machineAt, "the router cluster size must be a power of two",
                  "write cluster = 16 as on the MP-1 (003 5.6.4)");
      return false;
    }
    // A machine smaller than one cluster is one cluster (MasPar.h); a
    // power-of-two grid says so in the size, as the radix-2 bounds expect.
    out.shape.clusterSize =
        out.radix2 ? unsigned(std::min<int64_t>(cluster, mach.peCount()))
                   : cluster;
  }
  out.pBits = pBits;

  // Bit maps of every statement's layouts; one memory width for all.
  // Gray-coded layouts give affine maps (001), planned by planAffineRemap.
  // Layouts that are not bit maps, or a machine that is not radix 2, take
  // the general planner (003 ch. 6) with the layouts' k-Tile index maps.
  /// A bit map a statement in two stages may go through.
  struct ViaCandidate {
    IndexBitMap bits;
    rt::TileMap tiles;
    std::string name; ///< for the stages' labels: its text or its layout
    std::string text; ///< for --emit=plan's header: what it is
  };
  struct Pending {
    const Statement *st = nullptr;
    IndexBitMap src, dst;
    std::optional<rt::TileMap> generalSrc, generalDst;
    /// Two stages (TwoStage.h): `via` is the layout with XOR items without
    /// them (the bound's tables come from it), and `vias` the bit maps the
    /// stages may go through, it first. `src` (affine first) or `dst` is
    /// the layout with XOR items, `generalDst` or `generalSrc` the other.
    std::optional<XorStage> via;
    bool affineFirst = false;
    std::vector<ViaCandidate> vias;
  };
  std::vector<Pending> pending;
  int64_t generalSlots = 0, generalCells = 0;
  llvm::SMLoc generalAt; // the general statement with the most cells
  llvm::SMLoc widestAt;  // the statement with the most memory bits
  auto countGeneral = [&](const Statement &st, const rt::TileMap &src,
                          const rt::TileMap &dst) {
    generalSlots = std::max({generalSlots, rt::slotsOf(src), rt::slotsOf(dst)});
    if (std::max(src.deviceSize(), dst.deviceSize()) > generalCells)
      generalAt = st.loc;
    generalCells = std::max({generalCells, src.deviceSize(), dst.deviceSize()});
  };
  auto countBits = [&](const Statement &st, const IndexBitMap &src,
                       const IndexBitMap &dst) {
    unsigned stBits = std::max(src.memoryBits, dst.memoryBits);
    if (stBits > out.mBits || !widestAt.isValid())
      widestAt = st.loc;
    out.mBits = std::max(out.mBits, stBits);
  };
  bool ok = true;
  for (const Statement &st : program.statements) {
    if (st.from < 0 || st.to < 0)
      continue;
    auto maps = statementBitMaps(program, st);
    auto *why = std::get_if<std::string>(&maps);
    if (why || !out.radix2) {
      auto src = program.layouts[st.from].tileMap();
      auto dst = program.layouts[st.to].tileMap();
      if (!src || !dst) {
        // A layout with XOR items has no k-Tile form (the general planner's
        // rt::TileMap): it is GF(2)-affine (001), which needs a power-of-two
        // machine. Against a layout that is not a bit map it is planned in
        // two stages through a bit map without XOR items (TwoStage.h).
        const Layout &xorLayout = program.layouts[src ? st.to : st.from];
        std::variant<XorStage, std::string> stage =
            !out.radix2  ? std::string(why ? *why
                                           : "its layouts XOR data bits, which "
                                              "needs a power-of-two machine")
            : src || dst ? xorStageOf(xorLayout)
                         : std::string(*why);
        if (auto *via = std::get_if<XorStage>(&stage)) {
          Pending two;
          two.st = &st;
          two.via = *via;
          two.affineFirst = !src;
          const IndexBitMap &xorBits = via->withXorBits;
          (two.affineFirst ? two.src : two.dst) = xorBits;
          (two.affineFirst ? two.generalDst : two.generalSrc) =
              two.affineFirst ? *dst : *src;
          const rt::TileMap &other = two.affineFirst ? *dst : *src;
          two.vias.push_back(
              {via->bits, via->tiles, via->text,
               via->text + ", " + xorLayout.name + " without its XOR items"});
          // The other bit maps of the array the program has, priced too:
          // one nearer the other layout can make the general stage cheaper
          // than the affine stage's saving. Only those no larger than the
          // statement's own layouts, so that they add no memory.
          const int64_t slots =
              std::max(rt::slotsOf(via->tiles), rt::slotsOf(other));
          for (const Layout &l : program.layouts) {
            if (two.vias.size() > kMaxViaCandidates)
              break;
            if (l.array != xorLayout.array || &l == &xorLayout)
              continue;
            auto bits = toIndexBitMap(l);
            auto tiles = l.tileMap();
            auto *b = std::get_if<IndexBitMap>(&bits);
            if (!b || !tiles || b->memoryBits > xorBits.memoryBits ||
                b->peBits > xorBits.peBits || rt::slotsOf(*tiles) > slots ||
                tiles->dataSize() != via->tiles.dataSize())
              continue;
            bool seen = false;
            for (const ViaCandidate &c : two.vias)
              seen |= sameBitMap(c.bits, *b);
            if (!seen)
              two.vias.push_back(
                  {*b, *tiles, "layout " + l.name, "layout " + l.name});
          }
          countBits(st, xorBits, via->bits);
          countGeneral(st, via->tiles, other);
          pending.push_back(std::move(two));
          continue;
        }
        std::string note =
            !out.radix2
                ? "a layout with XOR items is GF(2)-affine: both layouts "
                  "must be bit maps on a power-of-two " +
                      std::string(out.onNetwork ? "mesh or hypercube (001)"
                                                : "PE grid (001)")
                : "remap through a layout without XOR items or '*' first (a "
                  "Gray code is a k-Tile with 'e = [g]')";
        diags.error(st.loc,
                    "cannot plan this statement: " +
                        std::get<std::string>(stage),
                    note);
        ok = false;
        continue;
      }
      countGeneral(st, *src, *dst);
      Pending general;
      general.st = &st;
      general.generalSrc = std::move(src);
      general.generalDst = std::move(dst);
      pending.push_back(std::move(general));
      continue;
    }
    const StatementBitMaps &m = std::get<StatementBitMaps>(maps);
    Pending bits;
    bits.st = &st;
    bits.src = m.src;
    bits.dst = m.dst;
    pending.push_back(std::move(bits));
    countBits(st, m.src, m.dst);
  }
  if (!ok)
    return false;
  // Network plans are chosen by simulating every element's route.
  if (out.onNetwork && out.mBits + pBits > kMaxNetworkCellBits) {
    diags.error(widestAt,
                std::string(what) + " on a " + mach.kindName() +
                    " simulates every element of every schedule; these "
                    "layouts span 2^" +
                    std::to_string(out.mBits + pBits) +
                    " device cells, more than 2^" +
                    std::to_string(kMaxNetworkCellBits),
                "plan a smaller instance of the problem: the schedules and "
                "their costs scale with K and the cube's dimension");
    return false;
  }
  // General plans on a network route every element (NetworkGeneral.cpp):
  // the same limits, counted in cells.
  if (out.onNetwork && generalCells > 0) {
    uint64_t cells = uint64_t(generalCells);
    if (!generalCellsFitNetwork(cells, out.network)) {
      diags.error(generalAt,
                  std::string(what) + " on a " + mach.kindName() +
                      " simulates every hop of every element: these layouts "
                      "span " +
                      std::to_string(cells) +
                      " device cells (at most 2^20) over a diameter of " +
                      std::to_string(out.network.diameter()) +
                      " (at most 2^28 cells times the diameter)",
                  "plan a smaller instance, or a machine with a smaller "
                  "diameter (more mesh dims, or a hypercube)");
      return false;
    }
  }
  // Elements travel up to the diameter, one simulated hop at a time: a
  // 2^20-node cube (diameter 20) fits, a 1024 x 1024 mesh (2046) does not.
  uint64_t diameter = out.onNetwork ? out.network.diameter() : 0;
  if (out.onNetwork &&
      (uint64_t(1) << (out.mBits + pBits)) * std::max<uint64_t>(diameter, 1) >
          rt::kMaxSimulatedHops) {
    diags.error(widestAt,
                std::string(what) + " on a " + mach.kindName() +
                    " simulates every hop of every element: 2^" +
                    std::to_string(out.mBits + pBits) +
                    " device cells times the diameter " +
                    std::to_string(diameter) + " exceed 2^28 hops",
                "plan a smaller instance, or a machine with a smaller "
                "diameter (more mesh dims, or a hypercube)");
    return false;
  }
  if (out.onNetwork && (uint64_t(1) << out.mBits) > out.nodeElements) {
    diags.error(widestAt,
                "the layouts put " + std::to_string(uint64_t(1) << out.mBits) +
                    " elements on a node but the machine's memory holds " +
                    std::to_string(out.nodeElements),
                "raise the machine's memory or spread the arrays over more "
                "nodes");
    return false;
  }

  // One region per array, all the same size, then the scratch.
  uint64_t widest = 1;
  for (const ArrayInfo &a : program.arrays)
    widest = std::max<uint64_t>(widest, elemTypeBytes(a.type));
  uint64_t slots = std::max<uint64_t>(uint64_t(1) << std::min(out.mBits, 40u),
                                      uint64_t(generalSlots));
  uint64_t region = slots * widest;
  uint64_t base = 0;
  for (size_t i = 0; i < program.arrays.size(); ++i)
    out.arrayDataSet[program.arrays[i].name] = i + 1;
  for (const ArrayInfo &a : program.arrays) {
    bool used = false;
    for (const Pending &p : pending)
      used |= p.st->array == a.name || p.st->target == a.name;
    if (!used)
      continue;
    out.arrayBase[a.name] = base;
    base += region;
  }
  // The scratch (as large as a region) is added after planning, and only
  // when a plan has an in-place brute-force step (rt::executePlan): other
  // plans never touch it, and it halved the largest array --run accepts.
  out.scratchBase = base;
  out.memoryBytes = base;
  // --run and the emitted C++ (which runs the same simulator) allocate the
  // memory; --emit=plan only prices it.
  bool simulating = std::string(what) != "--emit=plan";
  uint64_t nodes = out.onNetwork ? uint64_t(out.network.nodeCount())
                                 : uint64_t(out.shape.peCount());
  if (out.mBits > 30 ||
      (simulating && out.memoryBytes > kMaxSimulatedBytes / nodes)) {
    diags.error(at,
                std::string(what) + " would need " +
                    std::to_string(out.memoryBytes) + " bytes in each of " +
                    std::to_string(nodes) +
                    " PEs; the simulator allows 256 MiB in all",
                out.mBits > 30 ? "at most 2^30 elements per PE can be planned"
                               : "run a smaller instance of the problem; "
                                 "--emit=plan prices it without the memory");
    return false;
  }

  unsigned counter = 0;
  // A plan can take seconds (the brute-force planner on 2^24 elements).
  Progress planning(std::string(what) + ": planning", pending.size());
  for (const Pending &p : pending) {
    const Statement &st = *p.st;
    setStatementInProgress(&st);
    const ArrayInfo *arr = program.findArray(st.array);
    unsigned elemBytes = arr ? elemTypeBytes(arr->type) : 1;
    bool copy = st.kind == Statement::Copy;
    StatementPlan sp;
    sp.statement = &st;
    sp.label = statementLabel(program, st);
    sp.function = statementFunction(st, ++counter);
    planning.update(counter - 1, sp.label);
    // The general planner (003 ch. 6), between TileMaps: routed on a
    // network machine, priced methods on the MasPar.
    // `report`: say why at the statement when it fails (a candidate stage
    // of a statement in two stages fails quietly).
    auto planGeneral = [&](const rt::TileMap &src, const rt::TileMap &dst,
                           bool stageCopy,
                           bool report) -> std::optional<rt::GeneralPlan> {
      std::variant<rt::GeneralPlan, std::string> planned;
      if (out.onNetwork) {
        NetworkGeneralPlanRequest nr;
        nr.src = src;
        nr.dst = dst;
        nr.elemBytes = elemBytes;
        nr.copy = stageCopy;
        nr.shape = out.network;
        planned = planNetworkGeneralRemap(nr);
      } else {
        GeneralPlanRequest gr;
        gr.src = src;
        gr.dst = dst;
        gr.elemBytes = elemBytes;
        gr.copy = stageCopy;
        gr.shape = out.shape;
        // No room for a scratch copy in the simulator: plans in place only
        // (003 6.3.9's bounded-stack brute force among them). When the
        // arrays alone exceed the simulator (--emit=plan prices such
        // statements, nothing runs them here), or the layouts exceed what
        // brute force in place is priced for (its rounds run element by
        // element: 4 x 10^7 f32 took a minute and 1.9 GB), the plan is made
        // for a machine with room for the scratch, which --run refuses
        // below, at the statement.
        uint64_t simulatedPerPe =
            kMaxSimulatedBytes / uint64_t(out.shape.peCount());
        gr.noScratch = out.scratchBase <= simulatedPerPe &&
                       out.scratchBase + region > simulatedPerPe &&
                       src.deviceSize() <= kMaxInPlaceBruteForceCells &&
                       dst.deviceSize() <= kMaxInPlaceBruteForceCells;
        // A layout between the two (003 6.3.2) may fill the region.
        gr.maxSlots = int64_t(region / elemBytes);
        planned = planGeneralRemap(gr);
      }
      if (auto *e = std::get_if<std::string>(&planned)) {
        if (!report)
          return std::nullopt;
        bool tooLarge = src.deviceSize() > kMaxGeneralCells ||
                        dst.deviceSize() > kMaxGeneralCells;
        diags.error(st.loc, "cannot plan this statement: " + *e,
                    tooLarge
                        ? "plan a smaller instance here; the functions of "
                          "--emit=cpp --target=native move arrays of any size"
                    : out.onNetwork
                        ? "both layouts must fit the machine's memory and nodes"
                        : "both layouts must fit the machine's memory and PEs");
        return std::nullopt;
      }
      return std::move(std::get<rt::GeneralPlan>(planned));
    };
    // The radix-2 and affine planners (003 ch. 4-5, 001), between bit maps;
    // sets the plan's cycles text.
    auto planBits = [&](const IndexBitMap &srcBits, const IndexBitMap &dstBits,
                        bool stageCopy, StatementPlan &into, bool report) {
      std::string why;
      auto take = [&](std::variant<rt::Plan, std::string> planned) {
        if (auto *e = std::get_if<std::string>(&planned))
          why = *e;
        else
          into.plan = std::move(std::get<rt::Plan>(planned));
      };
      // Widened to the machine; fails, saying so, if a layout does not fit.
      auto src = toRuntimeAffine(srcBits, out.mBits, pBits);
      auto dst = toRuntimeAffine(dstBits, out.mBits, pBits);
      if (auto *e = std::get_if<std::string>(&src))
        why = *e;
      else if (auto *e = std::get_if<std::string>(&dst))
        why = *e;
      else if (out.onNetwork) {
        NetworkPlanRequest nr;
        nr.src = std::get<rt::AffineLayout>(src);
        nr.dst = std::get<rt::AffineLayout>(dst);
        nr.elemBytes = elemBytes;
        nr.copy = stageCopy;
        nr.shape = out.network;
        nr.exchangeStart = exchangeStart;
        take(planNetworkRemap(nr));
        into.cycles = why.empty() ? affineCycles(into.plan) : "";
      } else if (!srcBits.isPermutation() || !dstBits.isPermutation()) {
        AffinePlanRequest ar;
        ar.src = std::get<rt::AffineLayout>(src);
        ar.dst = std::get<rt::AffineLayout>(dst);
        ar.elemBytes = elemBytes;
        ar.copy = stageCopy;
        ar.shape = out.shape;
        ar.exchangeStart = exchangeStart;
        take(planAffineRemap(ar, kind));
        into.cycles = why.empty() ? affineCycles(into.plan) : "";
      } else {
        PlanRequest req;
        req.src = *std::get<rt::AffineLayout>(src).asBitLayout();
        req.dst = *std::get<rt::AffineLayout>(dst).asBitLayout();
        req.elemBytes = elemBytes;
        req.copy = stageCopy;
        req.shape = out.shape;
        take(planRemap(req, kind));
        // Layouts of different devices are planned widened to the machine,
        // but their cycles are not written: say why, not "(none)".
        auto cycles = remapCycles(srcBits, dstBits);
        if (auto *c = std::get_if<std::vector<Cycle>>(&cycles))
          into.cycles = formatCycles(srcBits, *c);
        else
          into.cycles = "no cycle notation: " + std::get<std::string>(cycles);
      }
      if (why.empty() || !report)
        return why.empty();
      // The one reason that is not the layouts': --exchange-start past
      // the PE bits (ExchangeDecomposition.cpp).
      const bool startTooHigh =
          exchangeStart && *exchangeStart >= pBits && pBits > 0;
      diags.error(st.loc, "cannot plan this statement: " + why,
                  startTooHigh
                      ? exchangeStartHint(pBits)
                      : "both layouts must fit the machine's memory and PEs");
      return false;
    };
    const uint64_t srcBase = out.arrayBase[st.array];
    const uint64_t dstBase = out.arrayBase[copy ? st.target : st.array];
    if (p.via) {
      // The first stage moves the array (a copy writes the target), the
      // second works in place where the first left it. Every candidate bit
      // map is planned quietly; the cheapest total wins, the first of
      // equals. If none plans, the first is planned again to say why.
      const double cpuBefore = threadCpuMs();
      using Stages = std::pair<StatementPlan, StatementPlan>;
      auto stagesThrough = [&](const ViaCandidate &via,
                               bool report) -> std::optional<Stages> {
        Stages two{sp, sp};
        StatementPlan &first = two.first, &second = two.second;
        first.label =
            "  stage 1: " + program.layouts[st.from].name + " -> " + via.name;
        second.label =
            "  stage 2: " + via.name + " -> " + program.layouts[st.to].name;
        first.srcBase = srcBase;
        first.dstBase = second.srcBase = second.dstBase = dstBase;
        StatementPlan &affine = p.affineFirst ? first : second;
        StatementPlan &general = p.affineFirst ? second : first;
        if (!planBits(p.affineFirst ? p.src : via.bits,
                      p.affineFirst ? via.bits : p.dst, p.affineFirst && copy,
                      affine, report))
          return std::nullopt;
        general.general = planGeneral(p.affineFirst ? via.tiles : *p.generalSrc,
                                      p.affineFirst ? *p.generalDst : via.tiles,
                                      !p.affineFirst && copy, report);
        if (!general.general)
          return std::nullopt;
        return two;
      };
      std::optional<Stages> best;
      int64_t bestTicks = 0;
      for (const ViaCandidate &via : p.vias) {
        std::optional<Stages> two = stagesThrough(via, false);
        if (!two)
          continue;
        const int64_t ticks =
            predictedTicksOf(two->first) + predictedTicksOf(two->second);
        sp.viaPrices.push_back({via.text, ticks});
        if (!best || ticks < bestTicks) {
          best = std::move(two);
          bestTicks = ticks;
          sp.via = via.text;
        }
      }
      if (!best) {
        stagesThrough(p.vias.front(), true);
        ok = false;
        continue;
      }
      const rt::TileMap &from = p.affineFirst ? p.via->tiles : *p.generalSrc;
      const rt::TileMap &to = p.affineFirst ? *p.generalDst : p.via->tiles;
      const std::vector<uint32_t> sources = p.affineFirst
                                                ? sourcesFromXor(*p.via, to)
                                                : sourcesToXor(from, *p.via);
      if (out.onNetwork) {
        std::vector<std::pair<int64_t, int64_t>> cells;
        if (to.replicates())
          cells = rt::replicaCells(to, sources);
        sp.stagesLowerBound =
            rt::networkGeneralLowerBound(out.network, from, to, &sources,
                                         to.replicates() ? &cells : nullptr);
      } else {
        sp.stagesLowerBound = rt::generalLowerBound(
            from, to, elemBytes, copy, out.shape, rt::CostModel{}, &sources);
      }
      sp.srcBase = srcBase;
      sp.dstBase = dstBase;
      sp.stages.push_back(std::move(best->first));
      sp.stages.push_back(std::move(best->second));
      sp.planningCpuMs = threadCpuMs() - cpuBefore;
      out.statements.push_back(std::move(sp));
      continue;
    }
    sp.srcBase = srcBase;
    sp.dstBase = dstBase;
    if (p.generalSrc) {
      const double cpuBefore = threadCpuMs();
      sp.general = planGeneral(*p.generalSrc, *p.generalDst, copy, true);
      if (!sp.general) {
        ok = false;
        continue;
      }
      sp.planningCpuMs = threadCpuMs() - cpuBefore;
      out.statements.push_back(std::move(sp));
      continue;
    }
    if (!planBits(p.src, p.dst, copy, sp, true)) {
      ok = false;
      continue;
    }
    out.statements.push_back(std::move(sp));
  }
  for (const StatementPlan &sp : out.statements) {
    bool needs = false;
    for (const StatementPlan &stage : stagesOf(sp))
      needs |= stage.general ? planNeedsScratch(*stage.general)
                             : planNeedsScratch(stage.plan);
    if (!needs || out.memoryBytes > out.scratchBase)
      continue;
    out.memoryBytes = out.scratchBase + region;
    if (simulating && out.memoryBytes > kMaxSimulatedBytes / nodes) {
      // A MasPar general plan writes it here only when its layouts exceed
      // kMaxInPlaceBruteForceCells (noScratch above).
      const bool tooBigInPlace =
          !out.onNetwork &&
          llvm::any_of(stagesOf(sp), [](const StatementPlan &stage) {
            return stage.general.has_value();
          });
      diags.error(
          sp.statement->loc,
          std::string(what) +
              (tooBigInPlace ? ": this plan writes a scratch copy of "
                             : ": this plan's in-place brute-force step "
                               "needs a scratch copy of ") +
              "the array, " + std::to_string(out.memoryBytes) +
              " bytes in each of " + std::to_string(nodes) +
              " PEs; the simulator allows 256 MiB in all",
          tooBigInPlace
              ? "run a smaller instance: in place without it (003 6.3.9's "
                "brute force) is priced by running its rounds element by "
                "element, up to 2^20 elements here; --emit=plan prices this "
                "plan"
              : "use the default planner, or a copy into another array");
      return false;
    }
  }
  return ok;
}

/// Why a plan can come in under the lower bound, which (like 003 fig. 5.4)
/// bounds plans that send every element once through the router.
static const char *underBoundReason(const rt::Plan &p) {
  for (const rt::Step &s : p.steps)
    if (s.kind == rt::StepKind::Xnet)
      return "its xnet steps beat it";
  for (const rt::Step &s : p.steps)
    if (s.kind == rt::StepKind::BruteForce)
      return "brute force beats it";
  return "it moves mixed cycles with direct addressing, which the bound "
         "prices as indirect";
}

/// --emit=plan's text for a radix-2 or affine plan; a stage of a statement
/// numbers its steps from `firstStep` and names its total `totalName`.
static void printBitPlan(const ProgramPlans &plans, const StatementPlan &sp,
                         size_t firstStep, const char *totalName,
                         llvm::raw_ostream &os) {
  const rt::Plan &p = sp.plan;
  os << sp.label << " (" << p.planner << " planner, " << p.elemBytes * 8
     << "-bit elements, " << (p.copy ? "copy" : "in place") << ")\n";
  os << "  cycles: " << (sp.cycles.empty() ? "(none)" : sp.cycles) << "\n";
  rt::BitLayout now = p.source;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const rt::Step &s = p.steps[i];
    os << "  step " << (i + firstStep) << ": " << rt::stepKindName(s.kind)
       << " ";
    if (s.kind == rt::StepKind::Exchange) {
      for (size_t k = 0; k < s.exchanges[0].size(); ++k)
        os << (k ? ", [" : "[")
           << formatExchange(s.exchanges[0][k], p.source.mBits) << "]";
      if (!s.schedule.empty())
        os << ", " << s.schedule << " schedule";
      if (s.exchanges.size() > 1)
        os << " (" << s.exchanges.size() << " data sets)";
      rt::AffineLayout before = p.affineAfter(int(i) - 1);
      os << ", " << rt::countMoved(before, s.exchangeMove(before.bits()))
         << " of " << before.heldCount() << " elements move, "
         << s.predictedTicks << " ticks\n";
      os << "    why: " << s.why << "\n";
      continue;
    }
    os << rt::formatMove(s.move, now);
    os << ", " << (p.elemBytes << s.chunkBits) * 8 << "-bit chunks";
    if (s.kind == rt::StepKind::Router)
      os << (s.clustered ? ", one connection per cluster pair"
                         : ", one connection per PE");
    os << ", " << s.predictedTicks << " ticks\n";
    os << "    why: " << s.why << "\n";
    now = s.move.applyTo(now);
  }
  if (p.steps.empty())
    os << "  no data moves\n";
  printPlanTotal(p.predictedTicks, p.lowerBound, plans.onNetwork, os,
                 totalName);
  if (p.ticksAreBound)
    os << "  note: the total is an upper bound: a disabled bit leaves "
          "PEs or slots without data, priced as if they held it, and at "
          "more than 2^"
       << kMaxLedgerPricedBits
       << " device cells the plan is not priced by running it; --run "
          "gives the ticks\n";
  if (!plans.onNetwork && p.predictedTicks < p.lowerBound)
    os << "  note: the bound covers plans that send every element once "
          "through the router (003 fig. 5.4); "
       << underBoundReason(p) << " (docs/cost-model.md)\n";
}

void mapc::traceStages(const ProgramPlans &plans,
                       const StatementPlan &statement, llvm::raw_ostream &os,
                       const std::function<void(const StatementPlan &, unsigned,
                                                bool)> &traceBits) {
  // A later stage starts where the one before ended: its steps are
  // numbered on, and its state before them is not shown again.
  unsigned offset = 0;
  bool first = true;
  for (const StatementPlan &sp : stagesOf(statement)) {
    if (sp.general)
      traceGeneralPlan(plans, sp, os, offset, first);
    else
      traceBits(sp, offset, first);
    offset += unsigned(stepCount(sp));
    first = false;
  }
}

size_t mapc::stepCount(const StatementPlan &sp) {
  return sp.general ? sp.general->steps.size() : sp.plan.steps.size();
}

int64_t mapc::predictedTicksOf(const StatementPlan &sp) {
  if (sp.stages.empty())
    return sp.general ? sp.general->predictedTicks : sp.plan.predictedTicks;
  int64_t ticks = 0;
  for (const StatementPlan &stage : sp.stages)
    ticks += predictedTicksOf(stage);
  return ticks;
}

int64_t mapc::lowerBoundOf(const StatementPlan &sp) {
  if (!sp.stages.empty())
    return sp.stagesLowerBound;
  return sp.general ? sp.general->lowerBound : sp.plan.lowerBound;
}

void mapc::printPlans(const ProgramPlans &plans, llvm::raw_ostream &os) {
  const rt::MachineShape *machine = plans.onNetwork ? nullptr : &plans.shape;
  for (const StatementPlan &sp : plans.statements) {
    if (sp.stages.empty()) {
      if (sp.general)
        printGeneralPlan(sp, plans.onNetwork, os, machine);
      else
        printBitPlan(plans, sp, 1, "total", os);
      continue;
    }
    // Two stages (TwoStage.h): each its own plan, steps numbered on, then
    // the statement's total and its bound over the whole remap.
    const bool affineFirst = !sp.stages.front().general;
    os << sp.label << " (in two stages through " << sp.via << ": "
       << (affineFirst ? "a GF(2)-affine plan (001), then a general one (003 "
                         "ch. 6)"
                       : "a general plan (003 ch. 6), then a GF(2)-affine one "
                         "(001)");
    os << ")\n";
    if (sp.viaPrices.size() > 1) {
      os << "  why: the cheapest of the bit maps priced: ";
      for (size_t i = 0; i < sp.viaPrices.size(); ++i)
        os << (i ? "; " : "") << sp.viaPrices[i].first << ": "
           << sp.viaPrices[i].second << " ticks";
      os << "\n";
    }
    size_t firstStep = 1;
    for (const StatementPlan &stage : sp.stages) {
      if (stage.general)
        printGeneralPlan(stage, plans.onNetwork, os, machine, firstStep,
                         "stage total");
      else
        printBitPlan(plans, stage, firstStep, "stage total", os);
      firstStep += stepCount(stage);
    }
    const int64_t ticks = predictedTicksOf(sp), bound = lowerBoundOf(sp);
    printPlanTotal(ticks, bound, plans.onNetwork, os);
    if (ticks < bound)
      os << "  note: the bound covers plans that cross between PEs by "
            "router sends only; the affine stage's xnet steps beat it "
            "(docs/cost-model.md)\n";
  }
}

void mapc::printTraceRows(
    const rt::AffineLayout &now, unsigned nodes,
    const std::function<uint64_t(unsigned node, uint64_t slot)> &valueAt,
    llvm::raw_ostream &os) {
  for (unsigned pe = 0; pe < nodes; ++pe) {
    for (uint64_t m = 0; m < (uint64_t(1) << now.mBits); ++m) {
      if (m)
        os << " ";
      uint64_t a = m | (uint64_t(pe) << now.mBits);
      if (now.holds(a))
        os << valueAt(pe, m);
      else
        os << ".";
    }
    os << "\n";
  }
}

void RunBook::before(const StatementPlan &statement) {
  const std::string &array = statement.statement->array;
  if (filled[array])
    return;
  const StatementPlan &sp = stagesOf(statement).front();
  const rt::Plan &p = sp.plan;
  if (sp.general)
    rt::storePattern(memoryOf, sp.general->source, sp.general->elemBytes,
                     sp.srcBase, tag[array]);
  else
    rt::storePattern(memoryOf, p.affineAfter(-1), p.elemBytes, sp.srcBase,
                     tag[array]);
  filled[array] = true;
}

void RunBook::after(const StatementPlan &statement, bool ran,
                    const std::string &why, int64_t ticks) {
  // A statement in stages ends where its last stage does.
  const StatementPlan &sp = stagesOf(statement).back();
  const rt::Plan &p = sp.plan;
  const Statement &st = *sp.statement;
  bool copy = st.kind == Statement::Copy;
  if (copy)
    tag[st.target] = tag[st.array];
  const std::string &holder = copy ? st.target : st.array;
  filled[holder] = true;
  auto readOnly = [&](unsigned node) -> const uint8_t * {
    return memoryOf(node);
  };
  uint64_t bad = 0, elements = 0;
  const int64_t bound = lowerBoundOf(statement);
  if (sp.general) {
    const rt::GeneralPlan &g = *sp.general;
    elements = uint64_t(g.dest.dataSize());
    if (ran)
      bad = rt::countMismatches(readOnly, g.dest, g.elemBytes, sp.dstBase,
                                tag[holder]);
  } else {
    rt::AffineLayout dest = p.affineAfter(int(p.steps.size()) - 1);
    elements = uint64_t(1) << dest.dataBits;
    if (ran)
      bad = rt::countMismatches(readOnly, dest, p.elemBytes, sp.dstBase,
                                tag[holder]);
  }
  os << statement.label << ": ";
  if (!ran) {
    os << "MISMATCH, the plan failed: " << why << "\n";
    good = false;
  } else if (bad) {
    os << "MISMATCH, " << bad << " of " << elements
       << " elements wrong, ticks=" << ticks << ", lower_bound=" << bound
       << "\n";
    good = false;
  } else {
    os << "verified, ticks=" << ticks << ", lower_bound=" << bound << "\n";
  }
}

bool RunBook::traceable(const StatementPlan &statement, uint64_t nodes) {
  uint64_t cells = 0;
  for (const StatementPlan &sp : stagesOf(statement))
    cells = std::max<uint64_t>(
        cells, sp.general ? uint64_t(sp.general->source.deviceSize())
                          : nodes << sp.plan.source.mBits);
  if (cells <= (uint64_t(1) << 16))
    return true;
  os << "trace " << statement.statement->array << ": " << cells
     << " device cells, too many to trace (at most 65536)\n";
  return false;
}

void RunBook::digest(uint64_t bytes, const char *unit, uint64_t fnv) {
  os << "memory: " << bytes << " bytes per " << unit
     << ", fnv1a64=" << llvm::format_hex(fnv, 18) << "\n";
}

/// --trace of a radix-2 or affine plan on the MasPar: runs it again on a
/// twin machine whose elements are their own data indices and prints it
/// after every step, numbered after `stepOffset`; a later stage leaves out
/// the state before it (`showStart`).
static void traceBitPlan(const ProgramPlans &plans, const StatementPlan &sp,
                         unsigned stepOffset, bool showStart,
                         llvm::raw_ostream &os) {
  const rt::Plan &p = sp.plan;
  const std::string &array = sp.statement->array;
  rt::Plan twin = p;
  twin.elemBytes = 8;
  uint64_t scale = 8 / std::min(8u, p.elemBytes);
  rt::MasPar shadow(plans.shape.width, plans.shape.height,
                    plans.memoryBytes * scale, plans.shape.clusterSize);
  rt::Regions r2{
      {sp.srcBase * scale}, {sp.dstBase * scale}, {plans.scratchBase * scale}};
  auto show = [&](unsigned step, const rt::BitLayout &) {
    if (step == 0 && !showStart)
      return;
    os << "trace " << array << " step " << step + stepOffset << "\n";
    uint64_t base = step == 0 ? r2.src.base : r2.dst.base;
    printTraceRows(
        p.affineAfter(int(step) - 1), shadow.peCount(),
        [&](unsigned pe, uint64_t m) {
          const uint8_t *mem = shadow.memoryOf(pe) + base + m * 8;
          uint64_t v = 0;
          for (unsigned k = 0; k < 8; ++k)
            v |= uint64_t(mem[k]) << (8 * k);
          return v;
        },
        os);
  };
  rt::forEachElement(p.affineAfter(-1), 8, r2.src.base,
                     [&](uint64_t d, unsigned pe, uint64_t at) {
                       for (unsigned k = 0; k < 8; ++k)
                         shadow.memoryOf(pe)[at + k] = uint8_t(d >> (8 * k));
                     });
  show(0, p.source);
  std::string why;
  if (!rt::executePlan(shadow, twin, r2, show, &why))
    os << "trace " << array << ": the traced run stopped: " << why << "\n";
}

bool mapc::runPlans(const ProgramPlans &plans, bool trace, bool memoryDigest,
                    llvm::raw_ostream &os) {
  if (plans.onNetwork)
    return runNetworkPlans(plans, trace, memoryDigest, os);
  rt::MasPar machine(plans.shape.width, plans.shape.height, plans.memoryBytes,
                     plans.shape.clusterSize);
  RunBook book(
      plans, [&](unsigned pe) { return machine.memoryOf(pe); }, os);
  for (const StatementPlan &statement : plans.statements) {
    setStatementInProgress(statement.statement);
    book.before(statement);
    if (trace && book.traceable(statement, machine.peCount()))
      traceStages(plans, statement, os,
                  [&](const StatementPlan &sp, unsigned offset, bool first) {
                    traceBitPlan(plans, sp, offset, first, os);
                  });
    int64_t before = machine.ledger().total();
    std::string why;
    bool ran = true;
    for (const StatementPlan &sp : stagesOf(statement)) {
      rt::Regions regions{{sp.srcBase}, {sp.dstBase}, {plans.scratchBase}};
      ran = sp.general ? rt::executeGeneralPlan(machine, *sp.general, regions,
                                                {}, &why)
                       : rt::executePlan(machine, sp.plan, regions, {}, &why);
      if (!ran)
        break;
    }
    book.after(statement, ran, why, machine.ledger().total() - before);
  }
  if (memoryDigest)
    book.digest(machine.memoryBytes(), "PE", rt::memoryDigest(machine));
  return book.allGood();
}
