//===- BitMap.cpp ---------------------------------------------------------===//
#include "ir/BitMap.h"

#include "llvm/Support/MathExtras.h"

using namespace mapc;

std::string IndexBitMap::bitName(unsigned i) const {
  return i < memoryBits ? "m" + std::to_string(i)
                        : "p" + std::to_string(i - memoryBits);
}

namespace {

bool pow2(int64_t v) { return v > 0 && llvm::isPowerOf2_64(uint64_t(v)); }
unsigned log2(int64_t v) { return llvm::Log2_64(uint64_t(v)); }

std::variant<IndexBitMap, std::string> fromKTile(const KTile &t,
                                                 bool allowGray) {
  // A data offset of half a power-of-two dim is (i + n/2) mod n = i xor
  // n/2: it inverts the dim's top data bit, an XOR constant.
  uint64_t invertedData = 0;
  unsigned dataBitBase = 0;
  for (const SpaceDim &s : t.data) {
    if (!pow2(s.len) || s.tlen != s.len)
      return std::string("its data dims are not plain powers of two");
    if (s.toff || (s.off && (s.len < 2 || s.off != s.len / 2)))
      return std::string("it has an offset on a data dim (oa/ota) other "
                         "than half the dim's length; only that one is an "
                         "XOR of index bits, general offsets are for the "
                         "digit remapper (003 ch. 6)");
    dataBitBase += log2(s.len);
    if (s.off)
      invertedData |= uint64_t(1) << (dataBitBase - 1);
  }
  for (const SpaceDim &s : t.device)
    if (s.tlen != s.len || s.off || s.toff)
      return std::string("it has a device template or offset");
  for (const KDim &d : t.kdims) {
    if (!pow2(d.k) || d.tk != d.k || d.otk)
      return std::string("it has a k-Tile dim that is not a plain power of "
                         "two");
    if (d.enc == Encoding::Gray && !allowGray)
      return std::string("it uses a Gray encoding, which is not a bit "
                         "permutation");
    if (d.ok == kReplicated)
      return std::string("it replicates data");
  }
  unsigned firstEmpty = t.firstEmptyDim();
  // Data bit offset of each k-Tile dim (empty dims: none).
  std::vector<unsigned> firstDataBit(t.kdims.size(), 0);
  unsigned bit = 0;
  for (unsigned l = 0; l < firstEmpty; ++l) {
    if (t.kdims[l].ok != 0)
      return std::string("it has a k-Tile offset on a data dim");
    firstDataBit[l] = bit;
    bit += log2(t.kdims[l].k);
  }
  IndexBitMap map;
  map.dataBits = bit;
  for (unsigned i = 0; i < t.device.size(); ++i)
    for (unsigned l : t.m[i]) {
      const KDim &d = t.kdims[l];
      bool inverted = d.sense == Sense::Minus;
      unsigned width = log2(d.k);
      for (unsigned b = 0; b < width; ++b) {
        DeviceBit db;
        if (l < firstEmpty) {
          db.dataBit = firstDataBit[l] + b;
          db.value = inverted;
          // G(w) bit b = w_b xor w_(b+1), then the sense inverts it (KTile.h).
          if (d.enc == Encoding::Gray && b + 1 < width)
            db.alsoXor = uint64_t(1) << (db.dataBit + 1);
        } else {
          db.enabled = false;
          uint64_t w = uint64_t(d.ok);
          if (d.enc == Encoding::Gray)
            w ^= w >> 1;
          db.value = ((w >> b) & 1) != inverted;
        }
        map.bits.push_back(db);
      }
      if (i == 0)
        map.memoryBits = map.bits.size();
    }
  if (t.device.size() == 1)
    map.memoryBits = map.bits.size();
  map.peBits = map.bits.size() - map.memoryBits;
  for (DeviceBit &b : map.bits)
    if (b.enabled &&
        __builtin_parityll(((uint64_t(1) << b.dataBit) | b.alsoXor) &
                           invertedData))
      b.value = !b.value;
  return map;
}

std::variant<IndexBitMap, std::string> fromDigits(const DigitMap &d) {
  // A digit of base 2^k is k bits (least significant first); reversing it
  // (b - 1 - a) inverts each of them, and a constant digit is k disabled
  // bits holding its value's bits.
  auto log2Exact = [](int64_t b) {
    unsigned k = 0;
    while ((int64_t(1) << k) < b)
      ++k;
    return (int64_t(1) << k) == b ? int(k) : -1;
  };
  IndexBitMap map;
  std::vector<unsigned> firstBit;
  for (int64_t b : d.dataBases) {
    int k = log2Exact(b);
    if (k < 0)
      return std::string("it is a digit map with a base that is not a power "
                         "of two");
    firstBit.push_back(map.dataBits);
    map.dataBits += unsigned(k);
  }
  auto take = [&](const std::vector<DeviceDigit> &digits) -> int {
    int count = 0;
    for (const DeviceDigit &dd : digits) {
      int k = log2Exact(dd.base);
      if (k < 0 || dd.kind == DeviceDigit::Star)
        return -1;
      if (dd.xorMask && dd.base != 2)
        return -1;
      for (int j = 0; j < k; ++j, ++count) {
        DeviceBit b;
        b.enabled = dd.kind == DeviceDigit::Data;
        if (b.enabled) {
          b.dataBit = firstBit[size_t(dd.index)] + unsigned(j);
          b.value = dd.inverted;
          b.alsoXor = dd.xorMask; // `bits` items like a3^a2
        } else {
          int64_t v = dd.inverted ? dd.base - 1 - dd.index : dd.index;
          b.value = (v >> j) & 1;
        }
        map.bits.push_back(b);
      }
    }
    return count;
  };
  int m = take(d.memory);
  int p = m < 0 ? -1 : take(d.pes);
  if (p < 0)
    return std::string("it replicates data or has digits whose base is not "
                       "a power of two");
  map.memoryBits = unsigned(m);
  map.peBits = unsigned(p);
  return map;
}

} // namespace

std::variant<IndexBitMap, std::string>
mapc::toIndexBitMap(const Layout &layout) {
  auto r = toAffineBitMap(layout);
  if (auto *m = std::get_if<IndexBitMap>(&r); m && !m->isPermutation())
    return std::string("it uses a Gray encoding or XORs data bits, which is "
                       "not a bit permutation");
  return r;
}

std::variant<IndexBitMap, std::string>
mapc::toAffineBitMap(const Layout &layout) {
  if (layout.digits)
    return fromDigits(*layout.digits);
  if (!layout.tile)
    return "layout '" + layout.name +
           "' is not a radix-2 bit map: it is a layout that is not radix 2, "
           "reshaped";
  return fromKTile(*layout.tile, true);
}

bool IndexBitMap::isPermutation() const {
  for (const DeviceBit &b : bits)
    if (b.alsoXor)
      return false;
  return true;
}

std::variant<StatementBitMaps, std::string>
mapc::statementBitMaps(const Program &program, const Statement &statement) {
  const Layout &from = program.layouts[statement.from];
  const Layout &to = program.layouts[statement.to];
  auto src = toAffineBitMap(from), dst = toAffineBitMap(to);
  if (auto *e = std::get_if<std::string>(&src))
    return "layout '" + from.name + "' is not a radix-2 bit map: " + *e;
  if (auto *e = std::get_if<std::string>(&dst))
    return "layout '" + to.name + "' is not a radix-2 bit map: " + *e;
  return StatementBitMaps{std::get<IndexBitMap>(src),
                          std::get<IndexBitMap>(dst)};
}
