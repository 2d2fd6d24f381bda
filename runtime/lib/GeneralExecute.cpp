//===- GeneralExecute.cpp - general remap steps on the simulated MasPar ---===//
//
// The methods of General.h, each written once against MasPar's priced
// instructions; a pricing-only MasPar runs the same code to predict a step.
// As in Execute.cpp, the bookkeeping a PE's address unit or the ACU would do
// (slot lists, destination tables) is plain C++; what costs time on the
// machine is charged: loads, stores, router sends and the mixed-radix
// arithmetic of brute force.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/General.h"

#include "AllGatherPrice.h"
#include "ExchangePrice.h"
#include "ExchangeRounds.h"
#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/FastDivide.h"
#include "mapc/runtime/Resignify.h"
#include "mapc/runtime/SourceRow.h"
#include "mapc/runtime/TileWalk.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>

using namespace mapc::rt;

const char *mapc::rt::generalStepKindName(GeneralStepKind k) {
  switch (k) {
  case GeneralStepKind::Local:
    return "local";
  case GeneralStepKind::Slotwise:
    return "slotwise";
  case GeneralStepKind::Exchange:
    return "exchange";
  case GeneralStepKind::BruteForce:
    return "brute-force";
  case GeneralStepKind::Route:
    return "route";
  case GeneralStepKind::DigitExchange:
    return "digit-exchange";
  case GeneralStepKind::Resignify:
    return "resig-mp";
  }
  return "?";
}

namespace {
/// For a layout `t` that replicates only on plain digits of its own (k-Tile
/// dims past the data's, every value held, in device dims without
/// templates or offsets): `first`, t with those digits held at 0, and the
/// offsets of every copy's cell from the first's (all sums of one value
/// times its place per replicated digit). False otherwise.
bool replicaOffsets(const TileMap &t, TileMap &first,
                    std::vector<int64_t> &offsets) {
  if (!t.replicates() || t.m.size() != t.device.size())
    return false;
  for (const SpaceDim &s : t.device)
    if (s.off || s.toff || s.len != s.tlen)
      return false;
  offsets = {0};
  const unsigned firstEmpty = t.firstEmptyDim();
  int64_t stride = 1;
  for (size_t i = 0; i < t.device.size(); ++i) {
    int64_t place = 1;
    for (unsigned l : t.m[i]) {
      const KDim &kd = t.kdims[l];
      if (kd.ok == kReplicated && kd.k > 1) {
        if (l < firstEmpty || kd.k != kd.tk || kd.otk ||
            kd.sense != Sense::Plus || kd.enc != Encoding::Binary)
          return false;
        const size_t had = offsets.size();
        for (int64_t x = 1; x < kd.k; ++x)
          for (size_t j = 0; j < had; ++j)
            offsets.push_back(offsets[j] + x * place * stride);
        first.kdims[l].k = 1;
        first.kdims[l].ok = 0;
      }
      place *= kd.tk;
    }
    stride *= t.device[i].tlen;
  }
  return true;
}

/// The slots of a PE that hold some copy of a layout replicated on plain
/// digits (sourcesOf's cells of it from itself): (b + o) mod slots for each
/// cell b of its first copy and offset o, from the distinct residues of
/// each. Nullopt for any other layout.
std::optional<int64_t> replicatedHeldSlots(const TileMap &t) {
  std::vector<int64_t> offsets;
  TileMap firstCopy = t;
  if (!replicaOffsets(t, firstCopy, offsets) || !TileWalk::walkable(firstCopy))
    return std::nullopt;
  const int64_t slots = slotsOf(t);
  std::vector<uint8_t> firstAt(size_t(slots), 0), offsetAt(size_t(slots), 0),
      held(size_t(slots), 0);
  TileWalk w(firstCopy);
  for (int64_t n = t.dataSize(); w.index() < n; w.next())
    firstAt[size_t(w.address() % slots)] = 1;
  std::vector<int64_t> shifts;
  for (int64_t off : offsets)
    if (!offsetAt[size_t(off % slots)]) {
      offsetAt[size_t(off % slots)] = 1;
      shifts.push_back(off % slots);
    }
  int64_t count = 0;
  for (int64_t r = 0; r < slots; ++r)
    if (firstAt[size_t(r)])
      for (int64_t o : shifts) {
        uint8_t &h = held[size_t((r + o) % slots)];
        count += !h;
        h = 1;
      }
  return count;
}
} // namespace

std::vector<uint32_t> mapc::rt::sourcesOf(const TileMap &from,
                                          const TileMap &to) {
  const int64_t cells = to.deviceSize();
  const int64_t toSlots = slotsOf(to), fromSlots = slotsOf(from);
  std::vector<uint32_t> src(size_t(cells), kNoSource);
  // Neither layout replicates: walk both in data order, incrementally.
  if (TileWalk::walkable(from) && TileWalk::walkable(to)) {
    TileWalk a(from), b(to);
    for (int64_t n = to.dataSize(); b.index() < n; a.next(), b.next())
      src[size_t(b.address())] = uint32_t(a.address());
    return src;
  }
  // Between a layout and itself (an in-place plan's copy back) every
  // element stays: a replicated one on plain digits walked with its
  // replicated digits held at 0, each copy an offset (as below).
  std::vector<int64_t> copyOffsets;
  TileMap firstCopy = to;
  const bool copiesWalk = replicaOffsets(to, firstCopy, copyOffsets) &&
                          TileWalk::walkable(firstCopy);
  if (from == to && copiesWalk) {
    TileWalk b(firstCopy);
    for (int64_t n = to.dataSize(); b.index() < n; b.next())
      for (int64_t off : copyOffsets)
        src[size_t(b.address() + off)] = uint32_t(b.address() + off);
    return src;
  }
  if (from == to) {
    for (int64_t b = 0; b < cells; ++b)
      if (to.dataAt(b) >= 0)
        src[size_t(b)] = uint32_t(b);
    return src;
  }
  // Only the destination replicates, on plain digits: walk both with the
  // replicated digits held at 0, and each copy is the same cell plus a sum
  // of one weight per replicated digit (no dataAt per cell).
  if (TileWalk::walkable(from) && copiesWalk) {
    TileWalk a(from), b(firstCopy);
    for (int64_t n = to.dataSize(); b.index() < n; a.next(), b.next())
      for (int64_t off : copyOffsets)
        src[size_t(b.address() + off)] = uint32_t(a.address());
    return src;
  }
  const bool replicated = from.replicates();
  std::vector<int64_t> copies;
  for (int64_t b = 0; b < cells; ++b) {
    int64_t d = to.dataAt(b);
    if (d < 0)
      continue;
    if (!replicated) {
      src[size_t(b)] = uint32_t(from.firstAddressOf(d));
      continue;
    }
    copies.clear();
    from.addressesOf(d, copies);
    const int64_t pe = b / toSlots, slot = b % toSlots;
    // The same PE first, then the copy sharing the most PE coordinates
    // (`to`'s PE dims): where both layouts replicate along the same PE dims
    // (HPF's A(i, *) redistributed), each copy feeds its own line of PEs and
    // the lines move side by side instead of all from the first copy.
    auto shared = [&](int64_t q) {
      int64_t n = 0;
      for (size_t i = 1, x = size_t(pe), y = size_t(q); i < to.device.size();
           ++i) {
        const size_t side = size_t(to.device[i].tlen);
        n += x % side == y % side;
        x /= side;
        y /= side;
      }
      return n;
    };
    auto score = [&](int64_t a) {
      const int64_t q = a / fromSlots;
      return (q == pe ? 1 << 20 : 0) + 2 * shared(q) +
             (a % fromSlots == slot ? 1 : 0);
    };
    int64_t best = copies[0], bestScore = score(best);
    for (int64_t a : copies)
      if (const int64_t sc = score(a); sc > bestScore) {
        best = a;
        bestScore = sc;
      }
    src[size_t(b)] = uint32_t(best);
  }
  return src;
}

