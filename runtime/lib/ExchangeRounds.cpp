//===- ExchangeRounds.cpp - the rounds of a general exchange step ---------===//
//
// An exchange step (General.h) sends every element that changes PE in
// rounds in which each PE sends and receives at most one: a Kempe-chain
// edge colouring of the sends (König's theorem), ordered so that a P/M
// digit exchange takes function 6.1's diagonals (003 6.2.1, fig. 6.3), with
// recursive doubling, or the copies of all elements scheduled together, for
// elements bound for several PEs; and, to run in place, the groups of
// rounds that must load before they store.
//
//===----------------------------------------------------------------------===//
#include "ExchangeRounds.h"
#include "CountingSort.h"
#include "ExchangePrice.h"
#include "PairSchedule.h"
#include "ReplicationRounds.h"

#include <algorithm>

using namespace mapc::rt;

bool mapc::rt::colourBipartite(
    const std::vector<std::pair<uint32_t, uint32_t>> &edges, unsigned pes,
    std::vector<uint32_t> &colour, uint32_t &colours, uint64_t budget) {
  std::vector<uint32_t> outDeg(pes, 0), inDeg(pes, 0);
  for (const auto &[u, v] : edges) {
    ++outDeg[u];
    ++inDeg[v];
  }
  colours = 0;
  for (unsigned p = 0; p < pes; ++p)
    colours = std::max({colours, outDeg[p], inDeg[p]});
  constexpr uint32_t kFree = ~uint32_t(0);
  // Per side and vertex, the edge of each colour there. A vertex of degree
  // at least colours / 16 keeps a row of `colours` entries (row[side][v]
  // into at[side]); one of lower degree has no row, and its colour c's edge
  // is found among its own edges (adj), by their colours. The rows are
  // then at most 16 entries an edge: a broadcast from one PE to n has n
  // colours and n vertices of degree 1, and a row for each took n^2
  // entries (8.4 GB over 32767 PEs). The colouring is the same.
  std::vector<uint32_t> row[2] = {std::vector<uint32_t>(pes, kFree),
                                  std::vector<uint32_t>(pes, kFree)};
  std::vector<uint32_t> at[2];
  std::vector<std::vector<uint32_t>> adj[2] = {
      std::vector<std::vector<uint32_t>>(pes),
      std::vector<std::vector<uint32_t>>(pes)};
  for (int side = 0; side < 2; ++side) {
    const std::vector<uint32_t> &deg = side == 0 ? outDeg : inDeg;
    uint32_t rows = 0;
    for (unsigned p = 0; p < pes; ++p)
      if (deg[p] && uint64_t(deg[p]) * 16 >= colours)
        row[side][p] = rows++;
    at[side].assign(size_t(rows) * colours, kFree);
  }
  for (uint32_t e = 0; e < edges.size(); ++e) {
    if (row[0][edges[e].first] == kFree)
      adj[0][edges[e].first].push_back(e);
    if (row[1][edges[e].second] == kFree)
      adj[1][edges[e].second].push_back(e);
  }
  // Per vertex: the colours never used there start at `fresh`; colours
  // freed by a chain wait on `freed` (checked when taken).
  std::vector<uint32_t> fresh[2] = {std::vector<uint32_t>(pes, 0),
                                    std::vector<uint32_t>(pes, 0)};
  std::vector<std::vector<uint32_t>> freed[2] = {
      std::vector<std::vector<uint32_t>>(pes),
      std::vector<std::vector<uint32_t>>(pes)};
  // The edge of colour c at vertex v, or kFree; setAt keeps a row (a
  // vertex without one reads `colour`, which the caller sets).
  auto slot = [&](int side, uint32_t v, uint32_t c) -> uint32_t {
    if (row[side][v] != kFree)
      return at[side][size_t(row[side][v]) * colours + c];
    for (uint32_t f : adj[side][v])
      if (colour[f] == c)
        return f;
    return kFree;
  };
  auto setAt = [&](int side, uint32_t v, uint32_t c, uint32_t e) {
    if (row[side][v] != kFree)
      at[side][size_t(row[side][v]) * colours + c] = e;
  };
  auto freeAt = [&](int side, uint32_t v) {
    std::vector<uint32_t> &f = freed[side][v];
    while (!f.empty()) {
      if (slot(side, v, f.back()) == kFree)
        return f.back();
      f.pop_back();
    }
    uint32_t &c = fresh[side][v];
    while (slot(side, v, c) != kFree)
      ++c;
    return c;
  };
  colour.assign(edges.size(), kFree);
  uint64_t work = 0;
  std::vector<uint32_t> path;
  for (uint32_t e = 0; e < edges.size(); ++e) {
    const uint32_t u = edges[e].first, v = edges[e].second;
    uint32_t a = freeAt(0, u), b = freeAt(1, v);
    if (slot(1, v, a) != kFree) {
      // a is taken at v: swap a and b along the chain from v, which can
      // never reach u (bipartite, and a is free at u).
      path.clear();
      int side = 1;
      uint32_t w = v, c = a;
      while (slot(side, w, c) != kFree) {
        uint32_t f = slot(side, w, c);
        path.push_back(f);
        w = side == 1 ? edges[f].first : edges[f].second;
        side = 1 - side;
        c = c == a ? b : a;
        if (++work > budget)
          return false;
      }
      for (uint32_t f : path) {
        setAt(0, edges[f].first, colour[f], kFree);
        setAt(1, edges[f].second, colour[f], kFree);
        freed[0][edges[f].first].push_back(colour[f]);
        freed[1][edges[f].second].push_back(colour[f]);
      }
      for (uint32_t f : path) {
        colour[f] = colour[f] == a ? b : a;
        setAt(0, edges[f].first, colour[f], f);
        setAt(1, edges[f].second, colour[f], f);
      }
    }
    colour[e] = a;
    setAt(0, u, a, e);
    setAt(1, v, a, e);
  }
  return true;
}

