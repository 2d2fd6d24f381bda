//===- Sema.cpp - names, checks and lowering of a .map program ------------===//
//
// Declarations are order-independent (HPF directives describe, they do not
// execute): names are collected first, then each array's and template's
// mapping is lowered on demand, with cycle detection for align chains.
// Statements run in program order and track each array's current layout.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"
#include "frontend/UltimateAlignment.h"

#include "ir/Reshape.h"
#include "passes/Lowering.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <set>

using namespace mapc;
using namespace mapc::ast;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Source text quoted in a message, cut to a readable length.
std::string abbreviated(const std::string &text) {
  constexpr size_t kMax = 40;
  return text.size() <= kMax ? text : text.substr(0, kMax - 3) + "...";
}

/// Limits that keep every check linear in practice: no real program comes
/// near them (HPF allows rank 7).
constexpr size_t kMaxRank = 32;
constexpr size_t kMaxTileDims = 128;

/// "an array", "a template", "a processors arrangement".
const char *kindPhrase(int kind) {
  static const char *phrases[] = {"a processors arrangement", "a template",
                                  "an array"};
  return phrases[kind];
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + str(shape[i]);
  return s + ")";
}

/// What a name in the shape namespace refers to.
struct Entity {
  enum Kind { Processors, Template, Array } kind;
  std::string name;
  std::vector<int64_t> shape;
  ElemType type = ElemType::F32;
  llvm::SMLoc loc;
  /// False when the declaration itself was rejected: uses stay silent, so
  /// one mistake gives one error.
  bool valid = true;
  // The static mapping directive, if any.
  const DistributeDecl *distribute = nullptr;
  const AlignDecl *align = nullptr;
  const PairStmt *place = nullptr;
  llvm::SMLoc mappingLoc;
};

/// One named layout as declared.
struct LayoutEntry {
  const LayoutDecl *decl = nullptr;
  enum State { Unresolved, Resolving, Done, Failed } state = Unresolved;
  Layout layout;
};

class Sema {
public:
  explicit Sema(Diagnostics &diags) : diags(diags) {}
  mapc::Program run(const ast::Program &ast);

private:
  // ---- collection -------------------------------------------------------
  void collect(const ast::Program &ast);
  void declareMachine(const MachineDecl &m);
  void declareShape(const ShapeDecl &d);
  void declareMapping(const Ident &target, llvm::SMLoc loc,
                      const DistributeDecl *dist, const AlignDecl *align,
                      const PairStmt *place);
  bool validShape(const std::vector<IntLit> &shape, llvm::SMLoc loc,
                  const std::string &what, std::vector<int64_t> &out);

  // ---- mappings ---------------------------------------------------------
  /// The static k-Tile format of an array or template (lowered once).
  const KTile *mappingOf(const std::string &name, llvm::SMLoc useLoc);
  /// `keyword`: the statement's, for its messages.
  std::optional<KTile> lowerDistribution(const Distribution &d,
                                         const Entity &target,
                                         const char *keyword = "distribute");
  std::optional<KTile> lowerAlignment(const Alignment &a, const Entity &alignee,
                                      const KTile &target,
                                      const Entity *targetEntity = nullptr);
  /// How to keep a stride that `target`'s tiles in `dim` do not factor.
  std::string strideWorkaround(const Entity *target, const Entity &alignee,
                               unsigned dim, int64_t stride);
  KTile defaultMapping(const Entity &e);

  // ---- layouts ----------------------------------------------------------
  const Layout *layoutNamed(const std::string &name, llvm::SMLoc useLoc);
  bool resolveLayout(LayoutEntry &entry);
  std::optional<KTile> ktileLayout(const LayoutExpr &e, const Entity &array);
  std::optional<Layout> mapLayout(const LayoutExpr &e, const Entity &array,
                                  bool bits, const std::string &name);
  /// The data bits a bit map item XORs in after '^' (reporting bad ones).
  bool xorMaskOf(const MapItem &item, unsigned numBits, const std::string &name,
                 uint64_t &mask);
  /// One device data bit of a bit map: every data bit it XORs.
  struct BitRow {
    uint64_t mask;
    const MapItem *item;
  };
  /// A bit map's rows must form an invertible GF(2) matrix.
  bool checkInvertible(const std::vector<BitRow> &rows, unsigned numBits,
                       const LayoutExpr &e, const std::string &name);
  std::optional<KTile> namedLayout(const LayoutExpr &e, const Entity &array);
  std::optional<KTile> transformLayout(const LayoutExpr &e,
                                       const Entity &array);
  /// A layout or an array's mapping used as the source of a transform.
  std::optional<KTile> sourceTile(const Ident &name,
                                  std::vector<int64_t> &shape);

  // ---- checks -----------------------------------------------------------
  bool checkTile(const KTile &tile, llvm::SMLoc loc,
                 const std::map<KField, llvm::SMLoc> *fieldLocs = nullptr);
  bool checkFits(const Layout &layout, llvm::SMLoc loc);
  bool reportLowering(const LowerResult &r, llvm::SMLoc loc,
                      const std::vector<llvm::SMLoc> &argLocs, KTile &out);

  // ---- statements -------------------------------------------------------
  void statements(const ast::Program &ast, mapc::Program &out);
  /// The static alignments, as links of `alignment` (targets first).
  void linkStaticAlignments(UltimateAlignment &alignment);
  /// The tiles of `root`'s alignees when root's tile becomes `rootTile`
  /// at the redistribute at `loc`, each link lowered once; null where a
  /// link fails (reported). Empty when the program's budget of lowerings
  /// is spent (reported).
  std::optional<std::vector<std::pair<std::string, std::optional<KTile>>>>
  followersOf(const UltimateAlignment &alignment, const std::string &root,
              const KTile &rootTile, llvm::SMLoc loc);
  /// Links a program may lower for alignees that follow a redistribute, in
  /// all: a 2 MiB source could otherwise ask for 10^9 (a redistribute of
  /// the root of a 50,000-link chain, 50,000 times).
  static constexpr size_t kMaxFollowerLowerings = 200000;
  size_t followerLowerings = 0;
  /// `now` with A's data bits kept and the shape changed (001), or nothing
  /// after reporting why not at `loc`.
  std::optional<Layout> reshapedLayout(const Layout &now,
                                       const std::string &array,
                                       const std::vector<int64_t> &shape,
                                       llvm::SMLoc loc);

  Entity *findEntity(const std::string &name) {
    auto it = entities.find(name);
    return it == entities.end() ? nullptr : &it->second;
  }
  Entity *expect(const Ident &name, Entity::Kind kind, const char *what);

  Diagnostics &diags;
  Machine machine;
  llvm::SMLoc machineLoc;
  std::map<std::string, Entity> entities;
  std::vector<std::string> declOrder;
  std::map<std::string, LayoutEntry> layouts;
  std::map<std::string, KTile> mappings;
  std::set<std::string> mappingInProgress, mappingFailed;
  /// Arrays placed in a layout with no k-Tile form (XOR items, or a digit
  /// map across data dims), by the layout's name: they start in that
  /// layout, and nothing can be aligned with them.
  std::map<std::string, std::string> placedWithoutTile;
  /// Reports a use of such an array's mapping other than its own
  /// declaration's; returns null.
  const KTile *untiledMappingUse(const std::string &name, llvm::SMLoc useLoc);
  /// How deep mappingOf and layoutNamed are in each other: align and
  /// layout chains resolve recursively. A 2 MiB source holds chains of at
  /// most about 46,000 links, and the driver's thread has the stack for
  /// them; the documented limit keeps any caller of Sema safe too.
  unsigned chainDepth = 0;
  static constexpr unsigned kMaxChainDepth = 50000;
  /// Enters one more link of a chain, or reports at `loc` that it is too
  /// deep. The caller leaves with --chainDepth.
  bool enterChain(llvm::SMLoc loc) {
    if (++chainDepth <= kMaxChainDepth)
      return true;
    --chainDepth;
    diags.error(loc,
                "this chain of alignments and layouts is more than " +
                    std::to_string(kMaxChainDepth) + " links deep",
                "define the array or layout from one that is distributed, "
                "placed or declared directly");
    return false;
  }
};

// ---------------------------------------------------------------------------
// Collection
// ---------------------------------------------------------------------------

/// The product of `v` in decimal, however large (a shape's element count
/// is reported as it is, not as the saturated 2^63 - 1).
static std::string exactProduct(const std::vector<int64_t> &v) {
  std::vector<uint32_t> digits{1}; // base 10^9, least significant first
  for (int64_t f : v) {
    unsigned __int128 carry = 0;
    for (uint32_t &d : digits) {
      unsigned __int128 x = (unsigned __int128)d * uint64_t(f) + carry;
      d = uint32_t(x % 1000000000u);
      carry = x / 1000000000u;
    }
    while (carry) {
      digits.push_back(uint32_t(carry % 1000000000u));
      carry /= 1000000000u;
    }
  }
  std::string out = std::to_string(digits.back());
  for (size_t i = digits.size() - 1; i-- > 0;) {
    std::string part = std::to_string(digits[i]);
    out += std::string(9 - part.size(), '0') + part;
  }
  return out;
}

bool Sema::validShape(const std::vector<IntLit> &shape, llvm::SMLoc loc,
                      const std::string &what, std::vector<int64_t> &out) {
  bool ok = true;
  int64_t total = 1;
  if (shape.size() > kMaxRank) {
    diags.error(loc, what + " has " + str(shape.size()) + " dimensions",
                "mapc handles at most " + str(kMaxRank) + " dimensions");
    return false;
  }
  for (const IntLit &n : shape) {
    if (!n.valid) {
      ok = false;
      continue;
    }
    if (n.value < 1) {
      diags.error(n.loc, what + " has a dimension of length 0",
                  "every length must be at least 1");
      ok = false;
    }
    out.push_back(n.value);
    total = satMul(total, std::max<int64_t>(n.value, 1));
  }
  if (ok && total > (int64_t(1) << 40)) {
    diags.error(loc, what + " has " + exactProduct(out) + " elements",
                "mapc handles at most 2^40 elements per array");
    ok = false;
  }
  if (shape.empty())
    ok = false;
  return ok;
}

