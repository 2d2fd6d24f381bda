//===- ProductRounds.cpp - exchange rounds of a separable move (see header)
//===//
#include "ProductRounds.h"
#include "PairRuns.h"

#include <algorithm>
#include <cassert>
#include <numeric>

using namespace mapc::rt;

namespace {

constexpr uint32_t kNone = ~uint32_t(0);
/// Factors of more PEs than this are not tabulated (an n x n table each).
constexpr uint64_t kMostSide = 2048;

using Wide = unsigned __int128;

/// One factor's rounds (`a`: n x n counts, row = sender): its diagonal as
/// stay rounds, one per level (the coordinates that keep at least that
/// many), then the rest coloured (PairColouring.h) in as many rounds as its
/// busiest coordinate needs.
std::vector<FactorRound> factorRounds(const std::vector<uint64_t> &a,
                                      uint32_t n) {
  std::vector<FactorRound> out;
  std::vector<uint64_t> levels;
  for (uint32_t x = 0; x < n; ++x)
    if (a[size_t(x) * n + x])
      levels.push_back(a[size_t(x) * n + x]);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  uint64_t below = 0;
  for (uint64_t level : levels) {
    FactorRound r;
    r.stay = true;
    r.times = level - below;
    for (uint32_t x = 0; x < n; ++x)
      if (a[size_t(x) * n + x] >= level) {
        r.from.push_back(x);
        r.to.push_back(x);
      }
    below = level;
    out.push_back(std::move(r));
  }
  std::vector<PairCount> rest;
  for (uint32_t x = 0; x < n; ++x)
    for (uint32_t y = 0; y < n; ++y)
      if (x != y && a[size_t(x) * n + y])
        rest.push_back({x, y, a[size_t(x) * n + y]});
  for (const PairRound &pr : colourPairs(rest, n, n)) {
    FactorRound r;
    r.times = pr.times;
    for (uint32_t k : pr.pairs) {
      r.from.push_back(rest[k].left);
      r.to.push_back(rest[k].right);
    }
    out.push_back(std::move(r));
  }
  return out;
}

/// Divides `a` by the greatest common divisor of its entries; returns it.
uint64_t normalise(std::vector<uint64_t> &a) {
  uint64_t g = 0;
  for (uint64_t v : a)
    g = std::gcd(g, v);
  if (g > 1)
    for (uint64_t &v : a)
      v /= g;
  return g;
}

/// Row and column sums of the n x n counts `a`.
void sums(const std::vector<uint64_t> &a, uint32_t n, std::vector<Wide> &row,
          std::vector<Wide> &col) {
  row.assign(n, 0);
  col.assign(n, 0);
  for (uint32_t x = 0; x < n; ++x)
    for (uint32_t y = 0; y < n; ++y) {
      row[x] += a[size_t(x) * n + y];
      col[y] += a[size_t(x) * n + y];
    }
}

/// What a factor round contributes to a product round's router price
/// (MasPar.h), per block of `block` coordinates (a cluster's extent along
/// this factor): the most senders and receivers in a block, the most
/// blocks a block sends to or receives from, the most coordinates one
/// block sends to another.
struct FactorTraffic {
  int64_t senders = 0, receivers = 0, sendPartners = 0, receivePartners = 0,
          group = 0;
};

FactorTraffic trafficOf(const FactorRound &r, unsigned block) {
  FactorTraffic t;
  std::vector<std::pair<uint32_t, uint32_t>> e(r.from.size());
  for (size_t i = 0; i < e.size(); ++i)
    e[i] = {r.from[i] / block, r.to[i] / block};
  runsOf(e, t.senders, t.sendPartners, t.group);
  for (auto &[f, s] : e)
    std::swap(f, s);
  int64_t unused;
  runsOf(e, t.receivers, t.receivePartners, unused);
  return t;
}

} // namespace

uint64_t ProductRounds::rounds() const {
  uint64_t innerAll = 0, innerStay = 0, outerAll = 0, outerStay = 0;
  for (const FactorRound &r : innerRounds) {
    innerAll += r.times;
    innerStay += r.stay ? r.times : 0;
  }
  for (const FactorRound &r : outerRounds) {
    outerAll += r.times;
    outerStay += r.stay ? r.times : 0;
  }
  return scale * (innerAll * outerAll - innerStay * outerStay);
}

