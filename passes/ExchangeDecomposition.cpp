//===- ExchangeDecomposition.cpp ------------------------------------------===//
#include "passes/ExchangeDecomposition.h"

#include <algorithm>

using namespace mapc;
using rt::AffineMove;
using rt::Exchange;

namespace {

unsigned weight(uint64_t v) { return unsigned(__builtin_popcountll(v)); }

/// Column i -> the row of `rows` matched to it, every matched entry a 1:
/// single-bit rows first, then the diagonal, then augmenting paths.
std::vector<unsigned> matchColumns(const std::vector<uint64_t> &rows) {
  unsigned n = unsigned(rows.size());
  std::vector<int> rowOf(n, -1), colOf(n, -1);
  auto take = [&](unsigned r, unsigned c) {
    rowOf[c] = int(r);
    colOf[r] = int(c);
  };
  for (unsigned r = 0; r < n; ++r)
    if (weight(rows[r]) == 1 && rowOf[__builtin_ctzll(rows[r])] < 0)
      take(r, __builtin_ctzll(rows[r]));
  for (unsigned i = 0; i < n; ++i)
    if (rowOf[i] < 0 && colOf[i] < 0 && ((rows[i] >> i) & 1))
      take(i, i);
  // Kuhn's augmenting paths for the rest (an invertible matrix has a
  // perfect matching on its ones: det = permanent mod 2 = 1).
  for (unsigned c = 0; c < n; ++c) {
    if (rowOf[c] >= 0)
      continue;
    std::vector<bool> seen(n, false);
    std::vector<int> parentCol(n, -1);
    std::vector<unsigned> queue{c};
    int freeRow = -1;
    for (size_t qi = 0; qi < queue.size() && freeRow < 0; ++qi) {
      unsigned col = queue[qi];
      for (unsigned r = 0; r < n && freeRow < 0; ++r) {
        if (seen[r] || !((rows[r] >> col) & 1))
          continue;
        seen[r] = true;
        parentCol[r] = int(col);
        if (colOf[r] < 0 || weight(rows[r]) > 1) {
          if (colOf[r] < 0)
            freeRow = int(r);
          else // r gives up its column to `col`: search from there
            queue.push_back(unsigned(colOf[r]));
        }
      }
    }
    if (freeRow < 0)
      continue; // only for a singular matrix, which a bijection is not
    // Flip the path back to c: each row takes the column it was reached
    // from, and that column's old row moves on the same way.
    for (int r = freeRow; r >= 0;) {
      unsigned col = unsigned(parentCol[r]);
      int prevRow = rowOf[col];
      take(unsigned(r), col);
      r = col == c ? -1 : prevRow;
    }
  }
  std::vector<unsigned> out(n);
  for (unsigned i = 0; i < n; ++i)
    out[i] = unsigned(std::max(rowOf[i], 0));
  return out;
}

/// The exchange that turns row j of B into e_j, given A = B^-1, or
/// nothing when A_jj = 0.
std::optional<Exchange> fixRow(const std::vector<uint64_t> &B,
                               const std::vector<uint64_t> &A, unsigned j) {
  if (!((A[j] >> j) & 1))
    return std::nullopt;
  // v = row_j xor e_j = sum of lambda_i row_i with lambda = v^T A.
  uint64_t v = B[j] ^ (uint64_t(1) << j), lambda = 0;
  for (unsigned k = 0; k < B.size(); ++k)
    if ((v >> k) & 1)
      lambda ^= A[k];
  return Exchange{j, lambda};
}

struct Reducer {
  AffineMove B; ///< A'^-1, brought towards the identity
  std::vector<Exchange> ops;

  bool identityRow(unsigned j) const { return B.row[j] == uint64_t(1) << j; }
  bool apply(unsigned j) {
    AffineMove A = B.inverse();
    auto e = fixRow(B.row, A.row, j);
    if (!e)
      return false;
    ops.push_back(*e);
    B.row[j] = uint64_t(1) << j;
    return true;
  }
};

} // namespace

std::optional<std::vector<Exchange>>
mapc::exchangesInOrder(const AffineMove &linear,
                       const std::vector<unsigned> &targets) {
  Reducer r{linear.inverse(), {}};
  r.B.constant = 0;
  for (unsigned j : targets)
    if (!r.identityRow(j) && !r.apply(j))
      return std::nullopt;
  for (unsigned j = 0; j < r.B.bits(); ++j)
    if (!r.identityRow(j))
      return std::nullopt;
  return r.ops;
}

