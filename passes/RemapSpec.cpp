//===- RemapSpec.cpp ------------------------------------------------------===//
#include "passes/RemapSpec.h"
#include "ir/BitMap.h"
#include "passes/RemapPlanner.h"

#include "llvm/ADT/StringRef.h"

using namespace mapc;

const char *mapc::statementKindWord(Statement::Kind kind) {
  switch (kind) {
  case Statement::Remap:
    return "remap";
  case Statement::Copy:
    return "copy";
  case Statement::Redistribute:
    return "redistribute";
  case Statement::Realign:
    return "realign";
  case Statement::Reshape:
    return "reshape";
  }
  return "?";
}

std::string mapc::statementLabel(const Program &program, const Statement &st) {
  bool copy = st.kind == Statement::Copy;
  return std::string(statementKindWord(st.kind)) + " " + st.array +
         (copy ? " to " + st.target : "") + ": " +
         program.layouts[st.from].name + " -> " + program.layouts[st.to].name;
}

std::string mapc::statementFunction(const Statement &st, unsigned number) {
  return std::string(statementKindWord(st.kind)) + "_" + st.array + "_" +
         std::to_string(number);
}

/// The layout's GF(2)-affine form on its own device, if it has one.
static std::optional<rt::AffineLayout> affineOf(const Layout &layout) {
  auto map = toAffineBitMap(layout);
  auto *bits = std::get_if<IndexBitMap>(&map);
  if (!bits)
    return std::nullopt;
  auto affine = toRuntimeAffine(*bits, bits->memoryBits, bits->peBits);
  if (auto *a = std::get_if<rt::AffineLayout>(&affine))
    return *a;
  return std::nullopt;
}

rt::DeviceLayout mapc::deviceLayoutOf(const Layout &layout) {
  if (std::optional<rt::TileMap> tile = layout.tileMap())
    return rt::DeviceLayout::fromTile(std::move(*tile), affineOf(layout));
  // Only a digit map with XORs has no k-Tile form, and it is affine.
  return rt::DeviceLayout::fromAffine(*affineOf(layout));
}

rt::RemapSpec mapc::remapSpecOf(const Program &program, const Statement &st) {
  rt::RemapSpec spec;
  spec.label = statementLabel(program, st);
  spec.source = deviceLayoutOf(program.layouts[st.from]);
  spec.dest = deviceLayoutOf(program.layouts[st.to]);
  const ArrayInfo *arr = program.findArray(st.array);
  spec.elementBytes = arr ? elemTypeBytes(arr->type) : 1;
  spec.copy = st.kind == Statement::Copy;
  return spec;
}
