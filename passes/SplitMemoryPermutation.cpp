//===- SplitMemoryPermutation.cpp -----------------------------------------===//
#include "passes/SplitMemoryPermutation.h"

#include <algorithm>
#include <cassert>

using namespace mapc;
using rt::BitMove;

static bool moves(const BitMove &m, unsigned i) {
  return m.to[i] != i || ((m.flip >> i) & 1);
}

unsigned mapc::movingBitCount(const BitMove &move) {
  unsigned count = 0;
  for (unsigned i = 0; i < move.bits(); ++i)
    count += unsigned(moves(move, i));
  return count;
}

/// The bit cycles of `m` that change something, each listed so that bit
/// c[k] goes to c[k + 1].
static std::vector<std::vector<unsigned>> movingCycles(const BitMove &m) {
  std::vector<std::vector<unsigned>> out;
  for (std::vector<unsigned> &c : m.cycles())
    if (c.size() > 1 || moves(m, c[0]))
      out.push_back(std::move(c));
  return out;
}

BitMove mapc::memoryCyclesOf(const BitMove &move, unsigned mBits) {
  BitMove out = BitMove::identity(move.bits());
  for (const std::vector<unsigned> &c : movingCycles(move)) {
    if (std::any_of(c.begin(), c.end(), [&](unsigned b) { return b >= mBits; }))
      continue;
    for (unsigned b : c) {
      out.to[b] = move.to[b];
      out.flip |= move.flip & (uint64_t(1) << b);
    }
  }
  return out;
}

std::vector<BitMove> mapc::splitMemoryPermutation(const BitMove &star,
                                                  unsigned limit) {
  assert(limit >= 2 && "a bit cycle cannot be split below two bits");
  std::vector<BitMove> parts;
  BitMove rest = star;
  const unsigned n = star.bits();
  while (movingBitCount(rest) > limit) {
    std::vector<std::vector<unsigned>> cycles = movingCycles(rest);
    std::stable_sort(
        cycles.begin(), cycles.end(),
        [](const auto &a, const auto &b) { return a.size() > b.size(); });
    BitMove part = BitMove::identity(n);
    if (cycles.front().size() > limit) {
      // (c0, ..., cL-1) = (c0, ..., c[limit-1]) then (c0, c[limit], ...):
      // the first part writes c1 .. c[limit-1] for good, so it carries
      // their inversions.
      // Any bit may start the cycle; start where the parts keep the most
      // low m-bits in place, as those let the step move whole chunks of
      // up to 64 bits (003 5.6.3). Ties keep the thesis's start.
      std::vector<unsigned> c = cycles.front();
      const size_t L = c.size();
      auto lowestMoved = [&](size_t from, size_t count, unsigned also) {
        unsigned low = also;
        for (size_t k = 0; k < count; ++k)
          low = std::min(low, c[(from + k) % L]);
        return std::min(low, 3u); // 8 bytes of 1-byte elements at most
      };
      size_t best = 0;
      unsigned bestScore = 0;
      for (size_t s = 0; s < L; ++s) {
        unsigned score = lowestMoved(s, limit, c[s]) +
                         lowestMoved(s + limit, L - limit, c[s]);
        if (score > bestScore) {
          best = s;
          bestScore = score;
        }
      }
      std::rotate(c.begin(), c.begin() + std::ptrdiff_t(best), c.end());
      for (unsigned k = 0; k < limit; ++k)
        part.to[c[k]] = c[(k + 1) % limit];
      for (unsigned k = 1; k < limit; ++k)
        part.flip |= rest.flip & (uint64_t(1) << c[k]);
    } else {
      // First fit, longest cycles first.
      unsigned room = limit;
      for (const std::vector<unsigned> &c : cycles) {
        if (c.size() > room)
          continue;
        for (unsigned b : c) {
          part.to[b] = rest.to[b];
          part.flip |= rest.flip & (uint64_t(1) << b);
        }
        room -= unsigned(c.size());
      }
    }
    parts.push_back(part);
    rest = part.inverse().then(rest);
  }
  if (!rest.isIdentity())
    parts.push_back(rest);
  return parts;
}