// sourcesOf's walk of a destination replicated on plain digits, when the
// copies are whole PEs: copy k is the first plus k slots-per-PE, and the
// first lies within PE 0, so every PE's cells take the same sources.
std::optional<SourceRow> mapc::rt::sourceRowOf(const TileMap &from,
                                               const TileMap &to) {
  if (!to.replicates() || from.replicates() || !TileWalk::walkable(from))
    return std::nullopt;
  std::vector<int64_t> offsets;
  TileMap firstCopy = to;
  if (!replicaOffsets(to, firstCopy, offsets) || !TileWalk::walkable(firstCopy))
    return std::nullopt;
  const int64_t toSlots = slotsOf(to), toPes = pesOf(to);
  if (toSlots * toPes != to.deviceSize() || int64_t(offsets.size()) != toPes)
    return std::nullopt;
  std::sort(offsets.begin(), offsets.end());
  for (int64_t k = 0; k < toPes; ++k)
    if (offsets[size_t(k)] != k * toSlots)
      return std::nullopt;
  SourceRow row;
  row.cells.assign(size_t(toSlots), kNoSource);
  TileWalk a(from), b(firstCopy);
  for (int64_t n = to.dataSize(); b.index() < n; a.next(), b.next()) {
    if (b.address() < 0 || b.address() >= toSlots)
      return std::nullopt;
    row.cells[size_t(b.address())] = uint32_t(a.address());
  }
  return row;
}

std::vector<uint32_t> mapc::rt::sourcesOfRow(const SourceRow &row,
                                             int64_t pes) {
  std::vector<uint32_t> table;
  table.reserve(row.cells.size() * size_t(std::max<int64_t>(0, pes)));
  for (int64_t q = 0; q < pes; ++q)
    table.insert(table.end(), row.cells.begin(), row.cells.end());
  return table;
}

std::optional<std::pair<int64_t, int64_t>>
mapc::rt::identityMoveFigures(const TileMap &from, const TileMap &to) {
  if (!(from == to) || !TileWalk::walkable(to))
    return std::nullopt;
  return std::make_pair(int64_t(0), to.dataSize());
}

MoveShape mapc::rt::analyseMove(const TileMap &from, const TileMap &to,
                                const std::vector<uint32_t> &sources) {
  MoveShape s;
  const int64_t toSlots = slotsOf(to), fromSlots = slotsOf(from);
  std::vector<int64_t> readsFrom(static_cast<size_t>(toSlots), -1);
  std::vector<int64_t> feeds(size_t(fromSlots), -1);
  std::vector<int64_t> perSource(size_t(std::max<int64_t>(1, pesOf(from))), 0);
  s.leaving.assign(perSource.size(), 0);
  // Destination cells PE by PE, slot by slot: one division per held cell,
  // by a multiplication (FastDivide.h).
  const Divider32 bySlots{uint64_t(fromSlots)};
  const int64_t cells = int64_t(sources.size());
  for (int64_t bp = 0, b = 0; b < cells; ++bp)
    for (int64_t bs = 0; bs < toSlots && b < cells; ++bs, ++b) {
      if (sources[size_t(b)] == kNoSource)
        continue;
      const int64_t a = sources[size_t(b)];
      const int64_t ap = bySlots.quotient(uint32_t(a)), as = a - ap * fromSlots;
      ++s.held;
      if (size_t(ap) < perSource.size()) {
        s.busiestSource = std::max(s.busiestSource, ++perSource[size_t(ap)]);
        s.leaving[size_t(ap)] += ap != bp;
      }
      s.keepsSlots &= as == bs;
      if (ap != bp || as != bs) {
        s.identity = false;
        ++s.moved;
      }
      s.local &= ap == bp;
      s.slotUniformTo &= sameAsBefore(readsFrom[size_t(bs)], as);
      s.slotUniformFrom &= sameAsBefore(feeds[size_t(as)], bs);
    }
  return s;
}

// The walk above, cell (q, t) taking row[t] on each of the destination's
// PEs q: each count is the row's summed over the PEs, less the one PE (the
// source's, if the destination has it) where the element keeps its PE.
MoveShape mapc::rt::analyseMove(const TileMap &from, const TileMap &to,
                                const SourceRow &row) {
  MoveShape s;
  const int64_t toPes = pesOf(to), fromSlots = slotsOf(from);
  std::vector<int64_t> readsFrom(row.cells.size(), -1);
  std::vector<int64_t> feeds(size_t(fromSlots), -1);
  std::vector<int64_t> perSource(size_t(std::max<int64_t>(1, pesOf(from))), 0);
  s.leaving.assign(perSource.size(), 0);
  if (toPes <= 0)
    return s;
  for (int64_t t = 0; t < int64_t(row.cells.size()); ++t) {
    if (row.cells[size_t(t)] == kNoSource)
      continue;
    const int64_t a = row.cells[size_t(t)];
    const int64_t ap = a / fromSlots, as = a % fromSlots;
    // The destination's PEs where the element keeps its PE: ap, if any.
    const int64_t home = ap < toPes ? 1 : 0;
    s.held += toPes;
    if (size_t(ap) < perSource.size()) {
      perSource[size_t(ap)] += toPes;
      s.busiestSource = std::max(s.busiestSource, perSource[size_t(ap)]);
      s.leaving[size_t(ap)] += toPes - home;
    }
    s.keepsSlots &= as == t;
    const int64_t moved = as == t ? toPes - home : toPes;
    s.moved += moved;
    s.identity &= moved == 0;
    s.local &= toPes == home;
    s.slotUniformTo &= sameAsBefore(readsFrom[size_t(t)], as);
    s.slotUniformFrom &= sameAsBefore(feeds[size_t(as)], t);
  }
  return s;
}

MoveShape mapc::rt::analyseMove(const MoveCounts &counts, int64_t fromPes) {
  MoveShape s;
  s.held = counts.elements;
  int64_t stays = 0;
  for (int64_t n : counts.stay)
    stays += n;
  s.moved = counts.elements - stays;
  s.identity = s.moved == 0;
  s.keepsSlots = counts.sameSlot == counts.elements;
  s.slotUniformTo = counts.slotUniformTo;
  s.slotUniformFrom = counts.slotUniformFrom;
  // From the pairs' totals per PE (a separable move's from its factors).
  const PeTotals t = counts.peTotals();
  s.leaving.assign(size_t(std::max<int64_t>(1, fromPes)), 0);
  int64_t kept = 0;
  for (size_t p = 0; p < t.sent.size(); ++p) {
    kept += t.kept[p];
    if (p >= s.leaving.size())
      continue;
    s.busiestSource = std::max(s.busiestSource, t.sent[p]);
    s.leaving[p] = t.sent[p] - t.kept[p];
  }
  s.local = kept == counts.elements;
  return s;
}

void mapc::rt::stepRegions(const GeneralPlan &plan, size_t i,
                           const Regions &regions, uint64_t &readBase,
                           uint64_t &writeBase) {
  // Forward from the source: an in-place step writes where it reads; any
  // other writes the region the data is not in (the destination, or the
  // scratch when the data is in the destination). A copy leaves the source
  // for the region that makes its last step out of place write the
  // destination: the scratch when an even number of steps are.
  size_t outOfPlace = 0;
  for (const GeneralStep &s : plan.steps)
    outOfPlace += !s.inPlace;
  const bool viaScratch = plan.copy && outOfPlace % 2 == 0;
  uint64_t now = plan.copy ? regions.src.base : regions.dst.base;
  for (size_t k = 0; k <= i && k < plan.steps.size(); ++k) {
    readBase = now;
    if (!plan.steps[k].inPlace)
      now = now == regions.dst.base || (now == regions.src.base && viaScratch)
                ? regions.scratch.base
                : regions.dst.base;
    writeBase = now;
  }
}