namespace {

/// The grid's two factors (the first dim, the others together), or
/// nothing when either is below 2 or too large to tabulate.
std::optional<std::pair<uint64_t, uint64_t>>
factorSides(const std::vector<int64_t> &grid) {
  if (grid.size() < 2)
    return std::nullopt;
  uint64_t outer = 1;
  for (size_t i = 1; i < grid.size(); ++i)
    outer *= uint64_t(std::max<int64_t>(1, grid[i]));
  const uint64_t inner = uint64_t(std::max<int64_t>(1, grid[0]));
  if (inner < 2 || outer < 2 || inner > kMostSide || outer > kMostSide)
    return std::nullopt;
  return std::make_pair(inner, outer);
}

/// The product rounds of scale A B (A inner x inner, B outer x outer,
/// each divided by the gcd of its entries), or nothing when they would
/// outnumber the busiest PE's degree.
std::optional<ProductRounds> roundsOf(const std::vector<uint64_t> &a,
                                      uint32_t inner,
                                      const std::vector<uint64_t> &b,
                                      uint32_t outer, uint64_t scale) {
  // The busiest PE's degree, the elements that keep their PE left out.
  std::vector<Wide> rowA, colA, rowB, colB;
  sums(a, inner, rowA, colA);
  sums(b, outer, rowB, colB);
  Wide degree = 0;
  for (uint64_t x = 0; x < inner; ++x)
    for (uint64_t r = 0; r < outer; ++r) {
      const Wide kept =
          Wide(a[size_t(x * inner + x)]) * b[size_t(r * outer + r)];
      degree = std::max(
          {degree, rowA[x] * rowB[r] - kept, colA[x] * colB[r] - kept});
    }
  ProductRounds p;
  p.inner = inner;
  p.outer = outer;
  p.scale = scale;
  p.innerRounds = factorRounds(a, p.inner);
  p.outerRounds = factorRounds(b, p.outer);
  if (Wide(p.rounds()) != degree * scale)
    return std::nullopt;
  return p;
}

/// productRounds on pairs of any kind: `ends(pair)` gives its sender,
/// receiver and count as a PairCount. Pairs of a PE with itself are left
/// out (the factors' diagonals).
template <typename Pair, typename Ends>
std::optional<ProductRounds>
productOf(const std::vector<Pair> &pairs, Ends ends,
          const std::vector<int64_t> &grid, size_t from) {
  const std::optional<std::pair<uint64_t, uint64_t>> sides = factorSides(grid);
  if (!sides || pairs.size() < from)
    return std::nullopt;
  const auto [inner, outer] = *sides;
  const uint64_t span = inner * outer;
  // Each PE's two coordinates, looked up rather than divided for.
  std::vector<uint32_t> xOf(static_cast<size_t>(span)),
      rOf(static_cast<size_t>(span));
  for (uint64_t pe = 0; pe < span; ++pe) {
    xOf[size_t(pe)] = uint32_t(pe % inner);
    rOf[size_t(pe)] = uint32_t(pe / inner);
  }
  // A pair that moves in both factors: the pairs on its two lines (one
  // factor's coordinates fixed as its) give A and B up to a constant.
  std::optional<PairCount> ref;
  for (const Pair &pair : pairs) {
    const PairCount p = ends(pair);
    if (p.count && p.left < span && p.right < span &&
        xOf[p.left] != xOf[p.right] && rOf[p.left] != rOf[p.right]) {
      ref = p;
      break;
    }
  }
  if (!ref)
    return std::nullopt;
  const uint32_t rx = xOf[ref->left], ry = xOf[ref->right], rr = rOf[ref->left],
                 rs = rOf[ref->right];
  std::vector<uint64_t> a(size_t(inner * inner), 0),
      b(size_t(outer * outer), 0);
  for (const Pair &pair : pairs) {
    const PairCount p = ends(pair);
    if (p.left >= span || p.right >= span)
      return std::nullopt;
    const uint32_t x = xOf[p.left], y = xOf[p.right], r = rOf[p.left],
                   s = rOf[p.right];
    if (r == rr && s == rs)
      a[size_t(x) * inner + y] = p.count;
    if (x == rx && y == ry)
      b[size_t(r) * outer + s] = p.count;
  }
  normalise(a);
  normalise(b);
  auto product = [&](uint32_t left, uint32_t right) {
    return Wide(a[size_t(xOf[left]) * inner + xOf[right]]) *
           b[size_t(rOf[left]) * outer + rOf[right]];
  };
  const Wide unit = product(ref->left, ref->right);
  if (ref->count % unit)
    return std::nullopt;
  const uint64_t scale = uint64_t(ref->count / unit);
  // Every pair is scale A B, and every entry of A B off the diagonal is a
  // pair (the pairs are distinct).
  uint64_t listed = 0;
  for (const Pair &pair : pairs) {
    const PairCount p = ends(pair);
    if (!p.count || p.left == p.right)
      continue;
    ++listed;
    // A product past 64 bits cannot be the count.
    uint64_t ab, want;
    if (__builtin_mul_overflow(a[size_t(xOf[p.left]) * inner + xOf[p.right]],
                               b[size_t(rOf[p.left]) * outer + rOf[p.right]],
                               &ab) ||
        __builtin_mul_overflow(ab, scale, &want) || want != p.count)
      return std::nullopt;
  }
  uint64_t nonzeroA = 0, nonzeroB = 0, diagonalA = 0, diagonalB = 0;
  for (uint64_t x = 0; x < inner; ++x)
    for (uint64_t y = 0; y < inner; ++y) {
      nonzeroA += a[size_t(x * inner + y)] != 0;
      diagonalA += x == y && a[size_t(x * inner + y)];
    }
  for (uint64_t r = 0; r < outer; ++r)
    for (uint64_t s = 0; s < outer; ++s) {
      nonzeroB += b[size_t(r * outer + s)] != 0;
      diagonalB += r == s && b[size_t(r * outer + s)];
    }
  if (listed != nonzeroA * nonzeroB - diagonalA * diagonalB)
    return std::nullopt;
  return roundsOf(a, uint32_t(inner), b, uint32_t(outer), scale);
}

} // namespace

