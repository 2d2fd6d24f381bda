//===- TransferRoundsTest.cpp - 003 6.3.9's in-place rounds, pinned -------===//
//
// The in-place transfers (TransferRounds.h) choose their senders round by
// round from the stacks; planning prices them on the pricing machine, so a
// change to how the rounds are found must not change a single choice. The
// prices, rounds, forced sends and stack high-water marks below were
// measured before the rounds kept each stack's writable items as counts
// (2026-11-26, branch fig64): any change in the choices shows in them.
// Each case is also run with data, every element checked, its ticks equal
// to the price.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/TransferRounds.h"
#include "mapc/runtime/Contents.h"
#include "mapc/runtime/Resignify.h"

#include "gtest/gtest.h"

using namespace mapc;

namespace {

struct Pinned {
  rt::ResignifyShape shape;
  unsigned elemBytes, stackLimit, clusterSize;
  int64_t memory, router, arith, routerSends, rounds, forced, stackHigh;
};

rt::TransferOptions optionsOf(const Pinned &c) {
  rt::TransferOptions opt;
  opt.elemBytes = c.elemBytes;
  opt.inPlace = true;
  opt.stackLimit = c.stackLimit;
  opt.slots = c.shape.slots;
  return opt;
}

} // namespace

TEST(TransferRounds, InPlacePricesPinned) {
  // {b1, b0, wp, wm, pes, slots, inverse}
  const Pinned cases[] = {
      // Fig. 6.4's inverse re-signification at 16 | 15 (the slot digit of
      // weight 15): 59111 rounds, 8144 of them one forced send.
      {{16, 15, 1, 15, 256, 3375, true},
       1,
       50,
       16,
       132309301,
       24953884,
       84096,
       111385,
       59111,
       8144,
       50},
      // The same forward: no forced send.
      {{16, 15, 1, 15, 256, 3375, false},
       1,
       50,
       16,
       5333802,
       1957104,
       8832,
       5072,
       1015,
       0,
       48},
      // Stacks of 3 items, 2-byte elements, clusters of 2.
      {{12, 15, 3, 1, 72, 15, false},
       2,
       3,
       2,
       682487,
       114824,
       120704,
       925,
       943,
       576,
       2},
  };
  for (const Pinned &c : cases) {
    const rt::ResignifyShape &s = c.shape;
    const std::string what = std::to_string(s.peBase) + " | " +
                             std::to_string(s.slotBase) +
                             (s.inverse ? " inverse" : "");
    const auto lists = rt::resignifyTransfers(s, c.elemBytes, true);
    rt::MasPar priced =
        rt::MasPar::pricing(unsigned(s.pes), 1, c.clusterSize, rt::CostModel{});
    rt::TransferStats stats;
    rt::runTransfers(priced, lists, optionsOf(c), &stats);
    const rt::Ledger &l = priced.ledger();
    EXPECT_EQ(l.memory, c.memory) << what;
    EXPECT_EQ(l.router, c.router) << what;
    EXPECT_EQ(l.arith, c.arith) << what;
    EXPECT_EQ(l.routerSends, c.routerSends) << what;
    EXPECT_EQ(stats.rounds, c.rounds) << what;
    EXPECT_EQ(stats.forced, c.forced) << what;
    EXPECT_EQ(stats.stackHigh, c.stackHigh) << what;

    // With data: every element where the re-signification puts it.
    rt::MasPar m(unsigned(s.pes), 1, uint64_t(s.slots) * c.elemBytes,
                 c.clusterSize);
    std::vector<uint8_t> before(size_t(s.pes * s.slots) * c.elemBytes);
    for (size_t i = 0; i < before.size(); ++i)
      before[i] = uint8_t(i * 7 + 3);
    for (int64_t p = 0; p < s.pes; ++p)
      std::copy_n(before.begin() + p * s.slots * c.elemBytes,
                  s.slots * c.elemBytes, m.memoryOf(unsigned(p)));
    rt::runTransfers(m, lists, optionsOf(c));
    EXPECT_EQ(m.ledger().total(), l.total()) << what;
    size_t wrong = 0;
    for (int64_t p = 0; p < s.pes; ++p)
      for (int64_t t = 0; t < s.slots; ++t) {
        const int64_t to = s.destOf(p, t);
        const uint8_t *got =
            m.memoryOf(unsigned(to / s.slots)) + (to % s.slots) * c.elemBytes;
        wrong += !std::equal(got, got + c.elemBytes,
                             before.begin() + (p * s.slots + t) * c.elemBytes);
      }
    EXPECT_EQ(wrong, 0u) << what;
  }
}
