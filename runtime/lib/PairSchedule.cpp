//===- PairSchedule.cpp - exchange rounds from pair counts (see header) ---===//
#include "PairSchedule.h"
#include "CountingSort.h"
#include "ProductRounds.h"

#include "mapc/runtime/PairColouring.h"

#include <algorithm>
#include <cassert>

using namespace mapc::rt;

namespace {

constexpr uint32_t kNone = ~uint32_t(0);
/// Below this many elements per pair on average, and up to this many
/// elements, scheduleByPairs leaves the sends to element colouring.
constexpr size_t kElementsPerPair = 64, kElementColouringUpTo = size_t(1) << 18;

/// Whole diagonals of the PE grid taken as rounds (function 6.1's
/// schedule, 003 6.2.1, fig. 6.3): for each shift, in order, the pairs
/// (p, p + shift) that still carry elements, as often as they all can and
/// as long as they cover every PE of the largest degree (so that the rounds
/// left still need only what the busiest PE needs). Lowers `left` and the
/// degrees; appends the rounds to `out`.
void takeDiagonals(const std::vector<PairCount> &pairs,
                   std::vector<uint64_t> &left,
                   const std::vector<int64_t> &grid,
                   std::vector<uint64_t> &degL, std::vector<uint64_t> &degR,
                   std::vector<PairRound> &out) {
  uint64_t span = 1;
  for (int64_t g : grid)
    span *= uint64_t(g);
  if (grid.empty() || span * span > (uint64_t(1) << 22))
    return;
  std::vector<uint32_t> at(size_t(span * span), kNone);
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    if (pairs[k].left >= span || pairs[k].right >= span)
      return; // not a remap within the grid
    at[size_t(pairs[k].left * span + pairs[k].right)] = k;
  }
  const size_t pes = degL.size();
  uint64_t degree = 0;
  for (size_t v = 0; v < pes; ++v)
    degree = std::max({degree, degL[v], degR[v]});
  std::vector<uint32_t> markL(pes, kNone), markR(pes, kNone), target(span);
  // Each PE's digits in the grid, and each dim's place value.
  std::vector<int64_t> peDigit(size_t(span) * grid.size()),
      shiftDigit(grid.size()), place(grid.size());
  for (size_t i = 0, v = 1; i < grid.size(); v *= size_t(grid[i]), ++i)
    place[i] = int64_t(v);
  for (uint64_t p = 0; p < span; ++p)
    for (size_t i = 0; i < grid.size(); ++i)
      peDigit[p * grid.size() + i] = int64_t(p) / place[i] % grid[i];
  uint32_t generation = 0;
  auto busiestSender = [&]() -> uint64_t {
    for (uint64_t p = 0; p < span; ++p)
      if (degL[p] == degree)
        return p;
    return span;
  };
  uint64_t busiest = busiestSender();
  // Each try either takes a diagonal or ends its shift; a try that empties
  // no pair ends its shift too, so the tries stay near span.
  for (uint64_t s = 0; s < span && degree > 0; ++s) {
    // target[p] = p + s, digit by digit (first dim fastest).
    uint64_t rest = s;
    for (size_t i = 0; i < grid.size(); ++i) {
      shiftDigit[i] = int64_t(rest % uint64_t(grid[i]));
      rest /= uint64_t(grid[i]);
    }
    auto plus = [&](uint64_t p) {
      int64_t q = 0;
      for (size_t i = 0; i < grid.size(); ++i) {
        int64_t x = peDigit[p * grid.size() + i] + shiftDigit[i];
        q += (x >= grid[i] ? x - grid[i] : x) * place[i];
      }
      return uint32_t(q);
    };
    // A sender of the largest degree off this diagonal rules it out.
    if (busiest < span) {
      uint32_t k = at[size_t(busiest * span + plus(busiest))];
      if (k == kNone || left[k] == 0)
        continue;
    }
    for (uint64_t p = 0; p < span; ++p)
      target[p] = plus(p);
    for (;;) {
      ++generation;
      uint64_t least = ~uint64_t(0);
      PairRound r;
      for (uint64_t p = 0; p < span; ++p) {
        uint32_t k = at[size_t(p * span + target[p])];
        if (k == kNone || left[k] == 0)
          continue;
        r.pairs.push_back(k);
        least = std::min(least, left[k]);
        markL[p] = generation;
        markR[target[p]] = generation;
      }
      if (r.pairs.empty())
        break;
      uint64_t uncovered = 0;
      for (size_t v = 0; v < pes; ++v) {
        if (markL[v] != generation)
          uncovered = std::max(uncovered, degL[v]);
        if (markR[v] != generation)
          uncovered = std::max(uncovered, degR[v]);
      }
      if (uncovered >= degree)
        break;
      r.times = std::min(least, degree - uncovered);
      for (uint32_t k : r.pairs) {
        left[k] -= r.times;
        degL[pairs[k].left] -= r.times;
        degR[pairs[k].right] -= r.times;
      }
      degree -= r.times;
      busiest = busiestSender();
      const bool emptied = r.times == least;
      out.push_back(std::move(r));
      if (!emptied)
        break;
    }
  }
}

} // namespace

bool mapc::rt::pairScheduleApplies(size_t sends, size_t pairs) {
  // Few elements per pair and not too many in all: colouring element by
  // element in order of shift (the caller's Kempe chains) suits the
  // router's clusters better and costs little.
  return !(sends < pairs * kElementsPerPair && sends <= kElementColouringUpTo);
}

