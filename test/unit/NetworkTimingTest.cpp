//===- NetworkTimingTest.cpp - reservation walk against cycle simulation --===//
//
// NetworkTiming.h's claim: walking the elements in key order, each hop
// taking its link's first free cycle, gives exactly the cycles, hops and
// busiest link load of the cycle-by-cycle simulation, whenever each
// transfer has one priority per phase. Checked on random transfer lists:
// random walks (detours, runs of several steps, cube dims crossed twice),
// phases and priorities, on meshes of any sides and on cubes.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/NetworkTiming.h"

#include "RandomNetwork.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <random>

using namespace mapc;

namespace {

constexpr test::NetworkDraw kTimingNetworks = {3, 1, 5, 8};

/// A random walk of up to `maxRuns` runs from `from` that stays on the mesh.
std::vector<rt::Hop> randomPath(std::mt19937 &rng, const rt::NetworkShape &s,
                                uint32_t from, unsigned maxRuns) {
  std::vector<rt::Hop> path;
  uint32_t node = from;
  const unsigned runs =
      std::uniform_int_distribution<unsigned>(0, maxRuns)(rng);
  for (unsigned r = 0; r < runs; ++r) {
    rt::Hop h;
    h.dim = uint8_t(rng() % s.dims.size());
    if (s.cube) {
      h.count = 1 + rng() % 2;
      node ^= uint32_t(h.count & 1) << h.dim;
      path.push_back(h);
      continue;
    }
    unsigned x = s.coord(node, h.dim), side = s.dims[h.dim];
    h.dir = int8_t(rng() % 2 ? 1 : -1);
    unsigned room = h.dir > 0 ? side - 1 - x : x;
    if (room == 0)
      continue;
    h.count = 1 + rng() % room;
    node = s.withCoord(node, h.dim, h.dir > 0 ? x + h.count : x - h.count);
    path.push_back(h);
  }
  return path;
}

/// The first cycle after `ready` not in `taken`, then marked taken: the
/// plain reference for LinkCalendar's takes, one vector<bool> a link.
uint32_t referenceTake(std::vector<bool> &taken, uint32_t ready) {
  uint32_t cycle = ready + 1;
  while (cycle < taken.size() && taken[cycle])
    ++cycle;
  if (cycle >= taken.size())
    taken.resize(cycle + 1, false);
  taken[cycle] = true;
  return cycle;
}

} // namespace

// 5,000 random transfer lists: the same cycles, hops and busiest link.
TEST(NetworkTiming, ReservationEqualsCycleByCycle) {
  std::mt19937 rng(20261126);
  unsigned phased = 0, prioritised = 0, contended = 0;
  for (int run = 0; run < 5000; ++run) {
    rt::NetworkShape shape = test::randomNetwork(rng, kTimingNetworks);
    const uint32_t nodes = shape.nodeCount();
    const unsigned count = std::uniform_int_distribution<unsigned>(0, 300)(rng);
    const bool usePhases = rng() % 3 == 0, usePriorities = rng() % 2;
    std::vector<rt::Transfer> transfers(count);
    for (rt::Transfer &t : transfers) {
      t.node = uint32_t(rng() % nodes);
      t.path = randomPath(rng, shape, t.node, 4);
      rt::walkPath(shape, t.node, t.path, t.destNode);
      t.phase = usePhases ? uint32_t(rng() % 3) : 0;
      // One priority per phase; a later hop may raise its phase.
      uint32_t hopPhase = 0, priority = usePriorities ? rng() % 4 : 0;
      for (rt::Hop &h : t.path) {
        if (usePhases && rng() % 4 == 0) {
          ++hopPhase;
          priority = usePriorities ? rng() % 4 : 0;
        }
        h.phase = hopPhase;
        h.priority = priority;
      }
    }
    uint64_t hops = 0, load = 0, refHops = 0, refLoad = 0;
    int64_t fast = rt::timeByReservation(shape, transfers, hops, load);
    int64_t ref = rt::timeCycleByCycle(shape, transfers, refHops, refLoad);
    ASSERT_GE(ref, 0) << "run " << run;
    ASSERT_EQ(fast, ref) << "run " << run;
    EXPECT_EQ(hops, refHops) << "run " << run;
    EXPECT_EQ(load, refLoad) << "run " << run;
    phased += usePhases;
    prioritised += usePriorities;
    contended += refLoad > 1 && uint64_t(ref) > refHops / std::max(1u, count);
  }
  EXPECT_GT(phased, 1000u);
  EXPECT_GT(prioritised, 2000u);
  EXPECT_GT(contended, 2000u);
}