namespace {

/// A send's shift: receiver - sender, modulo `span` PEs. colourByShift
/// orders sends by it, and exchangeSchedule lists them in that order.
size_t shiftOf(const ExchangeSend &e, uint64_t span) {
  return size_t((e.dstPe + span - e.srcPe % span) % span);
}

/// Colours `sends` into rounds appended to `rounds`, in order of their shift
/// (receiver - sender, modulo `span` PEs): sends of one shift never share a
/// sender or a receiver, so a remap whose shifts each carry one element per
/// PE (a P/M digit exchange) takes exactly the diagonals of function 6.1.
/// Many sends are scheduled from their pair counts instead (PairSchedule.h,
/// diagonals of `grid` first): as few rounds, without colouring element by
/// element.
bool colourByShift(std::vector<ExchangeSend> sends, unsigned pes, uint64_t span,
                   const std::vector<int64_t> &grid,
                   ExchangeRoundList &rounds) {
  auto shift = [&](const ExchangeSend &e) { return shiftOf(e, span); };
  // A stable counting sort (shifts are below `span`), in place: on few PEs
  // the sends are most of --run's memory.
  std::vector<size_t> start;
  std::vector<ExchangeSend> &sorted = sends;
  if (!std::is_sorted(sorted.begin(), sorted.end(),
                      [&](const ExchangeSend &x, const ExchangeSend &y) {
                        return shift(x) < shift(y);
                      }))
    countingSortInPlace(sorted, span, shift, start);
  if (sorted.size() > kPairScheduleFrom &&
      scheduleByPairs(sorted, pes, grid, rounds))
    return true;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (const ExchangeSend &e : sorted)
    edges.push_back({e.srcPe, e.dstPe});
  std::vector<uint32_t> colour;
  uint32_t count = 0;
  if (!colourBipartite(edges, pes, colour, count, 64 * edges.size() + 4096))
    return false;
  rounds.appendByRound(sorted, colour, count);
  return true;
}

/// 003 6.2.1's data replication with the copies of all elements scheduled
/// together: in each round every PE that still lacks an element takes one
/// from a holder that is free this round (the source or a PE that received
/// it in an earlier round), so the doubling of one element fills the
/// rounds left idle by another's, and a PE's receives, not each element's
/// waves one after another, set the length (an all-gather pattern). The
/// receivers with most left to receive choose first, each the rarest
/// element it lacks; augmenting paths then make each round a maximum
/// matching of free holders to receivers. `lists[i]` are element i's deliveries
/// (the source in srcPe/srcSlot). False if the search runs past `budget` steps.
bool gatherTogether(const std::vector<const std::vector<ExchangeSend> *> &lists,
                    unsigned pes, uint64_t budget, ExchangeRoundList &rounds) {
  struct Holder {
    uint32_t pe, slot;
    bool forwarded;
  };
  struct Want {
    uint32_t element, slot;
  };
  // The search costs at least one step per want of every receiver that
  // still wants something, each round, and a receiver takes one element a
  // round: at least w (w + 1) / 2 steps for a receiver of w elements. Past
  // the budget it would fail: it fails at once (the same answer, without
  // the milliseconds of 200 elements over 1000 PEs).
  {
    std::vector<uint64_t> wanted(pes, 0);
    for (const std::vector<ExchangeSend> *list : lists)
      for (const ExchangeSend &e : *list)
        ++wanted[e.dstPe];
    uint64_t floor = 0;
    for (uint64_t w : wanted)
      floor += w * (w + 1) / 2;
    if (floor > budget)
      return false;
  }
  std::vector<std::vector<Holder>> holders(lists.size());
  std::vector<std::vector<Want>> wants(pes);
  size_t left = 0;
  for (uint32_t i = 0; i < lists.size(); ++i) {
    const std::vector<ExchangeSend> &list = *lists[i];
    holders[i].push_back({list[0].srcPe, list[0].srcSlot, false});
    for (const ExchangeSend &e : list)
      wants[e.dstPe].push_back({i, e.dstSlot});
    left += list.size();
  }
  constexpr uint32_t kNone = ~uint32_t(0);
  // This round's matching: the receiver a PE sends to, and per receiver the
  // want it takes and the holder that sends it.
  std::vector<uint32_t> sendsTo(pes), want(pes), holder(pes), seen(pes);
  std::vector<uint32_t> order(pes);
  uint64_t work = 0;
  uint32_t visit = 0;
  // Kuhn's augmenting path from receiver q: a free holder of something q
  // wants, or a busy one whose receiver can take something else.
  // Paths are cut at kDepth receivers so the recursion stays shallow.
  constexpr unsigned kDepth = 64;
  auto augment = [&](auto &self, uint32_t q, unsigned depth) -> bool {
    if (depth > kDepth)
      return false;
    for (uint32_t k = 0; k < wants[q].size(); ++k) {
      const std::vector<Holder> &h = holders[wants[q][k].element];
      for (uint32_t j = 0; j < h.size(); ++j) {
        if (++work > budget)
          return false;
        const uint32_t p = h[j].pe;
        if (seen[p] == visit)
          continue;
        seen[p] = visit;
        if (sendsTo[p] == kNone || self(self, sendsTo[p], depth + 1)) {
          sendsTo[p] = q;
          want[q] = k;
          holder[q] = j;
          return true;
        }
      }
    }
    return false;
  };
  while (left > 0) {
    work += pes;
    std::fill(sendsTo.begin(), sendsTo.end(), kNone);
    std::fill(want.begin(), want.end(), kNone);
    for (uint32_t p = 0; p < pes; ++p)
      order[p] = p;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      return wants[x].size() > wants[y].size();
    });
    // Greedily first: the receivers with most left choose first, each the
    // rarest element it lacks, from its latest free holder.
    for (uint32_t q : order) {
      const std::vector<Want> &w = wants[q];
      if (w.empty())
        break;
      size_t best = w.size(), bestHolder = 0;
      for (size_t k = 0; k < w.size(); ++k) {
        if (++work > budget)
          return false;
        const std::vector<Holder> &h = holders[w[k].element];
        if (best < w.size() && h.size() >= holders[w[best].element].size())
          continue;
        for (size_t j = h.size(); j-- > 0;) {
          if (++work > budget)
            return false;
          if (sendsTo[h[j].pe] == kNone) {
            best = k;
            bestHolder = j;
            break;
          }
        }
      }
      if (best == w.size())
        continue;
      sendsTo[holders[w[best].element][bestHolder].pe] = q;
      want[q] = uint32_t(best);
      holder[q] = uint32_t(bestHolder);
    }
    // Then augmenting paths for the receivers left out (a maximum
    // matching of holders to receivers).
    for (uint32_t q : order) {
      if (wants[q].empty())
        break;
      if (want[q] != kNone)
        continue;
      ++visit;
      augment(augment, q, 0);
      if (work > budget)
        return false;
    }
    std::vector<std::pair<uint32_t, Holder>> arrived;
    rounds.addRound();
    for (uint32_t q = 0; q < pes; ++q) {
      if (want[q] == kNone)
        continue;
      const Want w = wants[q][want[q]];
      const Holder &from = holders[w.element][holder[q]];
      rounds.push({from.pe, q, from.slot, w.slot, from.forwarded});
      arrived.push_back({w.element, {q, w.slot, true}});
      wants[q][want[q]] = wants[q].back();
      wants[q].pop_back();
      --left;
    }
    for (const auto &[i, h] : arrived)
      holders[i].push_back(h);
  }
  return true;
}

} // namespace

