//===- Canonicalize.cpp - canonical k-Tile form (003 5.1.2) ---------------===//
//
// Two neighbouring k-Tile dims that are also neighbours, in the same order,
// in one device dim describe the same mapping as a single dim of their
// product length (5.1.2 ii); length-1 dims describe nothing; and the order of
// empty dims is arbitrary until fixed by the order m uses them (5.1.2 iii).
// These rewrites keep g_K exactly: tests check the device contents before
// and after.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowering.h"

#include <algorithm>

using namespace mapc;

namespace {

/// Mutable view with stable handles, like HPFLowering's OpenTile.
struct Editable {
  std::vector<KDim> dims;
  std::vector<std::vector<unsigned>> dataGroups; // handles, least sig first
  std::vector<unsigned> empties;
  std::vector<std::vector<unsigned>> m;
  std::vector<bool> alive;

  explicit Editable(const KTile &t) : dims(t.kdims), m(t.m) {
    alive.assign(dims.size(), true);
    for (unsigned j = 0; j < t.numDataDims(); ++j) {
      auto g = t.dataGroup(j);
      dataGroups.emplace_back(g.begin(), g.end());
    }
    for (unsigned l = t.firstEmptyDim(); l < t.kdims.size(); ++l)
      empties.push_back(l);
  }

  int dataGroupOf(unsigned h) const {
    for (unsigned j = 0; j < dataGroups.size(); ++j)
      if (std::find(dataGroups[j].begin(), dataGroups[j].end(), h) !=
          dataGroups[j].end())
        return j;
    return -1;
  }

  static bool plain(const KDim &d) {
    return d.k == d.tk && d.otk == 0 && d.enc == Encoding::Binary;
  }

  /// Drops length-1 dims where both their groups keep another dim.
  bool dropUnitDims() {
    bool changed = false;
    for (auto &g : m)
      for (size_t p = 0; p < g.size();) {
        unsigned h = g[p];
        const KDim &d = dims[h];
        int j = dataGroupOf(h);
        bool dataOk = j < 0 || dataGroups[j].size() > 1;
        if (d.k == 1 && d.tk == 1 && g.size() > 1 && dataOk) {
          g.erase(g.begin() + p);
          auto &owner = j < 0 ? empties : dataGroups[j];
          owner.erase(std::find(owner.begin(), owner.end(), h));
          alive[h] = false;
          changed = true;
        } else {
          ++p;
        }
      }
    return changed;
  }

  /// Merges the first pair of mergeable neighbours; true if one was found.
  bool mergeOnce() {
    for (auto &g : m)
      for (size_t p = 0; p + 1 < g.size(); ++p) {
        unsigned lo = g[p], hi = g[p + 1];
        KDim &a = dims[lo];
        const KDim &b = dims[hi];
        if (!plain(a) || !plain(b) || a.sense != b.sense)
          continue;
        int j = dataGroupOf(lo);
        if (j >= 0) {
          auto &dg = dataGroups[j];
          auto it = std::find(dg.begin(), dg.end(), lo);
          if (a.ok != 0 || b.ok != 0 || it + 1 == dg.end() || *(it + 1) != hi)
            continue;
          dg.erase(it + 1);
        } else {
          if (dataGroupOf(hi) >= 0)
            continue;
          bool bothStar = a.ok == kReplicated && b.ok == kReplicated;
          bool bothConst = a.ok != kReplicated && b.ok != kReplicated;
          if (!bothStar && !bothConst)
            continue;
          if (bothConst)
            a.ok = a.ok + a.k * b.ok;
          empties.erase(std::find(empties.begin(), empties.end(), hi));
        }
        a.k = a.tk = a.k * b.k;
        g.erase(g.begin() + p + 1);
        alive[hi] = false;
        return true;
      }
    return false;
  }

  KTile close(const KTile &original) const {
    KTile t;
    t.data = original.data;
    t.device = original.device;
    std::vector<unsigned> number(dims.size(), ~0u);
    for (const auto &g : dataGroups) {
      for (unsigned h : g) {
        number[h] = t.kdims.size();
        t.kdims.push_back(dims[h]);
      }
      t.groups.push_back(g.size());
    }
    // Empty dims numbered in the order m references them (5.1.2 iii).
    unsigned numEmpty = 0;
    for (const auto &g : m)
      for (unsigned h : g)
        if (std::find(empties.begin(), empties.end(), h) != empties.end()) {
          number[h] = t.kdims.size();
          t.kdims.push_back(dims[h]);
          ++numEmpty;
        }
    if (numEmpty)
      t.groups.push_back(numEmpty);
    for (const auto &g : m) {
      std::vector<unsigned> renumbered;
      for (unsigned h : g)
        renumbered.push_back(number[h]);
      t.m.push_back(renumbered);
    }
    return t;
  }
};

} // namespace

KTile mapc::canonicalize(const KTile &tile) {
  Editable e(tile);
  while (e.dropUnitDims() || e.mergeOnce()) {
  }
  return e.close(tile);
}
