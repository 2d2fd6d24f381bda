//===- TwoStage.cpp -------------------------------------------------------===//
#include "TwoStage.h"

#include "ir/KTilePrinter.h"
#include "mapc/runtime/General.h"
#include "passes/RemapPlanner.h"

using namespace mapc;

std::variant<XorStage, std::string> mapc::xorStageOf(const Layout &layout) {
  if (!layout.digits || !layout.digits->hasXor())
    return "layout '" + layout.name + "' has no XOR items";
  const DigitMap &withXor = *layout.digits;
  for (const auto *digits : {&withXor.memory, &withXor.pes})
    for (const DeviceDigit &d : *digits)
      if (d.kind == DeviceDigit::Star)
        return "layout '" + layout.name +
               "' has XOR items and replicates ('*'), and the GF(2)-affine "
               "planners (001) replicate nothing";
  XorStage stage;
  auto plain = withXor.withoutXor();
  if (!plain)
    return "the bits of layout '" + layout.name + "' are not invertible";
  stage.plain = std::move(*plain);
  auto bits = toAffineBitMap(Layout{layout.name, layout.array, std::nullopt,
                                    stage.plain, std::nullopt, layout.loc});
  if (auto *why = std::get_if<std::string>(&bits))
    return "layout '" + layout.name + "' without its XOR items: " + *why;
  stage.bits = std::move(std::get<IndexBitMap>(bits));
  auto withXorBits = toAffineBitMap(layout);
  if (auto *why = std::get_if<std::string>(&withXorBits))
    return "layout '" + layout.name + "': " + *why;
  stage.withXorBits = std::move(std::get<IndexBitMap>(withXorBits));
  const IndexBitMap &x = stage.withXorBits;
  auto xa = toRuntimeAffine(x, x.memoryBits, x.peBits);
  auto pa =
      toRuntimeAffine(stage.bits, stage.bits.memoryBits, stage.bits.peBits);
  if (auto *why = std::get_if<std::string>(&xa))
    return *why;
  if (auto *why = std::get_if<std::string>(&pa))
    return *why;
  stage.withXorAffine = std::move(std::get<rt::AffineLayout>(xa));
  stage.plainAffine = std::move(std::get<rt::AffineLayout>(pa));
  stage.tiles = stage.plain.toTileMap();
  stage.text = digitMapText(stage.plain);
  return stage;
}

// Both maps number device addresses memory bits first, as a TileMap of
// [memory; PEs] numbers its cells (PE times slots plus slot).
std::vector<uint32_t> mapc::sourcesFromXor(const XorStage &stage,
                                           const rt::TileMap &to) {
  std::vector<uint32_t> sources = rt::sourcesOf(stage.tiles, to);
  const rt::AffineDecoder plain(stage.plainAffine);
  for (uint32_t &s : sources)
    if (s != rt::kNoSource)
      s = uint32_t(stage.withXorAffine.addressOf(plain.dataAt(s)));
  return sources;
}

std::vector<uint32_t> mapc::sourcesToXor(const rt::TileMap &from,
                                         const XorStage &stage) {
  const std::vector<uint32_t> toPlain = rt::sourcesOf(from, stage.tiles);
  const rt::AffineLayout &x = stage.withXorAffine;
  const rt::AffineDecoder decode(x);
  std::vector<uint32_t> sources(size_t(1) << x.bits(), rt::kNoSource);
  for (size_t a = 0; a < sources.size(); ++a)
    if (x.holds(a))
      sources[a] =
          toPlain[size_t(stage.plainAffine.addressOf(decode.dataAt(a)))];
  return sources;
}