/// The most rounds times PEs a replicated destination's direct colouring
/// may take (exchangeSchedule): some 0.1 s of pricing them.
constexpr uint64_t kMaxColouredPeRounds = uint64_t(1) << 24;

bool mapc::rt::exchangeSchedule(const TileMap &from, const TileMap &to,
                                const std::vector<uint32_t> &sources,
                                unsigned pes, ExchangeRoundList &rounds,
                                std::vector<ExchangeSend> &fanOut,
                                bool forward) {
  const int64_t toPes = pesOf(to), fromSlots = slotsOf(from),
                toSlots = slotsOf(to);
  fanOut.clear();
  rounds.clear();
  // The PE grid both layouts share, for the diagonals (empty if they
  // differ).
  const std::vector<int64_t> grid = sharedPeGrid(from, to);
  // When no source cell feeds two destination cells (no replication), the
  // grouping below keeps every delivery in its own group, in order: colour
  // them as they come, without the hash tables (the same rounds, faster).
  {
    std::vector<uint8_t> seen(size_t(from.deviceSize()), 0);
    // The sends listed in colourByShift's order, by shift (a stable
    // counting sort as they are found): counted in a first pass, then
    // placed, so that no second list of them is made.
    const uint64_t span = uint64_t(std::max<int64_t>(1, toPes));
    auto forEachSend = [&](auto &&send) {
      for (int64_t q = 0; q < toPes; ++q)
        for (int64_t t = 0; t < toSlots; ++t) {
          uint32_t a = sources[size_t(q * toSlots + t)];
          if (a == kNoSource || int64_t(a) / fromSlots == q)
            continue;
          if (!send(ExchangeSend{uint32_t(int64_t(a) / fromSlots), uint32_t(q),
                                 uint32_t(int64_t(a) % fromSlots), uint32_t(t)},
                    a))
            return false;
        }
      return true;
    };
    std::vector<size_t> start;
    CountingSort<size_t> byShift(start, size_t(span));
    if (forEachSend([&](const ExchangeSend &e, uint32_t a) {
          byShift.count(shiftOf(e, span));
          return !seen[a]++; // a repeat: the grouping below
        })) {
      byShift.sum();
      std::vector<ExchangeSend> direct(byShift.total());
      forEachSend([&](const ExchangeSend &e, uint32_t) {
        direct[byShift.place(shiftOf(e, span))] = e;
        return true;
      });
      return colourByShift(std::move(direct), pes, span, grid, rounds);
    }
  }
  // An element bound for several cells of one PE (a destination replicated
  // in memory) travels once; the receiver copies it (003 6.2.1, "Data
  // replication"). Deliveries are grouped by source cell, in the order the
  // cells first appear (forEachGroupedDelivery).
  std::vector<std::vector<ExchangeSend>> bySource;
  if (!forEachGroupedDelivery(
          sources, toPes, toSlots, fromSlots,
          uint64_t(std::max<int64_t>(0, from.deviceSize())),
          [&](const ExchangeSend &copy) { fanOut.push_back(copy); },
          [&](uint32_t list, const ExchangeSend &e) {
            if (list == bySource.size())
              bySource.emplace_back();
            bySource[list].push_back(e);
          }))
    return false;
  const uint64_t span = uint64_t(std::max<int64_t>(1, toPes));
  // Every delivery from its source, coloured at once: in as many rounds as
  // the busiest PE's degree (König; colourByShift's two ways both take
  // that many), so it is coloured only when nothing below takes fewer.
  size_t deliveries = 0, widest = 0;
  std::vector<uint32_t> sends(pes, 0), receives(pes, 0);
  for (const auto &list : bySource) {
    deliveries += list.size();
    widest = std::max(widest, list.size());
    for (const ExchangeSend &e : list) {
      ++sends[e.srcPe];
      ++receives[e.dstPe];
    }
  }
  uint32_t degree = 0;
  for (unsigned p = 0; p < pes; ++p)
    degree = std::max({degree, sends[p], receives[p]});
  auto colourDirect = [&] {
    // Its rounds are run to be priced, each over every PE: a broadcast's
    // degree is the PE count, and 32767 PEs took 10^9 PE-rounds (minutes).
    // Past kMaxColouredPeRounds the direct schedule is not made, as past
    // the colouring's own budget (the step is then priced another way).
    if (uint64_t(degree) * pes > kMaxColouredPeRounds)
      return false;
    std::vector<ExchangeSend> direct;
    direct.reserve(deliveries);
    for (const auto &list : bySource)
      direct.insert(direct.end(), list.begin(), list.end());
    return colourByShift(std::move(direct), pes, span, grid, rounds);
  };
  if (widest < 3 || !forward)
    return colourDirect();
  // An element bound for several PEs can instead double its holders each
  // wave (6.2.1's recursive doubling): in wave w every PE holding it sends
  // it to one more, the PEs that received it forwarding the copy they
  // received. Each wave is coloured on its own and follows the last; the
  // waves win when they take fewer rounds.
  // Each element's receivers in order of their shift from its source, so
  // that elements of different sources forward through different PEs (a
  // stable counting sort when the list is long against the shifts).
  std::vector<uint32_t> count;
  std::vector<ExchangeSend> sorted;
  for (auto &list : bySource) {
    auto shift = [&](const ExchangeSend &e) { return shiftOf(e, span); };
    if (list.size() * 4 < span) {
      std::stable_sort(list.begin(), list.end(),
                       [&](const ExchangeSend &x, const ExchangeSend &y) {
                         return shift(x) < shift(y);
                       });
      continue;
    }
    countingSort(list, span, shift, count, sorted);
    list.swap(sorted);
  }
  // The waves' sends, each wave to be coloured on its own and follow the
  // last. A wave takes at least as many rounds as its busiest PE sends or
  // receives in it: `wavesFloor` sums that over the waves.
  std::vector<std::vector<ExchangeSend>> waveSends;
  uint64_t wavesFloor = 0;
  for (unsigned w = 0;; ++w) {
    std::vector<ExchangeSend> wave;
    for (const auto &list : bySource) {
      // Before wave w the source and list[0 .. 2^w - 1) hold the element.
      size_t held = (size_t(1) << w) - 1;
      if (held >= list.size())
        continue;
      for (size_t h = 0; h <= held && held + h < list.size(); ++h) {
        ExchangeSend e = list[held + h];
        if (h > 0) { // a receiver forwards its copy
          e.srcPe = list[h - 1].dstPe;
          e.srcSlot = list[h - 1].dstSlot;
          e.forwarded = true;
        }
        wave.push_back(e);
      }
    }
    if (wave.empty())
      break;
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(receives.begin(), receives.end(), 0);
    uint32_t busiest = 0;
    for (const ExchangeSend &e : wave)
      busiest = std::max({busiest, ++sends[e.srcPe], ++receives[e.dstPe]});
    wavesFloor += busiest;
    waveSends.push_back(std::move(wave));
  }
  std::vector<const std::vector<ExchangeSend> *> lists;
  for (const auto &list : bySource)
    lists.push_back(&list);
  // All elements' copies scheduled together (when its search stays small:
  // it looks at every wanted element), and an all-gather built
  // (ReplicationRounds.h).
  ExchangeRoundList together, built;
  const bool gathered = gatherTogether(
      lists, pes, 64 * deliveries + (uint64_t(1) << 20), together);
  const bool allGather = allGatherRounds(lists, pes, built);
  // The built schedule wins when it takes fewer rounds than the direct
  // colouring, the joint search and the waves' floor: the waves need not
  // be coloured (200 elements over 1000 PEs: 202 rounds against a floor of
  // 655, the waves' own rounds).
  if (allGather && built.size() < degree && built.size() < wavesFloor &&
      (!gathered || built.size() < together.size())) {
    rounds.swap(built);
    return true;
  }
  ExchangeRoundList waves;
  for (std::vector<ExchangeSend> &wave : waveSends)
    if (!colourByShift(std::move(wave), pes, span, grid, waves))
      return false;
  // The fewest rounds, the direct colouring's first (not built); on a tie
  // the earlier stays.
  size_t fewest = degree;
  ExchangeRoundList *best = nullptr;
  if (waves.size() < fewest) {
    fewest = waves.size();
    best = &waves;
  }
  if (gathered && together.size() < fewest) {
    fewest = together.size();
    best = &together;
  }
  if (allGather && built.size() < fewest)
    best = &built;
  if (!best)
    return colourDirect();
  rounds.swap(*best);
  return true;
}

