//===- FrameExchange.cpp - a digit exchange read off its frames' digits ---===//
#include "passes/FrameExchange.h"
#include "passes/FrameMove.h"

using namespace mapc;

namespace {

/// Where, in `ds`, the digits with `weight` other than 0 form one run of
/// neighbours: [first, last); first == last when there is no such digit or
/// they are not neighbours.
std::pair<size_t, size_t> runOf(const std::vector<unsigned> &ds,
                                const std::vector<int64_t> &weight) {
  size_t first = 0;
  while (first < ds.size() && weight[ds[first]] == 0)
    ++first;
  size_t last = first;
  while (last < ds.size() && weight[ds[last]] != 0)
    ++last;
  for (size_t i = last; i < ds.size(); ++i)
    if (weight[ds[i]] != 0)
      return {0, 0};
  return {first, last};
}

} // namespace

std::optional<rt::DigitExchangeShape>
mapc::frameDigitExchange(const rt::TileMap &from, const rt::TileMap &to) {
  const int64_t slots = rt::slotsOf(to), pes = rt::pesOf(to);
  if (rt::slotsOf(from) != slots || rt::pesOf(from) != pes)
    return std::nullopt;
  const DigitWeights wf(from), wt(to);
  const std::vector<unsigned> fromMem = frameDigitsOf(from, 0),
                              toMem = frameDigitsOf(to, 0);
  auto baseOf = [&](unsigned l) { return from.kdims[l].tk; };
  // The exchanged memory digit: the memory digits bound for the PEs. The
  // finder's PE 0 sends its slots below the lowest one home; with one
  // outside the run, a PE would receive an element that is no slot digit y
  // of the exchanged digit.
  const auto [mLo, mHi] = runOf(fromMem, wt.pe);
  if (mLo == mHi)
    return std::nullopt;
  // The exchanged PE digit on arrival: the PE digits bound for memory,
  // where PE 0's cells that take a slot 0 must lie evenly spaced.
  const auto [pLo, pHi] = runOf(toMem, wf.pe);
  if (pLo == pHi)
    return std::nullopt;
  int64_t base = 1, arriving = 1;
  for (size_t i = mLo; i < mHi; ++i)
    base *= baseOf(fromMem[i]);
  for (size_t i = pLo; i < pHi; ++i)
    arriving *= baseOf(toMem[i]);
  if (arriving != base)
    return std::nullopt;

  rt::DigitExchangeShape s;
  s.base = base;
  s.pes = pes;
  s.slots = slots;
  s.slotWeight = wf.slot[fromMem[mLo]];
  s.destSlotWeight = wt.slot[toMem[pLo]];
  // The memory digits at the bottom of both frames in the same order keep
  // every chunk whole; the next digit of `from` lands elsewhere.
  s.chunk = 1;
  for (size_t i = 0;
       i < fromMem.size() && i < toMem.size() && fromMem[i] == toMem[i]; ++i)
    s.chunk *= baseOf(fromMem[i]);

  // Every PE's digit x (its PE digits bound for memory, as a number in
  // `to`'s order), where it sends slot digit y (its PE digits that stay,
  // plus y's digits at their PE weights), and the digit y it receives (its
  // PE digits that came from memory, in `from`'s order).
  const std::vector<int64_t> sendSum = frameDigitSums(from, 1, wt.slot),
                             stayPe = frameDigitSums(from, 1, wt.pe),
                             recvSum = frameDigitSums(to, 1, wf.slot);
  std::vector<int64_t> yPe(size_t(base), 0);
  for (int64_t y = 0; y < base; ++y)
    for (size_t i = mLo, rest = size_t(y); i < mHi; ++i) {
      const int64_t b = baseOf(fromMem[i]);
      yPe[size_t(y)] += int64_t(rest % size_t(b)) * wt.pe[fromMem[i]];
      rest /= size_t(b);
    }
  std::vector<int64_t> sendDigit(size_t(pes), 0), recvDigit(size_t(pes), 0),
      destPe(size_t(pes * base), 0);
  for (int64_t p = 0; p < pes; ++p) {
    sendDigit[size_t(p)] = sendSum[size_t(p)] / s.destSlotWeight;
    recvDigit[size_t(p)] = recvSum[size_t(p)] / s.slotWeight;
    for (int64_t y = 0; y < base; ++y)
      destPe[size_t(p * base + y)] = stayPe[size_t(p)] + yPe[size_t(y)];
  }
  rt::setDigitExchangePeSide(s, std::move(sendDigit), std::move(recvDigit),
                             std::move(destPe));

  // Each high part's first slot on arrival: the memory digits of `from`
  // above the chunk other than the exchanged ones, in `from`'s order, at
  // their weights in `to` (kept as digits: a high part moves iff one of
  // its digits does).
  std::vector<rt::DigitPlace> highs;
  bool moves = false;
  for (size_t i = 0; i < fromMem.size(); ++i)
    if (i >= mHi || (i < mLo && wf.slot[fromMem[i]] >= s.chunk)) {
      const unsigned l = fromMem[i];
      highs.push_back({baseOf(l), wf.slot[l], wt.slot[l]});
      moves |= wf.slot[l] != wt.slot[l];
    }
  if (moves)
    s.highDigits = std::move(highs);
  return s;
}
