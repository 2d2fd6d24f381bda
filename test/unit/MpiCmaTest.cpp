//===- MpiCmaTest.cpp - the single-copy transport's reads and price ------===//
//
// cmaRead batches two independent run lists (the sender's cells and the
// receiver's) into process_vm_readv calls of at most kCmaBatch iovecs a
// side, splitting runs at the other side's boundaries. Here it reads from
// this very process (a process may always read itself) and every byte is
// compared with the element-by-element copy the runs describe.
//
//===----------------------------------------------------------------------===//
#include "mapc/mpi/Cma.h"
#include "mapc/mpi/Remap.h"
#include "mapc/mpi/Schedule.h"

#include "RandomRuns.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <random>

using namespace mapc::mpi;

using mapc::test::RandomCopy;
using mapc::test::randomCopy;

TEST(MpiCma, ReadsEveryRunOfRandomListsFromItself) {
  std::mt19937 rng(1414);
  std::string why;
  {
    unsigned char a = 1, b = 0;
    CmaReads one{{{0, 1}}, {{0, 1}}};
    if (!cmaRead(getpid(), reinterpret_cast<uintptr_t>(&a), &b, one, 1, &why))
      GTEST_SKIP() << "process_vm_readv is not usable here: " << why;
  }
  for (int round = 0; round < 300; ++round) {
    // Few and long runs, or many short ones (several system calls).
    RandomCopy c = randomCopy(rng, round);
    const CmaReads &reads = c.reads;
    const unsigned eb = c.elemBytes;
    ASSERT_TRUE(cmaRead(getpid(), reinterpret_cast<uintptr_t>(c.src.data()),
                        c.dst.data(), reads, eb, &why))
        << why;
    ASSERT_EQ(c.dst, c.want)
        << "round " << round << ": " << reads.source.size() << " source runs, "
        << reads.dest.size() << " destination runs, " << eb << "-byte elements";
  }
}

TEST(MpiCma, AFailedReadSaysWhy) {
  CmaReads one{{{0, 8}}, {{0, 8}}};
  unsigned char into[8];
  std::string why;
  // Address 8 is never mapped.
  EXPECT_FALSE(cmaRead(getpid(), 8, into, one, 1, &why));
  EXPECT_NE(why.find("process_vm_readv"), std::string::npos) << why;
}

TEST(MpiCma, PriceIsCallsRunsAndBytes) {
  // Two ranks: rank 0 reads 3000 elements from rank 1 in 3 source runs and
  // 2500 destination runs (three calls), and copies 10 that stay.
  TrafficMatrix t = mapc::test::twoRankTraffic();
  LinkCosts c;
  c.ts = 1e-6;
  c.to = 1e-7;
  c.tc = 1e-10;
  c.tr = 2e-11;
  c.tseg = 1e-7;
  c.tpiece = 1e-8;
  c.tcall = 5e-7;
  Prediction p = predict(Algorithm::Cma, 0, t, c);
  double want = 80 * c.tc + 3 * c.tcall + 2 * c.tseg + 2499 * c.tpiece +
                24000 * c.tr + 2 * c.ts;
  EXPECT_NEAR(p.seconds, want, 1e-15);
  EXPECT_EQ(p.steps, 1u);
  EXPECT_EQ(p.maxMessages, 1u);
  EXPECT_EQ(p.wireBytes, 24000u);
  // Without run counts every element is its own run: far dearer.
  t.sourceRuns.clear();
  t.destRuns.clear();
  EXPECT_GT(predict(Algorithm::Cma, 0, t, c).seconds, 10 * want);
  // Offered to predictAll only when asked.
  for (const Prediction &q : predictAll(t, c))
    EXPECT_NE(q.algorithm, Algorithm::Cma);
  bool offered = false;
  for (const Prediction &q : predictAll(t, c, true))
    offered |= q.algorithm == Algorithm::Cma;
  EXPECT_TRUE(offered);
}

