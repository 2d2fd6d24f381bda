//===- MoveCounts.cpp - what a general remap moves (see header) -----------===//
#include "mapc/runtime/MoveCounts.h"

#include "MoveRuns.h"
#include "PairSchedule.h"
#include "mapc/runtime/General.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

using namespace mapc::rt;

namespace {

/// A factor's parts summed by the PE part they leave (`from`) or reach:
/// (part, elements) by part.
std::vector<std::pair<int64_t, int64_t>>
totalsBy(const std::vector<PePairCount> &parts, bool from) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const PePairCount &p : parts)
    out.push_back({from ? p.from : p.to, p.count});
  std::sort(out.begin(), out.end());
  size_t n = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (n && out[n - 1].first == out[i].first)
      out[n - 1].second += out[i].second;
    else
      out[n++] = out[i];
  }
  out.resize(n);
  return out;
}

/// The factor's parts that keep their PE part.
std::vector<PePairCount> keptParts(const std::vector<PePairCount> &parts) {
  std::vector<PePairCount> kept;
  for (const PePairCount &p : parts)
    if (p.from == p.to)
      kept.push_back(p);
  return kept;
}

/// `into[l + h] = lv * hv` for every (l, lv) of `low` and (h, hv) of
/// `high`: a per-PE total of a separable move from its factors'.
void productInto(const std::vector<std::pair<int64_t, int64_t>> &low,
                 const std::vector<std::pair<int64_t, int64_t>> &high,
                 std::vector<int64_t> &into) {
  for (const auto &[h, hv] : high)
    for (const auto &[l, lv] : low)
      if (size_t(l + h) < into.size())
        into[size_t(l + h)] = lv * hv;
}

int64_t sumOf(const std::vector<PePairCount> &parts) {
  int64_t n = 0;
  for (const PePairCount &p : parts)
    n += p.count;
  return n;
}

} // namespace

const char *mapc::rt::digitExchangeRefusal(const MoveCounts &counts,
                                           int64_t slots, int64_t pes) {
  const char *notSent =
      "the elements do not go as in a digit exchange: every PE sends to the "
      "same number b >= 2 of PEs, at most slots / b elements each";
  // Each sending PE's receivers, and the largest pair.
  std::vector<int64_t> receivers;
  int64_t largest = 0;
  if (const std::optional<PairFactors> &f = counts.factors) {
    // A separable move: a PE's receivers are its two parts' receivers
    // multiplied, and the largest pair the two largest parts'.
    auto perPart = [](const std::vector<PePairCount> &parts, int64_t &most) {
      std::vector<int64_t> n;
      most = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i == 0 || parts[i].from != parts[i - 1].from)
          n.push_back(0);
        ++n.back();
        most = std::max(most, parts[i].count);
      }
      return n;
    };
    int64_t lowMost, highMost;
    const std::vector<int64_t> low = perPart(f->low, lowMost),
                               high = perPart(f->high, highMost);
    for (int64_t h : high)
      for (int64_t l : low)
        receivers.push_back(l * h);
    largest = lowMost * highMost;
  } else {
    // Pairs are sorted by source.
    for (size_t i = 0; i < counts.listed.size(); ++i) {
      if (i == 0 || counts.listed[i].from != counts.listed[i - 1].from)
        receivers.push_back(0);
      ++receivers.back();
      largest = std::max(largest, counts.listed[i].count);
    }
  }
  const int64_t base = receivers.empty() ? -1 : receivers.front();
  for (int64_t n : receivers)
    if (n != base)
      return notSent;
  if (int64_t(receivers.size()) != pes || base < 2 || pes % base != 0 ||
      slots % base != 0 || largest > slots / base)
    return notSent;
  return nullptr;
}

std::vector<PePairCount> MoveCounts::pairs() const {
  if (!factors)
    return listed;
  // In order: the high parts split the PEs into runs of `modulus`, the
  // low parts order the PEs within a run.
  const std::vector<PePairCount> &xs = factors->low, &ys = factors->high;
  std::vector<PePairCount> out;
  out.reserve(xs.size() * ys.size());
  for (size_t yi = 0; yi < ys.size();) {
    size_t yEnd = yi;
    while (yEnd < ys.size() && ys[yEnd].from == ys[yi].from)
      ++yEnd;
    for (size_t xi = 0; xi < xs.size();) {
      size_t xEnd = xi;
      while (xEnd < xs.size() && xs[xEnd].from == xs[xi].from)
        ++xEnd;
      for (size_t j = yi; j < yEnd; ++j)
        for (size_t i = xi; i < xEnd; ++i)
          out.push_back({ys[j].from + xs[i].from, ys[j].to + xs[i].to,
                         ys[j].count * xs[i].count});
      xi = xEnd;
    }
    yi = yEnd;
  }
  return out;
}