namespace {

/// A slotwise send of the pricing machine: its width and (sender,
/// receiver) pairs, which alone decide its router ticks.
struct SendKey {
  unsigned bytes;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  bool operator==(const SendKey &o) const {
    return bytes == o.bytes && pairs == o.pairs;
  }
};
struct SendKeyHash {
  size_t operator()(const SendKey &k) const {
    uint64_t h = 0xcbf29ce484222325ull ^ k.bytes; // FNV-1a over the words
    for (const auto &[p, q] : k.pairs)
      h = (h ^ (uint64_t(p) << 32 | q)) * 0x100000001b3ull;
    return size_t(h);
  }
};

/// What a pricing machine of `pes` PEs makes of a step from `from` to `to`
/// given the move's row alone (runGeneralStep's checks, read off the row):
/// it refuses it (`why`), prices its built all-gather (`gather`), or needs
/// the table.
enum class RowUse { Table, Refused, AllGather };
RowUse rowUse(GeneralStepKind kind, bool inPlace, const TileMap &from,
              const TileMap &to, const SourceRow &row, unsigned pes,
              std::optional<AllGatherMove> *gather, const char **why) {
  if (pesOf(from) > pes || pesOf(to) > pes)
    return RowUse::Table; // refused before any table, as runGeneralStep does
  const int64_t fromSlots = slotsOf(from), toPes = pesOf(to);
  if (kind == GeneralStepKind::DigitExchange &&
      (fromSlots != slotsOf(to) || pesOf(from) != toPes)) {
    *why = "a digit exchange keeps the number of slots and PEs";
    return RowUse::Refused;
  }
  if (kind != GeneralStepKind::Exchange)
    return RowUse::Table;
  if (inPlace) {
    // runExchange's first check: cell (ap, t) of an element from slot as
    // of PE ap keeps its PE but not its slot when as != t.
    for (size_t t = 0; t < row.cells.size(); ++t) {
      const uint32_t a = row.cells[t];
      if (a != kNoSource && int64_t(a) / fromSlots < toPes &&
          uint64_t(a % fromSlots) != t) {
        *why = "an in-place exchange step cannot also move elements within "
               "a PE";
        return RowUse::Refused;
      }
    }
    return RowUse::Table;
  }
  // Out of place runExchange prices the built all-gather from its shape
  // when exchangeSchedule would take it (a row's destination replicates,
  // so the pair counts never price it).
  *gather = readAllGather(from, to, row, pes);
  if (*gather && builtAllGatherChosen(**gather) == true)
    return RowUse::AllGather;
  return RowUse::Table;
}

/// One step in progress: the transfers grouped by PE, and the widths.
class GeneralStepRunner {
public:
  GeneralStepRunner(MasPar &m, const GeneralPlan &plan, size_t i,
                    uint64_t readBase, uint64_t writeBase,
                    const std::vector<uint32_t> *given,
                    const MoveCounts *counts, const SourceRow *row)
      : m(m), from(plan.layoutAfter(int(i) - 1)), to(plan.steps[i].to),
        kind(plan.steps[i].kind), inPlace(plan.steps[i].inPlace),
        elemBytes(plan.elemBytes), readBase(readBase), writeBase(writeBase),
        pes(m.peCount()), given(given), counts(counts), row(row) {
    xferBytes = std::min(elemBytes, 8u);
    xfers = elemBytes / xferBytes;
    fromSlots = slotsOf(from);
    toSlots = slotsOf(to);
  }

  bool run(std::string *why);

private:
  MasPar &m;
  const TileMap &from, &to;
  GeneralStepKind kind;
  bool inPlace;
  unsigned elemBytes, xferBytes = 1, xfers = 1;
  uint64_t readBase, writeBase;
  unsigned pes;
  int64_t fromSlots = 1, toSlots = 1;
  /// Where each destination cell's element comes from (sourcesOf): the
  /// caller's table, or one computed here.
  const std::vector<uint32_t> *given = nullptr;
  std::vector<uint32_t> owned;
  const uint32_t *sources = nullptr;
  /// The counts of this move (MoveCounts.h), or null.
  const MoveCounts *counts = nullptr;
  /// The row of this move (sourceRowOf), or null.
  const SourceRow *row = nullptr;

  uint64_t readAddr(int64_t slot, unsigned x) const {
    return readBase + uint64_t(slot) * elemBytes + uint64_t(x) * xferBytes;
  }
  uint64_t writeAddr(int64_t slot, unsigned x) const {
    return writeBase + uint64_t(slot) * elemBytes + uint64_t(x) * xferBytes;
  }

  bool runLocal(std::string *why);
  bool priceCopyBack();
  bool priceExchangeByCounts(std::string *why, bool &done);
  void priceAllGatherByRow(const AllGatherMove &gather);
  bool moveLocal(bool onlyLocal, std::string *why);
  bool runExchange(std::string *why);
  void copyWithinPes(const std::vector<ExchangeSend> &copies);
  bool runLocalInPlace(const std::vector<int64_t> &readSlot);
  bool runSlotwise(std::string *why);
  bool runBruteForce(std::string *why);
  bool runDigitExchangeStep(std::string *why);
  bool runResignifyStep(std::string *why);
  /// Options for runTransfers (TransferRounds.h) moving this step's
  /// elements over `slots` slots a PE.
  TransferOptions transferOptions(int64_t slots) const {
    TransferOptions opt;
    opt.readBase = readBase;
    opt.writeBase = writeBase;
    opt.elemBytes = elemBytes;
    opt.inPlace = inPlace;
    opt.stackLimit = kInPlaceStackLimit;
    opt.slots = slots;
    return opt;
  }

  /// The (sender, receiver) pairs of every source slot of a slotwise step,
  /// slot by slot in one array.
  struct SlotSends {
    std::vector<uint32_t> start; ///< per slot, its first pair; then the end
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    struct List {
      const std::pair<uint32_t, uint32_t> *b, *e;
      const std::pair<uint32_t, uint32_t> *begin() const { return b; }
      const std::pair<uint32_t, uint32_t> *end() const { return e; }
      bool empty() const { return b == e; }
      bool operator==(const List &o) const {
        return e - b == o.e - o.b && std::equal(b, e, o.b);
      }
    };
    List of(int64_t s) const {
      return {pairs.data() + start[size_t(s)],
              pairs.data() + start[size_t(s) + 1]};
    }
  };

  /// How many source slots from `s` on one slotwise send can carry: a
  /// power of two of elements of at most 64 bits together, each slot with
  /// the same (sender, receiver) pairs and the next destination slot.
  unsigned chunkRun(const std::vector<int64_t> &target, const SlotSends &sends,
                    int64_t s) const;
};

} // namespace

bool GeneralStepRunner::run(std::string *why) {
  auto fail = [&](const std::string &w) {
    if (why)
      *why = w;
    return false;
  };
  if (pesOf(from) > pes || pesOf(to) > pes)
    return fail("a layout spans more PEs than the machine has");
  if (m.pricingOnly() && kind == GeneralStepKind::Local && !inPlace &&
      from == to && priceCopyBack())
    return true;
  if (counts && m.pricingOnly()) {
    // What the counts price, or refuse, without the table of sources.
    if (kind == GeneralStepKind::DigitExchange &&
        (slotsOf(from) != slotsOf(to) || pesOf(from) != pesOf(to)))
      return fail("a digit exchange keeps the number of slots and PEs");
    if (kind == GeneralStepKind::DigitExchange)
      if (const char *no =
              digitExchangeRefusal(*counts, slotsOf(to), pesOf(to)))
        return fail(no);
    bool done = false;
    if (kind == GeneralStepKind::Exchange) {
      const bool priced = priceExchangeByCounts(why, done);
      if (done)
        return priced;
    }
  }
  if (row && m.pricingOnly()) {
    // What the row prices, or refuses, without the table of sources.
    std::optional<AllGatherMove> gather;
    const char *no = nullptr;
    switch (rowUse(kind, inPlace, from, to, *row, pes, &gather, &no)) {
    case RowUse::Refused:
      return fail(no);
    case RowUse::AllGather:
      priceAllGatherByRow(*gather);
      return true;
    case RowUse::Table:
      break;
    }
  }
  if (!given || given->size() != size_t(to.deviceSize())) {
    owned = sourcesOf(from, to);
    given = &owned;
  }
  sources = given->data();
  switch (kind) {
  case GeneralStepKind::Local:
    return runLocal(why);
  case GeneralStepKind::Slotwise:
    return runSlotwise(why);
  case GeneralStepKind::BruteForce:
    return runBruteForce(why);
  case GeneralStepKind::Exchange:
    return runExchange(why);
  case GeneralStepKind::Route:
    return fail("a route step needs a hypercube or mesh machine");
  case GeneralStepKind::DigitExchange:
    return runDigitExchangeStep(why);
  case GeneralStepKind::Resignify:
    return runResignifyStep(why);
  }
  return fail("unknown step kind");
}

