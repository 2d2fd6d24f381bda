//===- TransferRounds.cpp - brute-force transfers, in and out of place ----===//
#include "mapc/runtime/TransferRounds.h"

#include "CountingSort.h"

#include <algorithm>
#include <cassert>
#include <numeric>

using namespace mapc::rt;

namespace {

/// The parts an item travels in: one load, send and store of `bytes` each
/// (a chunk of up to 64 bits, or an element wider than 64 bits in 64-bit
/// parts).
struct Parts {
  unsigned bytes = 1, count = 1;
};
Parts partsOf(const SendItem &t, unsigned elemBytes) {
  const uint64_t total = uint64_t(t.elems) * elemBytes;
  if (total <= 8)
    return {unsigned(total), 1};
  return {8, unsigned(total / 8)};
}

/// One item waiting on a PE's stack for its cell (003 6.3.9).
struct Waiting {
  uint32_t dstSlot = 0, elems = 1;
  std::vector<uint64_t> parts;
};

class Rounds {
public:
  Rounds(MasPar &m, const std::vector<std::vector<SendItem>> &lists,
         const TransferOptions &opt)
      : m(m), lists(lists), opt(opt), pes(m.peCount()) {}

  void outOfPlace(TransferStats &stats);
  void inPlace(TransferStats &stats);

private:
  MasPar &m;
  const std::vector<std::vector<SendItem>> &lists;
  const TransferOptions &opt;
  unsigned pes;