AffineFactoring mapc::factorAffine(const AffineMove &g,
                                   std::optional<unsigned> firstTarget) {
  unsigned n = g.bits();
  AffineFactoring out;
  unsigned heavy = 0, heavyInv = 0;
  AffineMove gi = g.inverse();
  for (unsigned i = 0; i < n; ++i) {
    heavy += weight(g.row[i]) > 1;
    heavyInv += weight(gi.row[i]) > 1;
  }
  out.lowerBound = std::max(heavy, heavyInv);

  // g = P o A' with A' = P^-1 A: row i of A' is the row matched to col i.
  std::vector<unsigned> match = matchColumns(g.row);
  AffineMove Aprime;
  Aprime.row.resize(n);
  for (unsigned i = 0; i < n; ++i)
    Aprime.row[i] = g.row[match[i]];
  Reducer r{Aprime.inverse(), {}};
  r.B.constant = 0;

  // Greedy: highest fixable row first, or from firstTarget downwards
  // cyclically.
  std::vector<unsigned> order;
  unsigned start = firstTarget && *firstTarget < n ? *firstTarget : n - 1;
  for (unsigned k = 0; k < n; ++k)
    order.push_back((start + n - k) % n);
  for (bool progress = true; progress;) {
    progress = false;
    for (unsigned j : order)
      if (!r.identityRow(j) && r.apply(j)) {
        progress = true;
        break;
      }
  }
  // Stuck rows: eliminate to a permutation Q (B -> Q by row additions).
  std::vector<bool> pivotUsed(n, false);
  for (unsigned c = 0; c < n; ++c) {
    unsigned pivot = n;
    for (unsigned k = 0; k < n; ++k) {
      unsigned rr = (c + k) % n;
      if (!pivotUsed[rr] && ((r.B.row[rr] >> c) & 1)) {
        pivot = rr;
        break;
      }
    }
    if (pivot == n)
      break; // singular: cannot happen for a bijection
    pivotUsed[pivot] = true;
    for (unsigned rr = 0; rr < n; ++rr)
      if (rr != pivot && ((r.B.row[rr] >> c) & 1)) {
        r.ops.push_back(Exchange{rr, uint64_t(1) << pivot});
        r.B.row[rr] ^= r.B.row[pivot];
      }
  }
  out.exchanges = r.ops;
  // g = P o Q^-1 o (exchanges); the permutation part is g o exchanges^-1.
  AffineMove perm =
      AffineMove::fromExchanges(n, out.exchanges).inverse().then(g);
  out.permutation = *perm.asBitMove();
  return out;
}

std::variant<AffineRemap, std::string>
mapc::factorRemap(const rt::AffineLayout &src, const rt::AffineLayout &dst,
                  std::optional<unsigned> exchangeStart) {
  AffineRemap r;
  std::string why;
  if (!rt::affineRemapMove(src, dst, r.move, &why))
    return why;
  std::optional<unsigned> start;
  if (exchangeStart) {
    if (*exchangeStart >= src.pBits)
      return "the exchanges cannot start in p" +
             std::to_string(*exchangeStart) + ": there are " +
             std::to_string(src.pBits) + " PE bits";
    start = src.mBits + *exchangeStart;
  }
  r.factoring = factorAffine(r.move, start);
  return r;
}

std::optional<std::vector<std::vector<Exchange>>>
mapc::rotatedOrders(const std::vector<Exchange> &ops, unsigned bits) {
  std::vector<unsigned> targets;
  for (const Exchange &e : ops)
    if (std::find(targets.begin(), targets.end(), e.bit) == targets.end())
      targets.push_back(e.bit);
  if (targets.size() < 2 || targets.size() != ops.size())
    return std::nullopt;
  AffineMove linear = AffineMove::fromExchanges(bits, ops);
  std::vector<std::vector<Exchange>> orders;
  for (size_t s = 0; s < targets.size(); ++s) {
    std::vector<unsigned> t(targets.begin() + s, targets.end());
    t.insert(t.end(), targets.begin(), targets.begin() + s);
    auto o = exchangesInOrder(linear, t);
    if (!o)
      return std::nullopt;
    orders.push_back(*o);
  }
  return orders;
}