size_t MoveCounts::pairCount() const {
  return factors ? factors->low.size() * factors->high.size() : listed.size();
}

size_t MoveCounts::pairsBetweenPes() const {
  return pairCount() - keptPairs().size();
}

uint64_t MoveCounts::sendsBetweenPes() const {
  int64_t kept = 0;
  for (const PePairCount &p : keptPairs())
    kept += p.count;
  return uint64_t(elements - kept);
}

PeTotals MoveCounts::peTotals() const {
  PeTotals t;
  t.sent.assign(stay.size(), 0);
  t.received.assign(stay.size(), 0);
  t.kept.assign(stay.size(), 0);
  if (factors) {
    const PairFactors &f = *factors;
    productInto(totalsBy(f.low, true), totalsBy(f.high, true), t.sent);
    productInto(totalsBy(f.low, false), totalsBy(f.high, false), t.received);
  } else {
    for (const PePairCount &p : listed) {
      if (p.from < t.sent.size())
        t.sent[p.from] += p.count;
      if (p.to < t.received.size())
        t.received[p.to] += p.count;
    }
  }
  for (const PePairCount &p : keptPairs())
    if (p.from < t.kept.size())
      t.kept[p.from] = p.count;
  return t;
}

std::vector<PePairCount> MoveCounts::keptPairs() const {
  std::vector<PePairCount> kept;
  if (factors) {
    // A PE keeps what both its parts keep: in order, as the high parts
    // are multiples of the modulus and the low parts below it.
    const std::vector<PePairCount> low = keptParts(factors->low),
                                   high = keptParts(factors->high);
    for (const PePairCount &h : high)
      for (const PePairCount &l : low)
        kept.push_back({h.from + l.from, h.from + l.from, h.count * l.count});
    return kept;
  }
  // The pairs are sorted: each sender's pair with itself is searched for
  // from its first pair on, in steps that double (a few hundred pairs a
  // sender on 31 x 33 PEs), then so is the next sender.
  auto gallop = [&](auto it, auto before) {
    size_t step = 1;
    auto lo = it;
    while (size_t(listed.end() - lo) > step && before(lo[ptrdiff_t(step)])) {
      lo += ptrdiff_t(step);
      step *= 2;
    }
    const auto hi = size_t(listed.end() - lo) > step ? lo + ptrdiff_t(step) + 1
                                                     : listed.end();
    return std::partition_point(lo, hi, before);
  };
  for (auto it = listed.begin(); it != listed.end();) {
    const uint32_t pe = it->from;
    it = gallop(
        it, [pe](const PePairCount &p) { return p.from == pe && p.to < pe; });
    if (it != listed.end() && it->from == pe && it->to == pe)
      kept.push_back(*it);
    it = gallop(it, [pe](const PePairCount &p) { return p.from == pe; });
  }
  return kept;
}

int64_t MoveCounts::localMoves() const {
  int64_t kept = 0, stays = 0;
  for (const PePairCount &p : keptPairs())
    kept += p.count;
  for (int64_t s : stay)
    stays += s;
  return kept - stays;
}

bool MoveCounts::operator==(const MoveCounts &o) const {
  return elements == o.elements && pairs() == o.pairs() && stay == o.stay &&
         sameSlot == o.sameSlot && slotUniformTo == o.slotUniformTo &&
         slotUniformFrom == o.slotUniformFrom &&
         localUniform == o.localUniform && localSlots == o.localSlots;
}