// 003 6.2.1's memory permutation: no element leaves its PE. When every PE
// reads the same slot for each slot it writes, one direct load and one
// direct store per slot serve all PEs; otherwise each PE walks its own list
// with indirect addressing, one element per round.
bool GeneralStepRunner::runLocal(std::string *why) {
  return moveLocal(/*onlyLocal=*/false, why);
}

// A copy back from the scratch region (an identity local step, General.h)
// is moveLocal's uniform case: one direct load and store per slot some PE
// holds. Priced from a walk of the layout's data marking the held slots,
// without a table of sources; a layout replicated on plain digits holds
// the slots of its first copy's cells plus each copy's offset; false
// (charging nothing) for any other that replicates.
bool GeneralStepRunner::priceCopyBack() {
  const unsigned wi = widthIndex(xferBytes);
  const int64_t perSlot = xfers * (m.cost().load[wi] + m.cost().store(wi));
  if (!TileWalk::walkable(to)) {
    std::optional<int64_t> slots = replicatedHeldSlots(to);
    if (slots)
      m.ledger().memory += *slots * perSlot;
    return slots.has_value();
  }
  // A one-dim layout counts its slots from its runs (MoveCounts.h).
  if (std::optional<int64_t> held = heldSlotsByRuns(to)) {
    m.ledger().memory += *held * perSlot;
    return true;
  }
  std::vector<uint8_t> held(size_t(toSlots), 0);
  int64_t slots = 0;
  TileWalk w(to);
  for (int64_t n = to.dataSize(); w.index() < n; w.next()) {
    uint8_t &h = held[size_t(w.address() % toSlots)];
    slots += !h;
    h = 1;
  }
  m.ledger().memory += slots * perSlot;
  return true;
}

// runExchange on the pricing machine for an all-gather whose built rounds
// exchangeSchedule takes, from the move's row: moveLocal's charges (each
// slot's cell on the element's own PE is that PE's alone, so every PE
// moves the same slots: a direct load and store per slot), the rounds
// priced from the source PEs, the receivers' copies.
void GeneralStepRunner::priceAllGatherByRow(const AllGatherMove &gather) {
  const int64_t toPes = pesOf(to);
  int64_t count = 0;
  for (uint32_t a : row->cells)
    count += a != kNoSource && int64_t(a) / fromSlots < toPes;
  const unsigned w = widthIndex(xferBytes);
  m.ledger().memory += count * xfers * (m.cost().load[w] + m.cost().store(w));
  chargeBuiltAllGather(m, gather, xferBytes, xfers);
  copyWithinPes(gather.fanOut);
}

// An exchange step priced from the move's counts as runExchange prices it
// from the table: in place it fails when an element keeps its PE but not
// its slot; out of place, when the rounds come from pair counts
// (chargeExchangeFromPairs), the elements that keep their PE are charged as
// moveLocal charges them. `done` is false, charging nothing, when the
// table is needed after all.
bool GeneralStepRunner::priceExchangeByCounts(std::string *why, bool &done) {
  done = true;
  if (inPlace) {
    if (counts->localMoves() == 0) {
      done = false;
      return false;
    }
    if (why)
      *why = "an in-place exchange step cannot also move elements within a PE";
    return false;
  }
  // The elements that keep their PE, from the pairs of a PE with itself.
  const std::vector<PePairCount> kept = counts->keptPairs();
  int64_t busiestLocal = 0, keptElements = 0;
  for (const PePairCount &p : kept) {
    busiestLocal = std::max(busiestLocal, p.count);
    keptElements += p.count;
  }
  const uint64_t sends = uint64_t(counts->elements - keptElements);
  // A separable move is priced from its factors, without its pairs listed
  // again (ProductRounds.h).
  if (!chargeExchangeByFactors(m, from, to, *counts, sends,
                               counts->pairCount() - kept.size(), elemBytes)) {
    std::vector<PairCount> pairs;
    pairs.reserve(counts->pairCount());
    for (const PePairCount &p : counts->pairs())
      if (p.from != p.to)
        pairs.push_back({p.from, p.to, uint64_t(p.count)});
    if (!chargeExchangeFromPairs(m, from, to, std::move(pairs), sends,
                                 elemBytes)) {
      done = false;
      return false;
    }
  }
  const unsigned w = widthIndex(xferBytes);
  const CostModel &c = m.cost();
  m.ledger().memory +=
      counts->localUniform
          ? counts->localSlots * xfers * (c.load[w] + c.store(w))
          : busiestLocal * xfers * (c.loadIndirect[w] + c.storeIndirect(w));
  return true;
}

// The elements that keep their PE; with `onlyLocal` the others are left to
// the caller, otherwise there must be none.
bool GeneralStepRunner::moveLocal(bool onlyLocal, std::string *why) {
  const int64_t toPes = pesOf(to);
  std::vector<int64_t> readSlot(size_t(toSlots), -1);
  bool uniform = true;
  const Divider32 bySlots{uint64_t(fromSlots)};
  // A cell whose element comes from another PE, when onlyLocal.
  auto remote = [&](int64_t q, int64_t t) {
    uint32_t a = sources[size_t(q * toSlots + t)];
    return a != kNoSource && int64_t(bySlots.quotient(a)) != q;
  };
  for (int64_t q = 0; q < toPes; ++q)
    for (int64_t t = 0; t < toSlots; ++t) {
      uint32_t a = sources[size_t(q * toSlots + t)];
      if (a == kNoSource)
        continue;
      const int64_t ap = bySlots.quotient(a);
      if (ap != q) {
        if (onlyLocal)
          continue;
        if (why)
          *why = "an element changes PE in a local step";
        return false;
      }
      const int64_t as = int64_t(a) - ap * fromSlots;
      int64_t &r = readSlot[size_t(t)];
      uniform &= r < 0 || r == as;
      r = as;
    }
  Mask active(pes, 0);
  if (inPlace) {
    if (!uniform) {
      if (why)
        *why = "an in-place local step needs every PE to move the same slots";
      return false;
    }
    return runLocalInPlace(readSlot);
  }
  if (m.pricingOnly()) {
    // The same charges without plurals: a direct load and store per slot
    // some PE moves an element into, or an indirect pair per round of the
    // busiest PE's list.
    const unsigned w = widthIndex(xferBytes);
    const CostModel &c = m.cost();
    int64_t count = 0;
    if (uniform) {
      for (int64_t t = 0; t < toSlots; ++t)
        count += readSlot[size_t(t)] >= 0;
      m.ledger().memory += count * xfers * (c.load[w] + c.store(w));
      return true;
    }
    for (int64_t q = 0; q < toPes; ++q) {
      int64_t n = 0;
      for (int64_t t = 0; t < toSlots; ++t) {
        uint32_t a = sources[size_t(q * toSlots + t)];
        n += a != kNoSource && !remote(q, t);
      }
      count = std::max(count, n);
    }
    m.ledger().memory +=
        count * xfers * (c.loadIndirect[w] + c.storeIndirect(w));
    return true;
  }
  if (uniform) {
    for (int64_t t = 0; t < toSlots; ++t) {
      if (readSlot[size_t(t)] < 0)
        continue;
      for (int64_t q = 0; q < toPes; ++q)
        active[size_t(q)] =
            sources[size_t(q * toSlots + t)] != kNoSource && !remote(q, t);
      for (unsigned x = 0; x < xfers; ++x) {
        Plural z = m.load(xferBytes, readAddr(readSlot[size_t(t)], x), active);
        m.store(xferBytes, writeAddr(t, x), z, active);
      }
    }
    return true;
  }
  // Per PE, its elements in destination slot order (source and destination
  // slot, below 2^28 as a general plan's cells are); round r moves the r-th.
  // Each list counted first and reserved at once: grown by doubling, a
  // list past the heap's mmap threshold faults every copy in anew.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> lists(
      static_cast<size_t>(toPes));
  size_t rounds = 0;
  for (int64_t q = 0; q < toPes; ++q) {
    size_t held = 0;
    for (int64_t t = 0; t < toSlots; ++t) {
      uint32_t a = sources[size_t(q * toSlots + t)];
      held += a != kNoSource && !remote(q, t);
    }
    lists[size_t(q)].reserve(held);
    for (int64_t t = 0; t < toSlots; ++t) {
      uint32_t a = sources[size_t(q * toSlots + t)];
      if (a != kNoSource && !remote(q, t))
        lists[size_t(q)].push_back(
            {uint32_t(int64_t(a) % fromSlots), uint32_t(t)});
    }
    rounds = std::max(rounds, lists[size_t(q)].size());
  }
  Plural ra(pes, 0), wa(pes, 0);
  for (size_t r = 0; r < rounds; ++r) {
    for (int64_t q = 0; q < toPes; ++q) {
      const auto &l = lists[size_t(q)];
      active[size_t(q)] = r < l.size();
      if (r < l.size()) {
        ra[size_t(q)] = readAddr(l[r].first, 0);
        wa[size_t(q)] = writeAddr(l[r].second, 0);
      }
    }
    for (unsigned x = 0; x < xfers; ++x) {
      Plural z = m.loadIndirect(xferBytes, ra, active);
      m.storeIndirect(xferBytes, wa, z, active);
      for (int64_t q = 0; q < toPes; ++q) {
        ra[size_t(q)] += xferBytes;
        wa[size_t(q)] += xferBytes;
      }
    }
  }
  return true;
}

