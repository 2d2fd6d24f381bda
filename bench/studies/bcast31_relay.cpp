//===- bcast31_relay.cpp - the 31 x 33 broadcast through a relay subcube --===//
//
// Offline study (not built by CMake) for the bench row "9e3 on 10-cube:
// V(i) A(i,1)->A(i,*)": 31 sources, node r = (h 0, l r) of the 10-cube
// read as (h, l) = (node >> 5, node & 31), each with 300 elements for the
// 33 nodes r + 31c (c = 0..32) of its processor row. Those nodes are no
// subcube (no two are neighbours), so the planner's halving and doubling
// is not priced there and scatter and gather wins at 440 ticks.
//
// The two-stage plan studied here:
//   A. row r spreads to the 5-subcube {(h, r)}: sources and destinations
//      are the 32 x 32 bench row's, which halving and doubling plans in
//      121 ticks (its plan, not walked here);
//   B. each holder (h, r) sends row r's 300 elements to the row's nodes
//      with that h: a nearly uniform cyclic shift of whole blocks in the
//      low 5 dims of each h-slice.
// Stage B is timed here by the reservation walk (NetworkTiming.h) on
// explicit paths: each block split into pieces, piece p routed in the
// differing low dims from dim p on (rotated, Johnsson and Ho), in key
// order or farthest first.
//
// Build by hand from a build tree:
//   g++ -O2 -std=c++17 -Iruntime/include bench/studies/bcast31_relay.cpp
//     build/runtime/libMapcRuntime.a -o /tmp/bcast31_relay
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/Network.h"
#include "mapc/runtime/NetworkTiming.h"

#include <cstdio>
#include <vector>

using namespace mapc;

namespace {

constexpr unsigned kRows = 31, kCopies = 33, kElements = 300, kLowDims = 5;

/// Stage B's transfers: every holder's block to each of its row's nodes
/// in its h-slice, in `pieces` pieces, piece p in the differing low dims
/// rotated to start at dim p mod 5 (with `detours`, p mod 10, out and back
/// along a dim the two share); `farthest` ranks by path length.
std::vector<rt::Transfer> stageB(unsigned pieces, bool farthest, bool detours) {
  std::vector<rt::Transfer> out;
  for (unsigned r = 0; r < kRows; ++r)
    for (unsigned c = 0; c < kCopies; ++c) {
      const uint32_t dest = r + 31 * c, holder = (dest & ~31u) | r;
      if (dest == holder)
        continue;
      const uint32_t diff = dest ^ holder;
      for (unsigned e = 0; e < kElements; ++e) {
        rt::Transfer t;
        t.node = holder;
        t.destNode = dest;
        t.byteAddr = e * 4;
        t.destByteAddr = (c * kElements + e) * 4; // distinct cells
        // Piece p's dim: within the low dims, or any of the ten with
        // detours (`detours`).
        const unsigned span = detours ? 10 : kLowDims;
        const unsigned first = (e * pieces / kElements) % span;
        // With detours, a piece whose dim the two do not differ in goes
        // out along it and back at the end (the cube's edge-disjoint
        // paths); without, it starts at the next low dim they differ in.
        const bool detour = detours && !(diff >> first & 1);
        if (detour)
          t.path.push_back({uint8_t(first), 1, 0, 0, 1});
        for (unsigned k = 0; k < kLowDims; ++k) {
          const unsigned i = (first + k) % kLowDims;
          if (diff >> i & 1)
            t.path.push_back({uint8_t(i), 1, 0, 0, 1});
        }
        if (detour)
          t.path.push_back({uint8_t(first), 1, 0, 0, 1});
        if (farthest)
          for (rt::Hop &h : t.path)
            h.priority = uint32_t(10 - t.path.size());
        out.push_back(std::move(t));
      }
    }
  return out;
}

} // namespace

int main() {
  const rt::NetworkShape cube = rt::NetworkShape::booleanCube(10);
  std::printf("pieces  detours  key         stage B ticks  hops     "
              "busiest link\n");
  for (bool detours : {false, true})
    for (unsigned pieces : {1u, 5u, 10u, 20u, 300u})
      for (bool farthest : {false, true}) {
        uint64_t hops = 0, maxLoad = 0;
        const int64_t t = rt::timeByReservation(
            cube, stageB(pieces, farthest, detours), hops, maxLoad);
        std::printf("%6u  %-7s  %-10s %14lld %8llu %12llu\n", pieces,
                    detours ? "yes" : "no",
                    farthest ? "farthest" : "cell order", (long long)t,
                    (unsigned long long)hops, (unsigned long long)maxLoad);
      }
  return 0;
}