  /// Charges the address arithmetic of the chosen items: the PEs needing
  /// d or more divisions pay the d-th together.
  void arith(const std::vector<const SendItem *> &chosen);
  /// Sends the chosen items (one per PE at most), colliding senders in
  /// successive sends. Out of place each arrival is stored at once; in
  /// place it goes on its receiver's stack (`stacks`).
  void deliver(const std::vector<const SendItem *> &chosen,
               std::vector<std::vector<Waiting>> *stacks);
  /// A priced indirect access of `bytes` by the PEs of `active`, on memory
  /// the simulator keeps itself (the tags and the stacks).
  void charge(unsigned bytes, const Mask &active, unsigned times = 1) {
    bool any = std::find(active.begin(), active.end(), 1) != active.end();
    if (any)
      m.ledger().memory +=
          int64_t(times) * m.cost().loadIndirect[widthIndex(bytes)];
  }
};

void Rounds::arith(const std::vector<const SendItem *> &chosen) {
  uint32_t most = 0;
  for (const SendItem *t : chosen)
    if (t)
      most = std::max(most, t->divmods);
  for (uint32_t d = 1; d <= most; ++d) {
    Mask need(pes, 0);
    for (unsigned p = 0; p < pes; ++p)
      need[p] = chosen[p] && chosen[p]->divmods >= d;
    m.arith(1, need);
  }
}

void Rounds::deliver(const std::vector<const SendItem *> &chosen,
                     std::vector<std::vector<Waiting>> *stacks) {
  const unsigned eb = opt.elemBytes;
  // Items of different widths go in separate passes (a round's items
  // usually share one).
  std::vector<unsigned> widths;
  for (const SendItem *t : chosen)
    if (t) {
      unsigned w = partsOf(*t, eb).bytes * 64 + partsOf(*t, eb).count;
      if (std::find(widths.begin(), widths.end(), w) == widths.end())
        widths.push_back(w);
    }
  Mask sending(pes, 0), active(pes, 0), received(pes, 0);
  Plural dproc(pes, 0), raddr(pes, 0), recvAddr(pes, 0);
  std::vector<uint32_t> rank(pes, 0), load(pes, 0);
  for (unsigned w : widths) {
    const unsigned bytes = w / 64, count = w % 64;
    std::fill(load.begin(), load.end(), 0);
    uint32_t sub = 0;
    for (unsigned p = 0; p < pes; ++p) {
      const SendItem *t = chosen[p];
      sending[p] =
          t && partsOf(*t, eb).bytes == bytes && partsOf(*t, eb).count == count;
      if (!sending[p])
        continue;
      dproc[p] = t->dstPe;
      raddr[p] = opt.readBase + uint64_t(t->srcSlot) * eb;
      rank[p] = load[t->dstPe]++;
      sub = std::max(sub, rank[p] + 1);
      if (stacks)
        (*stacks)[t->dstPe].push_back({t->dstSlot, t->elems, {}});
    }
    for (unsigned x = 0; x < count; ++x) {
      Plural z = m.loadIndirect(bytes, raddr, sending);
      for (uint32_t k = 0; k < sub; ++k) {
        for (unsigned p = 0; p < pes; ++p)
          active[p] = sending[p] && rank[p] == k;
        Plural got = m.routerSend(bytes, z, dproc, active, false, received, 4);
        if (!stacks) {
          for (unsigned p = 0; p < pes; ++p)
            if (active[p])
              recvAddr[dproc[p]] = opt.writeBase +
                                   uint64_t(chosen[p]->dstSlot) * eb +
                                   uint64_t(x) * bytes;
          m.storeIndirect(bytes, recvAddr, got, received);
          continue;
        }
        // Onto the receiver's stack: the value, and with the first part
        // its address.
        for (unsigned p = 0; p < pes; ++p)
          if (active[p]) {
            auto &st = (*stacks)[dproc[p]];
            // This sender's entry: the receiver's load[] entries were
            // pushed in sender order, rank k is the k-th from the end.
            Waiting &e = st[st.size() - load[dproc[p]] + rank[p]];
            e.parts.push_back(got[dproc[p]]);
          }
        charge(bytes, received, x == 0 ? 2 : 1);
      }
      for (unsigned p = 0; p < pes; ++p)
        raddr[p] += bytes;
    }
  }
}

void Rounds::outOfPlace(TransferStats &stats) {
  size_t rounds = 0;
  for (const auto &l : lists)
    rounds = std::max(rounds, l.size());
  std::vector<const SendItem *> chosen(pes, nullptr);
  for (size_t r = 0; r < rounds; ++r) {
    for (unsigned p = 0; p < pes; ++p)
      chosen[p] =
          p < lists.size() && r < lists[p].size() ? &lists[p][r] : nullptr;
    arith(chosen);
    deliver(chosen, nullptr);
  }
  stats.rounds = int64_t(rounds);
}

void Rounds::inPlace(TransferStats &stats) {
  const unsigned eb = opt.elemBytes;
  const size_t limit = std::max(3u, opt.stackLimit);
  const size_t slots = size_t(opt.slots);
  // Per PE: the items still to send from each slot (a replicated
  // destination reads one slot several times), and which items are sent.
  std::vector<std::vector<uint32_t>> unsentAt(pes, std::vector<uint32_t>());
  std::vector<std::vector<int32_t>> itemAt(pes);
  std::vector<std::vector<uint8_t>> sent(pes);
  std::vector<size_t> next(pes, 0), left(pes, 0);
  for (unsigned p = 0; p < pes && p < lists.size(); ++p) {
    unsentAt[p].assign(slots, 0);
    itemAt[p].assign(slots, -1);
    sent[p].assign(lists[p].size(), 0);
    for (size_t k = 0; k < lists[p].size(); ++k)
      for (uint32_t e = 0; e < lists[p][k].elems; ++e) {
        ++unsentAt[p][lists[p][k].srcSlot + e];
        itemAt[p][lists[p][k].srcSlot + e] = int32_t(k);
      }
    left[p] = lists[p].size();
  }
  auto isFree = [&](unsigned p, uint32_t slot) {
    return unsentAt[p].empty() || unsentAt[p][slot] == 0;
  };
  // The item of PE p reading `slot` (each slot feeds one item: the caller
  // checks), or the next unsent in its order.
  auto pick = [&](unsigned p, int64_t slot) -> int64_t {
    const auto &l = lists[p];
    if (slot >= 0 && itemAt[p][size_t(slot)] >= 0 &&
        !sent[p][size_t(itemAt[p][size_t(slot)])])
      return itemAt[p][size_t(slot)];
    while (next[p] < l.size() && sent[p][next[p]])
      ++next[p];
    return next[p] < l.size() ? int64_t(next[p]) : -1;
  };

  std::vector<std::vector<Waiting>> stacks(pes);
  // Per PE, how many of its waiting items have a free cell, kept as items
  // arrive and cells are sent: a round looks only into the stacks that
  // can write, not into every stack (that scan, a random access per
  // waiting item per round, was most of the planning time of fig. 6.4's
  // in-place resig_mp at thesis size).
  std::vector<uint32_t> writable(pes, 0);
  size_t writableTotal = 0;
  Mask mask(pes, 0);
  Plural addr(pes, 0), value(pes, 0);
  size_t remaining = std::accumulate(left.begin(), left.end(), size_t(0));
  std::vector<const SendItem *> chosen(pes, nullptr);
  std::vector<int64_t> choice(pes, -1);
  std::vector<int64_t> at(pes, -1);
  std::vector<size_t> room(pes, 0), bySize;
  std::vector<unsigned> order, sorted;
  while (true) {
    // Write every waiting item whose cell is free, one per PE at a time:
    // load it from the stack (value and address), store it in the array.
    while (writableTotal > 0) {
      for (unsigned p = 0; p < pes; ++p) {
        mask[p] = 0;
        if (writable[p] == 0)
          continue;
        for (size_t k = 0; k < stacks[p].size(); ++k)
          if (isFree(p, stacks[p][k].dstSlot)) {
            at[p] = int64_t(k);
            mask[p] = 1;
            break;
          }
        assert(mask[p] && "a writable count without a writable item");
      }
      // Items of different widths (chunks) are written in separate passes.
      std::vector<unsigned> widths;
      for (unsigned p = 0; p < pes; ++p)
        if (mask[p]) {
          Parts ps = partsOf({0, 0, 0, stacks[p][size_t(at[p])].elems, 0}, eb);
          unsigned w = ps.bytes * 64 + ps.count;
          if (std::find(widths.begin(), widths.end(), w) == widths.end())
            widths.push_back(w);
        }
      for (unsigned w : widths) {
        const unsigned bytes = w / 64, count = w % 64;
        Mask part(pes, 0);
        for (unsigned p = 0; p < pes; ++p) {
          if (!mask[p])
            continue;
          Parts ps = partsOf({0, 0, 0, stacks[p][size_t(at[p])].elems, 0}, eb);
          part[p] = ps.bytes == bytes && ps.count == count;
        }
        for (unsigned x = 0; x < count; ++x) {
          for (unsigned p = 0; p < pes; ++p) {
            if (!part[p])
              continue;
            const Waiting &e = stacks[p][size_t(at[p])];
            addr[p] =
                opt.writeBase + uint64_t(e.dstSlot) * eb + uint64_t(x) * bytes;
            value[p] = e.parts[x];
          }
          charge(bytes, part, x == 0 ? 2 : 1);
          m.storeIndirect(bytes, addr, value, part);
        }
      }
      for (unsigned p = 0; p < pes; ++p)
        if (mask[p]) {
          stacks[p].erase(stacks[p].begin() + at[p]);
          --writable[p];
          --writableTotal;
        }
    }
    if (remaining == 0) {
      assert(std::all_of(stacks.begin(), stacks.end(),
                         [](const auto &s) { return s.empty(); }) &&
             "items left waiting for cells nobody frees");
      break;
    }
    // Each PE's choice: the element its oldest waiting item needs, else
    // its next unsent item. Checking the tag is an indirect load.
    order.clear();
    size_t fullest = 0;
    for (unsigned p = 0; p < pes; ++p) {
      choice[p] = -1;
      mask[p] = 0;
      if (p >= lists.size() || left[p] == 0)
        continue;
      choice[p] =
          pick(p, stacks[p].empty() ? -1 : int64_t(stacks[p][0].dstSlot));
      mask[p] = choice[p] >= 0;
      if (mask[p]) {
        order.push_back(p);
        fullest = std::max(fullest, stacks[p].size());
      }
    }
    charge(1, mask);
    // Fuller stacks send first, in PE order on ties (a stable counting
    // sort: stacks hold at most `limit` items); a receiver takes items
    // while its stack holds fewer than limit - 2.
    countingSort(
        order, fullest + 1,
        [&](unsigned p) { return fullest - stacks[p].size(); }, bySize, sorted);
    order.swap(sorted);
    for (unsigned p = 0; p < pes; ++p)
      room[p] = stacks[p].size() + 2 < limit ? limit - 2 - stacks[p].size() : 0;
    std::fill(chosen.begin(), chosen.end(), nullptr);
    bool any = false;
    for (unsigned p : order) {
      const SendItem &t = lists[p][size_t(choice[p])];
      if (room[t.dstPe] == 0)
        continue;
      --room[t.dstPe];
      chosen[p] = &t;
      any = true;
    }
    if (!any) {
      // Stuck (003 6.3.9): the fullest stack sends what its oldest item
      // waits for, whatever its receiver holds.
      unsigned t = 0;
      for (unsigned p = 1; p < pes; ++p)
        if (stacks[p].size() > stacks[t].size())
          t = p;
      if (stacks[t].empty() || choice[t] < 0) {
        // Cannot happen: a PE with nothing waiting accepts.
        assert(false && "in-place brute force stuck without a waiting item");
        break;
      }
      chosen[t] = &lists[t][size_t(choice[t])];
      ++stats.forced;
    }
    // The tags of the sent cells.
    for (unsigned p = 0; p < pes; ++p)
      mask[p] = chosen[p] != nullptr;
    arith(chosen);
    deliver(chosen, &stacks);
    charge(1, mask);
    // The arrivals whose cell is already free can be written ...
    for (unsigned p = 0; p < pes; ++p)
      if (chosen[p] && isFree(chosen[p]->dstPe, chosen[p]->dstSlot)) {
        ++writable[chosen[p]->dstPe];
        ++writableTotal;
      }
    for (unsigned p = 0; p < pes; ++p) {
      if (!chosen[p])
        continue;
      sent[p][size_t(choice[p])] = 1;
      --left[p];
      --remaining;
      // ... and so can the items waiting for a cell this send frees.
      for (uint32_t e = 0; e < chosen[p]->elems; ++e) {
        const uint32_t slot = chosen[p]->srcSlot + e;
        if (--unsentAt[p][slot] != 0)
          continue;
        for (const Waiting &w : stacks[p])
          if (w.dstSlot == slot) {
            ++writable[p];
            ++writableTotal;
          }
      }
    }
    ++stats.rounds;
    for (const auto &s : stacks)
      stats.stackHigh = std::max(stats.stackHigh, int64_t(s.size()));
  }
}

} // namespace

