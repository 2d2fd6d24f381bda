//===- TileBuilder.cpp ----------------------------------------------------===//
#include "passes/TileBuilder.h"

using namespace mapc;

TileBuilder::TileBuilder(llvm::ArrayRef<int64_t> shape, unsigned numDeviceDims)
    : byDevice(numDeviceDims), deviceTemplate(numDeviceDims, 0) {
  for (int64_t n : shape)
    data.push_back(SpaceDim::plain(n));
}

unsigned TileBuilder::add(int dataDim, KDim dim, unsigned deviceDim) {
  dims.push_back(dim);
  owner.push_back(dataDim);
  byDevice[deviceDim].push_back(dims.size() - 1);
  return dims.size() - 1;
}

KTile TileBuilder::finish() const {
  KTile t;
  t.data = data;
  std::vector<unsigned> number(dims.size());
  auto place = [&](int dataDim) {
    unsigned count = 0;
    for (unsigned h = 0; h < dims.size(); ++h)
      if (owner[h] == dataDim) {
        number[h] = t.kdims.size();
        t.kdims.push_back(dims[h]);
        ++count;
      }
    return count;
  };
  for (unsigned j = 0; j < data.size(); ++j)
    t.groups.push_back(place(j));
  if (unsigned empties = place(-1))
    t.groups.push_back(empties);
  for (unsigned i = 0; i < byDevice.size(); ++i) {
    std::vector<unsigned> group;
    int64_t len = 1;
    for (unsigned h : byDevice[i]) {
      group.push_back(number[h]);
      len = satMul(len, dims[h].tk);
    }
    t.m.push_back(group);
    SpaceDim d = SpaceDim::plain(len);
    if (deviceTemplate[i] > len)
      d.tlen = deviceTemplate[i];
    t.device.push_back(d);
  }
  return t;
}