// permute_m in place (003 4.4.5, function 4.2): the slot map is the same in
// every PE and one-to-one, so its chains and cycles are walked with direct
// addresses: a chain ending at a slot no element needs is moved from its
// end backwards, a cycle through one held value. Every PE takes part; where
// a PE holds nothing at a slot, garbage moves and nothing is lost.
bool GeneralStepRunner::runLocalInPlace(const std::vector<int64_t> &readSlot) {
  const int64_t slots = std::max(fromSlots, toSlots);
  std::vector<int64_t> next(size_t(slots), -1), prev(size_t(slots), -1);
  for (int64_t t = 0; t < toSlots; ++t) {
    int64_t a = readSlot[size_t(t)];
    if (a >= 0 && a != t) {
      next[size_t(a)] = t;
      prev[size_t(t)] = a;
    }
  }
  Mask all(pes, 1);
  auto move = [&](int64_t a, int64_t t) {
    for (unsigned x = 0; x < xfers; ++x)
      m.store(xferBytes, writeAddr(t, x),
              m.load(xferBytes, readAddr(a, x), all), all);
  };
  std::vector<uint8_t> done(size_t(slots), 0);
  // Chains: start at a target whose own element does not move on.
  for (int64_t t = 0; t < slots; ++t) {
    if (prev[size_t(t)] < 0 || next[size_t(t)] >= 0)
      continue;
    for (int64_t x = t; prev[size_t(x)] >= 0; x = prev[size_t(x)]) {
      move(prev[size_t(x)], x);
      done[size_t(x)] = 1;
    }
  }
  // Cycles: hold the last element, shift the rest, put it at the start.
  std::vector<Plural> hold(xfers);
  for (int64_t t = 0; t < slots; ++t) {
    if (done[size_t(t)] || prev[size_t(t)] < 0)
      continue;
    const int64_t from = prev[size_t(t)];
    for (unsigned x = 0; x < xfers; ++x)
      hold[x] = m.load(xferBytes, readAddr(from, x), all);
    int64_t x = from;
    done[size_t(t)] = 1;
    while (x != t) {
      move(prev[size_t(x)], x);
      done[size_t(x)] = 1;
      x = prev[size_t(x)];
    }
    for (unsigned k = 0; k < xfers; ++k)
      m.store(xferBytes, writeAddr(t, k), hold[k], all);
  }
  return true;
}

// permute_p per slot (003 6.2.1, function 4.1): for each source slot s, the
// PEs holding an element there send it to its PE, which stores it at the one
// slot t(s) every element of s goes to; direct addresses on both sides, no
// address sent. A sender feeding several PEs (replication) sends once per
// copy, in successive sends.
bool GeneralStepRunner::runSlotwise(std::string *why) {
  const int64_t toPes = pesOf(to);
  // Per source slot: its destination slot and its (sender, receiver) pairs,
  // receivers ascending, kept slot by slot in one array (SlotSends).
  std::vector<int64_t> target(size_t(fromSlots), -1);
  SlotSends sends;
  // A counting sort by source slot written out, not CountingSort.h's: through
  // it this loop took 1.8% more instructions (callgrind, --run of the
  // bench's 6.2.1 processor permutation: 10.07M -> 10.25M).
  sends.start.assign(size_t(fromSlots) + 1, 0);
  // Source cells split into PE and slot without a divide instruction.
  const Divider32 bySlots{uint64_t(fromSlots)};
  for (int64_t q = 0; q < toPes; ++q)
    for (int64_t t = 0; t < toSlots; ++t) {
      uint32_t a = sources[size_t(q * toSlots + t)];
      if (a == kNoSource)
        continue;
      int64_t s = bySlots.remainder(a);
      if (target[size_t(s)] >= 0 && target[size_t(s)] != t) {
        if (why)
          *why = "a source slot feeds two destination slots";
        return false;
      }
      target[size_t(s)] = t;
      ++sends.start[size_t(s) + 1];
    }
  for (int64_t s = 0; s < fromSlots; ++s)
    sends.start[size_t(s) + 1] += sends.start[size_t(s)];
  sends.pairs.resize(sends.start.back());
  {
    std::vector<uint32_t> fill(sends.start.begin(), sends.start.end() - 1);
    for (int64_t q = 0; q < toPes; ++q)
      for (int64_t t = 0; t < toSlots; ++t) {
        uint32_t a = sources[size_t(q * toSlots + t)];
        if (a != kNoSource) {
          const uint32_t p = bySlots.quotient(a);
          sends.pairs[fill[size_t(a - p * uint32_t(fromSlots))]++] = {
              p, uint32_t(q)};
        }
      }
  }
  if (inPlace)
    for (int64_t s = 0; s < fromSlots; ++s)
      if (target[size_t(s)] >= 0 && target[size_t(s)] != s) {
        if (why)
          *why = "an in-place slotwise step must keep every slot";
        return false;
      }
  Mask senders(pes, 0), active(pes, 0), received(pes, 0), stay(pes, 0);
  Plural dest(pes, 0);
  std::vector<uint32_t> copies(pes, 0);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> byRound;
  // Pricing only: every send priced so far (its width and pairs), as the
  // slots of a digit permutation repeat a few lists of pairs, not always
  // one after another; the last one looked up.
  std::unordered_map<SendKey, int64_t, SendKeyHash> sendTicks;
  const std::pair<const SendKey, int64_t> *last = nullptr;
  for (int64_t s = 0; s < fromSlots;) {
    const SlotSends::List list = sends.of(s);
    if (list.empty()) {
      ++s;
      continue;
    }
    // 003 5.6.3's chunks: consecutive source slots with the same senders
    // and receivers, bound for consecutive destination slots, travel
    // together as one load, one send and one store of up to 64 bits.
    const unsigned chunk = chunkRun(target, sends, s);
    const unsigned bytes = xferBytes * chunk;
    s += chunk;
    // Round r carries every sender's r-th copy to another PE; an element
    // that keeps its PE is stored with the first round's (or not at all, in
    // place).
    byRound.clear();
    bool staying = false;
    for (const auto &[p, q] : list) {
      senders[p] = 1;
      if (p == q) {
        stay[p] = !inPlace;
        staying |= !inPlace;
        continue;
      }
      uint32_t r = copies[p]++;
      if (r >= byRound.size())
        byRound.resize(r + 1);
      byRound[r].push_back({p, q});
    }
    if (byRound.empty() && staying)
      byRound.emplace_back();
    const int64_t first = s - chunk;
    if (m.pricingOnly()) {
      // The same charges without plurals: consecutive slots mostly send
      // between the same PEs, so the last send's price is kept.
      const unsigned wb = widthIndex(bytes);
      Ledger &ledger = m.ledger();
      for (unsigned x = 0; x < xfers; ++x) {
        ledger.memory += m.cost().load[wb];
        for (size_t r = 0; r < byRound.size(); ++r) {
          if (!byRound[r].empty()) {
            if (!last || bytes != last->first.bytes ||
                byRound[r] != last->first.pairs) {
              auto [it, fresh] =
                  sendTicks.try_emplace(SendKey{bytes, byRound[r]}, 0);
              // From the pairs: a walk of every PE a send made a
              // broadcast's n sends of one element n^2.
              if (fresh)
                it->second = m.cheaperRouterCostOfPairs(bytes, byRound[r]);
              last = &*it;
            }
            ledger.router += last->second;
            ledger.routerSends += last->second > 0;
          }
          if (!byRound[r].empty() || (r == 0 && staying))
            ledger.memory += m.cost().store(wb);
        }
      }
      for (const auto &pq : list) {
        senders[pq.first] = 0;
        copies[pq.first] = 0;
        stay[pq.first] = 0;
      }
      continue;
    }
    for (unsigned x = 0; x < xfers; ++x) {
      Plural z = m.load(bytes, readAddr(first, x), senders);
      for (size_t r = 0; r < byRound.size(); ++r) {
        for (const auto &[p, q] : byRound[r]) {
          active[p] = 1;
          dest[p] = q;
        }
        // Plain or clustered connections, whichever is cheaper (5.6.4).
        Plural got = m.routerSendCheaper(bytes, z, dest, active, received);
        if (r == 0 && staying)
          for (unsigned p = 0; p < pes; ++p)
            if (stay[p]) {
              got[p] = z[p];
              received[p] = 1;
            }
        m.store(bytes, writeAddr(target[size_t(first)], x), got, received);
        for (const auto &pq : byRound[r])
          active[pq.first] = 0;
      }
    }
    for (const auto &pq : list) {
      senders[pq.first] = 0;
      copies[pq.first] = 0;
      stay[pq.first] = 0;
    }
  }
  return true;
}

