//===- UltimateAlignmentTest.cpp - who follows a redistribute -------------===//
//
// UltimateAlignment (frontend/UltimateAlignment.h) against a reference that
// keeps every object's whole chain of alignees from its root, on random
// sequences of aligns, detaches and orphanings: the same alignees per root,
// in rank order, and the same chains link by link.
//
//===----------------------------------------------------------------------===//
#include "frontend/UltimateAlignment.h"

#include "gtest/gtest.h"

#include <random>

using namespace mapc;

namespace {

/// Each linked object's chain: its root, then the alignees down to it.
struct ReferenceAlignment {
  std::map<std::string, std::vector<std::string>> chain;

  void align(const std::string &o, const std::string &target) {
    chain.erase(o);
    auto it = chain.find(target);
    std::vector<std::string> c =
        it == chain.end() ? std::vector<std::string>{target} : it->second;
    if (c.front() == o)
      return;
    c.push_back(o);
    chain[o] = c;
  }
  void orphan(const std::string &root) {
    for (auto it = chain.begin(); it != chain.end();)
      it = it->second.front() == root ? chain.erase(it) : std::next(it);
  }
};

TEST(UltimateAlignment, ComposesThroughAlignedTargets) {
  UltimateAlignment a({{"T", 0}, {"A", 1}, {"C", 2}, {"B", 3}});
  ast::Alignment x, y, z;
  a.align("A", x, {16}, "T");
  a.align("C", y, {16, 2}, "A");
  a.align("B", z, {8}, "T");
  EXPECT_EQ(a.alignees("T"), (std::vector<std::string>{"A", "C", "B"}));
  EXPECT_TRUE(a.alignees("A").empty());
  // C's chain goes through A's link: a redistribute of T lowers x, then y.
  const int c = a.linkOf("C");
  EXPECT_EQ(a.link(c).align, &y);
  EXPECT_EQ(a.link(a.link(c).through).align, &x);
  EXPECT_EQ(a.link(a.link(c).through).through, -1);
  // A realigned elsewhere keeps C with T by the links it was made with.
  a.align("A", z, {16}, "B");
  EXPECT_EQ(a.alignees("T"), (std::vector<std::string>{"A", "C", "B"}));
  EXPECT_EQ(a.link(a.link(a.linkOf("C")).through).align, &x);
  a.detach("B");
  a.orphanAlignees("T");
  EXPECT_TRUE(a.alignees("T").empty());
  EXPECT_EQ(a.linkOf("A"), -1);
}

TEST(UltimateAlignment, AnObjectIsNeverAlignedWithItself) {
  UltimateAlignment a({{"A", 0}, {"B", 1}});
  ast::Alignment x;
  a.align("B", x, {4}, "A");
  a.align("A", x, {4}, "B"); // through B, whose root is A
  EXPECT_EQ(a.linkOf("A"), -1);
  EXPECT_EQ(a.alignees("A"), (std::vector<std::string>{"B"}));
}

TEST(UltimateAlignment, AgreesWithWholeChainsOnRandomSequences) {
  std::mt19937 rng(7);
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g"};
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < names.size(); ++i)
    rank[names[i]] = names.size() - i; // not the names' order
  for (int trial = 0; trial < 300; ++trial) {
    UltimateAlignment got(rank);
    ReferenceAlignment want;
    ast::Alignment directive;
    auto pick = [&] { return names[rng() % names.size()]; };
    for (int step = 0; step < 60; ++step) {
      const std::string o = pick(), t = pick();
      switch (rng() % 4) {
      case 0:
      case 1:
        if (o == t)
          break;
        got.align(o, directive, {}, t);
        want.align(o, t);
        break;
      case 2:
        got.detach(o);
        want.chain.erase(o);
        break;
      default:
        got.orphanAlignees(o);
        want.orphan(o);
      }
      for (const std::string &root : names) {
        std::vector<std::pair<size_t, std::string>> byRank;
        for (const auto &[obj, c] : want.chain)
          if (c.front() == root)
            byRank.push_back({rank[obj], obj});
        std::sort(byRank.begin(), byRank.end());
        std::vector<std::string> expected;
        for (const auto &[r, obj] : byRank)
          expected.push_back(obj);
        ASSERT_EQ(got.alignees(root), expected) << "trial " << trial;
      }
      for (const std::string &obj : names) {
        auto it = want.chain.find(obj);
        if (it == want.chain.end()) {
          ASSERT_EQ(got.linkOf(obj), -1);
          continue;
        }
        std::vector<std::string> walked;
        int at = got.linkOf(obj);
        for (; at >= 0; at = got.link(at).through) {
          // Sema lowers links in ascending order, targets first.
          ASSERT_LT(got.link(at).through, at);
          walked.insert(walked.begin(), got.link(at).alignee);
        }
        walked.insert(walked.begin(), got.link(got.linkOf(obj)).root);
        ASSERT_EQ(walked, it->second) << "trial " << trial << " " << obj;
      }
    }
  }
}

} // namespace
