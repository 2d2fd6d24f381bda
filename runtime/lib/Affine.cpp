//===- Affine.cpp ---------------------------------------------------------===//
#include "mapc/runtime/Affine.h"

using namespace mapc::rt;

namespace {

/// Gauss-Jordan over GF(2): the inverse of the n x n matrix whose row i is
/// the bit mask rows[i], or nothing when it is singular.
std::optional<std::vector<uint64_t>> invertRows(std::vector<uint64_t> rows) {
  unsigned n = unsigned(rows.size());
  std::vector<uint64_t> inv(n);
  for (unsigned i = 0; i < n; ++i)
    inv[i] = uint64_t(1) << i;
  for (unsigned col = 0; col < n; ++col) {
    unsigned pivot = col;
    while (pivot < n && !((rows[pivot] >> col) & 1))
      ++pivot;
    if (pivot == n)
      return std::nullopt;
    std::swap(rows[pivot], rows[col]);
    std::swap(inv[pivot], inv[col]);
    for (unsigned r = 0; r < n; ++r)
      if (r != col && ((rows[r] >> col) & 1)) {
        rows[r] ^= rows[col];
        inv[r] ^= inv[col];
      }
  }
  return inv;
}

uint64_t applyRows(const std::vector<uint64_t> &rows, uint64_t constant,
                   uint64_t a) {
  uint64_t r = 0;
  for (unsigned i = 0; i < rows.size(); ++i)
    r |= uint64_t(parity64(rows[i] & a)) << i;
  return r ^ constant;
}

uint64_t lowMask(unsigned n) {
  return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
}

} // namespace

AffineLayout AffineLayout::fromBits(const BitLayout &l) {
  AffineLayout a;
  a.mBits = l.mBits;
  a.pBits = l.pBits;
  a.dataBits = l.dataBits;
  a.row.assign(l.bits(), 0);
  for (unsigned i = 0; i < l.bits(); ++i) {
    if (l.dataBit[i] < 0)
      a.disabled |= uint64_t(1) << i;
    else
      a.row[i] = uint64_t(1) << l.dataBit[i];
    if (l.value[i])
      a.constant |= uint64_t(1) << i;
  }
  return a;
}

std::optional<BitLayout> AffineLayout::asBitLayout() const {
  BitLayout l;
  l.mBits = mBits;
  l.pBits = pBits;
  l.dataBits = dataBits;
  for (unsigned i = 0; i < bits(); ++i) {
    bool off = (disabled >> i) & 1;
    if (!off && __builtin_popcountll(row[i]) != 1)
      return std::nullopt;
    l.dataBit.push_back(off ? -1 : __builtin_ctzll(row[i]));
    l.value.push_back(uint8_t((constant >> i) & 1));
  }
  return l;
}

uint64_t AffineLayout::addressOf(uint64_t d) const {
  return applyRows(row, constant, d);
}

std::string AffineLayout::bitName(unsigned bit) const {
  return bit < mBits ? "m" + std::to_string(bit)
                     : "p" + std::to_string(bit - mBits);
}

std::string AffineLayout::str() const {
  return formatDeviceBits(mBits, bits(), [&](unsigned i) {
    bool c = (constant >> i) & 1;
    if ((disabled >> i) & 1)
      return std::string(c ? "1" : "0");
    std::string s = c ? "!" : "";
    bool first = true;
    for (unsigned d = 64; d-- > 0;)
      if ((row[i] >> d) & 1) {
        s += (first ? "a" : "^a") + std::to_string(d);
        first = false;
      }
    return s;
  });
}

