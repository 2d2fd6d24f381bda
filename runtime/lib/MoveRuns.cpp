//===- MoveRuns.cpp - a move as families of runs (see MoveCounts.h) -------===//
//
// A layout of a one-dim array, its index i at k-Tile position u = i + toff,
// is a sum of one term per digit (003 3.2.2): digit g is (u / K_g) mod k_g
// and adds its value times its place to the slot or to the PE number. The
// digits below the top one repeat with period T = K_top: one period is a
// list of runs (the lowest digit counting up, the slot rising by its
// place), and the top digit adds `topPe` to the PE and `topSlot` to the
// slot every period. A layout whose top digit is a PE digit (block) has few
// periods and is listed run by run ("explicit"); one whose top digit is a
// memory digit (cyclic) keeps its PEs from period to period ("periodic").
// Two explicit layouts merge run by run; an explicit run against a periodic
// layout gives one family per run of the period (its whole periods) and
// the cut periods at both ends; two periodic layouts repeat together every
// lcm of their periods.
//
//===----------------------------------------------------------------------===//
#include "MoveRuns.h"

#include "mapc/runtime/TileWalk.h"

#include <algorithm>
#include <numeric>

using namespace mapc::rt;

namespace {

/// Most runs a layout is listed by, and most families of a move.
constexpr int64_t kMaxRuns = int64_t(1) << 16;
constexpr int64_t kMaxFamilies = int64_t(1) << 18;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// One run: `len` indices from `i0` on one PE, slots rising by `step`.
struct Run {
  int64_t i0, len, pe, slot, step;
};

/// A layout of a one-dim array as a period of runs (file comment).
struct Form {
  int64_t n = 0, toff = 0;
  int64_t period = 1, topPe = 0, topSlot = 0;
  int64_t peConst = 0, slotConst = 0;
  std::vector<Run> pattern; ///< i0: the position in the period
};

/// The PE and slot constants of a layout, and which data dim feeds each
/// PE dim (-1: none).
struct Frame {
  std::vector<int> feeder;
  std::vector<int64_t> peConstOf; ///< per device dim, times its PE place
};

/// A layout as one Form per data dim: each PE dim fed by one data dim,
/// whose Form carries that dim's constant; the slot's constant and the
/// constants of PE dims no data dim feeds go with data dim 0.
std::optional<std::vector<Form>> formsOf(const TileMap &l, Frame &frame) {
  if (!TileWalk::walkable(l) || l.data.empty() || l.device.empty())
    return std::nullopt;
  const int64_t slots = l.device[0].tlen;
  std::vector<int64_t> place(l.device.size(), 1);
  for (size_t d = 1; d < l.device.size(); ++d)
    place[d] = place[d - 1] * l.device[d - 1].tlen;
  // Every digit's device dim and place inside it, and its data dim.
  const size_t count = l.kdims.size();
  std::vector<unsigned> devOf(count, 0);
  std::vector<int64_t> radixOf(count, 1);
  for (size_t d = 0; d < l.m.size(); ++d) {
    int64_t radix = 1;
    for (unsigned g : l.m[d]) {
      devOf[g] = unsigned(d);
      radixOf[g] = radix;
      radix *= l.kdims[g].tk;
    }
  }
  std::vector<int> dimOf(count, -1);
  for (size_t j = 0, g = 0; j < l.data.size(); ++j)
    for (unsigned c = 0; c < l.groups[j]; ++c, ++g)
      dimOf[g] = int(j);
  frame.feeder.assign(l.device.size(), -1);
  frame.peConstOf.assign(l.device.size(), 0);
  std::vector<int64_t> most(l.device.size(), 0), fixed(l.device.size(), 0);
  for (size_t g = 0; g < count; ++g) {
    const KDim &kd = l.kdims[g];
    const unsigned d = devOf[g];
    if (dimOf[g] >= 0) {
      if (kd.ok != 0 || kd.otk != 0 || kd.enc != Encoding::Binary ||
          kd.sense != Sense::Plus || kd.k < 1)
        return std::nullopt;
      if (d > 0 && kd.k > 1) {
        if (frame.feeder[d] >= 0 && frame.feeder[d] != dimOf[g])
          return std::nullopt; // a PE dim of two data dims
        frame.feeder[d] = dimOf[g];
      }
      most[d] += (kd.k - 1) * radixOf[g];
      continue;
    }
    // A digit of an empty dim sits at its value for index 0 (TileWalk).
    int64_t x = kd.otk;
    if (kd.ok != kReplicated)
      x += kd.ok >= kd.k ? kd.ok - kd.k : kd.ok;
    if (kd.enc == Encoding::Gray)
      x = int64_t(grayEncode(uint64_t(x)));
    if (kd.sense == Sense::Minus)
      x = kd.tk - 1 - x;
    fixed[d] += x * radixOf[g];
  }
  std::vector<Form> forms(l.data.size());
  // No device dim wraps around (003 3.2.4): its position is the plain sum.
  for (size_t d = 0; d < l.device.size(); ++d) {
    const SpaceDim &s = l.device[d];
    if (s.len < 1 || s.off % s.len != 0 || most[d] + fixed[d] >= s.len)
      return std::nullopt;
    if (d == 0) {
      forms[0].slotConst = s.toff + fixed[0];
      continue;
    }
    frame.peConstOf[d] = (s.toff + fixed[d]) * (place[d] / slots);
    forms[size_t(std::max(0, frame.feeder[d]))].peConst += frame.peConstOf[d];
  }
  for (size_t j = 0, first = 0; j < l.data.size(); first += l.groups[j++]) {
    Form &f = forms[j];
    const SpaceDim &dd = l.data[j];
    if (dd.len < 1 || dd.off % dd.len != 0)
      return std::nullopt;
    f.n = dd.len;
    f.toff = dd.toff;
    // Per digit of this data dim: its length and what one step adds.
    const unsigned digits = l.groups[j];
    std::vector<int64_t> k(digits), wPe(digits, 0), wSlot(digits, 0);
    for (unsigned g = 0; g < digits; ++g) {
      const size_t at = first + g;
      k[g] = l.kdims[at].k;
      if (devOf[at] == 0)
        wSlot[g] = radixOf[at];
      else
        wPe[g] = radixOf[at] * (place[devOf[at]] / slots);
    }
    if (digits <= 1) {
      f.pattern.push_back({0, 1, 0, 0, 0});
      if (digits == 1) {
        f.topPe = wPe[0];
        f.topSlot = wSlot[0];
      }
      continue;
    }
    const unsigned top = digits - 1;
    f.topPe = wPe[top];
    f.topSlot = wSlot[top];
    f.period = 1;
    for (unsigned g = 0; g < top; ++g)
      f.period *= k[g];
    // The lowest digit counts up inside a run unless it moves the PE.
    const unsigned low = wPe[0] == 0 ? 1 : 0;
    const int64_t runLen = low ? k[0] : 1, step = low ? wSlot[0] : 0;
    if (f.period / runLen > kMaxRuns)
      return std::nullopt;
    std::vector<int64_t> v(top, 0);
    int64_t i0 = 0, pe = 0, slot = 0;
    while (true) {
      f.pattern.push_back({i0, runLen, pe, slot, step});
      i0 += runLen;
      unsigned g = low;
      for (; g < top; ++g) {
        if (++v[g] < k[g]) {
          pe += wPe[g];
          slot += wSlot[g];
          break;
        }
        pe -= wPe[g] * (k[g] - 1);
        slot -= wSlot[g] * (k[g] - 1);
        v[g] = 0;
      }
      if (g == top)
        break;
    }
  }
  return forms;
}

/// Periods of `f` that indices [lo, hi) touch.
int64_t periodsOver(const Form &f, int64_t lo, int64_t hi) {
  if (lo >= hi)
    return 0;
  return (hi - 1 + f.toff) / f.period - (lo + f.toff) / f.period + 1;
}

/// The runs of indices [lo, hi), in order.
void explicitRuns(const Form &f, int64_t lo, int64_t hi,
                  std::vector<Run> &out) {
  if (lo >= hi)
    return;
  const int64_t uLo = lo + f.toff, uHi = hi + f.toff, T = f.period;
  for (int64_t q = uLo / T; q <= (uHi - 1) / T; ++q)
    for (const Run &r : f.pattern) {
      const int64_t s = std::max(uLo, q * T + r.i0),
                    e = std::min(uHi, q * T + r.i0 + r.len);
      if (s >= e)
        continue;
      out.push_back(
          {s - f.toff, e - s, f.peConst + r.pe + f.topPe * q,
           f.slotConst + r.slot + f.topSlot * q + r.step * (s - q * T - r.i0),
           r.step});
    }
}

/// One side of a family: its PE and slots base + st t + dm m.
struct Side {
  int64_t pe, base, st, dm;
};

bool sameShape(const std::vector<SpaceDim> &x, const std::vector<SpaceDim> &y) {
  if (x.size() != y.size())
    return false;
  for (size_t d = 1; d < x.size(); ++d)
    if (x[d].tlen != y[d].tlen)
      return false;
  return true;
}

MoveFamily familyOf(const Side &a, const Side &b, int64_t len, int64_t reps,
                    bool swapped) {
  const Side &x = swapped ? b : a, &y = swapped ? a : b;
  MoveFamily f;
  f.peA = uint32_t(x.pe);
  f.peB = uint32_t(y.pe);
  f.len = len;
  f.reps = reps;
  f.a0 = x.base;
  f.sa = x.st;
  f.da = x.dm;
  f.b0 = y.base;
  f.sb = y.st;
  f.db = y.dm;
  return f;
}

/// Two lists of runs over the same indices, overlap by overlap.
void mergeRuns(const std::vector<Run> &a, const std::vector<Run> &b,
               int64_t reps, int64_t daRep, int64_t dbRep,
               std::vector<MoveFamily> &out) {
  size_t x = 0, y = 0;
  while (x < a.size() && y < b.size()) {
    const Run &ra = a[x], &rb = b[y];
    const int64_t s = std::max(ra.i0, rb.i0),
                  e = std::min(ra.i0 + ra.len, rb.i0 + rb.len);
    if (s < e)
      out.push_back(
          familyOf({ra.pe, ra.slot + ra.step * (s - ra.i0), ra.step, daRep},
                   {rb.pe, rb.slot + rb.step * (s - rb.i0), rb.step, dbRep},
                   e - s, reps, false));
    if (ra.i0 + ra.len <= rb.i0 + rb.len)
      ++x;
    else
      ++y;
  }
}

/// Explicit runs `a` against the periodic layout `p` (topPe 0).
bool crossPeriodic(const std::vector<Run> &a, const Form &p, bool swapped,
                   std::vector<MoveFamily> &out) {
  const int64_t T = p.period;
  if (int64_t(a.size()) * int64_t(p.pattern.size()) * 3 > kMaxFamilies)
    return false;
  for (const Run &ra : a) {
    const int64_t X = ra.i0 + p.toff, Y = ra.i0 + ra.len + p.toff;
    auto sideA = [&](int64_t i, int64_t dm) {
      return Side{ra.pe, ra.slot + ra.step * (i - ra.i0), ra.step, dm};
    };
    for (const Run &r : p.pattern) {
      const int64_t peB = p.peConst + r.pe;
      const int64_t f1 = ceilDiv(X - r.i0, T),
                    f2 = floorDiv(Y - r.i0 - r.len, T);
      const int64_t q1 = floorDiv(X - r.i0 - r.len, T) + 1,
                    q2 = ceilDiv(Y - r.i0, T) - 1;
      auto cut = [&](int64_t q) {
        const int64_t s = std::max(X, q * T + r.i0),
                      e = std::min(Y, q * T + r.i0 + r.len);
        if (s >= e)
          return;
        out.push_back(familyOf(
            sideA(s - p.toff, 0),
            {peB,
             p.slotConst + r.slot + p.topSlot * q + r.step * (s - q * T - r.i0),
             r.step, 0},
            e - s, 1, swapped));
      };
      if (f1 > f2) {
        for (int64_t q = q1; q <= q2; ++q)
          cut(q);
        continue;
      }
      for (int64_t q = q1; q < f1; ++q)
        cut(q);
      out.push_back(familyOf(
          sideA(f1 * T + r.i0 - p.toff, ra.step * T),
          {peB, p.slotConst + r.slot + p.topSlot * f1, r.step, p.topSlot},
          r.len, f2 - f1 + 1, swapped));
      for (int64_t q = f2 + 1; q <= q2; ++q)
        cut(q);
    }
  }
  return true;
}

} // namespace

