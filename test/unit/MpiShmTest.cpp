//===- MpiShmTest.cpp - the shared-memory transport's copies and price ----===//
//
// shmCopy walks the same two run lists as cmaRead (the sender's cells and
// the receiver's) and copies a piece wherever either side's run ends. Here
// random lists are copied within this process and every byte is compared
// with the element-by-element copy the runs describe; the price is checked
// term by term, and against the single-copy reads' on the same traffic.
//
//===----------------------------------------------------------------------===//
#include "mapc/mpi/Remap.h"
#include "mapc/mpi/Shm.h"

#include "RandomRuns.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace mapc::mpi;

using mapc::test::RandomCopy;
using mapc::test::randomCopy;

TEST(MpiShm, CopiesEveryRunOfRandomLists) {
  std::mt19937 rng(2323);
  for (int round = 0; round < 300; ++round) {
    RandomCopy c = randomCopy(rng, round);
    const CmaReads &reads = c.reads;
    const unsigned eb = c.elemBytes;
    shmCopy(c.src.data(), c.dst.data(), reads, eb);
    ASSERT_EQ(c.dst, c.want)
        << "round " << round << ": " << reads.source.size() << " source runs, "
        << reads.dest.size() << " destination runs, " << eb << "-byte elements";
  }
}

TEST(MpiShm, NoWindowNoView) {
  // Nothing was allocated with allocShared in this process.
  int x = 0;
  EXPECT_FALSE(inSharedWindow(&x, sizeof x));
  EXPECT_EQ(sharedView(1, reinterpret_cast<uintptr_t>(&x), sizeof x), nullptr);
}

TEST(MpiShm, PriceIsPiecesAndBytes) {
  // Two ranks: rank 0 copies 3000 elements of rank 1's in 3 source runs and
  // 2500 destination runs (2500 pieces), and copies 10 that stay.
  TrafficMatrix t = mapc::test::twoRankTraffic();
  LinkCosts c;
  c.ts = 1e-6;
  c.to = 1e-7;
  c.tc = 1e-10;
  c.tsh = 3e-11;
  c.tshrun = 2e-8;
  c.tq = 1e-6;
  Prediction p = predict(Algorithm::Shm, 0, t, c);
  // One round of waits (the addresses) and a posted "done".
  double want =
      80 * c.tc + 2499 * c.tshrun + 24000 * c.tsh + c.ts + c.to + c.tq;
  EXPECT_NEAR(p.seconds, want, 1e-15);
  EXPECT_EQ(p.algorithm, Algorithm::Shm);
  EXPECT_EQ(p.name(), "shm");
  EXPECT_EQ(p.steps, 1u);
  EXPECT_EQ(p.maxMessages, 1u);
  EXPECT_EQ(p.wireBytes, 24000u);
  // The single-copy reads wait for the "done"s too: with copies and reads
  // free, shm is cheaper by a start-up and a Tq less a To.
  LinkCosts free = c;
  free.tsh = free.tshrun = free.tr = free.tseg = free.tpiece = free.tcall = 0;
  EXPECT_NEAR(predict(Algorithm::Cma, 0, t, free).seconds -
                  predict(Algorithm::Shm, 0, t, free).seconds,
              c.ts + c.tq - c.to, 1e-15);
  // Three peers: To for each further address and for each "done".
  TrafficMatrix three;
  three.ranks = 4;
  three.elementBytes = 8;
  three.counts = {0, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0};
  EXPECT_NEAR(predict(Algorithm::Shm, 0, three, free).seconds,
              c.ts + 5 * c.to + c.tq, 1e-15);
  // Offered to predictAll only when asked, and then picked when cheapest.
  for (const Prediction &q : predictAll(t, c, true))
    EXPECT_NE(q.algorithm, Algorithm::Shm);
  std::vector<Prediction> all = predictAll(t, free, true, true);
  bool offered = false;
  for (const Prediction &q : all)
    offered |= q.algorithm == Algorithm::Shm;
  EXPECT_TRUE(offered);
  // A tie with cma goes to cma (listed first).
  LinkCosts tie = free;
  tie.ts = tie.to = tie.tq = 0;
  EXPECT_EQ(predictAll(t, tie, true, true).front().algorithm, Algorithm::Cma);
  EXPECT_EQ(predictAll(t, free, true, true).front().algorithm, Algorithm::Shm);
}

TEST(MpiShm, ChooseHonoursTheTransport) {
  TrafficMatrix t;
  t.ranks = 2;
  t.elementBytes = 8;
  t.counts = {10, 500, 500, 10};
  LinkCosts c;
  MpiOptions o;
  o.transport = Transport::Shm;
  EXPECT_EQ(chooseAlgorithm(t, c, o).algorithm, Algorithm::Shm);
  // Auto picks shm only when told it is usable.
  LinkCosts cheap = c;
  cheap.tsh = 1e-13;
  cheap.tshrun = 0;
  cheap.ts = 1e-9;
  cheap.to = 1e-9;
  o.transport = Transport::Auto;
  EXPECT_NE(chooseAlgorithm(t, cheap, o, true, false).algorithm,
            Algorithm::Shm);
  EXPECT_EQ(chooseAlgorithm(t, cheap, o, true, true).algorithm, Algorithm::Shm);
  o.transport = Transport::Messages;
  EXPECT_NE(chooseAlgorithm(t, cheap, o, true, true).algorithm, Algorithm::Shm);
}

TEST(MpiShm, CostsParseAnySubsetOnce) {
  MpiOptions o;
  EXPECT_EQ(parseShmCosts("tshrun=1e-8", o), "");
  EXPECT_EQ(o.tshrun, 1e-8);
  EXPECT_FALSE(o.tsh);
  EXPECT_EQ(parseShmCosts("tsh=4e-11", o), "");
  EXPECT_EQ(o.tsh, 4e-11);
  EXPECT_EQ(o.tshrun, 1e-8);
  MpiOptions p;
  EXPECT_EQ(parseShmCosts("tsh=1,tsh=2", p), "tsh is given twice");
  EXPECT_EQ(parseShmCosts("tr=1e-10", p),
            "'tr=1e-10' is not a cost; write tsh=S or tshrun=S, separated "
            "by commas");
  EXPECT_EQ(parseShmCosts("tsh=1e-10,tshrun=-1", p),
            "tshrun must be a time of 0 seconds or more, not '-1'");
  EXPECT_FALSE(p.tsh); // a failed parse leaves the options alone
  LinkCosts c;
  LinkCosts d = withOverrides(c, o);
  EXPECT_EQ(d.tsh, 4e-11);
  EXPECT_EQ(d.tshrun, 1e-8);
  EXPECT_EQ(d.tr, c.tr);
}
