//===- DigitCycles.cpp - digit maps, their alignment and cycles -----------===//
#include "passes/DigitCycles.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace mapc;

namespace {

/// One device digit of a layout: a slice [lo, lo * base) of the linear data
/// index (a data digit) or a constant or replicated digit.
struct Digit {
  enum Kind { Data, Const, Star } kind = Data;
  int64_t base = 1;
  int64_t lo = 1; ///< Data: the digit's place in the data index
  bool minus = false;
  int64_t value = 0; ///< Const: the digit's value on the device
};

/// A layout's device digits, memory first, each device dim's least
/// significant first.
struct DigitForm {
  std::vector<Digit> digits;
  unsigned memoryDigits = 0;
};

std::optional<DigitForm> digitForm(const rt::TileMap &t, std::string &why) {
  for (const rt::SpaceDim &d : t.data)
    if (d.len != d.tlen || d.off || d.toff) {
      why = "a data template or offset";
      return std::nullopt;
    }
  for (const rt::SpaceDim &d : t.device)
    if (d.len != d.tlen || d.off || d.toff) {
      why = "a device template or offset";
      return std::nullopt;
    }
  const unsigned firstEmpty = t.firstEmptyDim();
  std::vector<int64_t> place(t.kdims.size(), 1);
  int64_t p = 1;
  for (unsigned l = 0; l < firstEmpty; ++l) {
    const rt::KDim &k = t.kdims[l];
    if (k.k != k.tk || k.otk || k.ok || k.enc == rt::Encoding::Gray) {
      why = k.enc == rt::Encoding::Gray ? "a Gray-coded dim"
                                        : "a k-Tile template or offset";
      return std::nullopt;
    }
    place[l] = p;
    p = rt::satMul(p, k.k);
  }
  DigitForm f;
  for (size_t i = 0; i < t.m.size(); ++i) {
    for (unsigned l : t.m[i]) {
      const rt::KDim &k = t.kdims[l];
      if (k.tk == 1)
        continue; // a digit of base 1 holds nothing
      Digit d;
      d.base = k.tk;
      d.minus = k.sense == rt::Sense::Minus;
      if (l < firstEmpty) {
        d.lo = place[l];
      } else if (k.k != k.tk || k.otk) {
        why = "an empty dim with a template";
        return std::nullopt;
      } else if (k.ok == rt::kReplicated) {
        d.kind = Digit::Star;
      } else {
        d.kind = Digit::Const;
        d.value = d.minus ? k.k - 1 - k.ok : k.ok;
      }
      f.digits.push_back(d);
    }
    if (i == 0)
      f.memoryDigits = unsigned(f.digits.size());
  }
  return f;
}

/// The places where a layout's data digits split the index.
void cuts(const DigitForm &f, std::set<int64_t> &out) {
  for (const Digit &d : f.digits)
    if (d.kind == Digit::Data) {
      out.insert(d.lo);
      out.insert(rt::satMul(d.lo, d.base));
    }
}

/// The layout with every data digit cut at `at` into the common digits it
/// spans, least significant first (a reversed digit's pieces are each
/// reversed: b - 1 - a splits digit by digit).
DigitForm refine(const DigitForm &f, const std::set<int64_t> &at) {
  DigitForm r;
  for (size_t i = 0; i < f.digits.size(); ++i) {
    const Digit &d = f.digits[i];
    if (i == f.memoryDigits)
      r.memoryDigits = unsigned(r.digits.size());
    if (d.kind != Digit::Data) {
      r.digits.push_back(d);
      continue;
    }
    const int64_t hi = d.lo * d.base;
    for (auto it = at.find(d.lo); *it != hi; ++it) {
      Digit piece = d;
      piece.lo = *it;
      piece.base = *std::next(it) / *it;
      r.digits.push_back(piece);
    }
  }
  if (f.memoryDigits == f.digits.size())
    r.memoryDigits = unsigned(r.digits.size());
  return r;
}

std::string positionName(const DigitForm &f, size_t i) {
  return i < f.memoryDigits ? "m" + std::to_string(i)
                            : "p" + std::to_string(i - f.memoryDigits);
}

} // namespace

