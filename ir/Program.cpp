//===- Program.cpp --------------------------------------------------------===//
#include "ir/Program.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mapc;

namespace {
struct TypeInfo {
  const char *name;
  unsigned bytes;
};
constexpr TypeInfo kTypes[] = {
    {"u8", 1},  {"i8", 1},  {"u16", 2}, {"i16", 2}, {"u32", 4}, {"i32", 4},
    {"f32", 4}, {"u64", 8}, {"i64", 8}, {"f64", 8}, {"c64", 8}, {"c128", 16}};
} // namespace

const char *mapc::elemTypeName(ElemType t) { return kTypes[int(t)].name; }
unsigned mapc::elemTypeBytes(ElemType t) { return kTypes[int(t)].bytes; }

std::optional<ElemType> mapc::parseElemType(llvm::StringRef name) {
  for (unsigned i = 0; i < std::size(kTypes); ++i)
    if (name.equals_insensitive(kTypes[i].name))
      return ElemType(i);
  return std::nullopt;
}

int64_t Machine::peCount() const { return shapeSize(pes); }

std::string Machine::gridText() const {
  std::string s;
  for (size_t i = 0; i < pes.size(); ++i)
    s += (i ? " x " : "") + std::to_string(pes[i]);
  return s;
}

const char *Machine::kindName() const {
  switch (kind) {
  case MasPar:
    return "maspar";
  case Hypercube:
    return "hypercube";
  case Mesh:
    return "mesh";
  }
  return "?";
}

int64_t ArrayInfo::size() const { return shapeSize(shape); }

// Digit maps are evaluated by their own definition (003 6.1.3); their k-Tile
// form, when they have one, must agree (checked by the unit tests).
int64_t Layout::dataAt(int64_t addr) const {
  return digits ? digits->dataAt(addr)
         : tile ? tile->dataAt(addr)
                : linear->dataAt(addr);
}

std::optional<rt::TileMap> Layout::tileMap() const {
  if (tile)
    return rt::TileMap(*tile);
  if (linear)
    return linear;
  if (digits->hasXor())
    return std::nullopt;
  return digits->toTileMap();
}

int64_t Layout::deviceSize() const {
  return digits ? digits->deviceSize()
         : tile ? tile->deviceSize()
                : linear->deviceSize();
}

std::vector<int64_t> Layout::deviceShape() const {
  if (linear && !tile)
    return linear->deviceShape();
  if (!digits) {
    auto shape = tile->deviceShape();
    return {shape.begin(), shape.end()};
  }
  return {digits->memorySize(), digits->peCount()};
}

void Program::indexArrays() {
  arrayIndex.clear();
  for (unsigned i = 0; i < arrays.size(); ++i)
    arrayIndex.try_emplace(arrays[i].name, i);
}

const ArrayInfo *Program::findArray(llvm::StringRef name) const {
  // A stale index (arrays added or renamed since) falls back to the scan.
  if (arrayIndex.size() == arrays.size()) {
    auto it = arrayIndex.find(name);
    if (it != arrayIndex.end() && it->second < arrays.size() &&
        arrays[it->second].name == name)
      return &arrays[it->second];
  }
  for (const ArrayInfo &a : arrays)
    if (a.name == name)
      return &a;
  return nullptr;
}