MoveCounts mapc::rt::countMoveByElements(const TileMap &from, const TileMap &to,
                                         const std::vector<uint32_t> &sources) {
  MoveCounts c;
  const int64_t fromSlots = slotsOf(from), toSlots = slotsOf(to);
  const int64_t fromPes = pesOf(from), toPes = pesOf(to);
  c.stay.assign(size_t(std::max<int64_t>(1, std::max(fromPes, toPes))), 0);
  const bool dense = fromPes * toPes <= (int64_t(1) << 22);
  std::vector<int64_t> table(dense ? size_t(fromPes * toPes) : 0, 0);
  std::map<std::pair<uint32_t, uint32_t>, int64_t> sparse;
  std::vector<int64_t> readsFrom(size_t(toSlots), -1),
      feeds(size_t(fromSlots), -1), localRead(size_t(toSlots), -1);
  for (int64_t b = 0; b < int64_t(sources.size()); ++b) {
    if (sources[size_t(b)] == kNoSource)
      continue;
    const int64_t a = sources[size_t(b)];
    const int64_t ap = a / fromSlots, as = a % fromSlots;
    const int64_t bp = b / toSlots, bs = b % toSlots;
    ++c.elements;
    if (dense)
      ++table[size_t(ap * toPes + bp)];
    else
      ++sparse[{uint32_t(ap), uint32_t(bp)}];
    if (as == bs) {
      ++c.sameSlot;
      if (ap == bp)
        ++c.stay[size_t(ap)];
    }
    c.slotUniformTo &= sameAsBefore(readsFrom[size_t(bs)], as);
    c.slotUniformFrom &= sameAsBefore(feeds[size_t(as)], bs);
    if (ap == bp)
      c.localUniform &= sameAsBefore(localRead[size_t(bs)], as);
  }
  if (dense) {
    for (int64_t p = 0; p < fromPes; ++p)
      for (int64_t q = 0; q < toPes; ++q)
        if (int64_t n = table[size_t(p * toPes + q)])
          c.listed.push_back({uint32_t(p), uint32_t(q), n});
  } else {
    for (const auto &[pq, n] : sparse)
      c.listed.push_back({pq.first, pq.second, n});
  }
  if (c.localUniform)
    for (int64_t l : localRead)
      c.localSlots += l >= 0;
  return c;
}

