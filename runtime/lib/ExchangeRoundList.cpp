//===- ExchangeRoundList.cpp - an exchange step's rounds, in one list -----===//
#include "mapc/runtime/ExchangeRoundList.h"

#include "CountingSort.h"

using namespace mapc::rt;

ExchangeRoundList::ExchangeRoundList(
    const std::vector<std::vector<ExchangeSend>> &rounds) {
  size_t count = 0;
  for (const auto &round : rounds)
    count += round.size();
  reserve(rounds.size(), count);
  for (const auto &round : rounds)
    appendRound(round);
}

void ExchangeRoundList::appendByRound(const std::vector<ExchangeSend> &sends,
                                      const std::vector<uint32_t> &colour,
                                      uint32_t count) {
  assert(colour.size() == sends.size() && "a round per send");
  // A stable counting sort of the sends by round, placed after the sends
  // already listed.
  std::vector<uint32_t> start;
  CountingSort<uint32_t> byRound(start, count);
  for (uint32_t c : colour)
    byRound.count(c);
  byRound.sum();
  const size_t base = all.size();
  assert(base + sends.size() <= UINT32_MAX && "at most a send per cell");
  all.resize(base + sends.size());
  for (size_t i = 0; i < sends.size(); ++i)
    all[base + byRound.place(colour[i])] = sends[i];
  starts.reserve(starts.size() + count);
  for (uint32_t r = 1; r <= count; ++r)
    starts.push_back(uint32_t(base + start[r]));
}

void ExchangeRoundList::appendRounds(std::vector<ExchangeSend> &&sends,
                                     const std::vector<uint32_t> &ends) {
  assert((ends.empty() ? sends.empty() : ends.back() == sends.size()) &&
         "the last round ends with the sends");
  const size_t base = all.size();
  assert(base + sends.size() <= UINT32_MAX && "at most a send per cell");
  if (all.empty())
    all = std::move(sends);
  else
    all.insert(all.end(), sends.begin(), sends.end());
  starts.reserve(starts.size() + ends.size());
  for (uint32_t end : ends)
    starts.push_back(uint32_t(base + end));
}

void ExchangeRoundList::append(const ExchangeRoundList &other) {
  const uint32_t base = uint32_t(all.size());
  assert(base + other.all.size() <= UINT32_MAX && "at most a send per cell");
  all.insert(all.end(), other.all.begin(), other.all.end());
  starts.reserve(starts.size() + other.size());
  for (size_t r = 1; r < other.starts.size(); ++r)
    starts.push_back(base + other.starts[r]);
}

bool ExchangeRoundList::operator==(const ExchangeRoundList &other) const {
  return starts == other.starts && all == other.all;
}