void Sema::declareMachine(const MachineDecl &m) {
  if (machineLoc.isValid()) {
    diags.error(m.loc, "a second machine declaration",
                "a program has one machine; remove this one");
    return;
  }
  machineLoc = m.loc;
  std::string kind = llvm::StringRef(m.kind.name).lower();
  Machine mach;
  if (kind == "maspar")
    mach.kind = Machine::MasPar;
  else if (kind == "hypercube") {
    mach.kind = Machine::Hypercube;
    mach.pes = {1024}; // dims = 10 unless given
  } else if (kind == "mesh")
    mach.kind = Machine::Mesh;
  else {
    diags.error(m.kind.loc, "unknown machine '" + m.kind.name + "'",
                "use maspar, hypercube or mesh");
    return;
  }
  std::set<std::string> seen;
  for (const MachineArg &a : m.args) {
    std::string key = llvm::StringRef(a.key.name).lower();
    if (!seen.insert(key).second) {
      diags.error(a.key.loc, "'" + a.key.name + "' is given twice",
                  "give each machine parameter once");
      continue;
    }
    for (const IntLit &v : a.values)
      if (!v.valid)
        return;
    auto single = [&](int64_t &out, int64_t lo, int64_t hi) {
      if (a.isList || a.values.size() != 1) {
        diags.error(a.key.loc, "'" + a.key.name + "' takes one number",
                    "write " + key + " = N");
        return;
      }
      if (a.values[0].value < lo || a.values[0].value > hi) {
        diags.error(a.values[0].loc,
                    "'" + a.key.name + "' must be between " + str(lo) +
                        " and " + str(hi),
                    "choose a value in range");
        return;
      }
      out = a.values[0].value;
    };
    if (key == "memory") {
      single(mach.memory, 1, int64_t(1) << 32);
    } else if (key == "cluster" && mach.kind == Machine::MasPar) {
      single(mach.cluster, 1, int64_t(1) << 20);
      if (mach.cluster & (mach.cluster - 1)) {
        diags.error(a.values[0].loc,
                    "the router cluster size must be a power of two, not " +
                        str(mach.cluster),
                    "write cluster = 16 as on the MP-1 (003 5.6.4)");
        mach.cluster = 16;
      }
    } else if (key == "dims" && mach.kind == Machine::Hypercube) {
      int64_t dims = 0;
      single(dims, 0, 24);
      mach.pes = {int64_t(1) << dims};
    } else if (key == "pes" && mach.kind != Machine::Hypercube) {
      mach.pes.clear();
      int64_t total = 1;
      for (const IntLit &v : a.values) {
        if (v.value < 1) {
          diags.error(v.loc, "a PE grid dimension of length 0",
                      "every PE grid length must be at least 1");
          return;
        }
        mach.pes.push_back(v.value);
        total = satMul(total, v.value);
      }
      if (total > (int64_t(1) << 24)) {
        diags.error(a.key.loc, "the PE grid has " + str(total) + " PEs",
                    "mapc simulates at most 2^24 PEs");
        mach.pes = {1};
      }
    } else {
      const char *valid = mach.kind == Machine::MasPar ? "pes, memory, cluster"
                          : mach.kind == Machine::Mesh ? "pes, memory"
                                                       : "dims, memory";
      diags.error(a.key.loc,
                  "unknown parameter '" + a.key.name + "' for machine " + kind,
                  std::string("this machine takes ") + valid);
    }
  }
  mach.loc = m.loc;
  machine = mach;
}

void Sema::declareShape(const ShapeDecl &d) {
  static const char *what[] = {"processors", "template", "array"};
  if (d.name.name.empty())
    return;
  if (Entity *old = findEntity(d.name.name)) {
    diags.error(d.name.loc, "'" + d.name.name + "' is already declared",
                "choose another name");
    diags.note(old->loc, "previous declaration of '" + d.name.name + "'");
    return;
  }
  Entity e;
  e.kind = Entity::Kind(d.kind);
  e.name = d.name.name;
  e.loc = d.name.loc;
  if (!validShape(d.shape, d.loc, std::string(what[d.kind]) + " " + e.name,
                  e.shape)) {
    e.valid = false;
    entities.emplace(e.name, e);
    return;
  }
  if (d.kind == ShapeDecl::Array && !d.elemType.name.empty()) {
    auto t = parseElemType(d.elemType.name);
    if (!t) {
      diags.error(d.elemType.loc,
                  "unknown element type '" + d.elemType.name + "'",
                  "use one of u8 i8 u16 i16 u32 i32 f32 u64 i64 f64 c64 c128");
      e.valid = false;
      entities.emplace(e.name, e);
      return;
    }
    e.type = *t;
  }
  entities.emplace(e.name, e);
  declOrder.push_back(e.name);
}

Entity *Sema::expect(const Ident &name, Entity::Kind kind, const char *what) {
  if (name.name.empty())
    return nullptr; // a syntax error was already reported
  Entity *e = findEntity(name.name);
  if (e && !e->valid)
    return nullptr; // its declaration was already reported
  if (!e) {
    // "array or template" is two declarations, not one.
    const std::string example =
        std::string(what) == "array or template"
            ? "'array " + name.name + "(...);' or 'template " + name.name +
                  "(...);'"
            : "'" + std::string(what) + " " + name.name + "(...);'";
    diags.error(name.loc,
                std::string("unknown ") + what + " '" + name.name + "'",
                "declare it, e.g. " + example);
    return nullptr;
  }
  if (e->kind != kind &&
      !(kind == Entity::Array && e->kind == Entity::Template &&
        std::string(what) == "array or template")) {
    std::string want =
        std::string(what) == "processors" ? "a processors arrangement"
        : std::string(what) == "template" ? "a template"
                                          : std::string("an ") + what;
    diags.error(name.loc,
                "'" + name.name + "' is " + kindPhrase(e->kind) + ", not " +
                    want,
                "name " + want + " here");
    return nullptr;
  }
  return e;
}

void Sema::declareMapping(const Ident &target, llvm::SMLoc loc,
                          const DistributeDecl *dist, const AlignDecl *align,
                          const PairStmt *place) {
  Entity *e = findEntity(target.name);
  if (e && !e->valid)
    return;
  if (!e) {
    if (!target.name.empty())
      diags.error(target.loc, "unknown array '" + target.name + "'",
                  "declare it with 'array " + target.name + "(...);'");
    return;
  }
  if (e->kind == Entity::Processors) {
    diags.error(target.loc,
                "'" + target.name +
                    "' is a processors "
                    "arrangement and cannot be mapped",
                "distribute or align an array or template");
    return;
  }
  if (place && e->kind != Entity::Array) {
    diags.error(target.loc, "'" + target.name + "' is not an array",
                "place takes an array");
    return;
  }
  if (e->distribute || e->align || e->place) {
    diags.error(loc, "'" + target.name + "' is already mapped",
                "give each array one distribute, align or place; use "
                "redistribute or realign to change it later");
    if (e->mappingLoc.isValid())
      diags.note(e->mappingLoc, "previous mapping of '" + target.name + "'");
    return;
  }
  e->distribute = dist;
  e->align = align;
  e->place = place;
  e->mappingLoc = loc;
}