namespace {
/// The families of one data dim (file comment).
std::optional<std::vector<MoveFamily>> familiesOf(const Form *a, const Form *b,
                                                  int64_t listLimit) {
  if (a->n != b->n)
    return std::nullopt;
  const int64_t n = a->n;
  const int64_t runsA = periodsOver(*a, 0, n) * int64_t(a->pattern.size()),
                runsB = periodsOver(*b, 0, n) * int64_t(b->pattern.size());
  std::vector<MoveFamily> out;
  std::vector<Run> ra, rb;
  if (runsA <= listLimit && runsB <= listLimit) {
    explicitRuns(*a, 0, n, ra);
    explicitRuns(*b, 0, n, rb);
    mergeRuns(ra, rb, 1, 0, 0, out);
    return out;
  }
  // One side listed against the other's period. When that would make too
  // many families (plain cyclic against cyclic(31) on 11 PEs), two periodic
  // sides may still repeat together (below).
  if (runsA <= listLimit && b->topPe == 0) {
    explicitRuns(*a, 0, n, ra);
    if (crossPeriodic(ra, *b, false, out))
      return out;
  } else if (runsB <= listLimit && a->topPe == 0) {
    explicitRuns(*b, 0, n, rb);
    if (crossPeriodic(rb, *a, true, out))
      return out;
  }
  out.clear();
  ra.clear();
  rb.clear();
  if (a->topPe != 0 || b->topPe != 0)
    return std::nullopt;
  // Both periodic: they repeat together every lcm of their periods.
  const int64_t g = std::gcd(a->period, b->period);
  const int64_t L = a->period / g * b->period;
  if (L / b->period != a->period / g || L > kMaxRuns * 16 ||
      (L / a->period) * int64_t(a->pattern.size()) > kMaxRuns ||
      (L / b->period) * int64_t(b->pattern.size()) > kMaxRuns)
    return std::nullopt;
  const int64_t reps = n / L;
  if (reps > 0) {
    explicitRuns(*a, 0, L, ra);
    explicitRuns(*b, 0, L, rb);
    mergeRuns(ra, rb, reps, a->topSlot * (L / a->period),
              b->topSlot * (L / b->period), out);
  }
  ra.clear();
  rb.clear();
  explicitRuns(*a, reps * L, n, ra);
  explicitRuns(*b, reps * L, n, rb);
  mergeRuns(ra, rb, 1, 0, 0, out);
  return out;
}
} // namespace