unsigned GeneralStepRunner::chunkRun(const std::vector<int64_t> &target,
                                     const SlotSends &sends, int64_t s) const {
  // Elements wider than 32 bits, or of a width that is not a power of two,
  // travel alone.
  if (xfers != 1 || (elemBytes & (elemBytes - 1)) != 0 || elemBytes >= 8)
    return 1;
  unsigned run = 1;
  const unsigned most = 8 / elemBytes;
  while (run < most && s + run < fromSlots &&
         target[size_t(s + run)] == target[size_t(s)] + int64_t(run) &&
         sends.of(s + run) == sends.of(s))
    ++run;
  // The widths are 1, 2, 4 or 8 bytes: round down to a power of two.
  unsigned chunk = 1;
  while (chunk * 2 <= run)
    chunk *= 2;
  return chunk;
}

// A contention-free schedule of sends (003 6.4 at the level of PEs, and
// 6.2.1's exchange_dig as a special case): the elements that change PE
// are coloured so that in each round every PE sends at most one and
// receives at most one, in as few rounds as the busiest PE needs; no
// address travels and no two senders collide. Each round a PE reads its
// entry of the precomputed schedule (one direct 64-bit load: source slot,
// partner, destination slot), then an indirect load, a send and an indirect
// store. Elements that keep their PE move as in a local step. In place,
// rounds run in groups that load before they store (inPlaceGroups), and
// every element that keeps its PE must keep its slot too.
bool GeneralStepRunner::runExchange(std::string *why) {
  auto fail = [&](const char *w) {
    if (why)
      *why = w;
    return false;
  };
  if (inPlace) {
    for (int64_t b = 0; b < int64_t(given->size()); ++b) {
      uint32_t a = sources[b];
      if (a != kNoSource && int64_t(a) / fromSlots == b / toSlots &&
          int64_t(a) % fromSlots != b % toSlots)
        return fail("an in-place exchange step cannot also move elements "
                    "within a PE");
    }
  } else if (!moveLocal(/*onlyLocal=*/true, why)) {
    return false;
  } else if (m.pricingOnly() &&
             chargeExchangeByPairs(m, from, to, sources, elemBytes)) {
    // Priced from its pair counts, the rounds never built: the same ticks
    // as the rounds the executor builds from those counts (ExchangePrice.h).
    return true;
  } else if (m.pricingOnly() && to.replicates()) {
    // An all-gather whose built rounds exchangeSchedule takes: priced from
    // its source PEs, the rounds never built (AllGatherPrice.h).
    if (const std::optional<AllGatherMove> gather =
            readAllGather(from, to, *given, pes);
        gather && builtAllGatherChosen(*gather) == true) {
      chargeBuiltAllGather(m, *gather, xferBytes, xfers);
      copyWithinPes(gather->fanOut);
      return true;
    }
  }
  // Planners price a move out of place and then in place: the pricing
  // machine keeps the last schedule. Without a replicated destination no
  // element is forwarded, so both forms take the same rounds.
  struct Last {
    TileMap from, to;
    bool forward = false, found = false;
    ExchangeRoundList rounds;
    std::vector<ExchangeSend> fanOut;
  };
  thread_local std::unique_ptr<Last> last;
  ExchangeRoundList ownRounds;
  std::vector<ExchangeSend> ownFanOut;
  const ExchangeRoundList *rounds = &ownRounds;
  const std::vector<ExchangeSend> *fanOutOf = &ownFanOut;
  const bool forward = !inPlace;
  if (m.pricingOnly() && last && last->from == from && last->to == to &&
      (last->forward == forward || !to.replicates())) {
    if (!last->found)
      return fail("no contention-free schedule found within the search budget");
    rounds = &last->rounds;
    fanOutOf = &last->fanOut;
  } else {
    const bool found =
        exchangeSchedule(from, to, *given, pes, ownRounds, ownFanOut, forward);
    if (m.pricingOnly()) {
      if (!last)
        last = std::make_unique<Last>();
      last->from = from;
      last->to = to;
      last->forward = forward;
      last->found = found;
      last->rounds = std::move(ownRounds);
      last->fanOut = std::move(ownFanOut);
      rounds = &last->rounds;
      fanOutOf = &last->fanOut;
    }
    if (!found)
      return fail("no contention-free schedule found within the search budget");
  }
  const ExchangeRoundList &byRound = *rounds;
  const std::vector<ExchangeSend> &fanOut = *fanOutOf;
  // Out of place every round is a group of its own (no list of groups).
  RoundGroups groups;
  constexpr unsigned kMaxHeld = 8; // elements a PE holds in registers
  if (inPlace) {
    for (const ExchangeSend &e : byRound.sends())
      if (e.forwarded)
        return fail("an in-place exchange step cannot forward copies");
    uint64_t cells = uint64_t(std::max(fromSlots, toSlots));
    if (!inPlaceGroups(byRound, cells, kMaxHeld, groups))
      return fail("in place, the exchange rounds would hold more than 8 "
                  "elements per PE at once");
  }
  Mask active(pes, 0), received(pes, 0);
  Plural dest(pes, 0), raddr(pes, 0), recvAddr(pes, 0);
  std::vector<std::vector<Plural>> held;
  auto setUp = [&](ExchangeRound round, unsigned x) {
    for (const ExchangeSend &e : round) {
      active[e.srcPe] = 1;
      dest[e.srcPe] = e.dstPe;
      // A forwarded copy is read where it arrived.
      raddr[e.srcPe] =
          e.forwarded ? writeAddr(e.srcSlot, x) : readAddr(e.srcSlot, x);
      recvAddr[e.dstPe] = writeAddr(e.dstSlot, x);
    }
  };
  auto tearDown = [&](ExchangeRound round) {
    for (const ExchangeSend &e : round)
      active[e.srcPe] = 0;
  };
  auto runGroup = [&](RoundGroups::Group group) {
    // Every round of the group reads its elements first ...
    if (held.size() < group.size())
      held.resize(group.size(), std::vector<Plural>(xfers));
    for (size_t g = 0; g < group.size(); ++g) {
      const ExchangeRound round = byRound[group[g]];
      setUp(round, 0);
      m.tableLoad(8, active); // this round's schedule entry
      for (unsigned x = 0; x < xfers; ++x) {
        setUp(round, x);
        held[g][x] = m.loadIndirect(xferBytes, raddr, active);
      }
      tearDown(round);
    }
    // ... then sends and stores them.
    for (size_t g = 0; g < group.size(); ++g) {
      const ExchangeRound round = byRound[group[g]];
      for (unsigned x = 0; x < xfers; ++x) {
        setUp(round, x);
        Plural got =
            m.routerSendCheaper(xferBytes, held[g][x], dest, active, received);
        m.storeIndirect(xferBytes, recvAddr, got, received);
      }
      tearDown(round);
    }
  };
  if (inPlace)
    for (size_t g = 0; g < groups.size(); ++g)
      runGroup(groups[g]);
  else
    for (uint32_t r = 0; r < byRound.size(); ++r)
      runGroup({&r, 1});
  copyWithinPes(fanOut);
  return true;
}