void Sema::collect(const ast::Program &ast) {
  for (const ast::Statement &s : ast.statements) {
    if (auto *m = std::get_if<MachineDecl>(&s))
      declareMachine(*m);
    else if (auto *d = std::get_if<ShapeDecl>(&s))
      declareShape(*d);
  }
  // Declarations dropped for a syntax error (already reported): their
  // names are known but invalid, so their uses stay silent.
  for (const ast::DroppedDecl &d : ast.dropped) {
    if (d.kind != ast::DroppedDecl::Layout && !findEntity(d.name)) {
      Entity e;
      e.kind = Entity::Kind(d.kind);
      e.name = d.name;
      e.valid = false;
      entities.emplace(e.name, e);
    }
  }
  for (const ast::Statement &s : ast.statements) {
    if (auto *d = std::get_if<DistributeDecl>(&s); d && !d->dynamic)
      declareMapping(d->dist.target, d->dist.loc, d, nullptr, nullptr);
    else if (auto *a = std::get_if<AlignDecl>(&s); a && !a->dynamic)
      declareMapping(a->align.alignee, a->align.loc, nullptr, a, nullptr);
    else if (auto *p = std::get_if<PairStmt>(&s);
             p && p->kind == PairStmt::Place)
      declareMapping(p->first, p->loc, nullptr, nullptr, p);
    else if (auto *l = std::get_if<LayoutDecl>(&s)) {
      if (l->name.name.empty())
        continue;
      if (Entity *e = findEntity(l->name.name); e && e->kind == Entity::Array) {
        diags.error(l->name.loc,
                    "layout '" + l->name.name + "' has the name of an array",
                    "--emit=layout prints an array's own mapping under its "
                    "name; give the layout another name");
        continue;
      }
      if (layouts.count(l->name.name)) {
        diags.error(l->name.loc,
                    "layout '" + l->name.name + "' is already declared",
                    "choose another name");
        continue;
      }
      layouts[l->name.name].decl = l;
    }
  }
  for (const ast::DroppedDecl &d : ast.dropped)
    if (d.kind == ast::DroppedDecl::Layout && !findEntity(d.name) &&
        !layouts.count(d.name))
      layouts[d.name].state = LayoutEntry::Failed;
  // Processors must fit the machine (003 7.1.2 allows rejecting more).
  for (auto &[name, e] : entities) {
    if (e.kind != Entity::Processors || !e.valid)
      continue;
    int64_t n = 1;
    for (int64_t p : e.shape)
      n = satMul(n, p);
    if (n > machine.peCount()) {
      diags.error(e.loc,
                  "processors " + name + " has " + str(n) +
                      " PEs but the machine has " + str(machine.peCount()),
                  "mapc maps processors onto physical PEs (003 7.1.2): "
                  "declare at most as many as the machine has");
      e.valid = false; // its uses stay silent, as a dropped declaration's
      continue;
    }
    // An arrangement of the machine's rank maps dim by dim onto the PE
    // grid (docs/language.md): said here, not at each distribute onto it.
    if (e.shape.size() != machine.pes.size())
      continue;
    for (size_t i = 0; i < e.shape.size(); ++i)
      if (e.shape[i] > machine.pes[i]) {
        const std::string grid = machine.gridText();
        diags.error(e.loc,
                    "processors " + name + " has " + str(e.shape[i]) +
                        " along dim " + str(i + 1) + " but the machine's " +
                        grid + " PE grid has " + str(machine.pes[i]),
                    "an arrangement of the machine's rank maps dim by dim "
                    "onto the PE grid: declare at most " +
                        grid + ", or another rank (for example 'processors " +
                        name + "(" + str(n) + ")')");
        e.valid = false;
        break;
      }
  }
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

bool Sema::checkTile(const KTile &tile, llvm::SMLoc loc,
                     const std::map<KField, llvm::SMLoc> *fieldLocs) {
  auto problems = tile.verify();
  for (const KTileProblem &p : problems) {
    llvm::SMLoc at = loc;
    if (fieldLocs) {
      auto it = fieldLocs->find(p.field);
      if (it != fieldLocs->end())
        at = it->second;
    }
    diags.error(at, p.message, p.hint);
  }
  return problems.empty();
}

bool Sema::checkFits(const Layout &layout, llvm::SMLoc loc) {
  std::vector<int64_t> shape = layout.deviceShape();
  bool ok = true;
  if (shape[0] > machine.memory) {
    diags.error(loc,
                "layout '" + layout.name + "' needs " + str(shape[0]) +
                    " elements of memory per PE but the machine has " +
                    str(machine.memory),
                "spread the data over more PEs, or declare a machine with "
                "more memory");
    ok = false;
  }
  std::vector<int64_t> pes(shape.begin() + 1, shape.end());
  int64_t total = 1;
  for (int64_t p : pes)
    total = satMul(total, p);
  bool sameRank = pes.size() == machine.pes.size();
  for (size_t i = 0; sameRank && i < pes.size(); ++i)
    if (pes[i] > machine.pes[i]) {
      diags.error(loc,
                  "layout '" + layout.name + "' needs " + str(pes[i]) +
                      " PEs along device dim " + str(i + 1) +
                      " but the machine has " + str(machine.pes[i]),
                  "use a device space no larger than the PE grid");
      return false;
    }
  if (total > machine.peCount()) {
    diags.error(loc,
                "layout '" + layout.name + "' needs " + str(total) +
                    " PEs but the machine has " + str(machine.peCount()),
                "use a device space no larger than the PE grid");
    ok = false;
  }
  return ok;
}

bool Sema::reportLowering(const LowerResult &r, llvm::SMLoc loc,
                          const std::vector<llvm::SMLoc> &argLocs, KTile &out) {
  if (auto *err = std::get_if<LoweringError>(&r)) {
    llvm::SMLoc at = loc;
    if (err->argument >= 0 && size_t(err->argument) < argLocs.size())
      at = argLocs[err->argument];
    diags.error(at, err->message, err->hint);
    return false;
  }
  out = std::get<KTile>(r);
  return true;
}

// ---------------------------------------------------------------------------
// Static mappings
// ---------------------------------------------------------------------------

KTile Sema::defaultMapping(const Entity &e) {
  // Unmapped arrays are dealt out in blocks over all PEs (1d hierarchical),
  // which fits whenever the array fits the machine at all.
  auto r = lowerStandardMapping(StandardMapping::Hierarchical1d, e.shape,
                                machine.peCount(), machine.pes);
  return std::get<KTile>(r);
}

std::optional<KTile> Sema::lowerDistribution(const Distribution &d,
                                             const Entity &target,
                                             const char *keyword) {
  Entity *procs = expect(d.procs, Entity::Processors, "processors");
  if (!procs)
    return std::nullopt;
  std::vector<DistFormatSpec> formats;
  std::vector<llvm::SMLoc> locs;
  bool ok = true;
  for (const DistFormat &f : d.formats) {
    DistFormatSpec spec;
    locs.push_back(f.loc);
    std::string name = llvm::StringRef(f.name.name).lower();
    if (name == "*")
      spec.kind = DistFormatSpec::Star;
    else if (name == "block")
      spec.kind = DistFormatSpec::Block;
    else if (name == "cyclic")
      spec.kind = DistFormatSpec::Cyclic;
    else {
      diags.error(f.loc, "unknown distribution format '" + f.name.name + "'",
                  "use block, block(n), cyclic, cyclic(n) or *");
      ok = false;
      continue;
    }
    if (f.hasArg) {
      if (spec.kind == DistFormatSpec::Star || !f.arg.valid) {
        ok = false;
        continue;
      }
      if (f.arg.value < 1) {
        diags.error(f.arg.loc, "a block or cycle length of 0",
                    "use a length of at least 1");
        ok = false;
        continue;
      }
      spec.arg = f.arg.value;
    }
    formats.push_back(spec);
  }
  if (!ok)
    return std::nullopt;
  if (formats.size() != target.shape.size()) {
    diags.error(d.loc,
                std::string(keyword) + " gives " + str(formats.size()) +
                    (formats.size() == 1 ? " format for " : " formats for ") +
                    target.name + ", which has rank " +
                    str(target.shape.size()),
                "give one of block, cyclic or * per dimension");
    return std::nullopt;
  }
  KTile tile;
  if (!reportLowering(lowerDistribute(target.shape, formats, procs->shape),
                      d.loc, locs, tile))
    return std::nullopt;
  return tile;
}

std::optional<KTile> Sema::lowerAlignment(const Alignment &a,
                                          const Entity &alignee,
                                          const KTile &target,
                                          const Entity *targetEntity) {
  if (a.dummies.size() != alignee.shape.size()) {
    diags.error(a.alignee.loc,
                "'" + alignee.name + "' has rank " + str(alignee.shape.size()) +
                    " but " + str(a.dummies.size()) +
                    " align dummies are given",
                "give one dummy per dimension of the alignee");
    return std::nullopt;
  }
  // Dummy names -> alignee dims; ':' dummies match ':' subscripts in order.
  std::map<std::string, unsigned> dummyDim;
  std::vector<unsigned> colonDims;
  for (unsigned q = 0; q < a.dummies.size(); ++q) {
    const Ident &d = a.dummies[q];
    if (d.name == ":") {
      colonDims.push_back(q);
    } else if (!dummyDim.emplace(d.name, q).second) {
      diags.error(d.loc, "dummy '" + d.name + "' is used twice",
                  "give each alignee dimension its own dummy");
      return std::nullopt;
    }
  }
  std::vector<AlignSubSpec> subs;
  std::vector<llvm::SMLoc> locs;
  std::set<unsigned> usedDims;
  unsigned nextColon = 0;
  bool ok = true;
  for (const AlignSub &s : a.subs) {
    AlignSubSpec spec;
    locs.push_back(s.loc);
    if (s.kind == AlignSub::Star) {
      spec.kind = AlignSubSpec::Replicate;
    } else if (s.kind == AlignSub::Colon) {
      if (nextColon >= colonDims.size()) {
        diags.error(s.loc, "more ':' subscripts than ':' dummies",
                    "each ':' on the right matches a ':' on the left");
        ok = false;
        continue;
      }
      spec.dummy = colonDims[nextColon++];
    } else {
      bool hasDummy = false;
      int64_t offset = 0;
      for (const LinTerm &t : s.terms) {
        if (!t.valid) {
          ok = false;
          continue;
        }
        if (t.var.name.empty()) {
          if (__builtin_add_overflow(offset, t.coeff, &offset)) {
            diags.error(t.loc, "the subscript's constant is too large",
                        "subscripts must stay inside the align target");
            ok = false;
          }
          continue;
        }
        auto it = dummyDim.find(t.var.name);
        if (it == dummyDim.end()) {
          diags.error(t.var.loc, "'" + t.var.name + "' is not an align dummy",
                      "subscripts may use only the dummies of the alignee");
          ok = false;
          continue;
        }
        if (hasDummy) {
          diags.error(t.loc, "a subscript uses more than one dummy",
                      "HPF align subscripts are linear in one dummy");
          ok = false;
          continue;
        }
        hasDummy = true;
        if (t.coeff == 0) {
          diags.error(t.loc, "a stride of 0", "use a non-zero stride");
          ok = false;
          continue;
        }
        spec.dummy = it->second;
        spec.stride = t.coeff;
      }
      spec.offset = offset;
      spec.kind = hasDummy ? AlignSubSpec::Dummy : AlignSubSpec::Constant;
    }
    if (spec.kind == AlignSubSpec::Dummy &&
        !usedDims.insert(spec.dummy).second) {
      diags.error(s.loc, "an alignee dimension appears in two subscripts",
                  "use each dummy in at most one subscript");
      ok = false;
    }
    subs.push_back(spec);
  }
  if (!ok)
    return std::nullopt;
  if (subs.size() != target.numDataDims()) {
    diags.error(a.target.loc,
                "'" + a.target.name + "' has rank " +
                    str(target.numDataDims()) + " but " + str(subs.size()) +
                    " subscripts are given",
                "give one subscript per dimension of the align target");
    return std::nullopt;
  }
  KTile tile;
  LowerResult lowered = lowerAlign(alignee.shape, target, subs);
  if (!reportLowering(lowered, a.loc, locs, tile)) {
    const LoweringError &err = std::get<LoweringError>(lowered);
    if (err.stride != 0 && err.argument >= 0)
      diags.note(
          locs[err.argument],
          strideWorkaround(targetEntity, alignee, err.argument, err.stride));
    return std::nullopt;
  }
  return tile;
}

std::string Sema::strideWorkaround(const Entity *target, const Entity &alignee,
                                   unsigned dim, int64_t stride) {
  const std::string s = str(stride);
  const std::string own = "or give " + alignee.name +
                          " a distribute of its own instead of the align";
  const Entity *procs = target && target->distribute
                            ? findEntity(target->distribute->dist.procs.name)
                            : nullptr;
  // A statically distributed target: the same distribute with this dim's
  // first tile a multiple of the stride (block(b) or cyclic(w), b and w
  // rounded up to one), which the stride then divides (003 7.1.1).
  if (procs && procs->kind == Entity::Processors &&
      target->distribute->dist.formats.size() == target->shape.size()) {
    const Distribution &d = target->distribute->dist;
    std::string formats;
    unsigned pe = 0;
    bool fixed = false;
    for (unsigned j = 0; j < d.formats.size(); ++j) {
      const DistFormat &f = d.formats[j];
      const std::string kind = llvm::StringRef(f.name.name).lower();
      std::string text = f.name.name;
      if (f.hasArg)
        text += "(" + str(f.arg.value) + ")";
      const bool star = kind == "*";
      if (j == dim && !star && pe < procs->shape.size()) {
        const int64_t p = procs->shape[pe];
        int64_t first = f.hasArg          ? f.arg.value
                        : kind == "block" ? (target->shape[j] + p - 1) / p
                                          : 1;
        first = (first + stride - 1) / stride * stride;
        text = kind + "(" + str(first) + ")";
        fixed = true;
      }
      pe += !star;
      formats += (j ? ", " : "") + text;
    }
    if (fixed)
      return "to keep the stride, let " + s + " divide " + target->name +
             "'s first tile in dim " + str(dim) + ": 'distribute " +
             target->name + "(" + formats + ") onto " + procs->name + ";', " +
             own;
  }
  return "to keep the stride, distribute " +
         (target ? target->name : std::string("the target")) +
         " with block(b) or cyclic(b) in dim " + str(dim) +
         ", b a multiple of " + s + ", " + own;
}

const KTile *Sema::untiledMappingUse(const std::string &name,
                                     llvm::SMLoc useLoc) {
  auto it = placedWithoutTile.find(name);
  const Entity *e = findEntity(name);
  if (it == placedWithoutTile.end() || !e ||
      useLoc.getPointer() == e->loc.getPointer())
    return nullptr;
  const Layout &l = layouts.find(it->second)->second.layout;
  diags.error(useLoc,
              "'" + name + "' is placed in layout '" + l.name + "', which " +
                  (l.digits && l.digits->hasXor()
                       ? "XORs data bits"
                       : "is a digit map across data dims") +
                  ": its mapping has no k-Tile form to build on",
              "align with, or name, a template or an array in a k-Tile "
              "or bits layout without XOR items");
  return nullptr;
}

const KTile *Sema::mappingOf(const std::string &name, llvm::SMLoc useLoc) {
  auto done = mappings.find(name);
  if (done != mappings.end())
    return &done->second;
  if (mappingFailed.count(name))
    return untiledMappingUse(name, useLoc);
  Entity *e = findEntity(name);
  if (!e || !e->valid)
    return nullptr;
  if (!mappingInProgress.insert(name).second) {
    diags.error(useLoc,
                "'" + name +
                    "' is aligned, through a chain of "
                    "alignments, with itself",
                "break the cycle: one array in the chain must be "
                "distributed or placed");
    mappingFailed.insert(name);
    return nullptr;
  }
  std::optional<KTile> tile;
  if (e->distribute) {
    tile = lowerDistribution(e->distribute->dist, *e);
  } else if (e->align) {
    const Alignment &a = e->align->align;
    Entity *target = expect(a.target, Entity::Array, "array or template");
    const KTile *t = nullptr;
    if (target && enterChain(a.target.loc)) {
      t = mappingOf(target->name, a.target.loc);
      --chainDepth;
    }
    if (t)
      tile = lowerAlignment(a, *e, *t, target);
  } else if (e->place) {
    if (const Layout *l =
            layoutNamed(e->place->second.name, e->place->second.loc)) {
      if (l->array != name && findEntity(l->array)->shape != e->shape) {
        diags.error(e->place->second.loc,
                    "layout '" + l->name + "' maps " + l->array +
                        ", whose shape differs from " + name + "'s",
                    "place an array in a layout declared 'of' it");
      } else if (!l->tile) {
        // A layout with XOR items (001) or a digit map across data dims
        // (003 6.1) has no k-Tile form: the array starts in the layout
        // itself (statements()), as a remap into it would leave it.
        placedWithoutTile[name] = l->name;
      } else {
        tile = *l->tile;
      }
    }
  } else {
    tile = defaultMapping(*e);
  }
  mappingInProgress.erase(name);
  if (tile &&
      !checkTile(*tile, e->mappingLoc.isValid() ? e->mappingLoc : e->loc))
    tile.reset();
  if (!tile) {
    mappingFailed.insert(name);
    return untiledMappingUse(name, useLoc);
  }
  return &mappings.emplace(name, *tile).first->second;
}

// ---------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------

const Layout *Sema::layoutNamed(const std::string &name, llvm::SMLoc useLoc) {
  auto it = layouts.find(name);
  if (it == layouts.end()) {
    const Entity *e = findEntity(name);
    diags.error(useLoc, "unknown layout '" + name + "'",
                e && e->kind == Entity::Array
                    ? "'" + name +
                          "' is an array, and its own mapping is not a "
                          "layout: name a layout declared with 'layout NAME "
                          "of " +
                          name + " = ...;', or use redistribute or realign"
                    : "declare it with 'layout " + name + " of ARRAY = ...;'");
    return nullptr;
  }
  LayoutEntry &entry = it->second;
  if (entry.state == LayoutEntry::Resolving) {
    diags.error(useLoc, "layout '" + name + "' is defined in terms of itself",
                "break the cycle of layout definitions");
    return nullptr;
  }
  if (entry.state == LayoutEntry::Unresolved) {
    if (!enterChain(useLoc))
      return nullptr;
    resolveLayout(entry);
    --chainDepth;
  }
  return entry.state == LayoutEntry::Done ? &entry.layout : nullptr;
}

bool Sema::resolveLayout(LayoutEntry &entry) {
  const LayoutDecl &d = *entry.decl;
  entry.state = LayoutEntry::Resolving;
  Entity *array = expect(d.array, Entity::Array, "array");
  std::optional<Layout> layout;
  if (array) {
    Layout l;
    l.name = d.name.name;
    l.array = array->name;
    l.loc = d.name.loc;
    switch (d.expr.kind) {
    case LayoutExpr::KTile:
      l.tile = ktileLayout(d.expr, *array);
      break;
    case LayoutExpr::Bits:
    case LayoutExpr::Digits:
      if (auto m = mapLayout(d.expr, *array, d.expr.kind == LayoutExpr::Bits,
                             d.name.name)) {
        l.tile = m->tile;
        l.digits = m->digits;
      }
      break;
    case LayoutExpr::Named:
      l.tile = namedLayout(d.expr, *array);
      break;
    case LayoutExpr::Transform:
      l.tile = transformLayout(d.expr, *array);
      break;
    }
    if ((l.tile || l.digits) && checkFits(l, d.name.loc))
      layout = std::move(l);
  }
  entry.state = layout ? LayoutEntry::Done : LayoutEntry::Failed;
  if (layout)
    entry.layout = std::move(*layout);
  return layout.has_value();
}

std::optional<KTile> Sema::ktileLayout(const LayoutExpr &e,
                                       const Entity &array) {
  static const std::pair<const char *, KField> names[] = {
      {"a", KField::A},     {"ta", KField::TA},   {"oa", KField::OA},
      {"ota", KField::OTA}, {"k", KField::K},     {"tk", KField::TK},
      {"ok", KField::OK},   {"otk", KField::OTK}, {"s", KField::S},
      {"e", KField::E},     {"m", KField::M},     {"d", KField::D},
      {"td", KField::TD},   {"od", KField::OD},   {"otd", KField::OTD}};
  std::map<KField, const KTileField *> fields;
  std::map<KField, llvm::SMLoc> locs;
  bool ok = true;
  for (const KTileField &f : e.fields) {
    std::optional<KField> which;
    for (auto [n, k] : names)
      if (llvm::StringRef(f.name.name).equals_insensitive(n))
        which = k;
    if (!which) {
      if (!f.name.name.empty())
        diags.error(f.name.loc, "unknown k-Tile field '" + f.name.name + "'",
                    "fields are a k s m d e and the templates/offsets ta oa "
                    "ota tk ok otk td od otd (003 3.2.6)");
      ok = false;
      continue;
    }
    if (fields.count(*which)) {
      diags.error(f.name.loc, "field '" + f.name.name + "' is given twice",
                  "give each field once");
      ok = false;
      continue;
    }
    fields[*which] = &f;
    locs[*which] = f.name.loc;
  }
  // Only `m` may have an empty group: a device dim holding no k-Tile dim.
  for (auto [which, field] : fields) {
    if (which == KField::M)
      continue;
    for (const auto &g : field->groups)
      if (g.empty()) {
        diags.error(field->name.loc,
                    std::string("field '") + fieldName(which) +
                        "' has an empty group",
                    "only m may leave a group empty (a device dim of length "
                    "1 that holds no k-Tile dim); remove the extra ';'");
        ok = false;
        break;
      }
  }
  for (KField required : {KField::K, KField::M, KField::D})
    if (!fields.count(required)) {
      diags.error(e.loc,
                  std::string("k-Tile format has no '") + fieldName(required) +
                      "' field",
                  "a k-Tile format needs at least k, m and d (003 3.1.11)");
      ok = false;
    }
  if (!ok)
    return std::nullopt;

  // Reads a field as numbers; `groups` receives the group sizes.
  auto numbers = [&](KField f, std::vector<int64_t> &out,
                     std::vector<unsigned> *groups, bool allowStar) -> bool {
    const KTileField *field = fields.at(f);
    bool good = true;
    for (const auto &g : field->groups) {
      if (groups)
        groups->push_back(g.size());
      for (const FieldItem &item : g) {
        if (item.kind == FieldItem::Int && item.intValue.valid) {
          out.push_back(item.intValue.value);
        } else if (item.kind == FieldItem::Star && allowStar) {
          out.push_back(kReplicated);
        } else {
          if (item.kind != FieldItem::Int)
            diags.error(item.loc,
                        std::string("field '") + fieldName(f) +
                            "' holds numbers" +
                            (f == KField::OK ? " or '*'" : ""),
                        "write a number here");
          good = false;
        }
      }
    }
    return good;
  };
  auto flatCount = [&](KField f, size_t want, const char *per) -> bool {
    size_t n = 0;
    for (const auto &g : fields.at(f)->groups)
      n += g.size();
    if (n == want)
      return true;
    diags.error(locs[f],
                std::string("field '") + fieldName(f) + "' has " + str(n) +
                    " entries but there are " + str(want) + " " + per,
                std::string("give one entry per ") + per);
    return false;
  };

  KTile t;
  std::vector<int64_t> ks;
  if (!numbers(KField::K, ks, &t.groups, false))
    return std::nullopt;
  if (ks.size() > kMaxTileDims) {
    diags.error(locs[KField::K], "k has " + str(ks.size()) + " k-Tile dims",
                "mapc handles at most " + str(kMaxTileDims) +
                    " k-Tile dims per format");
    return std::nullopt;
  }
  for (int64_t k : ks)
    t.kdims.push_back(KDim::plain(k));
  size_t nk = ks.size();

  // Data space.
  std::vector<int64_t> a = array.shape;
  if (fields.count(KField::A)) {
    std::vector<int64_t> given;
    if (!numbers(KField::A, given, nullptr, false))
      return std::nullopt;
    if (given != array.shape) {
      diags.error(locs[KField::A],
                  "a = " + shapeText(given) + " does not match " + array.name +
                      shapeText(array.shape),
                  "leave `a` out, or give the array's shape");
      return std::nullopt;
    }
  }
  for (int64_t n : a)
    t.data.push_back(SpaceDim::plain(n));
  // Per-data-dim and per-device-dim optional vectors.
  auto perDim = [&](KField f, size_t want, const char *per,
                    auto apply) -> bool {
    if (!fields.count(f))
      return true;
    std::vector<int64_t> v;
    if (!numbers(f, v, nullptr, false) || !flatCount(f, want, per))
      return false;
    for (size_t i = 0; i < want; ++i)
      apply(i, v[i]);
    return true;
  };
  ok &= perDim(KField::TA, a.size(), "data dims",
               [&](size_t i, int64_t v) { t.data[i].tlen = v; });
  ok &= perDim(KField::OA, a.size(), "data dims",
               [&](size_t i, int64_t v) { t.data[i].off = v; });
  ok &= perDim(KField::OTA, a.size(), "data dims",
               [&](size_t i, int64_t v) { t.data[i].toff = v; });
  ok &= perDim(KField::TK, nk, "k-Tile dims",
               [&](size_t i, int64_t v) { t.kdims[i].tk = v; });
  ok &= perDim(KField::OTK, nk, "k-Tile dims",
               [&](size_t i, int64_t v) { t.kdims[i].otk = v; });
  if (fields.count(KField::OK)) {
    std::vector<int64_t> v;
    if (numbers(KField::OK, v, nullptr, true) &&
        flatCount(KField::OK, nk, "k-Tile dims"))
      for (size_t i = 0; i < nk; ++i)
        t.kdims[i].ok = v[i];
    else
      ok = false;
  }
  // Sense and encoding are symbols.
  auto symbols = [&](KField f, auto apply) -> bool {
    if (!fields.count(f))
      return true;
    if (!flatCount(f, nk, "k-Tile dims"))
      return false;
    size_t i = 0;
    bool good = true;
    for (const auto &g : fields.at(f)->groups)
      for (const FieldItem &item : g)
        good &= apply(i++, item);
    return good;
  };
  ok &= symbols(KField::S, [&](size_t i, const FieldItem &item) {
    if (item.kind == FieldItem::Plus || item.kind == FieldItem::Minus) {
      t.kdims[i].sense =
          item.kind == FieldItem::Minus ? Sense::Minus : Sense::Plus;
      return true;
    }
    diags.error(item.loc, "bad sense indicator", "write '+' or '-'");
    return false;
  });
  ok &= symbols(KField::E, [&](size_t i, const FieldItem &item) {
    std::string w = llvm::StringRef(item.word).lower();
    if (item.kind == FieldItem::Word && (w == "b" || w == "g")) {
      t.kdims[i].enc = w == "g" ? Encoding::Gray : Encoding::Binary;
      return true;
    }
    diags.error(item.loc, "bad encoding",
                "write 'b' (binary) or 'g' (binary-reflected Gray)");
    return false;
  });

  // Mapping vector, grouped by device dim.
  {
    std::vector<int64_t> flat;
    std::vector<unsigned> sizes;
    if (!numbers(KField::M, flat, &sizes, false))
      return std::nullopt;
    size_t pos = 0;
    for (unsigned s : sizes) {
      std::vector<unsigned> g;
      for (unsigned i = 0; i < s; ++i, ++pos) {
        // Larger than any format's dims (which verify() names): report the
        // number as written rather than clamped.
        if (flat[pos] > int64_t(1) << 20) {
          diags.error(locs[KField::M],
                      "m names k-Tile dim " + str(flat[pos]) +
                          ", but there are only " + str(t.kdims.size()),
                      "k-Tile dims are numbered from 0 in the order of `k`");
          return std::nullopt;
        }
        g.push_back(unsigned(flat[pos]));
      }
      t.m.push_back(g);
    }
    // An empty group maps nothing to its device dim, which then has length
    // 1: it holds one empty k-Tile dim of length 1 (an empty dim, 003
    // 3.1.8), so every device dim has k-Tile dims as 003 3.1.7 requires.
    for (std::vector<unsigned> &g : t.m)
      if (g.empty() && t.groups.size() >= t.data.size()) {
        if (t.groups.size() == t.data.size())
          t.groups.push_back(0);
        ++t.groups.back();
        g.push_back(unsigned(t.kdims.size()));
        t.kdims.push_back(KDim::plain(1));
      }
  }
  // Device space: d, with optional templates and offsets.
  std::vector<int64_t> d;
  if (!numbers(KField::D, d, nullptr, false))
    return std::nullopt;
  for (int64_t n : d)
    t.device.push_back(SpaceDim::plain(n));
  if (t.device.size() != t.m.size() && !t.device.empty()) {
    diags.error(locs[KField::D],
                "d has " + str(t.device.size()) + " dims but m has " +
                    str(t.m.size()) + " groups",
                "separate the k-Tile dims of each device dim in m with ';'");
    return std::nullopt;
  }
  ok &= perDim(KField::TD, d.size(), "device dims",
               [&](size_t i, int64_t v) { t.device[i].tlen = v; });
  ok &= perDim(KField::OD, d.size(), "device dims",
               [&](size_t i, int64_t v) { t.device[i].off = v; });
  ok &= perDim(KField::OTD, d.size(), "device dims",
               [&](size_t i, int64_t v) { t.device[i].toff = v; });
  if (!ok || !checkTile(t, e.loc, &locs))
    return std::nullopt;
  return t;
}

std::optional<Layout> Sema::mapLayout(const LayoutExpr &e, const Entity &array,
                                      bool bits, const std::string &name) {
  DigitMap map;
  map.isBits = bits;
  map.shape = array.shape;
  bool ok = true, seenP = false, seenM = false;
  std::map<int64_t, int64_t> dataBase; // digit number -> base
  std::set<int64_t> bare;              // data digits written without '^'
  std::vector<BitRow> rows;            // bits: every device data bit
  // A bit map of a 2^n-element array has the data bits a0 .. a(n-1).
  int64_t size = shapeSize(array.shape);
  unsigned numBits =
      llvm::isPowerOf2_64(uint64_t(size)) ? llvm::Log2_64(uint64_t(size)) : 63;
  for (const MapSection &s : e.sections) {
    if (s.items.size() > kMaxTileDims) {
      diags.error(
          s.label.loc, "a section with " + str(s.items.size()) + " digits",
          "mapc handles at most " + str(kMaxTileDims) + " digits per section");
      return std::nullopt;
    }
    std::string label = llvm::StringRef(s.label.name).lower();
    bool isPE = label == "p";
    if (!isPE && label != "m") {
      diags.error(s.label.loc, "unknown section '" + s.label.name + "'",
                  "sections are 'p:' (PE digits) and 'm:' (memory digits)");
      ok = false;
      continue;
    }
    bool &seen = isPE ? seenP : seenM;
    if (seen) {
      diags.error(s.label.loc, "section '" + label + ":' is given twice",
                  "list all " + std::string(isPE ? "PE" : "memory") +
                      " digits in one section");
      ok = false;
      continue;
    }
    seen = true;
    std::vector<DeviceDigit> &out = isPE ? map.pes : map.memory;
    // Written most significant first; stored least significant first.
    for (auto it = s.items.rbegin(); it != s.items.rend(); ++it) {
      const MapItem &item = *it;
      DeviceDigit dd;
      dd.inverted = item.inverted;
      dd.kind = item.kind == MapItem::DataBit ? DeviceDigit::Data
                : item.kind == MapItem::Const ? DeviceDigit::Const
                                              : DeviceDigit::Star;
      dd.index = item.index;
      if (item.index < 0) {
        ok = false;
        continue;
      }
      if (!item.xors.empty() && !bits) {
        diags.error(item.xors[0].loc, "'^' in a digit map",
                    "only bits layouts XOR data bits; write this layout as "
                    "bits [...]");
        ok = false;
        continue;
      }
      if (!item.xors.empty() && item.kind != MapItem::DataBit) {
        diags.error(item.loc, "'^' must follow a data bit",
                    "write the item as a data bit first, e.g. a3^a1, and "
                    "invert it with '!'");
        ok = false;
        continue;
      }
      if (bits) {
        if (item.hasBase && (!item.base.valid || item.base.value != 2)) {
          diags.error(item.loc, "a bit map digit has base 2",
                      "drop the ':base', or use 'digits [...]'");
          ok = false;
          continue;
        }
        dd.base = 2;
      } else {
        if (!item.hasBase) {
          diags.error(item.loc, "digit '" + item.text + "' has no base",
                      "write the base after a colon, e.g. a0:5");
          ok = false;
          continue;
        }
        if (!item.base.valid) { // the literal was reported at its token
          ok = false;
          continue;
        }
        if (item.base.value < 2) {
          diags.error(item.loc, "a digit base must be at least 2",
                      "drop digits of base 1");
          ok = false;
          continue;
        }
        dd.base = item.base.value;
      }
      if (dd.kind == DeviceDigit::Const && dd.index >= dd.base) {
        diags.error(item.loc,
                    "constant " + str(dd.index) +
                        " does not fit a digit of base " + str(dd.base),
                    bits ? "a disabled bit is 0 or 1"
                         : "use a value below the base");
        ok = false;
        continue;
      }
      if (dd.kind == DeviceDigit::Data) {
        // XOR items may share a leading bit (the Gray code a2 a2^a1 a1^a0);
        // checkInvertible judges them. Bare digits lead once.
        if (item.xors.empty() && !bare.insert(dd.index).second) {
          diags.error(item.loc,
                      "data digit a" + str(dd.index) + " appears twice",
                      "each data digit appears once in the device address");
          ok = false;
          continue;
        }
        if (bits && dd.index >= int64_t(numBits)) {
          // Also keeps the row's shift below 64 (found by mapc-fuzz).
          diags.error(item.loc,
                      "'a" + str(dd.index) + "' is not a data bit of layout '" +
                          name + "'",
                      "its array has " + str(int64_t(1) << numBits) +
                          " elements, so the data bits are a0 to a" +
                          str(int64_t(numBits) - 1));
          ok = false;
          continue;
        }
        if (!xorMaskOf(item, numBits, name, dd.xorMask)) {
          ok = false;
          continue;
        }
        dataBase[dd.index] = dd.base;
        for (unsigned b = 0; b < 64; ++b)
          if (dd.xorMask >> b & 1)
            dataBase[b] = 2;
        if (bits)
          rows.push_back({dd.xorMask | uint64_t(1) << dd.index, &item});
      }
      out.push_back(dd);
    }
  }
  if (!ok)
    return std::nullopt;
  for (size_t i = 0; i < dataBase.size(); ++i) {
    if (!dataBase.count(i)) {
      diags.error(e.loc, "data digit a" + str(i) + " is missing",
                  "number data digits a0, a1, ... without gaps");
      return std::nullopt;
    }
    map.dataBases.push_back(dataBase[i]);
  }
  int64_t product = 1;
  for (int64_t b : map.dataBases)
    product = satMul(product, b);
  if (product != size) {
    diags.error(e.loc,
                std::string("the data ") + (bits ? "bits" : "digits") +
                    " index " + str(product) + " elements but " + array.name +
                    " has " + str(size),
                bits ? "a bit map needs log2(size) data bits, so the array "
                       "size must be a power of two"
                     : "the bases of the data digits must multiply to the "
                       "array size");
    return std::nullopt;
  }
  if (map.deviceSize() > (int64_t(1) << 40)) {
    diags.error(e.loc, "the device space has more than 2^40 cells",
                "mapc's index spaces hold at most 2^40 cells "
                "(docs/language.md, \"Sizes\"): use fewer or smaller "
                "constant and '*' digits");
    return std::nullopt;
  }
  if (bits && !checkInvertible(rows, map.dataBases.size(), e, name))
    return std::nullopt;
  Layout l;
  l.digits = map;
  if (auto t = map.toKTile())
    l.tile = canonicalize(*t);
  return l;
}

bool Sema::xorMaskOf(const MapItem &item, unsigned numBits,
                     const std::string &name, uint64_t &mask) {
  // One error per item, at its first bad name: an item may repeat its bits
  // thousands of times, and a message per repeat (each quoting the item)
  // made a long item quadratic.
  mask = 0;
  for (size_t x = 0; x < item.xors.size(); ++x) {
    int64_t b = item.xorIndex[x];
    const Ident &id = item.xors[x];
    if (b < 0)
      return false; // reported by the parser
    if (b >= int64_t(numBits)) {
      diags.error(id.loc,
                  "'" + id.name + "' is not a data bit of layout '" + name +
                      "'",
                  "its array has " + str(int64_t(1) << numBits) +
                      " elements, so the data bits are a0 to a" +
                      str(int64_t(numBits) - 1));
      return false;
    }
    if (b == item.index || (mask >> b & 1)) {
      diags.error(id.loc,
                  "data bit a" + str(b) + " appears twice in '" +
                      abbreviated(item.text) + "'",
                  "XOR each data bit into a device bit at most once");
      return false;
    }
    mask |= uint64_t(1) << b;
  }
  return true;
}

bool Sema::checkInvertible(const std::vector<BitRow> &rows, unsigned numBits,
                           const LayoutExpr &e, const std::string &name) {
  // An XOR basis over GF(2): a row that reduces to zero is the XOR of
  // earlier rows, so two data elements would share a device address.
  std::vector<uint64_t> basis;
  for (const BitRow &r : rows) {
    uint64_t v = r.mask;
    for (uint64_t b : basis)
      v = std::min(v, v ^ b);
    if (!v) {
      diags.error(r.item->loc,
                  "the bits of layout '" + name +
                      "' are not invertible: device bit '" + r.item->text +
                      "' is the XOR of other device bits",
                  "two data elements would share an address; make every "
                  "device bit independent of the others");
      return false;
    }
    basis.push_back(v);
    std::sort(basis.rbegin(), basis.rend());
  }
  if (basis.size() < numBits) {
    diags.error(e.loc,
                "the bits of layout '" + name +
                    "' are not invertible: its device bits determine only " +
                    str(basis.size()) + " of " + str(numBits) + " data bits",
                "give one device bit per data bit");
    return false;
  }
  return true;
}

std::optional<KTile> Sema::sourceTile(const Ident &name,
                                      std::vector<int64_t> &shape) {
  if (layouts.count(name.name)) {
    const Layout *l = layoutNamed(name.name, name.loc);
    if (!l)
      return std::nullopt;
    if (!l->tile) {
      diags.error(name.loc, "layout '" + name.name + "' has no k-Tile form",
                  "transforms apply to k-Tile layouts");
      return std::nullopt;
    }
    shape = findEntity(l->array)->shape;
    return *l->tile;
  }
  if (Entity *e = findEntity(name.name); e && e->kind != Entity::Processors) {
    const KTile *t = mappingOf(name.name, name.loc);
    if (!t)
      return std::nullopt;
    shape = e->shape;
    return *t;
  }
  diags.error(name.loc, "unknown layout '" + name.name + "'",
              "name a declared layout or array");
  return std::nullopt;
}

std::optional<KTile> Sema::namedLayout(const LayoutExpr &e,
                                       const Entity &array) {
  std::string name = llvm::StringRef(e.callee.name).lower();
  auto standard = llvm::StringSwitch<std::optional<StandardMapping>>(name)
                      .Case("hierarchical1d", StandardMapping::Hierarchical1d)
                      .Case("hierarchical2d", StandardMapping::Hierarchical2d)
                      .Case("cutnstack1d", StandardMapping::CutNStack1d)
                      .Case("cutnstack2d", StandardMapping::CutNStack2d)
                      .Case("scan1d", StandardMapping::Scan1d)
                      .Default(std::nullopt);
  if (auto fft = parseFftMapping(name)) {
    // 002's identical and m-k shuffle mappings need the whole mesh.
    KTile t;
    if (!reportLowering(lowerFftMapping(*fft, array.shape, machine), e.loc, {},
                        t))
      return std::nullopt;
    return t;
  }
  if (standard) {
    // A 2-d view of the PEs for 2d mappings (003 5.1.2 iv in reverse): a
    // line of n PEs as n / q x q, q the largest divisor of n up to its
    // square root (2^ceil(b/2) x 2^floor(b/2) for n = 2^b; n x 1 for a
    // prime).
    std::vector<int64_t> grid = machine.pes;
    if (grid.size() == 1) {
      const int64_t n = grid[0];
      int64_t q = 1;
      for (int64_t d = 2; d <= n / d; ++d)
        if (n % d == 0)
          q = d;
      grid = {n / q, q};
    } else if (grid.size() > 2) {
      int64_t rest = 1;
      for (size_t i = 1; i < grid.size(); ++i)
        rest *= grid[i];
      grid = {grid[0], rest};
    }
    KTile t;
    if (!reportLowering(lowerStandardMapping(*standard, array.shape,
                                             machine.peCount(), grid),
                        e.loc, {}, t))
      return std::nullopt;
    return t;
  }
  std::vector<int64_t> shape;
  auto t = sourceTile(e.callee, shape);
  if (t && shape != array.shape) {
    diags.error(e.callee.loc,
                "'" + e.callee.name + "' maps an array of shape " +
                    shapeText(shape) + ", not " + shapeText(array.shape),
                "use a layout of an array with the same shape");
    return std::nullopt;
  }
  return t;
}

std::optional<KTile> Sema::transformLayout(const LayoutExpr &e,
                                           const Entity &array) {
  std::string name = llvm::StringRef(e.callee.name).lower();
  unsigned want = name == "transpose" ? 3 : 2;
  if (name != "transpose" && name != "reverse" && name != "bitrev") {
    diags.error(e.callee.loc, "unknown transform '" + e.callee.name + "'",
                "use transpose(X, i, j), reverse(X, i) or bitrev(X, i)");
    return std::nullopt;
  }
  if (e.args.size() != want) {
    diags.error(e.loc, name + " takes " + str(want) + " arguments",
                name == "transpose" ? "write transpose(X, i, j)"
                                    : "write " + name + "(X, i)");
    return std::nullopt;
  }
  std::vector<int64_t> shape;
  auto src = sourceTile(e.args[0], shape);
  if (!src)
    return std::nullopt;
  std::vector<unsigned> dims;
  for (size_t i = 1; i < e.args.size(); ++i) {
    unsigned long long v;
    if (llvm::StringRef(e.args[i].name).getAsInteger(10, v) ||
        v >= shape.size()) {
      diags.error(e.args[i].loc,
                  "'" + e.args[i].name + "' is not a dimension of " +
                      e.args[0].name,
                  "dimensions are numbered 0.." + str(shape.size() - 1));
      return std::nullopt;
    }
    dims.push_back(unsigned(v));
  }
  if (shape != array.shape) {
    diags.error(e.args[0].loc,
                "'" + e.args[0].name + "' maps an array of shape " +
                    shapeText(shape) + ", not " + shapeText(array.shape),
                "transform a layout of an array with the same shape");
    return std::nullopt;
  }
  KTile out;
  std::vector<llvm::SMLoc> locs;
  if (name == "bitrev") {
    if (!reportLowering(bitReverse(*src, dims[0]), e.loc, locs, out))
      return std::nullopt;
    return out;
  }
  std::vector<AlignSubSpec> subs(shape.size());
  for (unsigned r = 0; r < shape.size(); ++r)
    subs[r].dummy = r;
  if (name == "transpose") {
    if (shape[dims[0]] != shape[dims[1]]) {
      diags.error(e.loc,
                  "transpose of dims of different lengths (" +
                      str(shape[dims[0]]) + " and " + str(shape[dims[1]]) + ")",
                  "the two dims must have the same length (003 5.3.5)");
      return std::nullopt;
    }
    std::swap(subs[dims[0]].dummy, subs[dims[1]].dummy);
  } else {
    subs[dims[0]].stride = -1;
    subs[dims[0]].offset = shape[dims[0]] - 1;
  }
  if (!reportLowering(lowerAlign(shape, *src, subs), e.loc, locs, out))
    return std::nullopt;
  return out;
}

// ---------------------------------------------------------------------------
// Statements and the program
// ---------------------------------------------------------------------------

void Sema::linkStaticAlignments(UltimateAlignment &alignment) {
  // A chain may be declared in any order: each object's targets are linked
  // before it, walking up iteratively (chains run to 50,000 links). A
  // mapping that lowered has no cycle.
  std::set<std::string> linked;
  auto staticTarget = [&](const std::string &name) -> const Entity * {
    const Entity *e = findEntity(name);
    if (!e || !e->align || !mappings.count(name) || linked.count(name))
      return nullptr;
    return findEntity(e->align->align.target.name);
  };
  for (const std::string &name : declOrder) {
    std::vector<std::string> up;
    for (std::string at = name; const Entity *t = staticTarget(at);
         at = t->name) {
      linked.insert(at);
      up.push_back(at);
    }
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
      const Entity &e = *findEntity(*it);
      alignment.align(e.name, e.align->align, e.shape,
                      e.align->align.target.name);
    }
  }
}

