//===- CppEmitter.cpp - `--emit=cpp` and `--emit=header` ------------------===//
//
// The emitted code is read by people and compiled by strict compilers, so:
// one table row per line, no timestamps or paths (the same input gives the
// same bytes), every string and comment escaped, every helper used (an
// unused static function is an error under -Wall -Werror), and unsigned
// literals where the runtime takes unsigned values (-Wsign-conversion).
//
//===----------------------------------------------------------------------===//
#include "backend/CppEmitter.h"
#include "backend/CppLiterals.h"

#include "mapc/runtime/BitLayout.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

using namespace mapc;
using mapc::cpp::hex64;
using mapc::cpp::i64;
using mapc::cpp::list;
using mapc::cpp::u64;

namespace {

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

using mapc::cpp::quoted;

/// A `//` comment's text.
std::string comment(const std::string &s) { return cpp::commentText(s); }

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

bool isAsciiAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }

/// Any string as a C++ identifier: other characters become '_', and a
/// name that does not start with a letter gets a prefix (a leading '_' is
/// reserved before a capital).
std::string identifier(const std::string &s, const char *prefix) {
  std::string out;
  for (char c : s)
    out += isAsciiAlpha(c) || isAsciiDigit(c) || c == '_' ? c : '_';
  if (out.empty() || !isAsciiAlpha(out[0]))
    out = prefix + out;
  return out;
}

/// Names a remap function must not take: C++ keywords and alternative
/// tokens, and the names the header and source define themselves.
const std::set<std::string> &reservedNames() {
  static const std::set<std::string> names = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq",
      // Ours.
      "std", "mapc", "mapc_program", "Machine", "makeMachine", "kPeWidth",
      "kPeHeight", "kClusterSize", "kCube", "kDims", "kDimSizes",
      "kMemoryBytes", "bitLayout", "affineLayout", "planStep", "exchangeStep",
      "RemapEntry", "remaps", "remapCount", "kRemaps"};
  return names;
}

/// The function name of every remap, valid and distinct (FUNCTION_plan
/// included), the same for the header and the source.
std::vector<std::string> functionNames(const std::vector<EmittedRemap> &rs) {
  std::set<std::string> used = reservedNames();
  std::vector<std::string> names;
  for (const EmittedRemap &r : rs) {
    std::string base = identifier(r.function, "remap_");
    std::string name = base;
    for (unsigned n = 2; used.count(name) || used.count(name + "_plan"); ++n)
      name = base + "_" + std::to_string(n);
    used.insert(name);
    used.insert(name + "_plan");
    names.push_back(name);
  }
  return names;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

uint64_t satAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b
             ? std::numeric_limits<uint64_t>::max()
             : a + b;
}

/// One past the last byte a region of `plan`'s array reaches from `base`.
uint64_t regionEnd(uint64_t base, const rt::Plan &plan) {
  unsigned mBits = std::max(plan.source.mBits, plan.dest.mBits);
  uint64_t elems =
      mBits >= 64 ? std::numeric_limits<uint64_t>::max() : uint64_t(1) << mBits;
  uint64_t bytes =
      plan.elemBytes &&
              elems > std::numeric_limits<uint64_t>::max() / plan.elemBytes
          ? std::numeric_limits<uint64_t>::max()
          : elems * plan.elemBytes;
  return satAdd(base, bytes);
}

/// Bytes per PE the remaps touch. executePlan checks both the source and
/// the destination region of every plan, and the scratch region of every
/// brute-force step that does not read a separate source (Execute.h); a
/// network has no brute-force steps and no scratch.
uint64_t memoryNeeded(const std::vector<EmittedRemap> &rs,
                      const EmitOptions &opts) {
  uint64_t need = opts.memoryBytes;
  for (const EmittedRemap &r : rs) {
    if (!r.stages.empty()) {
      need = std::max(need, memoryNeeded(r.stages, opts));
      continue;
    }
    if (r.general) {
      // executeGeneralPlan checks every layout's slots in the regions it
      // uses: the source, the destination and, if a step writes it, the
      // scratch (General.h).
      const rt::GeneralPlan &g = *r.general;
      int64_t slots = std::max(rt::slotsOf(g.source), rt::slotsOf(g.dest));
      for (const rt::GeneralStep &s : g.steps)
        slots = std::max(slots, rt::slotsOf(s.to));
      uint64_t bytes = uint64_t(slots) * g.elemBytes;
      need =
          std::max({need, satAdd(r.srcBase, bytes), satAdd(r.dstBase, bytes)});
      rt::Regions regions{{r.srcBase}, {r.dstBase}, {opts.scratchBase}};
      for (size_t i = 0; i < g.steps.size(); ++i) {
        uint64_t read, write;
        rt::stepRegions(g, i, regions, read, write);
        if (write == opts.scratchBase && write != r.dstBase)
          need = std::max(need, satAdd(opts.scratchBase, bytes));
      }
      continue;
    }
    need = std::max(
        {need, regionEnd(r.srcBase, r.plan), regionEnd(r.dstBase, r.plan)});
    for (size_t i = 0; i < r.plan.steps.size(); ++i)
      if (!opts.onNetwork && r.plan.steps[i].kind == rt::StepKind::BruteForce &&
          !(r.plan.copy && i == 0))
        need = std::max(need, regionEnd(opts.scratchBase, r.plan));
  }
  return need;
}

