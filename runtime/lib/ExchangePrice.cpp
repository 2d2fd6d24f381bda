//===- ExchangePrice.cpp - an exchange step priced from pairs (see header) ===//
//
// An HPF redistribution of 10^6 elements on 7 PEs has about 1.4 * 10^5
// exchange rounds but only 42 (sender, receiver) pairs, and the pair
// schedule uses a few dozen distinct matchings. Running the rounds on the
// pricing machine costs a few plural operations per round and 16 bytes per
// element; pricing each matching once and multiplying by its `times` costs
// a pass over the sources to count the pairs. The same planPairRounds makes
// the executor's rounds, so the price is the simulation's, tick for tick.
//
//===----------------------------------------------------------------------===//
#include "ExchangePrice.h"

#include "PairSchedule.h"
#include "ProductRounds.h"

#include <algorithm>

using namespace mapc::rt;

std::vector<int64_t> mapc::rt::sharedPeGrid(const TileMap &from,
                                            const TileMap &to) {
  std::vector<int64_t> grid;
  if (from.device.size() != to.device.size())
    return grid;
  for (size_t i = 1; i < to.device.size(); ++i) {
    if (from.device[i].tlen != to.device[i].tlen)
      return {};
    grid.push_back(to.device[i].tlen);
  }
  return grid;
}

bool mapc::rt::chargeExchangeByPairs(MasPar &m, const TileMap &from,
                                     const TileMap &to, const uint32_t *sources,
                                     unsigned elemBytes) {
  const unsigned pes = m.peCount();
  const int64_t toPes = pesOf(to), fromPes = pesOf(from),
                fromSlots = slotsOf(from), toSlots = slotsOf(to);
  // A replicated destination may receive one element in several cells
  // (copies, fan-out): left to the rounds themselves.
  if (to.replicates() || fromPes > pes || toPes > pes)
    return false;
  // The pairs, receiver by receiver (the sources are listed so), with a
  // stamp per sender: one pass, no P^2 table.
  constexpr uint32_t kNone = ~uint32_t(0);
  std::vector<uint32_t> stamp(pes, kNone), at(pes, 0);
  std::vector<PairCount> pairs;
  uint64_t sends = 0;
  for (int64_t q = 0; q < toPes; ++q)
    for (int64_t t = 0; t < toSlots; ++t) {
      const uint32_t a = sources[size_t(q * toSlots + t)];
      if (a == kNoSource)
        continue;
      const uint32_t p = uint32_t(int64_t(a) / fromSlots);
      if (p == q)
        continue;
      if (stamp[p] != uint32_t(q)) {
        stamp[p] = uint32_t(q);
        at[p] = uint32_t(pairs.size());
        pairs.push_back({p, uint32_t(q), 0});
      }
      ++pairs[at[p]].count;
      ++sends;
    }
  return chargeExchangeFromPairs(m, from, to, std::move(pairs), sends,
                                 elemBytes);
}

namespace {

/// Charges `m` one round of an exchange used `rounds` times whose send
/// costs `router` ticks: the schedule entry, then per transfer an indirect
/// load, the send and an indirect store.
void chargeRounds(MasPar &m, unsigned elemBytes, uint64_t rounds,
                  int64_t router) {
  const unsigned xferBytes = std::min(elemBytes, 8u);
  const int64_t xfers = elemBytes / xferBytes, times = int64_t(rounds);
  const unsigned w = widthIndex(xferBytes);
  const CostModel &c = m.cost();
  Ledger &ledger = m.ledger();
  ledger.memory += times * (c.load[widthIndex(8)] +
                            xfers * (c.loadIndirect[w] + c.storeIndirect(w)));
  ledger.router += times * xfers * router;
  if (router > 0)
    ledger.routerSends += times * xfers;
}

/// Charges the product rounds `p`, each priced from its factors; false,
/// charging nothing, when the machine's clusters do not factor so.
bool chargeProduct(MasPar &m, unsigned elemBytes, const ProductRounds &p) {
  std::vector<int64_t> router;
  if (!productRouterTicks(m, std::min(elemBytes, 8u), p, router))
    return false;
  const size_t outer = p.outerRounds.size();
  for (size_t i = 0; i < p.innerRounds.size(); ++i)
    for (size_t j = 0; j < outer; ++j) {
      const FactorRound &ri = p.innerRounds[i], &rj = p.outerRounds[j];
      if (!(ri.stay && rj.stay))
        chargeRounds(m, elemBytes, p.scale * ri.times * rj.times,
                     router[i * outer + j]);
    }
  return true;
}

} // namespace

bool mapc::rt::chargeExchangeByFactors(MasPar &m, const TileMap &from,
                                       const TileMap &to,
                                       const MoveCounts &counts, uint64_t sends,
                                       size_t moving, unsigned elemBytes) {
  const unsigned pes = m.peCount();
  if (to.replicates() || pesOf(from) > pes || pesOf(to) > pes ||
      !exchangePairsApply(sends, moving))
    return false;
  const std::vector<int64_t> grid = sharedPeGrid(from, to);
  std::optional<ProductRounds> product =
      counts.factors ? productRounds(*counts.factors, grid)
                     : productRounds(counts.listed, grid);
  return product && chargeProduct(m, elemBytes, *product);
}

bool mapc::rt::chargeExchangeFromPairs(MasPar &m, const TileMap &from,
                                       const TileMap &to,
                                       std::vector<PairCount> pairs,
                                       uint64_t sends, unsigned elemBytes) {
  const unsigned pes = m.peCount();
  if (to.replicates() || pesOf(from) > pes || pesOf(to) > pes)
    return false;
  if (!exchangePairsApply(sends, pairs.size()))
    return false;
  const std::vector<int64_t> grid = sharedPeGrid(from, to);
  // A separable move: each product round priced from its factors'
  // traffic, the rounds never listed (ProductRounds.h).
  if (std::optional<ProductRounds> product = productRounds(pairs, grid))
    if (chargeProduct(m, elemBytes, *product))
      return true;
  const int64_t toPes = pesOf(to);
  // Numbered as scheduleByPairs numbers them: sender by sender, each
  // sender's receivers in order of shift (receiver - sender mod the
  // destination's PEs), the order colourByShift sorts the sends in.
  sortPairsByShift(pairs, uint32_t(std::max<int64_t>(1, toPes)));
  Plural dest(pes, 0);
  Mask active(pes, 0);
  for (const PairRound &r : planPairRounds(pairs, pes, grid)) {
    if (r.pairs.empty() || r.times == 0)
      continue;
    for (uint32_t k : r.pairs) {
      active[pairs[k].left] = 1;
      dest[pairs[k].left] = pairs[k].right;
    }
    // Plain or clustered connections, whichever is cheaper (5.6.4), as
    // runExchange chooses per send.
    chargeRounds(m, elemBytes, r.times,
                 m.cheaperRouterCost(std::min(elemBytes, 8u), dest, active));
    for (uint32_t k : r.pairs)
      active[pairs[k].left] = 0;
  }
  return true;
}