std::optional<ProductRounds>
mapc::rt::productRounds(const std::vector<PairCount> &pairs,
                        const std::vector<int64_t> &grid, size_t from) {
  return productOf(
      pairs, [](const PairCount &p) { return p; }, grid, from);
}

std::optional<ProductRounds>
mapc::rt::productRounds(const std::vector<PePairCount> &pairs,
                        const std::vector<int64_t> &grid, size_t from) {
  return productOf(
      pairs,
      [](const PePairCount &p) {
        return PairCount{p.from, p.to, uint64_t(p.count)};
      },
      grid, from);
}

std::optional<ProductRounds>
mapc::rt::productRounds(const PairFactors &f, const std::vector<int64_t> &grid,
                        size_t from) {
  const std::optional<std::pair<uint64_t, uint64_t>> sides = factorSides(grid);
  if (!sides || f.low.size() * f.high.size() < from)
    return std::nullopt;
  const auto [inner, outer] = *sides;
  // Low parts below the grid's first dim and high parts its multiples:
  // A and B are the factors themselves. Otherwise from the pairs.
  if (uint64_t(f.modulus) != inner) {
    MoveCounts listed;
    listed.factors = f;
    return productRounds(listed.pairs(), grid, from);
  }
  std::vector<uint64_t> a(size_t(inner * inner), 0),
      b(size_t(outer * outer), 0);
  bool movesA = false, movesB = false;
  for (const PePairCount &l : f.low) {
    a[size_t(l.from * inner + l.to)] = uint64_t(l.count);
    movesA |= l.from != l.to;
  }
  for (const PePairCount &h : f.high) {
    const uint64_t r = h.from / inner, s = h.to / inner;
    // A pair past the grid.
    if (r >= outer || s >= outer)
      return std::nullopt;
    b[size_t(r * outer + s)] = uint64_t(h.count);
    movesB |= r != s;
  }
  // No pair moves in both factors: not a product of two moves.
  if (!movesA || !movesB)
    return std::nullopt;
  // The pairs are scale A B exactly: the scale is what the gcds took out.
  const uint64_t scale = normalise(a) * normalise(b);
  return roundsOf(a, uint32_t(inner), b, uint32_t(outer), scale);
}

