//===- RandomRemap.h - random radix-2 remaps in the manner of 003 5.7.1
//----===//
#ifndef MAPC_TEST_RANDOMREMAP_H
#define MAPC_TEST_RANDOMREMAP_H

#include "mapc/runtime/BitLayout.h"
#include "mapc/runtime/MasPar.h"

#include <algorithm>
#include <random>

namespace mapc::test {

/// A pair of layouts on mBits + pBits device bits: 0-3 identity low m-bits
/// kept (so every transfer width is exercised), a random number of disabled
/// and inverted bits, the second layout a random permutation of the first
/// (003 5.7.1).
inline std::pair<rt::BitLayout, rt::BitLayout>
randomRemap(std::mt19937_64 &rng, unsigned mBits, unsigned pBits) {
  unsigned n = mBits + pBits;
  auto pick = [&](unsigned lo, unsigned hi) {
    return unsigned(std::uniform_int_distribution<unsigned>(lo, hi)(rng));
  };
  unsigned keep = std::min(mBits, pick(0, 3));
  unsigned disabled = pick(0, std::min(n, 3u));
  if (rng() % 3 == 0)
    disabled = 0;
  rt::BitLayout a;
  a.mBits = mBits;
  a.pBits = pBits;
  a.dataBits = n - disabled;
  a.dataBit.assign(n, -1);
  a.value.assign(n, 0);
  std::vector<unsigned> pos(n);
  for (unsigned i = 0; i < n; ++i)
    pos[i] = i;
  std::shuffle(pos.begin(), pos.end(), rng);
  for (unsigned d = 0; d < a.dataBits; ++d)
    a.dataBit[pos[d]] = int(d);
  double invP = std::uniform_real_distribution<double>(0, 0.5)(rng);
  for (unsigned i = 0; i < n; ++i)
    a.value[i] = std::bernoulli_distribution(invP)(rng);
  rt::BitLayout b = a;
  std::vector<unsigned> perm(n);
  for (unsigned i = 0; i < n; ++i)
    perm[i] = i;
  std::shuffle(perm.begin() + keep, perm.end(), rng);
  for (unsigned i = 0; i < n; ++i) {
    b.dataBit[perm[i]] = a.dataBit[i];
    b.value[perm[i]] = a.value[i];
  }
  for (unsigned i = keep; i < n; ++i)
    if (std::bernoulli_distribution(invP)(rng))
      b.value[i] ^= 1;
  // Keep the low identity bits identical and enabled in both.
  return {a, b};
}

} // namespace mapc::test

#endif
