//===- TwoStage.cpp -------------------------------------------------------===//
#include "TwoStage.h"

#include "ir/KTilePrinter.h"
#include "mapc/runtime/General.h"

using namespace mapc;

std::variant<XorStage, std::string> mapc::xorStageOf(const Layout &layout) {
  if (!layout.digits || !layout.digits->hasXor())
    return "layout '" + layout.name + "' has no XOR items";
  XorStage stage;
  stage.withXor = *layout.digits;
  for (const auto *digits : {&stage.withXor.memory, &stage.withXor.pes})
    for (const DeviceDigit &d : *digits)
      if (d.kind == DeviceDigit::Star)
        return "layout '" + layout.name +
               "' has XOR items and replicates ('*'), and the GF(2)-affine "
               "planners (001) replicate nothing";
  auto plain = stage.withXor.withoutXor();
  if (!plain)
    return "the bits of layout '" + layout.name + "' are not invertible";
  stage.plain = std::move(*plain);
  auto bits = toAffineBitMap(Layout{layout.name, layout.array, std::nullopt,
                                    stage.plain, std::nullopt, layout.loc});
  if (auto *why = std::get_if<std::string>(&bits))
    return "layout '" + layout.name + "' without its XOR items: " + *why;
  stage.bits = std::move(std::get<IndexBitMap>(bits));
  stage.tiles = stage.plain.toTileMap();
  stage.text = digitMapText(stage.plain);
  return stage;
}

// Both digit maps number device addresses memory fastest, as a TileMap of
// [memory; PEs] numbers its cells (PE times slots plus slot).
static uint32_t addressOf(const DigitMap &map, int64_t dataIndex) {
  llvm::SmallVector<int64_t, 1> at;
  map.addressesOf(dataIndex, at);
  return at.empty() ? rt::kNoSource : uint32_t(at[0]);
}

std::vector<uint32_t> mapc::sourcesFromXor(const XorStage &stage,
                                           const rt::TileMap &to) {
  std::vector<uint32_t> sources = rt::sourcesOf(stage.tiles, to);
  for (uint32_t &s : sources)
    if (s != rt::kNoSource)
      s = addressOf(stage.withXor, stage.plain.dataAt(s));
  return sources;
}

std::vector<uint32_t> mapc::sourcesToXor(const rt::TileMap &from,
                                         const XorStage &stage) {
  const std::vector<uint32_t> toPlain = rt::sourcesOf(from, stage.tiles);
  std::vector<uint32_t> sources(size_t(stage.withXor.deviceSize()),
                                rt::kNoSource);
  for (size_t x = 0; x < sources.size(); ++x) {
    int64_t d = stage.withXor.dataAt(int64_t(x));
    if (d < 0)
      continue;
    uint32_t y = addressOf(stage.plain, d);
    if (y != rt::kNoSource)
      sources[x] = toPlain[y];
  }
  return sources;
}