std::optional<MoveByDims> mapc::rt::moveFamilies(const TileMap &from,
                                                 const TileMap &to,
                                                 int64_t listLimit) {
  Frame fa, fb;
  std::optional<std::vector<Form>> a = formsOf(from, fa), b = formsOf(to, fb);
  if (!a || !b || a->size() != b->size())
    return std::nullopt;
  MoveByDims out;
  // PE numbers compare dim by dim when every PE dim has the same feeder,
  // constant and place in both layouts.
  out.peByDim = fa.feeder == fb.feeder && fa.peConstOf == fb.peConstOf &&
                sameShape(from.device, to.device);
  for (size_t j = 0; j < a->size(); ++j) {
    std::optional<std::vector<MoveFamily>> f =
        familiesOf(&(*a)[j], &(*b)[j], listLimit);
    if (!f)
      return std::nullopt;
    out.dims.push_back(std::move(*f));
  }
  return out;
}

namespace {
/// g = gcd(a, b) >= 0 with a x + b y = g.
int64_t extendedGcd(int64_t a, int64_t b, __int128 &x, __int128 &y) {
  if (b == 0) {
    x = a < 0 ? -1 : 1;
    y = 0;
    return a < 0 ? -a : a;
  }
  __int128 x1, y1;
  const int64_t g = extendedGcd(b, a % b, x1, y1);
  x = y1;
  y = x1 - __int128(a / b) * y1;
  return g;
}
__int128 floorDiv128(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__int128 ceilDiv128(__int128 a, __int128 b) { return -floorDiv128(-a, b); }

/// Narrows [lo, hi] to the s with 0 <= base + step s <= top.
void narrow(__int128 base, __int128 step, __int128 top, __int128 &lo,
            __int128 &hi) {
  if (step > 0) {
    lo = std::max(lo, ceilDiv128(-base, step));
    hi = std::min(hi, floorDiv128(top - base, step));
  } else {
    lo = std::max(lo, ceilDiv128(top - base, step));
    hi = std::min(hi, floorDiv128(-base, step));
  }
}
} // namespace

int64_t mapc::rt::countOnLine(int64_t len, int64_t reps, int64_t c,
                              int64_t alpha, int64_t beta) {
  if (len <= 0 || reps <= 0)
    return 0;
  if (alpha == 0 && beta == 0)
    return c == 0 ? len * reps : 0;
  if (alpha == 0) {
    if (c % beta != 0)
      return 0;
    const int64_t m = -c / beta;
    return m >= 0 && m < reps ? len : 0;
  }
  if (beta == 0) {
    if (c % alpha != 0)
      return 0;
    const int64_t t = -c / alpha;
    return t >= 0 && t < len ? reps : 0;
  }
  __int128 x, y;
  const int64_t g = extendedGcd(alpha, beta, x, y);
  if (c % g != 0)
    return 0;
  // alpha t + beta m = -c: t = t0 + (beta/g) s, m = m0 - (alpha/g) s.
  const __int128 t0 = x * (-c / g), m0 = y * (-c / g);
  __int128 lo = -(__int128(1) << 100), hi = __int128(1) << 100;
  narrow(t0, beta / g, len - 1, lo, hi);
  narrow(m0, -(alpha / g), reps - 1, lo, hi);
  return hi >= lo ? int64_t(hi - lo + 1) : 0;
}