// A priority that changes within a phase has no single key: the walk says
// so, and NetworkMachine::run falls back to the cycle simulation.
TEST(NetworkTiming, TwoKeysInOnePhaseFallBack) {
  rt::NetworkShape line = rt::NetworkShape::mesh({4});
  rt::Transfer t;
  t.node = 0;
  t.destNode = 3;
  rt::Hop a, b;
  a.count = 1;
  b.count = 2;
  b.priority = 1;
  t.path = {a, b};
  uint64_t hops = 0, load = 0;
  EXPECT_EQ(rt::timeByReservation(line, {t}, hops, load), -1);
  rt::NetworkMachine m(line, 8);
  EXPECT_EQ(m.run({t}, 1), 3);
}

// Four elements queued on one link of a line, then a barrier: 4 cycles for
// the queue (the last one two hops), then phase 1 from cycle 5.
TEST(NetworkTiming, QueueThenBarrier) {
  rt::NetworkShape line = rt::NetworkShape::mesh({3});
  std::vector<rt::Transfer> ts;
  for (int i = 0; i < 4; ++i) {
    rt::Transfer t;
    t.node = 0;
    t.destNode = 1;
    rt::Hop h;
    t.path = {h};
    ts.push_back(t);
  }
  rt::Transfer late;
  late.node = 2;
  late.destNode = 0;
  rt::Hop back;
  back.dir = -1;
  back.count = 2;
  back.phase = 1;
  late.path = {back};
  ts.push_back(late);
  uint64_t hops = 0, load = 0;
  EXPECT_EQ(rt::timeByReservation(line, ts, hops, load), 6);
  EXPECT_EQ(hops, 6u);
  EXPECT_EQ(load, 4u);
}

// The calendar's take (the word of the element's arrival, the summaries of
// full words past a busy stretch, the cycle below which all are taken,
// growth from a small start, clear) against a plain list of taken cycles:
// 2,000 random runs of up to 3,000 takes on a few links, arrivals spread
// over up to 20,000 cycles or bunched so that queues run thousands of
// cycles deep.
TEST(NetworkTiming, CalendarTakesTheFirstFreeCycle) {
  std::mt19937 rng(1126);
  for (int run = 0; run < 2000; ++run) {
    const size_t links = 1 + rng() % 4;
    const uint32_t spread = 1 + rng() % (run % 2 ? 20000 : 200);
    rt::LinkCalendar calendar(links, rng() % 2 ? 64 : spread, size_t(1) << 24,
                              /*listTaken=*/run % 3 != 0);
    std::vector<std::vector<bool>> taken(links);
    const unsigned takes = 1 + rng() % 3000;
    for (unsigned k = 0; k < takes; ++k) {
      if (run % 3 != 0 && rng() % 1000 == 0) {
        calendar.clear();
        for (auto &t : taken)
          t.clear();
      }
      const size_t link = rng() % links;
      const uint32_t ready = uint32_t(rng() % spread);
      const uint32_t expected = referenceTake(taken[link], ready);
      ASSERT_EQ(calendar.takeAfter(link, ready), expected)
          << "run " << run << " take " << k << " link " << link << " ready "
          << ready;
    }
  }
}

/// 2,000 random runs of up to 3,000 takes on a calendar of 1-4 links
/// without its list of links, queues hundreds of cycles deep (ready times
/// in a few cycles) or sparse ones that grow the bitmaps: calls
/// take(calendar, link, ready, taken) for each, `taken` the link's taken
/// cycles as a vector<bool> for referenceTake; it asserts (the caller
/// checks for a failure after the call).
template <class Take> void forRandomTakes(uint32_t seed, Take &&take) {
  std::mt19937 rng(seed);
  for (int run = 0; run < 2000; ++run) {
    const size_t links = 1 + rng() % 4;
    const uint32_t spread = 1 + rng() % (run % 3 == 0   ? 8
                                         : run % 3 == 1 ? 200
                                                        : 20000);
    rt::LinkCalendar calendar(links, rng() % 2 ? 64 : spread, size_t(1) << 24,
                              /*listTaken=*/false);
    std::vector<std::vector<bool>> taken(links);
    const unsigned takes = 1 + rng() % 3000;
    for (unsigned k = 0; k < takes; ++k) {
      const size_t link = rng() % links;
      const uint32_t ready = uint32_t(rng() % spread);
      take(calendar, link, ready, taken[link], rng);
      if (::testing::Test::HasFatalFailure())
        return;
    }
  }
}