bool AffineLayout::valid(std::string *why) const {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  if (row.size() != bits())
    return fail("row count does not match mBits + pBits");
  if (bits() > 62 || dataBits > 62)
    return fail("more than 62 bits");
  std::vector<uint64_t> enabled;
  for (unsigned i = 0; i < bits(); ++i) {
    if (row[i] & ~lowMask(dataBits))
      return fail("device bit " + bitName(i) + " names a missing data bit");
    if ((disabled >> i) & 1) {
      if (row[i])
        return fail("disabled bit " + bitName(i) + " holds data bits");
      continue;
    }
    if (!row[i])
      return fail("enabled bit " + bitName(i) + " holds no data bit");
    enabled.push_back(row[i]);
  }
  if (enabled.size() != dataBits)
    return fail(std::to_string(enabled.size()) + " enabled device bits for " +
                std::to_string(dataBits) + " data bits");
  // Rank check: reduce the enabled rows.
  for (unsigned i = 0; i < enabled.size(); ++i) {
    if (!enabled[i])
      return fail("the device bits do not determine the data index");
    uint64_t low = enabled[i] & -enabled[i];
    for (unsigned j = i + 1; j < enabled.size(); ++j)
      if (enabled[j] & low)
        enabled[j] ^= enabled[i];
  }
  return true;
}

AffineDecoder::AffineDecoder(const AffineLayout &l) {
  // Square up the map with the disabled bits as extra "data" bits, invert,
  // and keep the rows of the real data bits.
  std::vector<uint64_t> rows(l.bits());
  unsigned extra = l.dataBits;
  for (unsigned i = 0; i < l.bits(); ++i)
    rows[i] = (l.disabled >> i) & 1 ? uint64_t(1) << extra++ : l.row[i];
  auto inv = invertRows(rows);
  if (!inv)
    return; // invalid layout: every address decodes to 0
  // d = inv (a xor constant)
  for (unsigned k = 0; k < l.dataBits; ++k) {
    dataRow.push_back((*inv)[k]);
    if (parity64((*inv)[k] & l.constant))
      dataConstant |= uint64_t(1) << k;
  }
}

uint64_t AffineDecoder::dataAt(uint64_t a) const {
  return applyRows(dataRow, dataConstant, a);
}

AffineMove AffineMove::identity(unsigned bits) {
  AffineMove m;
  for (unsigned i = 0; i < bits; ++i)
    m.row.push_back(uint64_t(1) << i);
  return m;
}

AffineMove AffineMove::fromBitMove(const BitMove &b) {
  AffineMove m;
  m.row.assign(b.bits(), 0);
  for (unsigned i = 0; i < b.bits(); ++i)
    m.row[b.to[i]] = uint64_t(1) << i;
  m.constant = b.flip;
  return m;
}

AffineMove AffineMove::fromExchange(unsigned bits, const Exchange &e) {
  AffineMove m = identity(bits);
  m.row[e.bit] |= e.condition;
  return m;
}

AffineMove AffineMove::fromExchanges(unsigned bits,
                                     const std::vector<Exchange> &order) {
  AffineMove m = identity(bits);
  for (const Exchange &e : order)
    m = m.then(fromExchange(bits, e));
  return m;
}

uint64_t AffineMove::apply(uint64_t a) const {
  return applyRows(row, constant, a);
}

AffineMove AffineMove::then(const AffineMove &next) const {
  AffineMove r;
  r.row.assign(bits(), 0);
  for (unsigned i = 0; i < bits(); ++i)
    for (unsigned j = 0; j < bits(); ++j)
      if ((next.row[i] >> j) & 1)
        r.row[i] ^= row[j];
  r.constant = next.apply(constant);
  return r;
}

AffineMove AffineMove::inverse() const {
  AffineMove r;
  r.row = *invertRows(row);
  r.constant = applyRows(r.row, 0, constant);
  return r;
}

bool AffineMove::isIdentity() const { return *this == identity(bits()); }

std::optional<BitMove> AffineMove::asBitMove() const {
  BitMove b;
  b.to.assign(bits(), 0);
  uint64_t seen = 0;
  for (unsigned i = 0; i < bits(); ++i) {
    if (__builtin_popcountll(row[i]) != 1)
      return std::nullopt;
    unsigned from = __builtin_ctzll(row[i]);
    b.to[from] = i;
    seen |= row[i];
  }
  if (seen != lowMask(bits()))
    return std::nullopt;
  b.flip = constant;
  return b;
}

