//===- RandomTile.h - random well-formed k-Tile formats for unit tests ----===//
#ifndef MAPC_TEST_UNIT_RANDOMTILE_H
#define MAPC_TEST_UNIT_RANDOMTILE_H

#include "ir/KTile.h"

#include <algorithm>
#include <random>

namespace mapc::test {

struct TileOptions {
  bool templates = true; ///< data, k-Tile and device templates and offsets
  bool senses = true;
  bool gray = true;
  bool empties = true;
  bool replicate = true;
  unsigned maxRank = 3;
};

/// Spreads the k-Tile dims of `t` (its first `rank` groups being data dims)
/// over 1-3 device dims at random, fills a device dim left empty with an
/// empty dim of length 1, and sizes the device dims (with random templates
/// and offsets when `templates`).
inline void assignDeviceDims(std::mt19937 &rng, KTile &t, unsigned rank,
                             bool templates) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned numDevice = pick(1, 3);
  t.m.assign(numDevice, {});
  std::vector<unsigned> order(t.kdims.size());
  for (unsigned l = 0; l < order.size(); ++l)
    order[l] = l;
  std::shuffle(order.begin(), order.end(), rng);
  for (unsigned l : order)
    t.m[pick(0, numDevice - 1)].push_back(l);
  for (auto &g : t.m)
    if (g.empty()) { // fill with an empty dim of length 1
      if (t.groups.size() == rank)
        t.groups.push_back(0);
      ++t.groups.back();
      g.push_back(t.kdims.size());
      t.kdims.push_back(KDim::plain(1));
    }
  for (auto &g : t.m) {
    int64_t prod = 1;
    for (unsigned l : g)
      prod *= t.kdims[l].tk;
    SpaceDim s = SpaceDim::plain(prod);
    if (templates) {
      s.tlen = prod + pick(0, 2);
      s.toff = pick(0, int(s.tlen - prod));
      s.off = pick(0, int(prod - 1));
    }
    t.device.push_back(s);
  }
}

/// A random verified k-Tile format, small enough to check exhaustively.
inline KTile randomTile(std::mt19937 &rng, const TileOptions &opt = {}) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  KTile t;
  unsigned rank = pick(1, opt.maxRank);
  for (unsigned j = 0; j < rank; ++j) {
    unsigned n = pick(1, 2);
    int64_t prod = 1;
    for (unsigned i = 0; i < n; ++i) {
      KDim d = KDim::plain(pick(1, 4));
      prod *= d.k;
      t.kdims.push_back(d);
    }
    t.groups.push_back(n);
    SpaceDim s = SpaceDim::plain(prod);
    if (opt.templates) {
      s.len = pick(1, int(prod));
      s.toff = pick(0, int(prod - s.len));
      s.off = pick(0, int(s.len - 1));
    }
    t.data.push_back(s);
  }
  unsigned numEmpty = opt.empties ? pick(0, 2) : 0;
  if (numEmpty)
    t.groups.push_back(numEmpty);
  for (unsigned i = 0; i < numEmpty; ++i) {
    KDim d = KDim::plain(pick(1, 3));
    d.ok = opt.replicate && pick(0, 2) == 0 ? kReplicated : pick(0, d.k - 1);
    t.kdims.push_back(d);
  }
  unsigned firstEmpty = t.kdims.size() - numEmpty;
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    KDim &d = t.kdims[l];
    if (opt.templates) {
      d.tk = d.k + pick(0, 2);
      d.otk = pick(0, int(d.tk - d.k));
      if (l < firstEmpty)
        d.ok = pick(0, int(d.k - 1));
    }
    if (opt.senses && pick(0, 1))
      d.sense = Sense::Minus;
    if (opt.gray && (d.tk & (d.tk - 1)) == 0 && pick(0, 1))
      d.enc = Encoding::Gray;
  }
  assignDeviceDims(rng, t, rank, opt.templates);
  return t;
}

struct RandomTileSpec {
  bool templates = true, senses = true, gray = true, empties = true;
};

/// A random verified k-Tile format holding data of `shape` (the general
/// remap property tests: GeneralRemapTest, NetworkGeneralTest).
inline KTile randomTileFor(std::mt19937 &rng, const std::vector<int64_t> &shape,
                           const RandomTileSpec &spec) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  KTile t;
  for (int64_t len : shape) {
    // One or two k-Tile dims whose product covers the dim (a data template
    // when it exceeds it, 003 3.2.3).
    int64_t k0 = pick(1, len), k1 = (len + k0 - 1) / k0;
    if (spec.templates && pick(0, 2) == 0)
      k1 += pick(0, 1);
    if (k1 == 1 || pick(0, 1)) {
      t.kdims.push_back(KDim::plain(k0 * k1));
      t.groups.push_back(1);
    } else {
      t.kdims.push_back(KDim::plain(k0));
      t.kdims.push_back(KDim::plain(k1));
      t.groups.push_back(2);
    }
    SpaceDim s = SpaceDim::plain(len);
    s.tlen = k0 * k1;
    if (spec.templates) {
      s.toff = pick(0, s.tlen - len);
      s.off = pick(0, len - 1);
    }
    t.data.push_back(s);
  }
  const unsigned rank = unsigned(shape.size());
  unsigned empties = spec.empties ? unsigned(pick(0, 2)) : 0;
  if (empties)
    t.groups.push_back(empties);
  for (unsigned i = 0; i < empties; ++i) {
    KDim d = KDim::plain(pick(1, 3));
    d.ok = pick(0, 2) == 0 ? kReplicated : pick(0, d.k - 1);
    t.kdims.push_back(d);
  }
  const unsigned firstEmpty = unsigned(t.kdims.size()) - empties;
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    KDim &d = t.kdims[l];
    if (spec.templates && pick(0, 3) == 0) {
      d.tk = d.k + pick(1, 2);
      d.otk = pick(0, d.tk - d.k);
    }
    if (spec.templates && l < firstEmpty && pick(0, 3) == 0)
      d.ok = pick(0, d.k - 1);
    if (spec.senses && pick(0, 1))
      d.sense = Sense::Minus;
    if (spec.gray && (d.tk & (d.tk - 1)) == 0 && pick(0, 3) == 0)
      d.enc = Encoding::Gray;
  }
  // Half the formats get device templates and offsets.
  assignDeviceDims(rng, t, rank, spec.templates && pick(0, 1) == 0);
  return t;
}

} // namespace mapc::test

#endif