TEST(MpiCma, TransportNames) {
  for (Transport t :
       {Transport::Auto, Transport::Messages, Transport::Cma, Transport::Shm})
    EXPECT_EQ(parseTransport(transportName(t)), t);
  EXPECT_FALSE(parseTransport("windows"));
  // cma and shm are transports, not values of --mpi-algorithm.
  EXPECT_FALSE(parseAlgorithm("cma"));
  EXPECT_FALSE(parseAlgorithm("shm"));
}

TEST(MpiCma, CostsParseAnySubsetOnce) {
  MpiOptions o;
  EXPECT_EQ(parseCmaCosts("tr=5e-11,tcall=4.5e-7", o), "");
  EXPECT_EQ(o.tr, 5e-11);
  EXPECT_EQ(o.tcall, 4.5e-7);
  EXPECT_FALSE(o.tseg);
  EXPECT_FALSE(o.tpiece);
  EXPECT_EQ(parseCmaCosts("tpiece=0,tseg=1.5e-7", o), "");
  EXPECT_EQ(o.tpiece, 0.0);
  EXPECT_EQ(o.tseg, 1.5e-7);
  EXPECT_EQ(o.tr, 5e-11); // earlier values stay

  // Every error names the item and leaves the options alone.
  MpiOptions before = o;
  for (const char *bad :
       {"", "tr", "tr=", "tr=x", "tr=-1", "tr=1e-9,", "tw=1e-9", "tr=1,tr=2",
        "tr=inf", "tr=nan", "tseg=1e-7;tpiece=1e-8", "tr=1e-9 "}) {
    MpiOptions p = before;
    std::string why = parseCmaCosts(bad, p);
    EXPECT_NE(why, "") << bad;
    EXPECT_EQ(p.tr, before.tr) << bad;
    EXPECT_EQ(p.tseg, before.tseg) << bad;
  }
  MpiOptions p;
  EXPECT_EQ(parseCmaCosts("tr=1,tr=2", p), "tr is given twice");
  EXPECT_EQ(parseCmaCosts("tcall=-1", p),
            "tcall must be a time of 0 seconds or more, not '-1'");
  EXPECT_FALSE(p.tr);
}

TEST(MpiCma, OverridesReplaceOnlyWhatIsGiven) {
  LinkCosts c;
  c.ts = 1, c.tw = 2, c.tc = 3, c.to = 4, c.tr = 5, c.tseg = 6, c.tpiece = 7,
  c.tcall = 8;
  MpiOptions o;
  o.tw = 20;
  o.tseg = 60;
  o.tcall = 80;
  LinkCosts d = withOverrides(c, o);
  EXPECT_EQ(d.ts, 1);
  EXPECT_EQ(d.tw, 20);
  EXPECT_EQ(d.tc, 3);
  EXPECT_EQ(d.to, 4);
  EXPECT_EQ(d.tr, 5);
  EXPECT_EQ(d.tseg, 60);
  EXPECT_EQ(d.tpiece, 7);
  EXPECT_EQ(d.tcall, 80);
}

TEST(MpiCma, OversubscriptionAddsARoundOfWaitsPerStep) {
  // Four ranks, every one sending 100 elements to every other: the reads
  // wait twice (addresses, then "done"s), each step of messages once.
  TrafficMatrix t;
  t.ranks = 4;
  t.elementBytes = 8;
  t.counts.assign(16, 100);
  LinkCosts c;
  LinkCosts over = c;
  over.tq = 1e-3;
  for (auto [a, rounds] : {std::pair{Algorithm::Cma, 2.0},
                           {Algorithm::Mpich, 1.0},
                           {Algorithm::Pairwise, 3.0},
                           {Algorithm::Butterfly, 2.0}}) {
    double base = predict(a, 0, t, c).seconds;
    EXPECT_NEAR(predict(a, 0, t, over).seconds - base, rounds * over.tq, 1e-12)
        << algorithmName(a);
  }
  // Steps without traffic wait for nobody.
  t.counts.assign(16, 0);
  EXPECT_EQ(predict(Algorithm::Pairwise, 0, t, over).seconds,
            predict(Algorithm::Pairwise, 0, t, c).seconds);
  EXPECT_EQ(predict(Algorithm::Cma, 0, t, over).seconds, 0.0);
}
