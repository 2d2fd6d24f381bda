//===- RemapCycles.cpp ----------------------------------------------------===//
//
// Worked example (003 fig. 4.3): source a2 !a0 1 a1, destination
// !a2 !a1 !a0 1, device bits p1 p0 m1 m0. The data bit at m0 (a1) moves to
// p0, where the destination wants it inverted; a0 moves from p0 to m1; the
// source's disabled m1 (value 1) ends the chain, whose start m0 is disabled
// in the destination; a2 stays at p1 but is inverted. Result:
// (m0, !p0, m1~)(!p1).
//
//===----------------------------------------------------------------------===//
#include "passes/RemapCycles.h"

#include <algorithm>

using namespace mapc;

std::variant<std::vector<Cycle>, std::string>
mapc::remapCycles(const IndexBitMap &src, const IndexBitMap &dst) {
  if (src.memoryBits != dst.memoryBits || src.peBits != dst.peBits)
    return std::string("the layouts use different devices (" +
                       std::to_string(src.memoryBits) + " memory and " +
                       std::to_string(src.peBits) + " PE bits, then " +
                       std::to_string(dst.memoryBits) + " and " +
                       std::to_string(dst.peBits) + ")");
  if (src.dataBits != dst.dataBits)
    return std::string("the layouts map different numbers of data bits");
  unsigned n = src.bits.size();
  // Where each data bit sits in the destination.
  std::vector<int> dstOf(src.dataBits, -1);
  for (unsigned i = 0; i < n; ++i)
    if (dst.bits[i].enabled)
      dstOf[dst.bits[i].dataBit] = i;
  // P': source bit -> destination bit, for bits enabled in the source.
  std::vector<int> next(n, -1);
  for (unsigned i = 0; i < n; ++i)
    if (src.bits[i].enabled)
      next[i] = dstOf[src.bits[i].dataBit];

  // The element for destination bit `to`, receiving from source bit `from`.
  auto element = [&](unsigned to, unsigned from) {
    CycleBit cb;
    cb.bit = to;
    const DeviceBit &s = src.bits[from], &d = dst.bits[to];
    cb.invertedAfter = s.value != d.value;
    return cb;
  };
  std::vector<Cycle> cycles;
  std::vector<bool> seen(n, false);
  // Chains first: each starts at a bit disabled in the destination and
  // follows P' until a bit disabled in the source, which closes it.
  for (unsigned q = 0; q < n; ++q) {
    if (dst.bits[q].enabled)
      continue;
    std::vector<unsigned> path{q};
    while (next[path.back()] >= 0)
      path.push_back(next[path.back()]);
    unsigned last = path.back(); // disabled in the source
    Cycle c;
    for (size_t k = 0; k < path.size(); ++k) {
      unsigned from = k == 0 ? last : path[k - 1];
      CycleBit cb = element(path[k], from);
      seen[path[k]] = true;
      c.push_back(cb);
    }
    c.back().disabledInSource = true;
    c.back().sourceValue = src.bits[last].value;
    cycles.push_back(c);
  }
  // Then the cycles among bits enabled in both.
  for (unsigned i = 0; i < n; ++i) {
    if (seen[i])
      continue;
    std::vector<unsigned> path{i};
    seen[i] = true;
    for (int j = next[i]; j >= 0 && unsigned(j) != i; j = next[j]) {
      path.push_back(j);
      seen[j] = true;
    }
    Cycle c;
    for (size_t k = 0; k < path.size(); ++k)
      c.push_back(element(path[k], k == 0 ? path.back() : path[k - 1]));
    cycles.push_back(c);
  }
  // Leave out pure identities; list cycles by their first bit.
  std::vector<Cycle> out;
  for (Cycle &c : cycles) {
    bool identity =
        c.size() == 1 && !c[0].invertedAfter && !c[0].disabledInSource;
    if (!identity)
      out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const Cycle &a, const Cycle &b) {
    return a.front().bit < b.front().bit;
  });
  return out;
}

std::string mapc::formatCycles(const IndexBitMap &map,
                               const std::vector<Cycle> &cycles) {
  std::string s;
  for (const Cycle &c : cycles) {
    s += "(";
    for (size_t k = 0; k < c.size(); ++k) {
      if (k)
        s += ", ";
      if (c[k].invertedAfter)
        s += "!";
      s += map.bitName(c[k].bit);
      if (c[k].disabledInSource)
        s += c[k].sourceValue ? "~" : ".";
    }
    s += ")";
  }
  return s;
}
