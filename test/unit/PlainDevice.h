//===- PlainDevice.h - a device of plain memory and PE dims for tests -----===//
#ifndef MAPC_TEST_UNIT_PLAINDEVICE_H
#define MAPC_TEST_UNIT_PLAINDEVICE_H

#include "mapc/runtime/TileMap.h"

#include <cstdint>

namespace mapc::test {

/// A layout of `slots` memory cells on each of `pes` PEs: the schedulers
/// read only the device shape, the cells' sources come separately.
inline rt::TileMap deviceOf(int64_t slots, int64_t pes) {
  rt::TileMap t;
  t.device = {rt::SpaceDim::plain(slots), rt::SpaceDim::plain(pes)};
  return t;
}

} // namespace mapc::test

#endif // MAPC_TEST_UNIT_PLAINDEVICE_H