// See ExchangeRounds.h.
bool mapc::rt::inPlaceGroups(const ExchangeRoundList &rounds,
                             uint64_t cellsPerPe, unsigned maxHeld,
                             RoundGroups &groups) {
  // The rounds that send from each cell (a replicated destination sends one
  // cell in several rounds, and all must precede its overwrite), bucketed
  // by cell: a counting sort, as cells number at most PEs x slots.
  uint64_t pes = 0;
  for (const auto &round : rounds)
    for (const ExchangeSend &e : round)
      pes = std::max<uint64_t>(
          {pes, uint64_t(e.srcPe) + 1, uint64_t(e.dstPe) + 1});
  const uint64_t cells = pes * cellsPerPe;
  std::vector<uint32_t> start;
  CountingSort<uint32_t> byCell(start, size_t(cells));
  for (const auto &round : rounds)
    for (const ExchangeSend &e : round)
      byCell.count(size_t(e.srcPe * cellsPerPe + e.srcSlot));
  byCell.sum();
  std::vector<uint32_t> sentIn(byCell.total());
  for (uint32_t r = 0; r < rounds.size(); ++r)
    for (const ExchangeSend &e : rounds[r])
      sentIn[byCell.place(size_t(e.srcPe * cellsPerPe + e.srcSlot))] = r;
  // Round r needs the rounds needList[needStart[r], needStart[r + 1]): one
  // list, bucketed by round with a counting sort (a list a round held most
  // of --run's memory on few PEs).
  std::vector<uint32_t> needStart, needList;
  auto forEachNeed = [&](auto &&need) {
    for (uint32_t r = 0; r < rounds.size(); ++r)
      for (const ExchangeSend &e : rounds[r]) {
        const uint64_t cell = e.dstPe * cellsPerPe + e.dstSlot;
        if (cell >= cells)
          continue; // no round sends from it
        for (uint32_t k = start[size_t(cell)]; k < start[size_t(cell) + 1]; ++k)
          if (sentIn[k] != r)
            need(r, sentIn[k]);
      }
  };
  CountingSort<uint32_t> byRound(needStart, rounds.size());
  forEachNeed([&](uint32_t r, uint32_t) { byRound.count(r); });
  byRound.sum();
  needList.resize(byRound.total());
  forEachNeed([&](uint32_t r, uint32_t w) { needList[byRound.place(r)] = w; });
  // Iterative Tarjan: a component is emitted after every component it
  // needs, which is the order to run them in.
  const uint32_t none = ~uint32_t(0);
  std::vector<uint32_t> index(rounds.size(), none), low(rounds.size(), 0);
  std::vector<uint8_t> onStack(rounds.size(), 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, size_t>> work;
  uint32_t next = 0;
  for (uint32_t root = 0; root < rounds.size(); ++root) {
    if (index[root] != none)
      continue;
    work.push_back({root, 0});
    while (!work.empty()) {
      auto &[v, edge] = work.back();
      if (edge == 0 && index[v] == none) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        onStack[v] = 1;
      }
      if (edge < needStart[v + 1] - needStart[v]) {
        uint32_t w = needList[needStart[v] + edge++];
        if (index[w] == none)
          work.push_back({w, 0});
        else if (onStack[w])
          low[v] = std::min(low[v], index[w]);
        continue;
      }
      if (low[v] == index[v]) {
        groups.addGroup();
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          onStack[w] = 0;
          groups.push(w);
        } while (w != v);
        if (groups.back().size() > maxHeld)
          return false;
      }
      uint32_t done = v;
      work.pop_back();
      if (!work.empty())
        low[work.back().first] = std::min(low[work.back().first], low[done]);
    }
  }
  return true;
}