std::vector<PairRound>
mapc::rt::expandProductRounds(const ProductRounds &p,
                              const std::vector<PairCount> &pairs) {
  // Each factor's (from, to) entries numbered, and every pair found by its
  // two entries.
  auto number = [](const std::vector<FactorRound> &rounds, uint32_t n,
                   std::vector<uint32_t> &slot) {
    slot.assign(size_t(n) * n, kNone);
    uint32_t next = 0;
    for (const FactorRound &r : rounds)
      for (size_t i = 0; i < r.from.size(); ++i) {
        uint32_t &s = slot[size_t(r.from[i]) * n + r.to[i]];
        if (s == kNone)
          s = next++;
      }
    return next;
  };
  std::vector<uint32_t> slotA, slotB;
  const uint32_t entriesA = number(p.innerRounds, p.inner, slotA);
  const uint32_t entriesB = number(p.outerRounds, p.outer, slotB);
  auto entryA = [&](uint32_t from, uint32_t to) {
    return slotA[size_t(from) * p.inner + to];
  };
  auto entryB = [&](uint32_t from, uint32_t to) {
    return slotB[size_t(from) * p.outer + to];
  };
  std::vector<uint32_t> at(size_t(entriesA) * entriesB, kNone);
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    const PairCount &c = pairs[k];
    if (!c.count)
      continue;
    const uint32_t ea = entryA(c.left % p.inner, c.right % p.inner),
                   eb = entryB(c.left / p.inner, c.right / p.inner);
    assert(ea != kNone && eb != kNone && "a pair the factors do not move");
    assert(at[size_t(ea) * entriesB + eb] == kNone && "a pair listed twice");
    at[size_t(ea) * entriesB + eb] = k;
  }
  std::vector<PairRound> out;
  std::vector<uint32_t> outerEntries;
  for (const FactorRound &ri : p.innerRounds)
    for (const FactorRound &rj : p.outerRounds) {
      if (ri.stay && rj.stay)
        continue;
      outerEntries.clear();
      for (size_t j = 0; j < rj.from.size(); ++j)
        outerEntries.push_back(entryB(rj.from[j], rj.to[j]));
      PairRound r;
      r.times = p.scale * ri.times * rj.times;
      r.pairs.reserve(ri.from.size() * rj.from.size());
      for (size_t i = 0; i < ri.from.size(); ++i) {
        const size_t base = size_t(entryA(ri.from[i], ri.to[i])) * entriesB;
        for (uint32_t eb : outerEntries)
          r.pairs.push_back(at[base + eb]);
      }
      out.push_back(std::move(r));
    }
  return out;
}

bool mapc::rt::productRouterTicks(const MasPar &m, unsigned bytes,
                                  const ProductRounds &p,
                                  std::vector<int64_t> &ticks) {
  if (m.width() != p.inner || p.outer > m.height())
    return false;
  // PE x + width * r is at column x, row r: its cluster is its column's
  // block and its row's block (MasPar.h), so a product round's senders per
  // cluster, partner clusters and PEs per cluster pair are products of
  // its factors'.
  const ClusterBlock cb = clusterBlock(m.width(), m.height(), m.clusterSize());
  std::vector<FactorTraffic> inner, outer;
  for (const FactorRound &r : p.innerRounds)
    inner.push_back(trafficOf(r, cb.width));
  for (const FactorRound &r : p.outerRounds)
    outer.push_back(trafficOf(r, cb.height));
  const CostModel &c = m.cost();
  const int64_t send = c.rsend[widthIndex(bytes)];
  ticks.assign(inner.size() * outer.size(), 0);
  for (size_t i = 0; i < inner.size(); ++i)
    for (size_t j = 0; j < outer.size(); ++j) {
      if (p.innerRounds[i].stay && p.outerRounds[j].stay)
        continue;
      const FactorTraffic &x = inner[i], &y = outer[j];
      const int64_t plain =
          std::max(x.senders * y.senders, x.receivers * y.receivers) *
          (c.ropen + send);
      const int64_t clustered =
          std::max(x.sendPartners * y.sendPartners,
                   x.receivePartners * y.receivePartners) *
          (c.ropen + x.group * y.group * send);
      ticks[i * outer.size() + j] = std::min(plain, clustered);
    }
  return true;
}