AffineLayout AffineMove::applyTo(const AffineLayout &before) const {
  AffineLayout a = before;
  a.disabled = 0;
  for (unsigned i = 0; i < bits(); ++i) {
    uint64_t r = 0;
    for (unsigned j = 0; j < bits(); ++j)
      if ((row[i] >> j) & 1)
        r ^= before.row[j];
    a.row[i] = r;
    if (!r)
      a.disabled |= uint64_t(1) << i;
  }
  a.constant = apply(before.constant);
  return a;
}

bool mapc::rt::affineRemapMove(const AffineLayout &src, const AffineLayout &dst,
                               AffineMove &move, std::string *why) {
  auto fail = [&](const std::string &m) {
    if (why)
      *why = m;
    return false;
  };
  if (src.bits() != dst.bits() || src.dataBits != dst.dataBits)
    return fail("the layouts have different bit counts");
  std::string w;
  if (!src.valid(&w))
    return fail("source: " + w);
  if (!dst.valid(&w))
    return fail("destination: " + w);
  auto sb = src.asBitLayout(), db = dst.asBitLayout();
  if (sb && db) {
    BitMove b;
    if (!remapMove(*sb, *db, b, why))
      return false;
    move = AffineMove::fromBitMove(b);
    return true;
  }
  unsigned n = src.bits();
  // Square up both maps with one extra variable per disabled bit; a
  // disabled bit of dst takes the variable of the src disabled bit at the
  // same position if there is one, else the next unused one.
  std::vector<unsigned> srcVar(n, ~0u), dstVar(n, ~0u);
  std::vector<bool> used(n, false);
  unsigned next = src.dataBits;
  for (unsigned i = 0; i < n; ++i)
    if ((src.disabled >> i) & 1)
      srcVar[i] = next++;
  for (unsigned i = 0; i < n; ++i)
    if (((dst.disabled >> i) & 1) && srcVar[i] != ~0u) {
      dstVar[i] = srcVar[i];
      used[srcVar[i]] = true;
    }
  unsigned candidate = src.dataBits;
  for (unsigned i = 0; i < n; ++i)
    if (((dst.disabled >> i) & 1) && dstVar[i] == ~0u) {
      while (used[candidate])
        ++candidate;
      dstVar[i] = candidate;
      used[candidate] = true;
    }
  AffineMove s, d;
  s.row.assign(n, 0);
  d.row.assign(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    s.row[i] = srcVar[i] != ~0u ? uint64_t(1) << srcVar[i] : src.row[i];
    d.row[i] = dstVar[i] != ~0u ? uint64_t(1) << dstVar[i] : dst.row[i];
  }
  s.constant = src.constant;
  d.constant = dst.constant;
  if (!invertRows(s.row) || !invertRows(d.row))
    return fail("a layout is not one to one");
  move = s.inverse().then(d);
  return true;
}

uint64_t mapc::rt::countMoved(const AffineLayout &l, const AffineMove &g) {
  unsigned n = l.bits();
  // Augmented rows, bit n the right-hand side: (A + I) a = c, a_D = v_D.
  std::vector<uint64_t> rows;
  for (unsigned i = 0; i < n; ++i) {
    rows.push_back((g.row[i] ^ (uint64_t(1) << i)) |
                   (uint64_t((g.constant >> i) & 1) << n));
    if ((l.disabled >> i) & 1)
      rows.push_back((uint64_t(1) << i) |
                     (uint64_t((l.constant >> i) & 1) << n));
  }
  unsigned rank = 0;
  for (unsigned col = 0; col < n; ++col) {
    size_t pivot = rank;
    while (pivot < rows.size() && !((rows[pivot] >> col) & 1))
      ++pivot;
    if (pivot == rows.size())
      continue;
    std::swap(rows[pivot], rows[rank]);
    for (size_t r = 0; r < rows.size(); ++r)
      if (r != rank && ((rows[r] >> col) & 1))
        rows[r] ^= rows[rank];
    ++rank;
  }
  for (size_t r = rank; r < rows.size(); ++r)
    if (rows[r]) // 0 = 1: no fixed point
      return l.heldCount();
  return l.heldCount() - (uint64_t(1) << (n - rank));
}