const char *stepKindEnumerator(rt::StepKind k) {
  switch (k) {
  case rt::StepKind::Memory:
    return "Memory";
  case rt::StepKind::Router:
    return "Router";
  case rt::StepKind::Xnet:
    return "Xnet";
  case rt::StepKind::BruteForce:
    return "BruteForce";
  case rt::StepKind::Exchange:
    return "Exchange";
  case rt::StepKind::Route:
    return "Route";
  }
  return "Memory";
}

/// Is `m` a permutation of `l`'s device bits? formatMove and applyTo index
/// by it, and a malformed plan must not crash the compiler.
bool fitsLayout(const rt::BitMove &m, const rt::BitLayout &l) {
  if (m.bits() != l.bits() || l.dataBit.size() != l.bits() ||
      l.value.size() != l.bits())
    return false;
  std::vector<bool> hit(m.bits(), false);
  for (unsigned t : m.to) {
    if (t >= m.bits() || hit[t])
      return false;
    hit[t] = true;
  }
  return true;
}

/// 001's notation for an exchange step: its first order (every order
/// realises the same map), `[p4 ^= p5], [p3 ^= p4]`, then how many orders
/// and the schedule when there are several or one is named.
std::string exchangeText(const rt::Step &s, unsigned mBits) {
  auto name = [&](unsigned b) {
    return b < mBits ? "m" + std::to_string(b)
                     : "p" + std::to_string(b - mBits);
  };
  std::string out;
  if (!s.exchanges.empty())
    for (const rt::Exchange &e : s.exchanges[0]) {
      std::string cond;
      for (unsigned b = 64; b-- > 0;)
        if ((e.condition >> b) & 1)
          cond += (cond.empty() ? "" : "^") + name(b);
      out += (out.empty() ? "[" : ", [") + name(e.bit) +
             " ^= " + (cond.empty() ? "0" : cond) + "]";
    }
  if (s.exchanges.size() > 1)
    out += ", " + std::to_string(s.exchanges.size()) + " orders";
  if (!s.schedule.empty())
    out += (out.empty() ? "" : ", ") + s.schedule + " schedule";
  return out.empty() ? "(no exchanges)" : out;
}

/// The cycle notation (003 4.2.2) of every step, bits named as in the
/// layout the step starts from; an exchange step's exchanges instead.
std::vector<std::string> stepCycles(const rt::Plan &plan) {
  std::vector<std::string> out;
  rt::BitLayout now = plan.source;
  bool ok = true;
  for (const rt::Step &s : plan.steps) {
    ok = ok && fitsLayout(s.move, now);
    if (s.kind == rt::StepKind::Exchange && (!ok || s.move.isIdentity()))
      out.push_back(exchangeText(s, plan.source.mBits));
    else
      out.push_back(ok ? rt::formatMove(s.move, now) : "(malformed move)");
    if (ok)
      now = s.move.applyTo(now);
  }
  return out;
}

/// `bitLayout(mBits, pBits, dataBits, {data bit per device bit, low first},
/// {value per device bit})`.
std::string layoutRow(const rt::BitLayout &l) {
  return "bitLayout(" + u64(l.mBits) + ", " + u64(l.pBits) + ", " +
         u64(l.dataBits) + ", " +
         list(l.dataBit, [](int d) { return std::to_string(d); }) + ", " +
         list(l.value, [](uint8_t v) { return std::to_string(v); }) + ")";
}

/// `{{{bit, condition}, ...}, ...}`: a step's exchange orders.
std::string ordersRow(const std::vector<std::vector<rt::Exchange>> &orders) {
  return list(orders, [](const std::vector<rt::Exchange> &order) {
    return list(order, [](const rt::Exchange &e) {
      return "{" + u64(e.bit) + ", " + hex64(e.condition) + "}";
    });
  });
}