std::optional<std::vector<std::pair<std::string, std::optional<KTile>>>>
Sema::followersOf(const UltimateAlignment &alignment, const std::string &root,
                  const KTile &rootTile, llvm::SMLoc loc) {
  std::vector<std::pair<std::string, std::optional<KTile>>> out;
  const std::vector<std::string> alignees = alignment.alignees(root);
  if (alignees.empty())
    return out;
  // The links to lower, each once, counted against the budget before any
  // is lowered (and the count stops at the budget, so that a spent budget
  // costs every later statement nothing).
  const size_t left = kMaxFollowerLowerings - followerLowerings;
  std::set<int> toLower;
  for (const std::string &a : alignees) {
    int at = alignment.linkOf(a);
    while (at >= 0 && toLower.size() <= left && toLower.insert(at).second)
      at = alignment.link(at).through;
  }
  if (toLower.size() > left) {
    diags.error(loc,
                "this redistribute would lower again the alignments of the "
                "objects aligned with '" +
                    root + "', past mapc's limit of " +
                    str(int64_t(kMaxFollowerLowerings)) +
                    " such lowerings in one program",
                "redistribute '" + root +
                    "' fewer times, or realign the arrays that must move with "
                    "it and redistribute them one by one");
    followerLowerings = kMaxFollowerLowerings;
    return std::nullopt;
  }
  followerLowerings += toLower.size();
  // Each link's tile from its target's: a link goes through an earlier
  // one (UltimateAlignment::Link), so in ascending order every target is
  // lowered first.
  std::map<int, std::optional<KTile>> lowered;
  for (int at : toLower) {
    const UltimateAlignment::Link &l = alignment.link(at);
    const std::optional<KTile> *target =
        l.through < 0 ? nullptr : &lowered.at(l.through);
    std::optional<KTile> &tile = lowered[at];
    if (target && !*target)
      continue; // its target failed, and said so
    Entity view = *findEntity(l.alignee);
    view.shape = l.shape;
    const unsigned before = diags.errorCount();
    tile = lowerAlignment(*l.align, view, target ? **target : rootTile);
    if (tile && !checkTile(*tile, loc))
      tile.reset();
    if (!tile && diags.errorCount() == before)
      diags.error(l.align->loc, "'" + l.alignee +
                                    "' cannot follow the redistribute of '" +
                                    root + "'");
    if (!tile)
      diags.note(loc, "'" + l.alignee + "' is aligned with '" + root +
                          "' and follows its redistribute here");
  }
  for (const std::string &a : alignees)
    out.emplace_back(a, lowered.at(alignment.linkOf(a)));
  return out;
}