// Copies inside each PE's written region (an exchange step's fan-out of
// received elements): one direct load and store per slot when every PE
// copies the same slots, one indirect pair per round otherwise.
void GeneralStepRunner::copyWithinPes(const std::vector<ExchangeSend> &copies) {
  if (copies.empty())
    return;
  std::vector<int64_t> fromSlot(size_t(toSlots), -1);
  bool uniform = true;
  for (const ExchangeSend &c : copies) {
    int64_t &f = fromSlot[c.dstSlot];
    uniform &= f < 0 || f == int64_t(c.srcSlot);
    f = c.srcSlot;
  }
  Mask active(pes, 0);
  if (uniform) {
    std::vector<std::vector<uint32_t>> pesAt(static_cast<size_t>(toSlots));
    for (const ExchangeSend &c : copies)
      pesAt[c.dstSlot].push_back(c.dstPe);
    for (int64_t t = 0; t < toSlots; ++t) {
      if (pesAt[size_t(t)].empty())
        continue;
      for (uint32_t p : pesAt[size_t(t)])
        active[p] = 1;
      for (unsigned x = 0; x < xfers; ++x) {
        Plural z = m.load(xferBytes, writeAddr(fromSlot[size_t(t)], x), active);
        m.store(xferBytes, writeAddr(t, x), z, active);
      }
      for (uint32_t p : pesAt[size_t(t)])
        active[p] = 0;
    }
    return;
  }
  std::vector<std::vector<const ExchangeSend *>> lists(pes);
  size_t rounds = 0;
  for (const ExchangeSend &c : copies) {
    lists[c.dstPe].push_back(&c);
    rounds = std::max(rounds, lists[c.dstPe].size());
  }
  Plural ra(pes, 0), wa(pes, 0);
  for (size_t r = 0; r < rounds; ++r) {
    for (unsigned p = 0; p < pes; ++p) {
      active[p] = r < lists[p].size();
      if (active[p]) {
        ra[p] = writeAddr(lists[p][r]->srcSlot, 0);
        wa[p] = writeAddr(lists[p][r]->dstSlot, 0);
      }
    }
    for (unsigned x = 0; x < xfers; ++x) {
      Plural z = m.loadIndirect(xferBytes, ra, active);
      m.storeIndirect(xferBytes, wa, z, active);
      for (unsigned p = 0; p < pes; ++p) {
        ra[p] += xferBytes;
        wa[p] += xferBytes;
      }
    }
  }
}

// brute_copy (003 function 6.2): every PE sends its elements one per round,
// each with its destination slot, starting at a skewed element (6.3.8) so
// that the first round's destinations spread over the PEs; senders that
// collide on one PE go in successive sends. Each round every sending PE
// computes its element's destination PE and slot: two mixed-radix
// divisions with remainder (the source cell's digits, then the destination
// cell's).
bool GeneralStepRunner::runBruteForce(std::string *why) {
  const int64_t toPes = pesOf(to), fromPes = pesOf(from);
  struct Transfer {
    uint32_t srcSlot, dstSlot, dstPe;
  };
  std::vector<std::vector<Transfer>> lists(static_cast<size_t>(fromPes));
  for (int64_t q = 0; q < toPes; ++q)
    for (int64_t t = 0; t < toSlots; ++t) {
      uint32_t a = sources[size_t(q * toSlots + t)];
      if (a != kNoSource)
        lists[size_t(int64_t(a) / fromSlots)].push_back(
            {uint32_t(int64_t(a) % fromSlots), uint32_t(t), uint32_t(q)});
    }
  size_t rounds = 0;
  for (auto &l : lists) {
    std::sort(l.begin(), l.end(), [](const Transfer &x, const Transfer &y) {
      return x.srcSlot != y.srcSlot ? x.srcSlot < y.srcSlot : x.dstPe < y.dstPe;
    });
    rounds = std::max(rounds, l.size());
  }
  // 6.3.8's skew: with more slots than PEs, PE p starts at element
  // p (|M| - 1) / (|P| - 1); otherwise at p mod |M|.
  std::vector<size_t> skew(size_t(fromPes), 0);
  for (int64_t p = 0; p < fromPes; ++p) {
    size_t n = lists[size_t(p)].size();
    if (n == 0)
      continue;
    int64_t start = fromSlots > fromPes && fromPes > 1
                        ? p * (fromSlots - 1) / (fromPes - 1)
                        : p % fromSlots;
    // The first element at or after slot `start`, in the PE's own list.
    const auto &l = lists[size_t(p)];
    size_t k = size_t(std::lower_bound(l.begin(), l.end(), start,
                                       [](const Transfer &x, int64_t v) {
                                         return int64_t(x.srcSlot) < v;
                                       }) -
                      l.begin());
    skew[size_t(p)] = k % n;
  }
  if (inPlace) {
    // 003 6.3.9: tags and bounded stacks instead of a scratch copy. Each
    // element goes to one cell (a cell read twice would be freed early).
    std::vector<std::vector<mapc::rt::SendItem>> items(
        static_cast<size_t>(fromPes));
    std::vector<uint8_t> read(size_t(fromPes * fromSlots), 0);
    for (int64_t p = 0; p < fromPes; ++p) {
      const auto &l = lists[size_t(p)];
      for (size_t r = 0; r < l.size(); ++r) {
        const auto &tr = l[(skew[size_t(p)] + r) % l.size()];
        if (read[size_t(p * fromSlots + tr.srcSlot)]++) {
          if (why)
            *why = "in-place brute force sends every element to one cell";
          return false;
        }
        if (int64_t(tr.dstPe) == p && tr.dstSlot == tr.srcSlot)
          continue;
        items[size_t(p)].push_back({tr.srcSlot, tr.dstSlot, tr.dstPe, 1, 2});
      }
    }
    runTransfers(m, items, transferOptions(std::max(fromSlots, toSlots)));
    return true;
  }
  Mask sending(pes, 0), active(pes, 0), received(pes, 0);
  Plural dproc(pes, 0), raddr(pes, 0), waddr(pes, 0), recvAddr(pes, 0);
  std::vector<uint32_t> rank(pes, 0), load(pes, 0);
  for (size_t r = 0; r < rounds; ++r) {
    std::fill(load.begin(), load.end(), 0);
    uint32_t sub = 0;
    for (int64_t p = 0; p < fromPes; ++p) {
      const auto &l = lists[size_t(p)];
      sending[size_t(p)] = r < l.size();
      if (r >= l.size())
        continue;
      const Transfer &tr = l[(skew[size_t(p)] + r) % l.size()];
      dproc[size_t(p)] = tr.dstPe;
      raddr[size_t(p)] = readAddr(tr.srcSlot, 0);
      waddr[size_t(p)] = writeAddr(tr.dstSlot, 0);
      rank[size_t(p)] = load[tr.dstPe]++;
      sub = std::max(sub, rank[size_t(p)] + 1);
    }
    m.arith(2, sending);
    for (unsigned x = 0; x < xfers; ++x) {
      Plural z = m.loadIndirect(xferBytes, raddr, sending);
      for (uint32_t k = 0; k < sub; ++k) {
        for (unsigned p = 0; p < pes; ++p)
          active[p] = sending[p] && rank[p] == k;
        Plural got =
            m.routerSend(xferBytes, z, dproc, active, false, received, 4);
        for (unsigned p = 0; p < pes; ++p)
          if (active[p])
            recvAddr[dproc[p]] = waddr[p] + uint64_t(x) * xferBytes;
        m.storeIndirect(xferBytes, recvAddr, got, received);
      }
      for (unsigned p = 0; p < pes; ++p)
        raddr[p] += xferBytes;
    }
  }
  return true;
}