/// Is `s` written with exchangeStep? That helper knows only the fields
/// the planners give an exchange step; any other step, or an exchange step
/// with more, is a planStep row with its exchanges assigned after it.
bool isPlainExchange(const rt::Step &s) {
  return s.kind == rt::StepKind::Exchange && s.move.isIdentity() &&
         s.chunkBits == 0 && !s.clustered;
}

std::string exchangeRow(const rt::Step &s) {
  return "exchangeStep(" + u64(s.move.bits()) + ", " + ordersRow(s.exchanges) +
         ", " + quoted(s.schedule) + ", " + i64(s.predictedTicks) + ", " +
         quoted(s.why) + ")";
}

std::string stepRow(const rt::Step &s) {
  return "planStep(mapc::rt::StepKind::" +
         std::string(stepKindEnumerator(s.kind)) + ", " +
         list(s.move.to, [](unsigned t) { return std::to_string(t); }) + ", " +
         hex64(s.move.flip) + ", " + u64(s.chunkBits) + ", " +
         (s.clustered ? "true" : "false") + ", " + i64(s.predictedTicks) +
         ", " + quoted(s.why) + ")";
}

const char *generalKindEnumerator(rt::GeneralStepKind k) {
  switch (k) {
  case rt::GeneralStepKind::Local:
    return "Local";
  case rt::GeneralStepKind::Slotwise:
    return "Slotwise";
  case rt::GeneralStepKind::Exchange:
    return "Exchange";
  case rt::GeneralStepKind::BruteForce:
    return "BruteForce";
  case rt::GeneralStepKind::Route:
    return "Route";
  case rt::GeneralStepKind::DigitExchange:
    return "DigitExchange";
  case rt::GeneralStepKind::Resignify:
    return "Resignify";
  }
  return "BruteForce";
}

std::string generalStepRow(const rt::GeneralStep &s) {
  return "generalStep(mapc::rt::GeneralStepKind::" +
         std::string(generalKindEnumerator(s.kind)) + ", " +
         (s.inPlace ? "true" : "false") + ", " + cpp::tileMapLiteral(s.to) +
         ", " + i64(s.predictedTicks) + ", " + quoted(s.why) +
         (s.routeOrder ? ", " + u64(s.routeOrder) : std::string()) + ")";
}

/// The `///` lines above a general remap's function.
void generalFunctionComment(const EmittedRemap &r, llvm::raw_ostream &os) {
  const rt::GeneralPlan &p = *r.general;
  os << "/// " << comment(r.description) << "\n";
  os << "/// " << comment(p.planner) << " plan (003 ch. 6), ";
  if (p.steps.empty())
    os << "no steps";
  else
    os << p.steps.size() << (p.steps.size() == 1 ? " step" : " steps");
  os << ", " << p.predictedTicks << " ticks predicted, lower bound "
     << p.lowerBound << (p.steps.empty() ? "" : ":") << "\n";
  for (size_t i = 0; i < p.steps.size(); ++i)
    os << "///   " << (i + 1) << ". "
       << rt::generalStepKindName(p.steps[i].kind)
       << (p.steps[i].inPlace ? " (in place)" : "") << "\n";
  os << "/// Returns false, with the reason in *why, if a step cannot run.\n";
}

/// The `///` lines above a remap's function: what it is, then the plan
/// step by step in cycle notation.
void functionComment(const EmittedRemap &r, llvm::raw_ostream &os) {
  const rt::Plan &p = r.plan;
  os << "/// " << comment(r.description) << "\n";
  os << "/// " << comment(p.planner) << " plan, ";
  if (p.steps.empty())
    os << "no steps";
  else
    os << p.steps.size() << (p.steps.size() == 1 ? " step" : " steps");
  os << ", " << p.predictedTicks << " ticks predicted, lower bound "
     << p.lowerBound << (p.steps.empty() ? "" : ":") << "\n";
  if (p.affine)
    os << "///   (affine layouts, 001: " << comment(p.affineSource.str())
       << " to " << comment(p.affineDest.str()) << ")\n";
  std::vector<std::string> cycles = stepCycles(p);
  for (size_t i = 0; i < p.steps.size(); ++i)
    os << "///   " << (i + 1) << ". " << rt::stepKindName(p.steps[i].kind)
       << " " << comment(cycles[i]) << "\n";
  os << "/// Returns false, with the reason in *why, if a step cannot run.\n";
}