DigitCycleText mapc::digitRemapText(const rt::TileMap &src,
                                    const rt::TileMap &dst,
                                    const std::string &srcName,
                                    const std::string &dstName) {
  DigitCycleText out;
  std::string why;
  auto s = digitForm(src, why);
  if (!s) {
    out.why = "layout '" + srcName + "' has " + why;
    return out;
  }
  auto d = digitForm(dst, why);
  if (!d) {
    out.why = "layout '" + dstName + "' has " + why;
    return out;
  }
  out.ok = true;
  // Align (003 6.1.3, fig. 6.1): every split of either must divide the
  // next split of the other.
  std::set<int64_t> at;
  cuts(*s, at);
  cuts(*d, at);
  for (auto it = at.begin(); std::next(it) != at.end(); ++it)
    if (*std::next(it) % *it != 0) {
      std::set<int64_t> sc, dc;
      cuts(*s, sc);
      cuts(*d, dc);
      bool inSrc = sc.count(*it) != 0;
      const std::string lo = std::to_string(*it),
                        hi = std::to_string(*std::next(it));
      out.text = "(not aligned, 003 6.1.3 fig. 6.2: '" +
                 (inSrc ? srcName : dstName) + "' splits the data index at " +
                 lo + " and '" + (inSrc ? dstName : srcName) + "' at " + hi +
                 "; " + lo + " does not divide " + hi +
                 ", so no digit permutation converts them)";
      return out;
    }
  DigitForm a = refine(*s, at), b = refine(*d, at);

  // Where each common digit (named by its place) sits in the destination.
  std::map<int64_t, size_t> dstPos;
  for (size_t i = 0; i < b.digits.size(); ++i)
    if (b.digits[i].kind == Digit::Data)
      dstPos[b.digits[i].lo] = i;
  // The source position of each digit and where it goes.
  const size_t n = std::max(a.digits.size(), b.digits.size());
  std::vector<long> next(n, -1);
  std::vector<uint8_t> flip(n, 0), isTarget(n, 0);
  std::vector<size_t> prev(n, 0); ///< the position whose digit arrives here
  for (size_t i = 0; i < a.digits.size(); ++i) {
    const Digit &x = a.digits[i];
    if (x.kind != Digit::Data)
      continue;
    size_t j = dstPos.at(x.lo);
    next[i] = long(j);
    flip[i] = x.minus != b.digits[j].minus;
    isTarget[j] = 1;
    prev[j] = i;
  }
  // Position names are the source's; a position only the destination has
  // is named as it would be in the source's frame.
  auto name = [&](size_t i) {
    if (i < a.digits.size())
      return positionName(a, i);
    return i < b.memoryDigits ? "m" + std::to_string(i)
                              : "p" + std::to_string(i - b.memoryDigits);
  };
  auto element = [&](size_t i, bool reversed) {
    std::string e = (reversed ? "!" : "") + name(i);
    if (i >= a.digits.size())
      return e;
    const Digit &x = a.digits[i];
    e += ":" + std::to_string(x.base);
    if (x.kind == Digit::Const)
      e += "=" + std::to_string(x.value);
    else if (x.kind == Digit::Star)
      e += "*";
    return e;
  };
  std::vector<uint8_t> seen(n, 0);
  std::string text;
  // Chains first: they start at a digit whose position no digit moves into
  // and end where the source holds no data digit.
  for (size_t i = 0; i < n; ++i) {
    if (next[i] < 0 || isTarget[i])
      continue;
    std::string chain = "[" + element(i, false);
    bool reversed = false;
    for (size_t k = i; next[k] >= 0;) {
      seen[k] = 1;
      reversed = flip[k];
      k = size_t(next[k]);
      chain += ", " + element(k, reversed);
      if (next[k] < 0)
        break;
    }
    text += chain + "]";
  }
  for (size_t i = 0; i < n; ++i) {
    if (seen[i] || next[i] < 0)
      continue;
    if (next[i] == long(i) && !flip[i]) {
      seen[i] = 1;
      continue; // an identity digit
    }
    std::string cycle = "(";
    size_t k = i;
    do {
      seen[k] = 1;
      cycle += std::string(k == i ? "" : ", ") + element(k, flip[prev[k]]);
      k = size_t(next[k]);
    } while (k != i);
    text += cycle + ")";
  }
  // Positions that hold no data digit in either map but change: a constant
  // becoming another, or replication appearing or going.
  auto nonData = [](const Digit &x) {
    return x.kind == Digit::Const ? "=" + std::to_string(x.value)
                                  : std::string("*");
  };
  for (size_t i = 0; i < std::min(a.digits.size(), b.digits.size()); ++i) {
    const Digit &x = a.digits[i], &y = b.digits[i];
    if (x.kind == Digit::Data || y.kind == Digit::Data)
      continue;
    if (x.kind != y.kind || x.value != y.value || x.base != y.base)
      text += "{" + name(i) + ":" + std::to_string(x.base) + nonData(x) +
              " -> " + std::to_string(y.base) + nonData(y) + "}";
  }
  out.text = text;
  return out;
}
