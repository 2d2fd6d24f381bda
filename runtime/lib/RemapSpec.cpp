//===- RemapSpec.cpp ------------------------------------------------------===//
#include "mapc/runtime/RemapSpec.h"

using namespace mapc::rt;

DeviceLayout DeviceLayout::fromTile(TileMap tile,
                                    std::optional<AffineLayout> affine) {
  DeviceLayout l;
  l.shape_ = tile.deviceShape();
  l.size_ = tile.deviceSize();
  l.dataSize_ = tile.dataSize();
  l.tile_ = std::move(tile);
  if (affine && (uint64_t(1) << affine->bits()) == uint64_t(l.size_) &&
      (int64_t(1) << affine->mBits) == l.memory())
    l.affine_ = std::move(affine);
  return l;
}

DeviceLayout DeviceLayout::fromAffine(AffineLayout affine) {
  DeviceLayout l;
  l.shape_ = {int64_t(1) << affine.mBits, int64_t(1) << affine.pBits};
  l.size_ = int64_t(1) << affine.bits();
  l.dataSize_ = int64_t(1) << affine.dataBits;
  l.decoder_.emplace(affine);
  l.affine_ = std::move(affine);
  return l;
}

int64_t DeviceLayout::dataAt(int64_t address) const {
  if (tile_)
    return tile_->dataAt(address);
  if (!affine_->holds(uint64_t(address)))
    return -1;
  return int64_t(decoder_->dataAt(uint64_t(address)));
}

int64_t DeviceLayout::firstAddressOf(int64_t dataIndex) const {
  if (tile_)
    return tile_->firstAddressOf(dataIndex);
  return int64_t(affine_->addressOf(uint64_t(dataIndex)));
}

void DeviceLayout::addressesOf(int64_t dataIndex,
                               std::vector<int64_t> &out) const {
  if (tile_)
    tile_->addressesOf(dataIndex, out);
  else
    out.push_back(firstAddressOf(dataIndex));
}

bool DeviceLayout::replicates() const { return tile_ && tile_->replicates(); }