void Sema::statements(const ast::Program &ast, mapc::Program &out) {
  // Static layouts in source order: arrays at their declaration, named
  // layouts at theirs.
  std::map<std::string, int> current; // array -> layout index
  for (const ast::Statement &s : ast.statements) {
    if (auto *d = std::get_if<ShapeDecl>(&s)) {
      if (d->kind != ShapeDecl::Array || !findEntity(d->name.name) ||
          !findEntity(d->name.name)->valid)
        continue;
      Entity &e = *findEntity(d->name.name);
      if (e.loc.getPointer() != d->name.loc.getPointer())
        continue; // a duplicate declaration
      out.arrays.push_back({e.name, e.shape, e.type, e.loc});
      const KTile *t = mappingOf(e.name, e.loc);
      if (!t) {
        // Placed in a layout with no k-Tile form: it starts there.
        if (auto p = placedWithoutTile.find(e.name);
            p != placedWithoutTile.end()) {
          Layout l = layouts.find(p->second)->second.layout;
          l.name = l.array = e.name;
          l.loc = e.loc;
          current[e.name] = out.layouts.size();
          out.layouts.push_back(std::move(l));
        }
        continue;
      }
      Layout l;
      l.name = l.array = e.name;
      l.tile = canonicalize(*t);
      l.loc = e.loc;
      if (!checkFits(l, e.mappingLoc.isValid() ? e.mappingLoc : e.loc))
        continue;
      current[e.name] = out.layouts.size();
      out.layouts.push_back(std::move(l));
    } else if (auto *d = std::get_if<LayoutDecl>(&s)) {
      auto it = layouts.find(d->name.name);
      if (it == layouts.end() || it->second.decl != d)
        continue;
      if (const Layout *l = layoutNamed(d->name.name, d->name.loc)) {
        Layout copy = *l;
        if (copy.tile)
          copy.tile = canonicalize(*copy.tile);
        out.layouts.push_back(std::move(copy));
      }
    }
  }
  out.numStaticLayouts = out.layouts.size();

  auto indexOfNamed = [&](const std::string &name) -> int {
    for (unsigned i = 0; i < out.numStaticLayouts; ++i)
      if (out.layouts[i].name == name && layouts.count(name))
        return i;
    return -1;
  };
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const ArrayInfo &a : out.arrays)
    shapes[a.name] = a.shape;
  // An array placed in a named layout starts in that layout: statements
  // name it as their source (the contents are the same).
  for (const ArrayInfo &a : out.arrays)
    if (const Entity *e = findEntity(a.name);
        e && e->place && current.count(a.name))
      if (int named = indexOfNamed(e->place->second.name); named >= 0)
        current[a.name] = named;

  // Which objects follow a redistribute (UltimateAlignment.h), and the
  // templates' current mappings (a redistribute changes them).
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < declOrder.size(); ++i)
    rank.emplace(declOrder[i], i);
  UltimateAlignment alignment(std::move(rank));
  linkStaticAlignments(alignment);
  std::map<std::string, KTile> templateNow;
  auto templateTile = [&](const Entity &t, llvm::SMLoc loc) -> const KTile * {
    auto it = templateNow.find(t.name);
    return it != templateNow.end() ? &it->second : mappingOf(t.name, loc);
  };

  auto currentOf = [&](const Ident &name) -> Entity * {
    Entity *e = expect(name, Entity::Array, "array");
    if (e && !current.count(e->name))
      return nullptr; // its mapping failed and was reported
    return e;
  };
  // Records a statement that moves `array` into layout `to`.
  auto moveTo = [&](mapc::Statement::Kind kind, const std::string &array,
                    int to, llvm::SMLoc loc) {
    out.statements.push_back({kind, array, "", current[array], to, {}, loc});
    current[array] = to;
  };
  // Adds the layout a statement at `loc` makes; its index, or -1.
  auto addLayout = [&](Layout l, const std::string &array,
                       llvm::SMLoc loc) -> int {
    auto [line, col] = diags.sourceMgr().getLineAndColumn(loc);
    l.name = array + "@" + str(line) + ":" + str(col);
    l.array = array;
    l.loc = loc;
    if (!checkFits(l, loc))
      return -1;
    out.layouts.push_back(std::move(l));
    return out.layouts.size() - 1;
  };
  auto addDynamic = [&](KTile tile, const std::string &array,
                        llvm::SMLoc loc) -> int {
    Layout l;
    l.tile = canonicalize(tile);
    return addLayout(std::move(l), array, loc);
  };
  // `root` takes `rootTile` at the redistribute at `loc`: every object
  // ultimately aligned with it follows (HPF 2.0 sec. 8.5), an array by a
  // redistribute statement of its own, in declaration order.
  auto moveAlignees = [&](const std::string &root, const KTile &rootTile,
                          llvm::SMLoc loc) {
    auto followers = followersOf(alignment, root, rootTile, loc);
    if (!followers)
      return;
    for (auto &[name, tile] : *followers) {
      if (!tile) {
        alignment.detach(name); // reported; it stays where it is
        continue;
      }
      if (findEntity(name)->kind == Entity::Template) {
        templateNow[name] = std::move(*tile);
        continue;
      }
      if (!current.count(name))
        continue;
      const unsigned before = diags.errorCount();
      int to = addDynamic(std::move(*tile), name, loc);
      if (to >= 0) {
        moveTo(mapc::Statement::Redistribute, name, to, loc);
        continue;
      }
      if (diags.errorCount() > before)
        diags.note(alignment.link(alignment.linkOf(name)).align->loc,
                   "'" + name + "' is aligned with '" + root +
                       "' here, so it follows its redistribute");
      alignment.detach(name);
    }
  };

  for (const ast::Statement &s : ast.statements) {
    if (auto *p = std::get_if<PairStmt>(&s)) {
      if (p->kind == PairStmt::Place)
        continue;
      Entity *a = currentOf(p->first);
      if (!a)
        continue;
      if (p->kind == PairStmt::Remap) {
        int to = indexOfNamed(p->second.name);
        if (to < 0) {
          if (!layouts.count(p->second.name)) {
            // Naming an array is the likely slip: its own mapping is not a
            // layout, and a layout may not share an array's name.
            const Entity *e = findEntity(p->second.name);
            diags.error(p->second.loc,
                        "unknown layout '" + p->second.name + "'",
                        e && e->kind == Entity::Array
                            ? "'" + p->second.name +
                                  "' is an array, and its own mapping is not "
                                  "a layout: declare one with 'layout L of " +
                                  a->name + " = ...;' and remap to L"
                            : "declare it with 'layout " + p->second.name +
                                  " of " + a->name + " = ...;'");
          }
          continue;
        }
        const Layout &l = out.layouts[to];
        const std::vector<int64_t> &layoutShape = findEntity(l.array)->shape;
        if (layoutShape != shapes[a->name]) {
          diags.error(p->second.loc,
                      "layout '" + l.name + "' maps shape " +
                          shapeText(layoutShape) + " but " + a->name +
                          " now has shape " + shapeText(shapes[a->name]),
                      "remap to a layout of an array with the same shape");
          continue;
        }
        moveTo(mapc::Statement::Remap, a->name, to, p->loc);
        alignment.movedAlone(a->name);
      } else {
        Entity *b = currentOf(p->second);
        if (!b)
          continue;
        if (shapes[a->name] != shapes[b->name]) {
          diags.error(p->loc,
                      "copy from " + a->name + shapeText(shapes[a->name]) +
                          " to " + b->name + shapeText(shapes[b->name]) +
                          ": the shapes differ",
                      "copy between arrays of the same shape");
          continue;
        }
        if (a == b) {
          diags.error(p->loc, "copy of " + a->name + " onto itself",
                      "use 'remap' to move an array within its own storage");
          continue;
        }
        // A copy moves elements bit for bit and does not convert them
        // (docs/language.md, "copy"): a u8 landing in an f64 slot would
        // verify by index yet hold garbage for the next statement.
        if (a->type != b->type) {
          diags.error(p->loc,
                      std::string("copy from ") + a->name + " : " +
                          elemTypeName(a->type) + " to " + b->name + " : " +
                          elemTypeName(b->type) + ": the element types differ",
                      std::string("declare ") + b->name + " with type " +
                          elemTypeName(a->type) +
                          "; copy moves elements without converting them");
          continue;
        }
        // A copy leaves both arrays in their layouts: B takes A's data in
        // B's current layout.
        out.statements.push_back({mapc::Statement::Copy,
                                  a->name,
                                  b->name,
                                  current[a->name],
                                  current[b->name],
                                  {},
                                  p->loc});
      }
    } else if (auto *d = std::get_if<DistributeDecl>(&s); d && d->dynamic) {
      // A template holds no data: its redistribute moves only the objects
      // aligned with it.
      Entity *named =
          expect(d->dist.target, Entity::Array, "array or template");
      if (!named)
        continue;
      if (named->kind == Entity::Template) {
        auto tile = lowerDistribution(d->dist, *named, "redistribute");
        if (!tile || !checkTile(*tile, d->dist.loc))
          continue;
        alignment.detach(named->name);
        templateNow[named->name] = *tile;
        moveAlignees(named->name, *tile, d->dist.loc);
        continue;
      }
      Entity *a = named;
      if (!current.count(a->name))
        continue; // its mapping failed and was reported
      Entity view = *a;
      view.shape = shapes[a->name];
      auto t = lowerDistribution(d->dist, view, "redistribute");
      if (!t || !checkTile(*t, d->dist.loc))
        continue;
      int to = addDynamic(*t, a->name, d->dist.loc);
      if (to < 0)
        continue;
      moveTo(mapc::Statement::Redistribute, a->name, to, d->dist.loc);
      // An alignee redistributed is aligned no more (HPF forbids it; mapc
      // takes it as a new root).
      alignment.detach(a->name);
      moveAlignees(a->name, *t, d->dist.loc);
    } else if (auto *r = std::get_if<AlignDecl>(&s); r && r->dynamic) {
      Entity *a = currentOf(r->align.alignee);
      Entity *target =
          expect(r->align.target, Entity::Array, "array or template");
      if (!a || !target)
        continue;
      const KTile *tt;
      if (target->kind == Entity::Array) {
        if (!current.count(target->name))
          continue;
        const Layout &now = out.layouts[current[target->name]];
        if (!now.tile) {
          diags.error(r->align.target.loc,
                      "'" + target->name + "' is now in layout '" + now.name +
                          "', which has no k-Tile form (a digit map, or a "
                          "reshaped layout that is not radix 2)",
                      "realign with an array whose current layout is a "
                      "k-Tile or bits layout");
          continue;
        }
        tt = &*now.tile;
      } else {
        tt = templateTile(*target, r->align.target.loc);
      }
      if (!tt)
        continue;
      Entity view = *a;
      view.shape = shapes[a->name];
      auto t = lowerAlignment(r->align, view, *tt);
      if (!t || !checkTile(*t, r->align.loc))
        continue;
      // As `align A(i) with A(i)` is (mappingOf): HPF aligns an object
      // with another one or with a template.
      if (target == a) {
        diags.error(
            r->align.target.loc, "'" + a->name + "' is realigned with itself",
            "realign it with a template or another array; to move " + a->name +
                " within its own storage, remap it to a layout");
        continue;
      }
      int to = addDynamic(*t, a->name, r->align.loc);
      if (to < 0)
        continue;
      moveTo(mapc::Statement::Realign, a->name, to, r->align.loc);
      // A realign moves only its alignee (HPF 2.0 sec. 8.5): the objects
      // aligned with it stay, no longer aligned with it.
      alignment.orphanAlignees(a->name);
      alignment.align(a->name, r->align, shapes[a->name], target->name);
    } else if (auto *r = std::get_if<ReshapeStmt>(&s)) {
      Entity *a = currentOf(r->array);
      if (!a)
        continue;
      std::vector<int64_t> shape;
      if (!validShape(r->shape, r->loc, "the new shape", shape))
        continue;
      int64_t n = 1, old = 1;
      for (int64_t v : shape)
        n = satMul(n, v);
      for (int64_t v : shapes[a->name])
        old = satMul(old, v);
      if (n != old) {
        diags.error(r->loc,
                    "reshape of " + a->name + shapeText(shapes[a->name]) +
                        " to " + shapeText(shape) +
                        " changes the number "
                        "of elements (" +
                        str(old) + " to " + str(n) + ")",
                    "the new shape must have the same number of elements");
        continue;
      }
      int from = current[a->name];
      std::optional<Layout> l =
          reshapedLayout(out.layouts[from], a->name, shape, r->loc);
      int to = l ? addLayout(std::move(*l), a->name, r->loc) : -1;
      if (to < 0) {
        current.erase(a->name); // later statements on A stay silent
        continue;
      }
      shapes[a->name] = shape;
      alignment.movedAlone(a->name);
      out.statements.push_back(
          {mapc::Statement::Reshape, a->name, "", from, to, shape, r->loc});
      current[a->name] = to;
    }
  }
}