void mapc::rt::runTransfers(MasPar &m,
                            const std::vector<std::vector<SendItem>> &lists,
                            const TransferOptions &opt, TransferStats *stats) {
  TransferStats own;
  TransferStats &s = stats ? *stats : own;
  Rounds r(m, lists, opt);
  if (opt.inPlace)
    r.inPlace(s);
  else
    r.outOfPlace(s);
}

int64_t
mapc::rt::inPlaceTransfersFloor(const MasPar &m,
                                const std::vector<std::vector<SendItem>> &lists,
                                unsigned elemBytes) {
  const CostModel &c = m.cost();
  const unsigned pes = m.peCount();
  std::vector<int64_t> written(pes, 0), sentOut(m.clusterCount(), 0),
      sentIn(m.clusterCount(), 0);
  int64_t sendMemory = 0, arith = 0;
  for (unsigned p = 0; p < pes && p < lists.size(); ++p) {
    int64_t memory = 0, divmods = 0;
    for (const SendItem &t : lists[p]) {
      const Parts ps = partsOf(t, elemBytes);
      const int64_t li = c.loadIndirect[widthIndex(ps.bytes)];
      // Rounds::inPlace: the chosen cell's tag and the sent cell's tag, a
      // load per part, the stack's entry (value and address first).
      memory += 2 * c.loadIndirect[0] + (2 * ps.count + 1) * li;
      divmods += t.divmods;
      // The receiver's write: the stack read again, then the store.
      written[t.dstPe] += (ps.count + 1) * li +
                          ps.count * c.storeIndirect(widthIndex(ps.bytes));
      if (t.dstPe == p)
        continue; // a send that leaves no PE may be free
      const int64_t send = ps.count * (c.ropen + c.rsend[widthIndex(ps.bytes)] +
                                       c.rsend[widthIndex(4)]);
      sentOut[m.clusterOfPe(p)] += send;
      sentIn[m.clusterOfPe(t.dstPe)] += send;
    }
    sendMemory = std::max(sendMemory, memory);
    arith = std::max(arith, divmods * c.divmod);
  }
  const int64_t writes = *std::max_element(written.begin(), written.end());
  const int64_t router =
      std::max(*std::max_element(sentOut.begin(), sentOut.end()),
               *std::max_element(sentIn.begin(), sentIn.end()));
  return sendMemory + writes + arith + router;
}
