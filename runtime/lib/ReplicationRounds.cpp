//===- ReplicationRounds.cpp - an all-gather's rounds by construction -----===//
//
// 003 6.2.1's data replication for the regular case, an all-gather: n
// elements on n distinct PEs, every PE wanting all of them. Place the PEs
// in a row-major grid of n columns, the sources first (element i's at
// position i), the others after them in order: position t is row t / n,
// column t % n, and column i is element i's class. With P = g n + r PEs,
// rows 0 .. g - 1 are full and row g holds columns 0 .. r - 1.
//
// 1. Recursive doubling down each column: in wave w the first 2^w members
//    of a column send element i to the next 2^w. Columns are disjoint, so
//    every PE sends and receives at most once a round: ceil(log2(g + 1))
//    rounds if r > 0, else ceil(log2 g).
// 2. Rotation: in round k = 1 .. n - 1 the PE at (j, c) of a full row
//    receives element (c - k) mod n from (j, (c - k) mod n), a ring
//    all-gather per row. Row g's PEs (g, i) stand in for (0, i) as the
//    senders of element i (they hold it), which frees (0, i) to pass on to
//    (g, i) what it received in round k - 1, element (i - k + 1) mod n,
//    from round 2 on; one more round n brings (g, i) the last one.
//
// The bound: before round u at most n 2^(u-1) PEs hold an
// element (each holder makes at most one more a round), so while n 2^t <
// P some PE other than a source has received nothing in rounds 1 .. t and
// still needs all n, one a round: at least t + n rounds for the largest
// such t, and n - 1 if every PE is a source. With r = 0 the construction
// takes ceil(log2 g) + n - 1 = that bound; with r > 0 one round more.
//
//===----------------------------------------------------------------------===//
#include "ReplicationRounds.h"

using namespace mapc::rt;

bool mapc::rt::allGatherRounds(
    const std::vector<const std::vector<ExchangeSend> *> &lists, unsigned pes,
    ExchangeRoundList &rounds) {
  const uint32_t n = uint32_t(lists.size());
  if (n < 2 || n > pes)
    return false;
  constexpr uint32_t kNone = ~uint32_t(0);
  // The PE at each position, and the slot element i arrives in at PE q
  // (slotAt[i * pes + q]; the source slot at the source).
  std::vector<uint32_t> peAt(pes, kNone), posOf(pes, kNone);
  std::vector<uint32_t> slotAt(size_t(n) * pes, kNone);
  for (uint32_t i = 0; i < n; ++i) {
    const std::vector<ExchangeSend> &list = *lists[i];
    if (list.size() != pes - 1u)
      return false;
    const uint32_t s = list[0].srcPe;
    if (s >= pes || posOf[s] != kNone)
      return false;
    posOf[s] = i;
    peAt[i] = s;
    uint32_t *at = &slotAt[size_t(i) * pes];
    at[s] = list[0].srcSlot;
    for (const ExchangeSend &e : list) {
      if (e.srcPe != s || e.srcSlot != list[0].srcSlot || e.dstPe >= pes ||
          at[e.dstPe] != kNone)
        return false;
      at[e.dstPe] = e.dstSlot;
    }
  }
  for (uint32_t q = 0, t = n; q < pes; ++q)
    if (posOf[q] == kNone) {
      posOf[q] = t;
      peAt[t++] = q;
    }
  // Element i sent from position `from` to position `to` (held there).
  // The sends come round by round (forEachAllGatherSend).
  const uint32_t roundCount = allGatherRoundCount(n, pes);
  ExchangeRoundList out;
  out.reserve(roundCount, size_t(n) * (pes - 1));
  forEachAllGatherSend(
      n, pes, [&](uint32_t round, uint32_t i, uint32_t from, uint32_t to) {
        const uint32_t p = peAt[from], q = peAt[to];
        const uint32_t *at = &slotAt[size_t(i) * pes];
        while (out.size() <= round)
          out.addRound();
        assert(round + 1 == out.size() && "the sends come round by round");
        out.push({p, q, at[p], at[q], from != i});
      });
  while (out.size() < roundCount)
    out.addRound();
  rounds.swap(out);
  return true;
}

uint32_t mapc::rt::allGatherRoundCount(uint32_t n, uint32_t pes) {
  const uint32_t g = pes / n, r = pes % n, tallest = g + (r > 0);
  uint32_t doubling = 0;
  for (uint32_t held = 1; held < tallest; held *= 2)
    ++doubling;
  return doubling + n - 1 + (r > 0);
}