std::optional<Layout> Sema::reshapedLayout(const Layout &now,
                                           const std::string &array,
                                           const std::vector<int64_t> &shape,
                                           llvm::SMLoc loc) {
  Layout l;
  std::string why;
  if (now.digits) {
    // A digit map indexes the linear data index: only its shape changes.
    auto r = reshapeDigits(*now.digits, shape);
    if (auto *d = std::get_if<DigitMap>(&r)) {
      l.digits = *d;
      if (auto t = d->toKTile())
        l.tile = canonicalize(*t);
      return l;
    }
    why = std::get<std::string>(r);
  } else if (now.tile) {
    auto r = reshapeTile(*now.tile, shape);
    if (auto *t = std::get_if<KTile>(&r)) {
      l.tile = canonicalize(*t);
      return l;
    }
    why = std::get<std::string>(r);
  }
  // Any other layout keeps every element where it is: the linear data
  // index, and so the device contents, do not change (003 ch. 6's general
  // remaps take the layout as it is). Only a radix-2 reshape (001) keeps a
  // k-Tile form; a Gray-coded one must keep it, or be refused.
  bool gray = false;
  if (now.tile)
    for (const KDim &k : now.tile->kdims)
      gray |= k.enc == Encoding::Gray;
  if (!gray && (now.tile || now.linear)) {
    l.linear = now.linear ? *now.linear : rt::TileMap(*now.tile);
    return l;
  }
  // The message reads "<what is wrong>; <how to fix it>".
  size_t split = why.find("; ");
  std::string hint = split == std::string::npos ? "" : why.substr(split + 2);
  diags.error(loc,
              "cannot reshape " + array + " in layout '" + now.name + "' to " +
                  shapeText(shape) + ": " + why.substr(0, split),
              hint);
  return std::nullopt;
}