void mapc::rt::sortPairsByShift(std::vector<PairCount> &pairs, uint32_t span) {
  auto shift = [&](const PairCount &c) {
    return (c.right + span - c.left % span) % span;
  };
  uint32_t senders = 0;
  for (const PairCount &c : pairs)
    senders = std::max(senders, c.left + 1);
  // Least significant key first: by shift, then stably by sender. Written
  // out, not through CountingSort.h: that took 3-11% more instructions here
  // (callgrind of PairColouring.LargeHpfRedistributions and
  // ExchangePrice.BoundNeverAboveThePrice: 52.9K -> 54.6K, 598K -> 664K).
  std::vector<PairCount> byShift(pairs.size());
  std::vector<size_t> at(size_t(std::max(span, senders)) + 1, 0);
  for (const PairCount &c : pairs)
    ++at[shift(c) + 1];
  for (size_t k = 1; k <= span; ++k)
    at[k] += at[k - 1];
  for (const PairCount &c : pairs)
    byShift[at[shift(c)]++] = c;
  std::fill(at.begin(), at.end(), 0);
  for (const PairCount &c : byShift)
    ++at[c.left + 1];
  for (size_t k = 1; k <= senders; ++k)
    at[k] += at[k - 1];
  for (const PairCount &c : byShift)
    pairs[at[c.left]++] = c;
}

std::vector<PairRound>
mapc::rt::planPairRounds(const std::vector<PairCount> &pairs, unsigned pes,
                         const std::vector<int64_t> &grid, bool byFactors) {
  // A separable move: its factors' rounds multiplied (ProductRounds.h).
  if (byFactors)
    if (std::optional<ProductRounds> product = productRounds(pairs, grid))
      return expandProductRounds(*product, pairs);
  std::vector<uint64_t> left(pairs.size()), degL(pes, 0), degR(pes, 0);
  for (uint32_t k = 0; k < pairs.size(); ++k) {
    left[k] = pairs[k].count;
    degL[pairs[k].left] += left[k];
    degR[pairs[k].right] += left[k];
  }
  std::vector<PairRound> plan;
  takeDiagonals(pairs, left, grid, degL, degR, plan);
  // What the diagonals left, coloured as a multigraph.
  std::vector<PairCount> rest;
  std::vector<uint32_t> restPair;
  for (uint32_t k = 0; k < pairs.size(); ++k)
    if (left[k]) {
      rest.push_back({pairs[k].left, pairs[k].right, left[k]});
      restPair.push_back(k);
    }
  for (PairRound &r : colourPairs(rest, pes, pes)) {
    for (uint32_t &k : r.pairs)
      k = restPair[k];
    plan.push_back(std::move(r));
  }
  return plan;
}

bool mapc::rt::scheduleByPairs(std::vector<ExchangeSend> &sends, unsigned pes,
                               const std::vector<int64_t> &grid,
                               ExchangeRoundList &rounds) {
  // The pairs, numbered sender by sender, and each send's pair.
  std::vector<uint32_t> senderStart, bySender(sends.size());
  CountingSort<uint32_t> perSender(senderStart, pes);
  for (const ExchangeSend &e : sends)
    perSender.count(e.srcPe);
  perSender.sum();
  for (uint32_t i = 0; i < sends.size(); ++i)
    bySender[perSender.place(sends[i].srcPe)] = i;
  std::vector<PairCount> pairs;
  std::vector<uint32_t> pairOf(sends.size()), stamp(pes, kNone), pairAt(pes, 0);
  for (uint32_t i : bySender) {
    const ExchangeSend &e = sends[i];
    if (stamp[e.dstPe] != e.srcPe) {
      stamp[e.dstPe] = e.srcPe;
      pairAt[e.dstPe] = uint32_t(pairs.size());
      pairs.push_back({e.srcPe, e.dstPe, 0});
    }
    pairOf[i] = pairAt[e.dstPe];
    ++pairs[pairOf[i]].count;
  }
  if (!pairScheduleApplies(sends.size(), pairs.size()))
    return false;
  std::vector<uint32_t>().swap(bySender);
  // Each pair's sends, in the order of `sends`.
  std::vector<uint32_t> pairStart, member(sends.size());
  CountingSort<uint32_t> perPair(pairStart, pairs.size());
  for (uint32_t k = 0; k < pairs.size(); ++k)
    perPair.count(k, uint32_t(pairs[k].count));
  perPair.sum();
  for (uint32_t i = 0; i < sends.size(); ++i)
    member[perPair.place(pairOf[i])] = i;
  std::vector<uint32_t>().swap(pairOf);
  const std::vector<PairRound> plan = planPairRounds(pairs, pes, grid);
  // Each send's place in the rounds, each pair's elements in order, and
  // where each round ends (reserved at once: on 2 PEs there are half as
  // many rounds as elements).
  std::vector<uint32_t> next(pairStart.begin(),
                             pairStart.begin() + pairs.size());
  uint64_t total = 0;
  for (const PairRound &r : plan)
    total += r.times;
  std::vector<uint32_t> placeOf(sends.size()), ends;
  ends.reserve(size_t(total));
  uint32_t placed = 0;
  for (const PairRound &r : plan)
    for (uint64_t t = 0; t < r.times; ++t) {
      for (uint32_t k : r.pairs) {
        assert(next[k] < pairStart[k + 1] && "a pair used too often");
        placeOf[member[next[k]++]] = placed++;
      }
      ends.push_back(placed);
    }
  assert(placed == sends.size() && "every send in a round");
  std::vector<uint32_t>().swap(member);
  // The sends put in round order where they are, then moved to `rounds`.
  permuteInPlace(sends, placeOf);
  rounds.appendRounds(std::move(sends), ends);
  sends.clear();
  return true;
}