/// The `///` lines above FUNCTION_plan(): the description again and the
/// steps' cycles on as many lines as they need.
void planComment(const EmittedRemap &r, const std::string &f,
                 llvm::raw_ostream &os) {
  os << "/// The plan " << f << " runs, built on first use:\n"
     << "/// " << comment(r.description) << "\n";
  std::vector<std::string> cycles = stepCycles(r.plan);
  std::string line = "///  ";
  for (size_t i = 0; i < cycles.size(); ++i) {
    std::string item = comment(cycles[i]) + (i + 1 < cycles.size() ? "," : "");
    if (line.size() > 5 && line.size() + 1 + item.size() > 80) {
      os << line << "\n";
      line = "///  ";
    }
    line += " " + item;
  }
  if (cycles.empty())
    line += " (no steps)";
  os << line << "\n";
}

bool anyGeneral(const std::vector<EmittedRemap> &rs) {
  for (const EmittedRemap &r : rs)
    if (r.general || anyGeneral(r.stages))
      return true;
  return false;
}

/// The remaps the source defines plans for: every remap, with a statement
/// in stages replaced by its stages.
std::vector<const EmittedRemap *> planned(const std::vector<EmittedRemap> &rs) {
  std::vector<const EmittedRemap *> out;
  for (const EmittedRemap &r : rs) {
    if (r.stages.empty())
      out.push_back(&r);
    for (const EmittedRemap &stage : r.stages)
      out.push_back(&stage);
  }
  return out;
}

std::string stageName(const std::string &f, size_t k) {
  return f + "_stage" + std::to_string(k + 1);
}

/// The machine type the emitted functions take.
const char *machineType(const EmitOptions &opts) {
  return opts.onNetwork ? "mapc::rt::NetworkMachine" : "mapc::rt::MasPar";
}

/// A general remap's plan function and the function that runs it.
void emitGeneralRemap(const EmittedRemap &r, const std::string &f,
                      const EmitOptions &opts, llvm::raw_ostream &os) {
  const rt::GeneralPlan &p = *r.general;
  os << "\n// " << comment(r.description) << "\n"
     << "const mapc::rt::GeneralPlan &" << f << "_plan() {\n"
     << "  static const mapc::rt::GeneralPlan plan = [] {\n"
     << "    mapc::rt::GeneralPlan p;\n"
     << "    p.source = " << cpp::tileMapLiteral(p.source) << ";\n"
     << "    p.dest = " << cpp::tileMapLiteral(p.dest) << ";\n"
     << "    p.elemBytes = " << u64(p.elemBytes) << ";\n"
     << "    p.copy = " << (p.copy ? "true" : "false") << ";\n"
     << "    p.planner = " << quoted(p.planner) << ";\n"
     << "    p.predictedTicks = " << i64(p.predictedTicks) << ";\n"
     << "    p.lowerBound = " << i64(p.lowerBound) << ";\n";
  for (const rt::GeneralStep &s : p.steps)
    os << "    p.steps.push_back(" << generalStepRow(s) << ");\n";
  os << "    return p;\n"
     << "  }();\n"
     << "  return plan;\n"
     << "}\n\n"
     << "bool " << f << "(" << machineType(opts)
     << " &machine, std::string *why) {\n"
     << "  const mapc::rt::Regions regions{{" << u64(r.srcBase) << "}, {"
     << u64(r.dstBase) << "}, {" << u64(opts.scratchBase) << "}};\n"
     << "  return mapc::rt::executeGeneralPlan(machine, " << f
     << "_plan(), regions, {}, why);\n"
     << "}\n";
}

} // namespace

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

