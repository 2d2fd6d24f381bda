//===- BitLayout.cpp ------------------------------------------------------===//
#include "mapc/runtime/BitLayout.h"

#include <cassert>

using namespace mapc::rt;

bool BitLayout::holds(uint64_t a) const {
  for (unsigned i = 0; i < bits(); ++i)
    if (dataBit[i] < 0 && ((a >> i) & 1) != value[i])
      return false;
  return true;
}

uint64_t BitLayout::dataAt(uint64_t a) const {
  uint64_t d = 0;
  for (unsigned i = 0; i < bits(); ++i)
    if (dataBit[i] >= 0)
      d |= uint64_t(((a >> i) & 1) ^ value[i]) << dataBit[i];
  return d;
}

uint64_t BitLayout::addressOf(uint64_t d) const {
  uint64_t a = 0;
  for (unsigned i = 0; i < bits(); ++i) {
    uint64_t b =
        dataBit[i] >= 0 ? ((d >> dataBit[i]) & 1) ^ value[i] : value[i];
    a |= b << i;
  }
  return a;
}

std::string BitLayout::bitName(unsigned bit) const {
  return bit < mBits ? "m" + std::to_string(bit)
                     : "p" + std::to_string(bit - mBits);
}

std::string
mapc::rt::formatDeviceBits(unsigned mBits, unsigned bits,
                           const std::function<std::string(unsigned)> &bit) {
  std::string s = "[p:";
  for (unsigned i = bits; i-- > mBits;)
    s += " " + bit(i);
  s += " | m:";
  for (unsigned i = mBits; i-- > 0;)
    s += " " + bit(i);
  return s + "]";
}

std::string BitLayout::str() const {
  return formatDeviceBits(mBits, bits(), [&](unsigned i) {
    if (dataBit[i] < 0)
      return std::string(value[i] ? "1" : "0");
    return std::string(value[i] ? "!" : "") + "a" + std::to_string(dataBit[i]);
  });
}

bool BitLayout::valid(std::string *why) const {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  if (dataBit.size() != bits() || value.size() != bits())
    return fail("bit vectors do not match mBits + pBits");
  if (bits() > 62)
    return fail("more than 62 device bits");
  std::vector<int> seen(dataBits, 0);
  for (unsigned i = 0; i < bits(); ++i) {
    if (dataBit[i] < -1 || dataBit[i] >= int(dataBits))
      return fail("device bit " + bitName(i) + " names no data bit");
    if (dataBit[i] >= 0 && seen[dataBit[i]]++)
      return fail("data bit a" + std::to_string(dataBit[i]) + " placed twice");
  }
  for (unsigned d = 0; d < dataBits; ++d)
    if (!seen[d])
      return fail("data bit a" + std::to_string(d) + " is not placed");
  return true;
}

BitMove BitMove::identity(unsigned bits) {
  BitMove m;
  for (unsigned i = 0; i < bits; ++i)
    m.to.push_back(i);
  return m;
}

uint64_t BitMove::apply(uint64_t a) const {
  uint64_t r = 0;
  for (unsigned i = 0; i < bits(); ++i)
    r |= ((a >> i) & 1) << to[i];
  return r ^ flip;
}

std::vector<std::vector<unsigned>> BitMove::cycles() const {
  std::vector<std::vector<unsigned>> out;
  std::vector<bool> seen(bits(), false);
  for (unsigned i = 0; i < bits(); ++i) {
    if (seen[i])
      continue;
    std::vector<unsigned> c;
    for (unsigned j = i; !seen[j]; j = to[j]) {
      seen[j] = true;
      c.push_back(j);
    }
    out.push_back(std::move(c));
  }
  return out;
}

BitMove BitMove::inverse() const {
  // g(a) = P a ^ f, so g^-1(b) = P^-1 (b ^ f) = P^-1 b ^ P^-1 f.
  BitMove inv;
  inv.to.assign(bits(), 0);
  for (unsigned i = 0; i < bits(); ++i)
    inv.to[to[i]] = i;
  inv.flip = 0;
  inv.flip = inv.apply(flip);
  return inv;
}

BitMove BitMove::then(const BitMove &next) const {
  assert(next.bits() == bits() && "moves of different widths");
  BitMove r;
  r.to.resize(bits());
  for (unsigned i = 0; i < bits(); ++i)
    r.to[i] = next.to[to[i]];
  r.flip = next.apply(flip);
  return r;
}

bool BitMove::isIdentity() const {
  if (flip)
    return false;
  for (unsigned i = 0; i < bits(); ++i)
    if (to[i] != i)
      return false;
  return true;
}

BitLayout BitMove::applyTo(const BitLayout &before) const {
  BitLayout after = before;
  for (unsigned i = 0; i < bits(); ++i) {
    after.dataBit[to[i]] = before.dataBit[i];
    after.value[to[i]] = before.value[i] ^ ((flip >> to[i]) & 1);
  }
  return after;
}

bool mapc::rt::remapMove(const BitLayout &src, const BitLayout &dst,
                         BitMove &move, std::string *why) {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  if (src.mBits != dst.mBits || src.pBits != dst.pBits)
    return fail("the layouts use different numbers of memory and PE bits");
  if (src.dataBits != dst.dataBits)
    return fail("the layouts map different numbers of data bits");
  unsigned n = src.bits();
  std::vector<int> dstOf(src.dataBits, -1);
  for (unsigned i = 0; i < n; ++i)
    if (dst.dataBit[i] >= 0)
      dstOf[dst.dataBit[i]] = int(i);
  move.to.assign(n, 0);
  move.flip = 0;
  std::vector<int> next(n, -1);
  for (unsigned i = 0; i < n; ++i)
    if (src.dataBit[i] >= 0)
      next[i] = dstOf[src.dataBit[i]];
  // A chain starts at a bit disabled in the destination and follows the
  // data until a bit disabled in the source; the source's constant there
  // becomes the garbage that fills the destination's disabled bit.
  std::vector<bool> fromSet(n, false);
  for (unsigned q = 0; q < n; ++q) {
    if (dst.dataBit[q] >= 0)
      continue;
    unsigned last = q;
    while (next[last] >= 0)
      last = unsigned(next[last]);
    move.to[last] = q;
    fromSet[last] = true;
  }
  for (unsigned i = 0; i < n; ++i)
    if (next[i] >= 0) {
      move.to[i] = unsigned(next[i]);
      fromSet[i] = true;
    }
  for (unsigned i = 0; i < n; ++i) {
    if (!fromSet[i])
      return fail("internal: unpaired device bit");
    unsigned t = move.to[i];
    if (src.value[i] != dst.value[t])
      move.flip |= uint64_t(1) << t;
  }
  return true;
}

std::string mapc::rt::formatMove(const BitMove &move, const BitLayout &layout) {
  std::string s;
  for (const std::vector<unsigned> &cyc : move.cycles()) {
    if (cyc.size() == 1 && !((move.flip >> cyc[0]) & 1))
      continue;
    s += "(";
    for (size_t k = 0; k < cyc.size(); ++k) {
      if (k)
        s += ", ";
      if ((move.flip >> cyc[k]) & 1)
        s += "!";
      s += layout.bitName(cyc[k]);
    }
    s += ")";
  }
  return s.empty() ? "()" : s;
}