// 003 function 6.1 (DigitExchange.cpp), once the move is known to be one
// P/M digit exchange.
bool GeneralStepRunner::runDigitExchangeStep(std::string *why) {
  DigitExchangeShape shape;
  // Planners price a move in place and out of place, one after the other:
  // the pricing machine remembers the last answer. `sources` is a function
  // of the two layouts (sourcesOf), so they are the key.
  struct Last {
    TileMap from, to;
    bool found = false;
    DigitExchangeShape shape;
    std::string why;
  };
  thread_local std::unique_ptr<Last> last;
  if (m.pricingOnly() && last && last->from == from && last->to == to) {
    if (!last->found && why)
      *why = last->why;
    if (!last->found)
      return false;
    shape = last->shape;
  } else {
    std::string reason;
    const bool found = findDigitExchange(from, to, *given, shape, &reason);
    if (m.pricingOnly()) {
      if (!last)
        last = std::make_unique<Last>();
      *last = {from, to, found, shape, reason};
    }
    if (!found) {
      if (why)
        *why = reason;
      return false;
    }
  }
  // Moving the exchanged memory digit to another place, or receiving a
  // digit other than the one sent, would overwrite cells a later round pair
  // still has to read, unless every transfer is held whole in registers and
  // writes what it read (digitExchangeRunsInPlace).
  if (inPlace && !digitExchangeRunsInPlace(shape, elemBytes, m.cost())) {
    if (why)
      *why = "a digit exchange that moves the exchanged digits to other "
             "places cannot run in place";
    return false;
  }
  runDigitExchange(m, shape, {readBase, writeBase, elemBytes, inPlace});
  return true;
}

// 003 6.3.4's resig_mp (Resignify.cpp), once the move is known to be one
// re-signification across the device dims; in place as 6.3.9's brute force.
bool GeneralStepRunner::runResignifyStep(std::string *why) {
  ResignifyShape shape;
  if (!findResignification(from, to, *given, shape, why))
    return false;
  if (!m.pricingOnly()) {
    runTransfers(m, resignifyTransfers(shape, elemBytes, inPlace),
                 transferOptions(shape.slots));
    return true;
  }
  // 003 6.3.4's candidates reach one re-signification from several
  // orders (fig. 6.4: the same inverse step of 31 and 32 twice, each
  // hundreds of thousands of in-place rounds). The ticks depend only on
  // the shape, the element size, in place or not and the machine, so the
  // pricing machine keeps each one's charges and adds them again.
  struct Priced {
    ResignifyShape shape;
    unsigned elemBytes, width, height, clusterSize;
    bool inPlace;
    CostModel cost;
    Ledger charged;
    bool same(const ResignifyShape &s, unsigned eb, bool ip,
              const MasPar &on) const {
      return shape.peBase == s.peBase && shape.slotBase == s.slotBase &&
             shape.peWeight == s.peWeight && shape.slotWeight == s.slotWeight &&
             shape.pes == s.pes && shape.slots == s.slots &&
             shape.inverse == s.inverse && elemBytes == eb && inPlace == ip &&
             width == on.width() && height == on.height() &&
             clusterSize == on.clusterSize() && cost == on.cost();
    }
  };
  constexpr size_t kKept = 16;
  thread_local std::vector<Priced> kept;
  Ledger &ledger = m.ledger();
  for (const Priced &p : kept)
    if (p.same(shape, elemBytes, inPlace, m)) {
      ledger += p.charged;
      return true;
    }
  const Ledger before = ledger;
  runTransfers(m, resignifyTransfers(shape, elemBytes, inPlace),
               transferOptions(shape.slots));
  Priced p{shape,           elemBytes, m.width(), m.height(),
           m.clusterSize(), inPlace,   m.cost(),  ledger - before};
  if (kept.size() == kKept)
    kept.erase(kept.begin());
  kept.push_back(p);
  return true;
}

namespace {
/// Step i on `machine`, its move given by the table of sources, its counts
/// or its row (each may be null).
bool runStepWith(MasPar &machine, const GeneralPlan &plan, size_t i,
                 const Regions &regions, std::string *why,
                 const std::vector<uint32_t> *sources, const MoveCounts *counts,
                 const SourceRow *row) {
  uint64_t readBase, writeBase;
  stepRegions(plan, i, regions, readBase, writeBase);
  GeneralStepRunner runner(machine, plan, i, readBase, writeBase, sources,
                           counts, row);
  return runner.run(why);
}

/// Step i's ticks on a pricing machine, or -1 when it cannot run.
int64_t priceStepWith(const GeneralPlan &plan, size_t i,
                      const MachineShape &shape, const CostModel &cost,
                      const std::vector<uint32_t> *sources,
                      const MoveCounts *counts, const SourceRow *row) {
  MasPar pricing =
      MasPar::pricing(shape.width, shape.height, shape.clusterSize, cost);
  Regions none;
  if (!runStepWith(pricing, plan, i, none, nullptr, sources, counts, row))
    return -1;
  return pricing.ledger().total();
}
} // namespace

bool mapc::rt::runGeneralStep(MasPar &machine, const GeneralPlan &plan,
                              size_t i, const Regions &regions,
                              std::string *why,
                              const std::vector<uint32_t> *sources,
                              const MoveCounts *counts) {
  return runStepWith(machine, plan, i, regions, why, sources, counts, nullptr);
}

bool mapc::rt::rowPricesStep(const GeneralStep &step, const TileMap &from,
                             unsigned pes, const SourceRow &row) {
  std::optional<AllGatherMove> gather;
  const char *why = nullptr;
  return rowUse(step.kind, step.inPlace, from, step.to, row, pes, &gather,
                &why) != RowUse::Table;
}

int64_t mapc::rt::predictGeneralStep(const GeneralPlan &plan, size_t i,
                                     const MachineShape &shape,
                                     const CostModel &cost,
                                     const std::vector<uint32_t> *sources,
                                     const MoveCounts *counts) {
  return priceStepWith(plan, i, shape, cost, sources, counts, nullptr);
}

int64_t mapc::rt::predictGeneralStep(const GeneralPlan &plan, size_t i,
                                     const MachineShape &shape,
                                     const CostModel &cost,
                                     const SourceRow &row) {
  return priceStepWith(plan, i, shape, cost, nullptr, nullptr, &row);
}

bool mapc::rt::checkPlanRegions(const GeneralPlan &plan, const Regions &regions,
                                std::string *why) {
  if (plan.steps.empty())
    return true;
  uint64_t read, write;
  stepRegions(plan, plan.steps.size() - 1, regions, read, write);
  const char *problem = write != regions.dst.base
                            ? "the plan does not end in the destination region"
                        : plan.copy && plan.steps[0].inPlace
                            ? "a copy plan cannot start in place"
                            : nullptr;
  if (problem && why)
    *why = problem;
  return !problem;
}

bool mapc::rt::executeGeneralPlan(
    MasPar &machine, const GeneralPlan &plan, const Regions &regions,
    const std::function<void(unsigned, const TileMap &)> &observer,
    std::string *why) {
  auto fail = [&](const std::string &w) {
    if (why)
      *why = w;
    return false;
  };
  if (!checkPlanRegions(plan, regions, why))
    return false;
  for (int i = -1; i < int(plan.steps.size()); ++i) {
    const TileMap &l = plan.layoutAfter(i);
    if (uint64_t(pesOf(l)) > machine.peCount())
      return fail("a layout spans " + std::to_string(pesOf(l)) +
                  " PEs but the machine has " +
                  std::to_string(machine.peCount()));
    uint64_t need = uint64_t(slotsOf(l)) * plan.elemBytes;
    auto fits = [&](const Region &r) {
      return r.base + need <= machine.memoryBytes();
    };
    bool usesScratch = false;
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      uint64_t read, write;
      stepRegions(plan, k, regions, read, write);
      usesScratch |= write == regions.scratch.base;
    }
    if (!fits(regions.dst) || (plan.copy && !fits(regions.src)) ||
        (usesScratch && !fits(regions.scratch)))
      return fail("the array does not fit in PE memory");
  }
  std::string reason;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (!runGeneralStep(machine, plan, i, regions, &reason))
      return fail("step " + std::to_string(i + 1) + ": " + reason);
    if (observer)
      observer(unsigned(i + 1), plan.steps[i].to);
  }
  return true;
}