mapc::Program Sema::run(const ast::Program &ast) {
  collect(ast);
  // Every mapping and layout is checked even if nothing prints it.
  // Layouts in the order they are declared, as the mappings below: a chain
  // declared from its start then resolves a link at a time (the depth
  // limit of enterChain counts links resolved inside one another).
  // (A declaration dropped for a syntax error has no decl and never
  // resolves.)
  std::vector<LayoutEntry *> inOrder;
  for (auto &[name, entry] : layouts)
    if (entry.decl && entry.state == LayoutEntry::Unresolved)
      inOrder.push_back(&entry);
  llvm::sort(inOrder, [](const LayoutEntry *a, const LayoutEntry *b) {
    return a->decl->name.loc.getPointer() < b->decl->name.loc.getPointer();
  });
  for (LayoutEntry *entry : inOrder)
    if (entry->state == LayoutEntry::Unresolved)
      resolveLayout(*entry);
  // Then the arrays' and templates' mappings (an array placed in the last
  // layout of a long chain finds it resolved).
  for (const std::string &name : declOrder)
    if (findEntity(name)->kind != Entity::Processors && findEntity(name)->valid)
      mappingOf(name, findEntity(name)->loc);
  mapc::Program out;
  out.machine = machine;
  statements(ast, out);
  out.indexArrays();
  return out;
}

} // namespace

mapc::Program mapc::analyze(const ast::Program &ast, Diagnostics &diags) {
  return Sema(diags).run(ast);
}