void mapc::emitHeader(const std::vector<EmittedRemap> &remaps,
                      const EmitOptions &opts, llvm::raw_ostream &os) {
  std::string guard =
      opts.guard.empty() ? "MAPC_PROGRAM_H" : identifier(opts.guard, "MAPC_");
  std::vector<std::string> names = functionNames(remaps);
  const char *machine = machineType(opts);
  os << "// Generated by mapc --emit=header. Do not edit.\n"
     << "//\n"
     << "// Compile the matching --emit=cpp source with -std=c++17 and link\n"
     << "// the mapc runtime library (MapcRuntime).\n"
     << "#ifndef " << guard << "\n"
     << "#define " << guard << "\n\n"
     << (opts.onNetwork ? "#include \"mapc/runtime/Network.h\"\n"
                        : "#include \"mapc/runtime/MasPar.h\"\n")
     << "#include \"mapc/runtime/General.h\"\n"
     << "#include \"mapc/runtime/Plan.h\"\n\n"
     << (opts.onNetwork ? "#include <array>\n" : "") << "#include <cstdint>\n"
     << "#include <string>\n\n"
     << "namespace mapc_program {\n\n";
  if (opts.onNetwork) {
    const std::vector<unsigned> &dims = opts.network.dims;
    os << "/// The machine the program was compiled for: a network of nodes "
          "with\n"
       << "/// kMemoryBytes each, a Boolean kDims-cube if kCube, else a mesh "
          "of\n"
       << "/// kDimSizes[i] nodes in dim i (node = x0 + kDimSizes[0] * (x1 + "
          "...)).\n"
       << "using Machine = mapc::rt::NetworkMachine;\n"
       << "inline constexpr bool kCube = "
       << (opts.network.cube ? "true" : "false") << ";\n"
       << "inline constexpr unsigned kDims = " << dims.size() << "u;\n"
       << "inline constexpr std::array<unsigned, kDims> kDimSizes = "
       << list(dims, [](unsigned d) { return u64(d); }) << ";\n";
  } else {
    os << "/// The machine the program was compiled for: a kPeWidth x "
          "kPeHeight\n"
       << "/// PE grid, routers shared by kClusterSize PEs, kMemoryBytes per "
          "PE.\n"
       << "using Machine = mapc::rt::MasPar;\n"
       << "inline constexpr unsigned kPeWidth = " << opts.peWidth << "u;\n"
       << "inline constexpr unsigned kPeHeight = " << opts.peHeight << "u;\n"
       << "inline constexpr unsigned kClusterSize = " << opts.clusterSize
       << "u;\n";
  }
  os << "inline constexpr uint64_t kMemoryBytes = "
     << u64(memoryNeeded(remaps, opts)) << ";\n\n"
     << (opts.onNetwork
             ? "/// A machine of that shape (001's timing: element transfers "
               "in sequence).\n"
             : "/// A machine of that shape with 003 fig. 5.2's prices.\n")
     << machine << " makeMachine();\n\n"
     << "/// One remap statement of the program, for code that runs them all\n"
     << "/// without naming them (the tests' generic harness).\n"
     << "struct RemapEntry {\n"
     << "  const char *name;   ///< its function, e.g. \"remap_A_1\"\n"
     << "  const char *label;  ///< e.g. \"remap A: S -> D\"\n"
     << "  const char *array;  ///< the array moved\n"
     << "  const char *target; ///< the array that receives it (a copy's "
        "target)\n"
     << "  uint64_t srcBase;   ///< where array starts in every "
     << (opts.onNetwork ? "node" : "PE") << "'s memory\n"
     << "  uint64_t dstBase;   ///< where target starts\n"
     << "  /// The data set mapc --run stores in `array` before its first\n"
     << "  /// statement (mapc::rt::storePattern's tag): its number in\n"
     << "  /// declaration order, from 1.\n"
     << "  uint64_t dataSet;\n"
     << "  bool (*run)(Machine &machine, std::string *why);\n"
     << "  /// The plan run: `plan` for radix-2 and affine remaps,\n"
     << "  /// `generalPlan` for general ones (003 ch. 6); the other is "
        "null.\n"
     << "  const mapc::rt::Plan &(*plan)();\n"
     << "  const mapc::rt::GeneralPlan &(*generalPlan)();\n"
     << "  /// The statement's lower bound, in the ticks of `run`.\n"
     << "  int64_t lowerBound;\n"
     << "  /// A statement in stages (a layout with XOR items against one "
        "that\n"
     << "  /// is not a bit map): its stageCount stages in order, each an "
        "entry\n"
     << "  /// with its own plan; `plan` and `generalPlan` are then null.\n"
     << "  const RemapEntry *stages;\n"
     << "  unsigned stageCount;\n"
     << "};\n\n"
     << "/// Every remap statement in program order: remapCount() entries.\n"
     << "const RemapEntry *remaps();\n"
     << "unsigned remapCount();\n";
  auto declare = [&](const EmittedRemap &r, const std::string &f) {
    os << "\n";
    if (r.general) {
      generalFunctionComment(r, os);
      os << "bool " << f << "(" << machine
         << " &machine, std::string *why = nullptr);\n"
         << "/// The plan " << f << " runs, built on first use.\n"
         << "const mapc::rt::GeneralPlan &" << f << "_plan();\n";
      return;
    }
    functionComment(r, os);
    os << "bool " << f << "(" << machine
       << " &machine, std::string *why = nullptr);\n";
    planComment(r, f, os);
    os << "const mapc::rt::Plan &" << f << "_plan();\n";
  };
  for (size_t i = 0; i < remaps.size(); ++i) {
    const std::string &f = names[i];
    const EmittedRemap &r = remaps[i];
    if (r.stages.empty()) {
      declare(r, f);
      continue;
    }
    os << "\n/// " << comment(r.description) << "\n"
       << "/// In " << r.stages.size()
       << " stages through a bit map without XOR items, each a plan of its\n"
       << "/// own below; lower bound " << r.lowerBound
       << " over the whole remap.\n"
       << "/// Returns false, with the reason in *why, if a step cannot "
          "run.\n"
       << "bool " << f << "(" << machine
       << " &machine, std::string *why = nullptr);\n";
    for (size_t k = 0; k < r.stages.size(); ++k)
      declare(r.stages[k], stageName(f, k));
  }
  os << "\n} // namespace mapc_program\n\n#endif // " << guard << "\n";
}

