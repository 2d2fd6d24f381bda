//===- DigitMap.cpp -------------------------------------------------------===//
#include "ir/DigitMap.h"

#include "llvm/ADT/bit.h"

#include <functional>

using namespace mapc;

namespace {
int64_t product(const std::vector<DeviceDigit> &digits) {
  int64_t n = 1;
  for (const DeviceDigit &d : digits)
    n = satMul(n, d.base);
  return n;
}

/// One equation of an XOR bit map: the parity of the data bits in `mask`
/// equals `value` (the device bit, with its inversion undone).
struct XorRow {
  uint64_t mask;
  bool value;
};

/// Gauss-Jordan elimination over GF(2): the data bits satisfying every row,
/// or false when the rows do not determine them (a singular matrix).
bool solveBits(llvm::SmallVectorImpl<XorRow> &rows,
               llvm::SmallVectorImpl<int64_t> &bits) {
  unsigned next = 0;
  for (unsigned c = 0; c < bits.size(); ++c) {
    uint64_t col = uint64_t(1) << c;
    unsigned p = next;
    while (p < rows.size() && !(rows[p].mask & col))
      ++p;
    if (p == rows.size())
      return false;
    std::swap(rows[p], rows[next]);
    for (unsigned r = 0; r < rows.size(); ++r)
      if (r != next && (rows[r].mask & col)) {
        rows[r].mask ^= rows[next].mask;
        rows[r].value ^= rows[next].value;
      }
    ++next;
  }
  for (unsigned r = 0; r < bits.size(); ++r)
    bits[llvm::countr_zero(rows[r].mask)] = rows[r].value;
  return true;
}

bool parity(uint64_t v) { return llvm::popcount(v) & 1; }
} // namespace

bool DigitMap::hasXor() const {
  for (const auto *digits : {&memory, &pes})
    for (const DeviceDigit &d : *digits)
      if (d.xorMask)
        return true;
  return false;
}

std::optional<DigitMap> DigitMap::withoutXor() const {
  DigitMap plain = *this;
  std::vector<DeviceDigit *> rows;
  for (auto *digits : {&plain.memory, &plain.pes})
    for (DeviceDigit &d : *digits)
      if (d.kind == DeviceDigit::Data)
        rows.push_back(&d);
  const size_t columns = dataBases.size();
  if (rows.size() != columns || columns > 64)
    return std::nullopt;
  auto support = [&](size_t r) {
    return rows[r]->xorMask | uint64_t(1) << rows[r]->index;
  };
  // Kuhn's augmenting paths, at most 64 rows: each row tries its own first
  // data bit before the others.
  std::vector<int> rowOf(columns, -1);
  std::vector<char> seen;
  std::function<bool(size_t)> place = [&](size_t r) {
    uint64_t mask = support(r);
    const unsigned first = unsigned(rows[r]->index);
    for (int pass = 0; pass < 2; ++pass)
      for (unsigned c = 0; c < columns; ++c) {
        if (!(mask >> c & 1) || (pass == 0) != (c == first) || seen[c])
          continue;
        seen[c] = 1;
        if (rowOf[c] < 0 || place(size_t(rowOf[c]))) {
          rowOf[c] = int(r);
          return true;
        }
      }
    return false;
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    seen.assign(columns, 0);
    if (!place(r))
      return std::nullopt;
  }
  for (unsigned c = 0; c < columns; ++c) {
    rows[size_t(rowOf[c])]->index = c;
    rows[size_t(rowOf[c])]->xorMask = 0;
  }
  return plain;
}

int64_t DigitMap::memorySize() const { return product(memory); }
int64_t DigitMap::peCount() const { return product(pes); }

int64_t DigitMap::dataSize() const { return shapeSize(shape); }

int64_t DigitMap::dataAt(int64_t addr) const {
  llvm::SmallVector<int64_t, 16> value(dataBases.size(), 0);
  // With XORs, the data bits come from solving the rows (base 2 only).
  bool xors = hasXor();
  llvm::SmallVector<XorRow, 16> rows;
  auto take = [&](const std::vector<DeviceDigit> &digits, int64_t &rest) {
    for (const DeviceDigit &d : digits) {
      int64_t x = rest % d.base;
      rest /= d.base;
      if (d.inverted)
        x = d.base - 1 - x;
      if (d.kind == DeviceDigit::Const && x != d.index)
        return false;
      if (d.kind == DeviceDigit::Data && xors)
        rows.push_back({d.xorMask | uint64_t(1) << d.index, x != 0});
      else if (d.kind == DeviceDigit::Data)
        value[d.index] = x;
    }
    return true;
  };
  int64_t mem = addr % memorySize(), pe = addr / memorySize();
  if (!take(memory, mem) || !take(pes, pe))
    return -1;
  if (xors && !solveBits(rows, value))
    return -1;
  int64_t index = 0, place = 1;
  for (unsigned i = 0; i < dataBases.size(); ++i) {
    index += value[i] * place;
    place *= dataBases[i];
  }
  return index < dataSize() ? index : -1;
}