namespace {

enum class Tri { No, Yes, Unknown };

/// A family's slots on one side (the destination's or the source's).
struct Slots {
  int64_t base, st, dm;
};
Slots keySide(const MoveFamily &f, bool dest) {
  return dest ? Slots{f.b0, f.sb, f.db} : Slots{f.a0, f.sa, f.da};
}
Slots otherSide(const MoveFamily &f, bool dest) { return keySide(f, !dest); }

/// The key slots of `f` when they are one interval [lo, hi) walked in
/// (m, t) order: t fastest, one slot apart.
bool keyInterval(const MoveFamily &f, bool dest, int64_t &lo, int64_t &hi) {
  const Slots k = keySide(f, dest);
  lo = k.base;
  hi = k.base + f.len * f.reps;
  if (f.len == 1 && f.reps == 1)
    return true;
  if (f.reps == 1)
    return k.st == 1;
  if (f.len == 1)
    return k.dm == 1;
  return k.st == 1 && k.dm == f.len;
}

/// A family's key slots `k0 + t + stride m` (t < len <= stride, m < reps)
/// and the other side's slots `o0 + ot t + om m` of the same elements.
struct Strided {
  int64_t k0, len, stride, reps;
  int64_t o0, ot, om;
};

/// `f` in that form, when its key slots rise by one per t (or it has one t).
std::optional<Strided> stridedOf(const MoveFamily &f, bool dest) {
  const Slots k = keySide(f, dest), o = otherSide(f, dest);
  if (f.len > 1 && k.st != 1)
    return std::nullopt;
  if (f.reps == 1)
    return Strided{k.base, f.len, f.len, 1, o.base, o.st, o.dm};
  if (k.dm < f.len)
    return std::nullopt;
  return Strided{k.base, f.len, k.dm, f.reps, o.base, o.st, o.dm};
}

/// One interval of `s` (reps 1) cut into pieces of `stride`: its whole
/// pieces and the rest.
void recut(const Strided &s, int64_t stride, std::vector<Strided> &out) {
  const int64_t whole = s.len / stride, rest = s.len % stride;
  if (whole > 0)
    out.push_back({s.k0, stride, stride, whole, s.o0, s.ot, s.ot * stride});
  if (rest > 0)
    out.push_back({s.k0 + whole * stride, rest, stride, 1,
                   s.o0 + s.ot * whole * stride, s.ot, 0});
}

/// Whether `f` and `g` (the same stride) agree on the other side's slot
/// at every key slot they share. A shared key is t + S m = d + t' + S m'
/// with d = g.k0 - f.k0 = q S + r: either t = r + t', m = q + m', or
/// t = r + t' - S, m = q + m' + 1; each is a rectangle of (t', m') on which
/// both sides are linear, so one corner and the slopes decide.
Tri agreeStrided(const Strided &f, const Strided &g, bool &shared) {
  const int64_t S = f.stride;
  const int64_t d = g.k0 - f.k0;
  int64_t q = d / S, r = d % S;
  if (r < 0) {
    r += S;
    --q;
  }
  for (int wrap = 0; wrap < 2; ++wrap) {
    // t = r + t' - wrap S, m = q + m' + wrap.
    const int64_t tShift = r - wrap * S, mShift = q + wrap;
    const int64_t t1 = std::max<int64_t>(0, -tShift),
                  t2 = std::min(g.len, f.len - tShift) - 1;
    const int64_t m1 = std::max<int64_t>(0, -mShift),
                  m2 = std::min(g.reps, f.reps - mShift) - 1;
    if (t1 > t2 || m1 > m2)
      continue;
    shared = true;
    const int64_t fv = f.o0 + f.ot * (t1 + tShift) + f.om * (m1 + mShift);
    const int64_t gv = g.o0 + g.ot * t1 + g.om * m1;
    if (fv != gv || (t2 > t1 && f.ot != g.ot) || (m2 > m1 && f.om != g.om))
      return Tri::No;
  }
  return Tri::Yes;
}

/// Whether two families agree wherever their key slots meet; `shared` is
/// set when they meet at all.
Tri agree(const Strided &f, const Strided &g, bool &shared) {
  const bool fOne = f.reps == 1, gOne = g.reps == 1;
  if (!fOne && !gOne && f.stride != g.stride)
    return Tri::Unknown;
  const int64_t S = fOne && gOne ? std::max(f.len, g.len)
                    : fOne       ? g.stride
                                 : f.stride;
  std::vector<Strided> fs, gs;
  if (fOne)
    recut(f, S, fs);
  else
    fs.push_back(f);
  if (gOne)
    recut(g, S, gs);
  else
    gs.push_back(g);
  for (const Strided &x : fs)
    for (const Strided &y : gs) {
      const Tri t = agreeStrided(x, y, shared);
      if (t != Tri::Yes)
        return t;
    }
  return Tri::Yes;
}

/// The families (only those that keep their PE when `onlyLocal`) with their
/// key slots mapped one to one onto 0, 1, ...: less the first family's
/// base, over the gcd of every step and base. A data dim's memory digits
/// sit above other dims' digits, so its slots are multiples of its lowest
/// digit's place.
std::vector<MoveFamily> normalisedKeys(const std::vector<MoveFamily> &fams,
                                       bool dest, bool onlyLocal) {
  std::vector<MoveFamily> out;
  for (const MoveFamily &f : fams)
    if (!onlyLocal || f.peA == f.peB)
      out.push_back(f);
  if (out.empty())
    return out;
  const int64_t first = keySide(out[0], dest).base;
  int64_t g = 0;
  for (const MoveFamily &f : out) {
    const Slots k = keySide(f, dest);
    g = std::gcd(g, k.base - first);
    if (f.len > 1)
      g = std::gcd(g, k.st);
    if (f.reps > 1)
      g = std::gcd(g, k.dm);
  }
  g = g == 0 ? 1 : std::abs(g);
  for (MoveFamily &f : out) {
    int64_t &base = dest ? f.b0 : f.a0, &st = dest ? f.sb : f.sa,
            &dm = dest ? f.db : f.da;
    base = (base - first) / g;
    st /= g;
    dm /= g;
  }
  return out;
}

/// Whether every key slot (destination slot when `dest`, else source slot)
/// of the families (only those that keep their PE when `onlyLocal`) has one
/// other-side slot, and (then) how many key slots they fill.
Tri uniformSlots(const std::vector<MoveFamily> &all, bool dest, bool onlyLocal,
                 int64_t &filled) {
  const std::vector<MoveFamily> fams = normalisedKeys(all, dest, onlyLocal);
  struct Entry {
    Strided s;
    int64_t last; ///< the highest key slot
    uint32_t pe;  ///< the PE on the key side
  };
  std::vector<Entry> entries;
  for (const MoveFamily &f : fams) {
    if (onlyLocal && f.peA != f.peB)
      continue;
    std::optional<Strided> s = stridedOf(f, dest);
    if (!s)
      return Tri::Unknown;
    entries.push_back({*s, s->k0 + s->len - 1 + s->stride * (s->reps - 1),
                       dest ? f.peB : f.peA});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &x, const Entry &y) { return x.s.k0 < y.s.k0; });
  int64_t work = 0;
  bool unknown = false, shared = false;
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t j = i + 1;
         j < entries.size() && entries[j].s.k0 <= entries[i].last; ++j) {
      // One PE holds each of its key slots once.
      if (entries[i].pe == entries[j].pe)
        continue;
      if (++work > (int64_t(1) << 22))
        return Tri::Unknown;
      const Tri t = agree(entries[i].s, entries[j].s, shared);
      if (t == Tri::No)
        return Tri::No;
      unknown |= t == Tri::Unknown;
    }
  if (unknown)
    return Tri::Unknown;
  filled = 0;
  if (!shared) {
    for (const Entry &e : entries)
      filled += e.s.len * e.s.reps;
    return Tri::Yes;
  }
  // Shared slots are counted once: the union of intervals.
  int64_t end = INT64_MIN;
  for (const Entry &e : entries) {
    if (e.s.reps > 1 && e.s.stride != e.s.len)
      return Tri::Unknown;
    const int64_t hi = e.last + 1;
    filled += std::max<int64_t>(0, hi - std::max(e.s.k0, end));
    end = std::max(end, hi);
  }
  return Tri::Yes;
}

} // namespace