// LinkCalendar::takeNear (the cube walks' take: the arrival's word first,
// the cycle below which all are taken read and kept only past it) takes
// what takeAfter takes, the two mixed on one calendar (forRandomTakes).
TEST(NetworkTiming, NearTakesTheFirstFreeCycle) {
  unsigned near = 0;
  forRandomTakes(20261128, [&](rt::LinkCalendar &calendar, size_t link,
                               uint32_t ready, std::vector<bool> &taken,
                               std::mt19937 &rng) {
    const uint32_t expected = referenceTake(taken, ready);
    const bool byNear = rng() % 4 != 0;
    near += byNear;
    ASSERT_EQ(byNear ? calendar.takeNear(link, ready)
                     : calendar.takeAfter<false>(link, ready),
              expected)
        << "link " << link << " ready " << ready << (byNear ? " near" : "");
  });
  EXPECT_GT(near, 1000000u);
}

// LinkCalendar::takeNextOrAfter and takeTwoNextOrAfter (the mesh walks'
// takes, which try the cycle after the arrival first) take what
// takeAfter<false> and takeTwoAfter take, all four kinds mixed on one
// calendar (forRandomTakes; in the queues a few cycles deep the tried
// cycle is mostly taken). A pair's second arrives with the first or
// later, as in the walks, or (a quarter of the pairs) earlier, which only
// takeTwoAfter may serve.
TEST(NetworkTiming, NextOrAfterTakesWhatAfterTakes) {
  unsigned tried = 0;
  forRandomTakes(20261202, [&](rt::LinkCalendar &calendar, size_t link,
                               uint32_t ready, std::vector<bool> &taken,
                               std::mt19937 &rng) {
    const unsigned kind = rng() % 4;
    if (kind < 2) {
      const uint32_t expected = referenceTake(taken, ready);
      tried += kind == 0;
      ASSERT_EQ(kind == 0 ? calendar.takeNextOrAfter(link, ready)
                          : calendar.takeAfter<false>(link, ready),
                expected)
          << "ready " << ready;
      return;
    }
    uint32_t second = rng() % 4 == 0 && ready > 0 ? uint32_t(rng() % ready)
                                                  : ready + uint32_t(rng() % 4);
    const uint32_t first = referenceTake(taken, ready);
    const uint32_t expected = referenceTake(taken, second);
    tried += kind == 2;
    ASSERT_EQ(kind == 2 ? calendar.takeTwoNextOrAfter(link, ready, second)
                        : calendar.takeTwoAfter(link, ready, second),
              first)
        << "pair, ready " << ready;
    ASSERT_EQ(second, expected) << "pair, ready " << ready;
  });
  EXPECT_GT(tried, 1000000u);
}

// The calendar's bitmaps come from calloc and grow by realloc
// (rt::ZeroedWords): on memory a previous owner left dirty, every cycle
// still starts free, and so does every word a growth appends. 600 runs:
// before each calendar, blocks of its bitmaps' sizes and of their growths
// are filled with ones and freed (malloc hands them out again), then up
// to 2,000 takes, spread over up to 20,000 cycles, against a vector<bool>
// a link.
TEST(NetworkTiming, CalendarOnReusedMemoryStartsFree) {
  std::mt19937 rng(20261201);
  for (int run = 0; run < 600; ++run) {
    const size_t links = 1 + rng() % 4;
    const uint64_t hint = rng() % 2 ? 64 : rng() % 4000;
    const size_t words = std::max<size_t>(1, size_t((hint + 64) / 64));
    std::vector<void *> dirty;
    for (size_t grown = 1; grown <= 512; grown *= 2)
      for (size_t bytes : {links * words * grown * 8,
                           links * ((words * grown + 63) / 64) * 8}) {
        void *p = std::malloc(bytes);
        ASSERT_NE(p, nullptr);
        std::memset(p, 0xff, bytes);
        dirty.push_back(p);
      }
    for (auto it = dirty.rbegin(); it != dirty.rend(); ++it)
      std::free(*it);
    rt::LinkCalendar calendar(links, hint, size_t(1) << 24,
                              /*listTaken=*/false);
    std::vector<std::vector<bool>> taken(links);
    const uint32_t spread = 1 + rng() % (run % 2 ? 20000 : 300);
    const unsigned takes = 1 + rng() % 2000;
    for (unsigned k = 0; k < takes; ++k) {
      const size_t link = rng() % links;
      const uint32_t ready = uint32_t(rng() % spread);
      const uint32_t expected = referenceTake(taken[link], ready);
      ASSERT_EQ(rng() % 2 ? calendar.takeNear(link, ready)
                          : calendar.takeAfter<false>(link, ready),
                expected)
          << "run " << run << " take " << k << " link " << link << " ready "
          << ready;
    }
  }
}
