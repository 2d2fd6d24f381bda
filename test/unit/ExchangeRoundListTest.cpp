//===- ExchangeRoundListTest.cpp - the flat list of an exchange's rounds --===//
//
// ExchangeRoundList (runtime/include/mapc/runtime/ExchangeRoundList.h)
// replaced a list of lists of sends: each way of building it must give the
// rounds the list of lists gave. Random rounds (some empty, some rounds of
// one send, sends of every field) are built round by round, from each
// send's round, appended and compared with the nested lists they came from.
//
//===----------------------------------------------------------------------===//
#include "mapc/runtime/ExchangeRoundList.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <random>
#include <vector>

using mapc::rt::ExchangeRoundList;
using mapc::rt::ExchangeSend;

namespace {

using Nested = std::vector<std::vector<ExchangeSend>>;

/// Every round of `list` holds the sends of the same round of `nested`.
void expectSame(const ExchangeRoundList &list, const Nested &nested) {
  ASSERT_EQ(list.size(), nested.size());
  size_t r = 0;
  for (auto round : list) {
    ASSERT_EQ(round.size(), nested[r].size()) << "round " << r;
    for (size_t i = 0; i < round.size(); ++i)
      EXPECT_TRUE(round[i] == nested[r][i]) << "round " << r;
    ++r;
  }
  EXPECT_EQ(r, nested.size());
}

Nested randomRounds(std::mt19937 &rng) {
  Nested out(rng() % 9);
  for (auto &round : out) {
    round.resize(rng() % 4); // empty rounds too
    for (ExchangeSend &e : round)
      e = {uint32_t(rng() % 7), uint32_t(rng() % 7), uint32_t(rng()),
           uint32_t(rng()), rng() % 2 == 0};
  }
  return out;
}

TEST(ExchangeRoundList, EveryWayOfBuildingGivesTheNestedRounds) {
  std::mt19937 rng(20261202);
  for (int draw = 0; draw < 500; ++draw) {
    const Nested a = randomRounds(rng), b = randomRounds(rng);
    // Round by round.
    ExchangeRoundList byRound;
    for (const auto &round : a) {
      byRound.addRound();
      for (const ExchangeSend &e : round)
        byRound.push(e);
    }
    expectSame(byRound, a);
    EXPECT_TRUE(byRound == ExchangeRoundList(a));
    // From each send's round, after rounds already listed: the nested
    // way was `rounds.resize(first + count)` then a push_back per send.
    std::vector<ExchangeSend> sends;
    std::vector<uint32_t> colour;
    const uint32_t count = uint32_t(1 + rng() % 5);
    Nested expected = a;
    const size_t first = expected.size();
    expected.resize(first + count);
    for (int i = int(rng() % 12); i-- > 0;) {
      ExchangeSend e{uint32_t(rng() % 7), uint32_t(rng() % 7), uint32_t(i),
                     uint32_t(rng()), false};
      sends.push_back(e);
      colour.push_back(uint32_t(rng() % count));
      expected[first + colour.back()].push_back(e);
    }
    ExchangeRoundList coloured(a);
    coloured.appendByRound(sends, colour, count);
    expectSame(coloured, expected);
    // Appended, and swapped.
    ExchangeRoundList both(a), tail(b);
    both.append(tail);
    Nested ab = a;
    ab.insert(ab.end(), b.begin(), b.end());
    expectSame(both, ab);
    both.swap(tail);
    expectSame(both, b);
    expectSame(tail, ab);
    // A send that differs in one field makes the lists differ.
    if (!ab.empty() && !ab.back().empty()) {
      Nested changed = ab;
      changed.back().back().forwarded = !changed.back().back().forwarded;
      EXPECT_FALSE(ExchangeRoundList(changed) == tail);
    }
    tail.clear();
    EXPECT_TRUE(tail.empty());
    EXPECT_EQ(tail.sends().size(), 0u);
  }
}

TEST(ExchangeRoundList, RoundsEndWhereTheNextBegins) {
  // Empty rounds between full ones keep their place.
  ExchangeRoundList list(Nested{{}, {{0, 1, 2, 3, false}}, {}, {}});
  ASSERT_EQ(list.size(), 4u);
  EXPECT_TRUE(list[0].empty());
  EXPECT_EQ(list[1].size(), 1u);
  EXPECT_EQ(list[1][0].dstSlot, 3u);
  EXPECT_TRUE(list[2].empty());
  EXPECT_TRUE(list.back().empty());
  EXPECT_EQ(list.sends().size(), 1u);
}

} // namespace