namespace {

/// Key of an entry of the per-dim tables below.
struct Triple {
  int64_t peA, peB, slotDiff;
  bool operator<(const Triple &o) const {
    return std::tie(peA, peB, slotDiff) < std::tie(o.peA, o.peB, o.slotDiff);
  }
};
using Table = std::map<Triple, int64_t>;

/// Sums of one element of `x` and one of `y`, counted; false when there
/// would be more than `most` products.
bool convolve(const Table &x, const Table &y, Table &out, size_t most) {
  if (x.size() * y.size() > most)
    return false;
  out.clear();
  for (const auto &[kx, nx] : x)
    for (const auto &[ky, ny] : y)
      out[{kx.peA + ky.peA, kx.peB + ky.peB, kx.slotDiff + ky.slotDiff}] +=
          nx * ny;
  return true;
}

constexpr size_t kMostEntries = size_t(1) << 22;

/// The pairs of every entry of `x` (the first dims' PE parts) with every
/// entry of `y` (the last dim's) as factors (PairFactors), when each source
/// and destination PE splits into its two parts one way only: `y`'s parts
/// are multiples of some g that every part of `x` is below, as PE dims'
/// place values give. Then the pairs need not be listed at all (10^6 PE
/// pairs on 31 x 33 PEs, 514k of them carrying elements). Nothing
/// otherwise.
std::optional<PairFactors> factorsOf(const Table &x, const Table &y,
                                     int64_t pes) {
  PairFactors f;
  int64_t below = 1, g = 0, most = 0;
  for (const auto &[k, n] : x) {
    if (k.peA < 0 || k.peB < 0)
      return std::nullopt;
    below = std::max({below, k.peA + 1, k.peB + 1});
    f.low.push_back({uint32_t(k.peA), uint32_t(k.peB), n});
  }
  for (const auto &[k, n] : y) {
    if (k.peA < 0 || k.peB < 0)
      return std::nullopt;
    g = std::gcd(g, std::gcd(k.peA, k.peB));
    most = std::max({most, k.peA, k.peB});
    f.high.push_back({uint32_t(k.peA), uint32_t(k.peB), n});
  }
  if ((g != 0 && g < below) || (g == 0 && y.size() > 1) ||
      below - 1 + most >= pes)
    return std::nullopt;
  // Table keys are sorted by (peA, peB): the parts already are.
  f.modulus = g;
  return f;
}

} // namespace

