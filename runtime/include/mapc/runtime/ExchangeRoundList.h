//===- ExchangeRoundList.h - an exchange step's rounds, in one list -------===//
//
// An exchange step (General.h, exchangeSchedule) sends its elements in
// rounds, each PE sending and receiving at most one element a round. On
// few PEs there are about as many rounds as elements / PEs, and a list of
// lists spent a vector and a heap block on each: 2 x 10^7 elements on 2 PEs
// held some 50 bytes an element. ExchangeRoundList keeps every send in one
// array and where each round starts in another: 20 bytes a send and 4 a
// round.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_EXCHANGEROUNDLIST_H
#define MAPC_RUNTIME_EXCHANGEROUNDLIST_H

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mapc::rt {

/// One element an exchange step sends.
struct ExchangeSend {
  uint32_t srcPe, dstPe, srcSlot, dstSlot;
  /// A copy the sender received earlier in the step (recursive doubling):
  /// read from the written region, not the source.
  bool forwarded = false;

  bool operator==(const ExchangeSend &o) const {
    return srcPe == o.srcPe && dstPe == o.dstPe && srcSlot == o.srcSlot &&
           dstSlot == o.dstSlot && forwarded == o.forwarded;
  }
  bool operator!=(const ExchangeSend &o) const { return !(*this == o); }
};

/// The sends of one round: a view into an ExchangeRoundList (or any array
/// of sends), valid until the list changes.
class ExchangeRound {
public:
  ExchangeRound() = default;
  ExchangeRound(const ExchangeSend *first, size_t count)
      : first(first), count(count) {}
  const ExchangeSend *begin() const { return first; }
  const ExchangeSend *end() const { return first + count; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  const ExchangeSend &operator[](size_t i) const {
    assert(i < count && "a send of the round");
    return first[i];
  }
  /// A copy, to be sorted or changed.
  std::vector<ExchangeSend> vec() const { return {begin(), end()}; }

private:
  const ExchangeSend *first = nullptr;
  size_t count = 0;
};

/// Rounds of sends, in order: round r's are sends()[start(r), start(r + 1)).
/// Built round by round (addRound, then push into it), or all at once from
/// each send's round (assign).
class ExchangeRoundList {
public:
  ExchangeRoundList() = default;
  /// From a list of lists (tests, and schedules made round by round).
  explicit ExchangeRoundList(
      const std::vector<std::vector<ExchangeSend>> &rounds);

  size_t size() const { return starts.size() - 1; }
  bool empty() const { return size() == 0; }
  ExchangeRound operator[](size_t r) const {
    assert(r < size() && "a round of the list");
    return {all.data() + starts[r], size_t(starts[r + 1] - starts[r])};
  }
  ExchangeRound back() const { return (*this)[size() - 1]; }
  /// Every send, round after round.
  const std::vector<ExchangeSend> &sends() const { return all; }

  /// Iterates over the rounds.
  class iterator {
  public:
    iterator(const ExchangeRoundList *list, size_t r) : list(list), r(r) {}
    ExchangeRound operator*() const { return (*list)[r]; }
    iterator &operator++() {
      ++r;
      return *this;
    }
    bool operator!=(const iterator &other) const { return r != other.r; }
    bool operator==(const iterator &other) const { return r == other.r; }

  private:
    const ExchangeRoundList *list;
    size_t r;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

  /// Room for `rounds` more rounds and `sends` more sends.
  void reserve(size_t rounds, size_t sends) {
    starts.reserve(starts.size() + rounds);
    all.reserve(all.size() + sends);
  }
  /// Opens a new, empty round at the end; push() adds to it.
  void addRound() { starts.push_back(uint32_t(all.size())); }
  /// Adds a send to the last round.
  void push(const ExchangeSend &e) {
    assert(!empty() && "a round to add to");
    assert(all.size() < UINT32_MAX && "at most a send per cell");
    all.push_back(e);
    starts.back() = uint32_t(all.size());
  }
  /// Adds a round of `round`'s sends at the end.
  template <class Sends> void appendRound(const Sends &round) {
    addRound();
    for (const ExchangeSend &e : round)
      push(e);
  }
  /// Adds `count` rounds at the end, send i in round colour[i] (below
  /// count), the sends of a round in their order in `sends`.
  void appendByRound(const std::vector<ExchangeSend> &sends,
                     const std::vector<uint32_t> &colour, uint32_t count);
  /// Rounds of `sends` in order at the end, round r ending before
  /// ends[r] (ascending, the last sends.size()); the sends are moved in,
  /// not copied, when the list is empty.
  void appendRounds(std::vector<ExchangeSend> &&sends,
                    const std::vector<uint32_t> &ends);
  /// Every round of `other` after these.
  void append(const ExchangeRoundList &other);

  void clear() {
    all.clear();
    starts.assign(1, 0);
  }
  void swap(ExchangeRoundList &other) {
    all.swap(other.all);
    starts.swap(other.starts);
  }
  /// Frees the memory (clear keeps it).
  void release() { ExchangeRoundList().swap(*this); }

  bool operator==(const ExchangeRoundList &other) const;
  bool operator!=(const ExchangeRoundList &other) const {
    return !(*this == other);
  }

private:
  std::vector<ExchangeSend> all;
  /// starts[r]: round r's first send; one entry more than rounds. A step
  /// sends at most one element to each destination cell, and general plans
  /// span at most 2^28 cells (docs/language.md, "Known limitations").
  std::vector<uint32_t> starts{0};
};

} // namespace mapc::rt

#endif