void DigitMap::addressesOf(int64_t dataIndex,
                           llvm::SmallVectorImpl<int64_t> &out) const {
  llvm::SmallVector<int64_t, 16> value(dataBases.size());
  uint64_t dataBits = uint64_t(dataIndex); // the index's bits, for XORs
  for (unsigned i = 0; i < dataBases.size(); ++i) {
    value[i] = dataIndex % dataBases[i];
    dataIndex /= dataBases[i];
  }
  // All device digits, least significant first; stars count like an odometer.
  llvm::SmallVector<const DeviceDigit *, 32> all;
  for (const DeviceDigit &d : memory)
    all.push_back(&d);
  for (const DeviceDigit &d : pes)
    all.push_back(&d);
  llvm::SmallVector<int64_t, 32> star(all.size(), 0);
  while (true) {
    int64_t addr = 0, place = 1;
    for (unsigned i = 0; i < all.size(); ++i) {
      const DeviceDigit &d = *all[i];
      int64_t x = d.kind == DeviceDigit::Data    ? value[d.index]
                  : d.kind == DeviceDigit::Const ? d.index
                                                 : star[i];
      if (d.xorMask && parity(dataBits & d.xorMask))
        x ^= 1;
      if (d.inverted)
        x = d.base - 1 - x;
      addr += x * place;
      place *= d.base;
    }
    out.push_back(addr);
    unsigned i = 0;
    for (; i < all.size(); ++i) {
      if (all[i]->kind != DeviceDigit::Star)
        continue;
      if (++star[i] < all[i]->base)
        break;
      star[i] = 0;
    }
    if (i == all.size())
      return;
  }
}

namespace {
/// Puts the device digits of `dm` into `tile` after its data digits (k-Tile
/// dims 0 .. dataBases.size() - 1): constant and `*` digits become empty
/// dims, and the device is [memory; PEs].
void placeDeviceDigits(const DigitMap &dm, rt::TileMap &tile) {
  unsigned emptyGroup = 0;
  auto place = [&](const std::vector<DeviceDigit> &digits) {
    std::vector<unsigned> group;
    for (const DeviceDigit &d : digits) {
      unsigned l;
      if (d.kind == DeviceDigit::Data) {
        l = d.index;
      } else {
        l = tile.kdims.size();
        KDim kd = KDim::plain(d.base);
        kd.ok = d.kind == DeviceDigit::Star ? kReplicated : d.index;
        if (d.kind == DeviceDigit::Const && d.inverted)
          kd.ok = d.base - 1 - d.index;
        tile.kdims.push_back(kd);
        ++emptyGroup;
      }
      if (d.inverted && d.kind == DeviceDigit::Data)
        tile.kdims[l].sense = Sense::Minus;
      group.push_back(l);
    }
    if (group.empty()) { // a device dim of length 1
      group.push_back(tile.kdims.size());
      tile.kdims.push_back(KDim::plain(1));
      ++emptyGroup;
    }
    tile.m.push_back(group);
  };
  place(dm.memory);
  place(dm.pes);
  if (emptyGroup)
    tile.groups.push_back(emptyGroup);
  tile.device.push_back(SpaceDim::plain(dm.memorySize()));
  tile.device.push_back(SpaceDim::plain(dm.peCount()));
}
} // namespace

std::optional<KTile> DigitMap::toKTile() const {
  if (hasXor())
    return std::nullopt; // a k-Tile dim holds data bits, never their XORs
  KTile tile;
  // One element (every data dim of length 1) has no data digit: each data
  // dim gets a k-Tile dim of length 1, the device its constant digits.
  if (dataBases.empty()) {
    if (std::any_of(shape.begin(), shape.end(),
                    [](int64_t s) { return s != 1; }) ||
        shape.empty())
      return std::nullopt;
    for (size_t d = 0; d < shape.size(); ++d) {
      tile.data.push_back(SpaceDim::plain(1));
      tile.groups.push_back(1);
      tile.kdims.push_back(KDim::plain(1));
    }
    placeDeviceDigits(*this, tile);
    // Those dims of length 1 go in the memory dim's group, where they
    // change no address.
    for (unsigned d = 0; d < shape.size(); ++d)
      tile.m[0].push_back(d);
    return tile;
  }
  // Assign data digits to data dims: digit boundaries must meet dim ends.
  std::vector<unsigned> dimOfDigit(dataBases.size());
  unsigned dim = 0;
  int64_t inDim = 1; // product of digits already in the current dim
  for (unsigned i = 0; i < dataBases.size(); ++i) {
    while (dim < shape.size() && inDim == shape[dim] && inDim != 0) {
      ++dim;
      inDim = 1;
    }
    if (dim >= shape.size())
      return std::nullopt;
    inDim = satMul(inDim, dataBases[i]);
    if (shape[dim] % inDim != 0)
      return std::nullopt;
    dimOfDigit[i] = dim;
  }
  if (dataBases.empty() || inDim != shape[dim] || dim + 1 != shape.size())
    return std::nullopt;
  for (int64_t s : shape)
    tile.data.push_back(SpaceDim::plain(s));
  // k-Tile dims: the data digits in order, then one empty dim per constant or
  // star digit.
  tile.groups.assign(shape.size(), 0);
  for (unsigned i = 0; i < dataBases.size(); ++i) {
    tile.kdims.push_back(KDim::plain(dataBases[i]));
    ++tile.groups[dimOfDigit[i]];
  }
  placeDeviceDigits(*this, tile);
  return tile;
}

rt::TileMap DigitMap::toTileMap() const {
  rt::TileMap tile;
  SpaceDim linear = SpaceDim::plain(dataSize());
  int64_t digits = 1;
  for (int64_t b : dataBases)
    digits = satMul(digits, b);
  linear.tlen = std::max(digits, linear.len);
  tile.data.push_back(linear);
  tile.groups.push_back(unsigned(dataBases.size()));
  for (int64_t b : dataBases)
    tile.kdims.push_back(KDim::plain(b));
  placeDeviceDigits(*this, tile);
  return tile;
}