// One dim: every count is a sum over the families. Several: the PE pairs
// are the dims' pairs convolved; the slot uniformities hold when they hold
// in every dim (a slot names every dim's memory part, its digits being a
// mixed-radix number); the elements that keep their slot take the other
// dims element by element (grouped by PE parts and slot difference) against
// the largest dim's families.
std::optional<MoveCounts> mapc::rt::countMoveByRuns(const TileMap &from,
                                                    const TileMap &to,
                                                    int64_t listLimit,
                                                    int64_t minPerFamily) {
  std::optional<MoveByDims> mv = moveFamilies(from, to, listLimit);
  if (!mv)
    return std::nullopt;
  const size_t dims = mv->dims.size();
  if (dims > 1 && !mv->peByDim)
    return std::nullopt;
  // Families of a few elements each (digit maps of small digits) cost more
  // to count than the table of sources: leave those to it.
  size_t families = 0;
  for (const std::vector<MoveFamily> &fams : mv->dims)
    families += fams.size();
  if (int64_t(families) * minPerFamily >
      std::max(from.dataSize(), to.dataSize()))
    return std::nullopt;
  MoveCounts c;
  c.stay.assign(size_t(std::max<int64_t>(1, std::max(pesOf(from), pesOf(to)))),
                0);
  int64_t localSlots = 1;
  for (const std::vector<MoveFamily> &fams : mv->dims) {
    int64_t filled = 0;
    const Tri to_ = uniformSlots(fams, true, false, filled);
    const Tri from_ = uniformSlots(fams, false, false, filled);
    const Tri local = uniformSlots(fams, true, true, filled);
    if (to_ == Tri::Unknown || from_ == Tri::Unknown || local == Tri::Unknown)
      return std::nullopt;
    c.slotUniformTo &= to_ == Tri::Yes;
    c.slotUniformFrom &= from_ == Tri::Yes;
    c.localUniform &= local == Tri::Yes;
    localSlots *= filled;
  }
  // The PE pairs: the dims but the last convolved, the last added into a
  // table of every (source PE, destination PE) when it is not too large.
  Table pairs{{{0, 0, 0}, 1}}, next;
  std::vector<Table> dimPairs(dims);
  for (size_t j = 0; j < dims; ++j)
    for (const MoveFamily &f : mv->dims[j])
      dimPairs[j][{f.peA, f.peB, 0}] += f.len * f.reps;
  for (size_t j = 0; j + 1 < dims; ++j) {
    if (!convolve(pairs, dimPairs[j], next, kMostEntries))
      return std::nullopt;
    std::swap(pairs, next);
  }
  const int64_t pes = int64_t(c.stay.size());
  if (pairs.size() * dimPairs.back().size() > (size_t(1) << 24))
    return std::nullopt;
  int64_t kept = 0;
  if (std::optional<PairFactors> f = factorsOf(pairs, dimPairs.back(), pes)) {
    c.elements = sumOf(f->low) * sumOf(f->high);
    kept = sumOf(keptParts(f->low)) * sumOf(keptParts(f->high));
    c.factors = std::move(f);
  } else {
    if (pes * pes > (int64_t(1) << 22))
      return std::nullopt;
    std::vector<int64_t> table(size_t(pes * pes), 0);
    for (const auto &[x, nx] : pairs)
      for (const auto &[y, ny] : dimPairs.back()) {
        const int64_t p = x.peA + y.peA, q = x.peB + y.peB;
        if (p < 0 || q < 0 || p >= pes || q >= pes)
          return std::nullopt;
        table[size_t(p * pes + q)] += nx * ny;
      }
    for (int64_t p = 0; p < pes; ++p)
      for (int64_t q = 0; q < pes; ++q)
        if (const int64_t n = table[size_t(p * pes + q)]) {
          c.listed.push_back({uint32_t(p), uint32_t(q), n});
          c.elements += n;
          kept += p == q ? n : 0;
        }
  }
  // With no element keeping its PE, the local slots are uniform and none.
  if (kept == 0 || !c.localUniform) {
    c.localUniform |= kept == 0;
    localSlots = 0;
  }
  c.localSlots = localSlots;
  // The elements that keep their slot: every dim but the largest element
  // by element, then that one's families.
  size_t last = 0;
  for (size_t j = 0; j < dims; ++j) {
    int64_t n = 0, m = 0;
    for (const MoveFamily &f : mv->dims[j])
      n += f.len * f.reps;
    for (const MoveFamily &f : mv->dims[last])
      m += f.len * f.reps;
    last = n > m ? j : last;
  }
  Table rest{{{0, 0, 0}, 1}};
  for (size_t j = 0; j < dims; ++j) {
    if (j == last)
      continue;
    Table dim;
    for (const MoveFamily &f : mv->dims[j]) {
      if (f.len * f.reps > int64_t(kMostEntries))
        return std::nullopt;
      for (int64_t m = 0; m < f.reps; ++m)
        for (int64_t t = 0; t < f.len; ++t)
          ++dim[{f.peA, f.peB,
                 f.a0 + f.sa * t + f.da * m - f.b0 - f.sb * t - f.db * m}];
    }
    if (!convolve(rest, dim, next, kMostEntries))
      return std::nullopt;
    std::swap(rest, next);
  }
  if (rest.size() * mv->dims[last].size() > (size_t(1) << 24))
    return std::nullopt;
  // A family whose two slots move alike in t and m (on HPF moves, all of
  // them) keeps its slot wholly where the other dims' slot difference
  // cancels its own, and nowhere else: it looks those up among the other
  // dims' parts sorted by slot difference, then PE difference, rather than
  // solving its line against each (2,500 x 1,337 of them at 10^7 on 3 x 5).
  struct Part {
    int64_t slotDiff, peDiff, peA, n;
  };
  std::vector<Part> parts;
  parts.reserve(rest.size());
  for (const auto &[k, n] : rest)
    parts.push_back({k.slotDiff, k.peA - k.peB, k.peA, n});
  auto before = [](const Part &x, const Part &y) {
    return x.slotDiff != y.slotDiff ? x.slotDiff < y.slotDiff
                                    : x.peDiff < y.peDiff;
  };
  std::sort(parts.begin(), parts.end(), before);
  for (const MoveFamily &f : mv->dims[last]) {
    if (f.sa == f.sb && f.da == f.db) {
      if (f.len <= 0 || f.reps <= 0)
        continue;
      const int64_t whole = f.len * f.reps;
      const Part key{f.b0 - f.a0, f.peB - f.peA, 0, 0};
      auto slotLess = [](const Part &x, const Part &y) {
        return x.slotDiff < y.slotDiff;
      };
      const auto [lo, hi] =
          std::equal_range(parts.begin(), parts.end(), key, slotLess);
      for (auto p = lo; p != hi; ++p)
        c.sameSlot += p->n * whole;
      // Those that also keep their PE: peA + f.peA == peB + f.peB.
      const auto [plo, phi] = std::equal_range(lo, hi, key, before);
      for (auto p = plo; p != phi; ++p)
        c.stay[size_t(p->peA + f.peA)] += p->n * whole;
      continue;
    }
    for (const Part &k : parts) {
      const int64_t same =
          k.n * countOnLine(f.len, f.reps, k.slotDiff + f.a0 - f.b0,
                            f.sa - f.sb, f.da - f.db);
      c.sameSlot += same;
      if (same && k.peDiff == f.peB - f.peA)
        c.stay[size_t(k.peA + f.peA)] += same;
    }
  }
  return c;
}

bool mapc::rt::exchangePairsApply(uint64_t sends, size_t pairs) {
  return sends > kPairScheduleFrom && pairScheduleApplies(sends, pairs);
}

// A slot names every data dim's memory part: the product of each dim's
// distinct parts.
std::optional<int64_t> mapc::rt::heldSlotsByRuns(const TileMap &l) {
  std::optional<MoveByDims> mv =
      moveFamilies(l, l, countingListLimit(l.dataSize()));
  if (!mv)
    return std::nullopt;
  int64_t held = 1;
  for (const std::vector<MoveFamily> &dim : mv->dims) {
    const std::vector<MoveFamily> fams = normalisedKeys(dim, true, false);
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const MoveFamily &f : fams) {
      int64_t lo, hi;
      if (!keyInterval(f, true, lo, hi))
        return std::nullopt;
      ranges.push_back({lo, hi});
    }
    std::sort(ranges.begin(), ranges.end());
    int64_t filled = 0, end = INT64_MIN;
    for (const auto &[lo, hi] : ranges) {
      filled += std::max<int64_t>(0, hi - std::max(lo, end));
      end = std::max(end, hi);
    }
    held *= filled;
  }
  return held;
}