//===----------------------------------------------------------------------===//
// Source
//===----------------------------------------------------------------------===//

void mapc::emitSource(const std::vector<EmittedRemap> &remaps,
                      const EmitOptions &opts, llvm::raw_ostream &os) {
  std::vector<std::string> names = functionNames(remaps);
  const char *machine = machineType(opts);
  // An #include name is not a string literal: escapes mean nothing there,
  // so the characters that would end or break it are replaced.
  std::string header;
  for (char c : opts.headerName) {
    unsigned char u = static_cast<unsigned char>(c);
    header += c == '"' || c == '\\' || u < 0x20 || u >= 0x7f ? '_' : c;
  }
  bool anyAffine = false, anyPlanStep = false, anyExchangeStep = false;
  bool anyBitPlan = false, anyGeneralStep = false;
  for (const EmittedRemap *each : planned(remaps)) {
    const EmittedRemap &r = *each;
    if (r.general) {
      anyGeneralStep |= !r.general->steps.empty();
      continue;
    }
    anyBitPlan = true;
    anyAffine |= r.plan.affine;
    for (const rt::Step &s : r.plan.steps)
      (isPlainExchange(s) ? anyExchangeStep : anyPlanStep) = true;
  }

  os << "// Generated by mapc --emit=cpp. Do not edit.\n"
     << "#include \"" << header << "\"\n\n"
     << (opts.onNetwork ? "#include \"mapc/runtime/NetworkExecute.h\"\n"
                        : "#include \"mapc/runtime/Execute.h\"\n")
     << (anyGeneral(remaps) || anyAffine
             ? "#include \"mapc/runtime/LayoutLiterals.h\"\n"
             : "")
     << "\n"
     << "#include <cstdint>\n"
     << "#include <string>\n"
     << "#include <utility>\n"
     << "#include <vector>\n\n";

  // Helpers only when used: an unused static function is an error under
  // -Wall -Werror.
  if (anyBitPlan || anyGeneral(remaps)) {
    os << "namespace {\n";
    if (anyGeneralStep)
      os << "\n"
         << "/// One general step: its method, whether it runs in place, the "
            "layout\n"
         << "/// after it.\n"
         << "mapc::rt::GeneralStep generalStep(mapc::rt::GeneralStepKind "
            "kind, bool inPlace,\n"
         << "                                  mapc::rt::TileMap to, int64_t "
            "predictedTicks,\n"
         << "                                  const char *why, unsigned "
            "routeOrder = 0) {\n"
         << "  mapc::rt::GeneralStep s;\n"
         << "  s.kind = kind;\n"
         << "  s.routeOrder = routeOrder;\n"
         << "  s.inPlace = inPlace;\n"
         << "  s.to = std::move(to);\n"
         << "  s.predictedTicks = predictedTicks;\n"
         << "  s.why = why;\n"
         << "  return s;\n"
         << "}\n";
  }
  if (anyBitPlan) {
    os << "\n"
       << "/// 003 4.1.3's index bit map: per device bit (m-bits, then "
          "p-bits), the\n"
       << "/// data bit it holds (-1: disabled) and its value (enabled: 1 = "
          "inverted;\n"
       << "/// disabled: the constant).\n"
       << "mapc::rt::BitLayout bitLayout(unsigned mBits, unsigned pBits, "
          "unsigned dataBits,\n"
       << "                              std::vector<int> dataBit,\n"
       << "                              std::vector<uint8_t> value) {\n"
       << "  mapc::rt::BitLayout l;\n"
       << "  l.mBits = mBits;\n"
       << "  l.pBits = pBits;\n"
       << "  l.dataBits = dataBits;\n"
       << "  l.dataBit = std::move(dataBit);\n"
       << "  l.value = std::move(value);\n"
       << "  return l;\n"
       << "}\n";
    if (anyPlanStep)
      os << "\n"
         << "/// One step: bit i of an address goes to bit to[i], then the "
            "bits in\n"
         << "/// `flip` are inverted.\n"
         << "mapc::rt::Step planStep(mapc::rt::StepKind kind, "
            "std::vector<unsigned> to,\n"
         << "                        uint64_t flip, unsigned chunkBits, bool "
            "clustered,\n"
         << "                        int64_t predictedTicks, const char *why) "
            "{\n"
         << "  mapc::rt::Step s;\n"
         << "  s.kind = kind;\n"
         << "  s.move.to = std::move(to);\n"
         << "  s.move.flip = flip;\n"
         << "  s.chunkBits = chunkBits;\n"
         << "  s.clustered = clustered;\n"
         << "  s.predictedTicks = predictedTicks;\n"
         << "  s.why = why;\n"
         << "  return s;\n"
         << "}\n";
    if (anyExchangeStep)
      os << "\n"
         << "/// 001's exchanges on `bits` device bits: per order, {bit j, "
            "condition S}\n"
         << "/// for x_j ^= parity(x & S); several orders run concurrently "
            "by the\n"
         << "/// schedule named (a network's). The step's move is the "
            "identity.\n"
         << "mapc::rt::Step\n"
         << "exchangeStep(unsigned bits,\n"
         << "             std::vector<std::vector<mapc::rt::Exchange>> "
            "orders,\n"
         << "             const char *schedule, int64_t predictedTicks, const "
            "char *why) {\n"
         << "  mapc::rt::Step s;\n"
         << "  s.kind = mapc::rt::StepKind::Exchange;\n"
         << "  s.move = mapc::rt::BitMove::identity(bits);\n"
         << "  s.exchanges = std::move(orders);\n"
         << "  s.schedule = schedule;\n"
         << "  s.predictedTicks = predictedTicks;\n"
         << "  s.why = why;\n"
         << "  return s;\n"
         << "}\n";
  }
  if (anyBitPlan || anyGeneral(remaps))
    os << "\n} // namespace\n\n";

  os << "namespace mapc_program {\n\n" << machine << " makeMachine() {\n";
  if (!opts.onNetwork)
    os << "  return mapc::rt::MasPar(kPeWidth, kPeHeight, kMemoryBytes, "
          "kClusterSize);\n";
  else if (opts.network.cube)
    os << "  return mapc::rt::NetworkMachine(\n"
       << "      mapc::rt::NetworkShape::booleanCube(kDims), kMemoryBytes);\n";
  else
    os << "  return mapc::rt::NetworkMachine(\n"
       << "      mapc::rt::NetworkShape::mesh({kDimSizes.begin(), "
          "kDimSizes.end()}),\n"
       << "      kMemoryBytes);\n";
  os << "}\n";

  auto define = [&](const EmittedRemap &r, const std::string &f) {
    const rt::Plan &p = r.plan;
    if (r.general) {
      emitGeneralRemap(r, f, opts, os);
      return;
    }
    std::vector<std::string> cycles = stepCycles(p);
    os << "\n// " << comment(r.description) << "\n"
       << "const mapc::rt::Plan &" << f << "_plan() {\n"
       << "  static const mapc::rt::Plan plan = [] {\n"
       << "    mapc::rt::Plan p;\n"
       << "    // bitLayout(mBits, pBits, dataBits, {data bit per device bit, "
          "low first}, {value per device bit})\n"
       << "    p.source = " << layoutRow(p.source) << "; // "
       << comment(p.source.str()) << "\n"
       << "    p.dest = " << layoutRow(p.dest) << "; // "
       << comment(p.dest.str()) << "\n"
       << "    p.elemBytes = " << u64(p.elemBytes) << ";\n"
       << "    p.copy = " << (p.copy ? "true" : "false") << ";\n"
       << "    p.planner = " << quoted(p.planner) << ";\n"
       << "    p.predictedTicks = " << i64(p.predictedTicks) << ";\n"
       << "    p.lowerBound = " << i64(p.lowerBound) << ";\n";
    if (p.affine)
      os << "    // affineLayout(mBits, pBits, dataBits, {data bits XORed into "
            "each device bit, low first}, constant, disabled)\n"
         << "    p.affine = true;\n"
         << "    p.affineSource = " << cpp::affineLiteral(p.affineSource)
         << "; // " << comment(p.affineSource.str()) << "\n"
         << "    p.affineDest = " << cpp::affineLiteral(p.affineDest) << "; // "
         << comment(p.affineDest.str()) << "\n"
         << "    p.exchangeLowerBound = " << u64(p.exchangeLowerBound) << ";\n";
    bool planStepSeen = false, exchangeStepSeen = false;
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const rt::Step &s = p.steps[k];
      if (isPlainExchange(s)) {
        if (!exchangeStepSeen)
          os << "    // exchangeStep(bits, {{{bit, condition}, ...}, ...}, "
                "schedule, predictedTicks, why)\n";
        exchangeStepSeen = true;
        os << "    p.steps.push_back(" << exchangeRow(s) << "); // "
           << comment(cycles[k]) << "\n";
        continue;
      }
      if (!planStepSeen)
        os << "    // planStep(kind, to, flip, chunkBits, clustered, "
              "predictedTicks, why)\n";
      planStepSeen = true;
      os << "    p.steps.push_back(" << stepRow(s) << "); // "
         << comment(cycles[k]) << "\n";
      // Fields planStep does not take, when a step has them.
      if (!s.exchanges.empty())
        os << "    p.steps.back().exchanges = " << ordersRow(s.exchanges)
           << ";\n";
      if (!s.schedule.empty())
        os << "    p.steps.back().schedule = " << quoted(s.schedule) << ";\n";
    }
    os << "    return p;\n"
       << "  }();\n"
       << "  return plan;\n"
       << "}\n\n"
       << "bool " << f << "(" << machine << " &machine, std::string *why) {\n"
       << "  const mapc::rt::Regions regions{{" << u64(r.srcBase) << "}, {"
       << u64(r.dstBase) << "}, {" << u64(opts.scratchBase) << "}};\n"
       << "  return mapc::rt::"
       << (opts.onNetwork ? "executeNetworkPlan" : "executePlan")
       << "(machine, " << f << "_plan(), regions, {}, why);\n"
       << "}\n";
  };
  for (size_t i = 0; i < remaps.size(); ++i) {
    const EmittedRemap &r = remaps[i];
    const std::string &f = names[i];
    if (r.stages.empty()) {
      define(r, f);
      continue;
    }
    for (size_t k = 0; k < r.stages.size(); ++k)
      define(r.stages[k], stageName(f, k));
    os << "\n// " << comment(r.description) << ", in stages\n"
       << "bool " << f << "(" << machine << " &machine, std::string *why) {\n"
       << "  return ";
    for (size_t k = 0; k < r.stages.size(); ++k)
      os << (k ? " &&\n         " : "") << stageName(f, k) << "(machine, why)";
    os << ";\n}\n";
  }
  os << "\n";
  if (remaps.empty()) {
    os << "const RemapEntry *remaps() { return nullptr; }\n";
  } else {
    auto entry = [&](const EmittedRemap &r, const std::string &f,
                     const std::string &stages) {
      os << "    {" << quoted(f) << ", " << quoted(r.label) << ", "
         << quoted(r.array) << ", " << quoted(r.target) << ", "
         << u64(r.srcBase) << ", " << u64(r.dstBase) << ", " << u64(r.dataSet)
         << ", " << f << ", "
         << (!r.stages.empty() ? std::string("nullptr, nullptr")
             : r.general       ? "nullptr, " + f + "_plan"
                               : f + "_plan, nullptr")
         << ", " << i64(r.lowerBound) << ", "
         << (r.stages.empty()
                 ? std::string("nullptr, 0u")
                 : stages + ", " + std::to_string(r.stages.size()) + "u")
         << "},\n";
    };
    os << "namespace {\n"
       << "// {name, label, array, target, srcBase, dstBase, dataSet, run, "
          "plan,\n"
       << "//  generalPlan, lowerBound, stages, stageCount}\n";
    for (size_t i = 0; i < remaps.size(); ++i) {
      if (remaps[i].stages.empty())
        continue;
      os << "const RemapEntry " << names[i] << "_stages[] = {\n";
      for (size_t k = 0; k < remaps[i].stages.size(); ++k)
        entry(remaps[i].stages[k], stageName(names[i], k), "");
      os << "};\n";
    }
    os << "const RemapEntry kRemaps[] = {\n";
    for (size_t i = 0; i < remaps.size(); ++i)
      entry(remaps[i], names[i], names[i] + "_stages");
    os << "};\n"
       << "} // namespace\n\n"
       << "const RemapEntry *remaps() { return kRemaps; }\n";
  }
  os << "unsigned remapCount() { return " << remaps.size() << "u; }\n"
     << "\n} // namespace mapc_program\n";
}
