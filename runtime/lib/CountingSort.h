//===- CountingSort.h - internal: a stable counting sort by a small key ---===//
//
// The planners order items by a small integer key (a shift, a node, a cell,
// a path length) keeping their order within a key: a stable counting sort.
// The caller drives its passes, so that the counting can ride on a loop that
// does other work and the placing can write what the caller needs (the item,
// its index, a part of it):
//
//   std::vector<uint32_t> start;
//   CountingSort<uint32_t> sort(start, nodes);
//   for (const RouteMove &m : moves)
//     sort.count(m.from);
//   sort.sum();
//   for (const RouteMove &m : moves)
//     to[sort.place(m.from)] = m.to;
//   // bucket n is [start[n], start[n + 1]), n < nodes
//
// Each key's count is kept one place ahead of its start (the radix sort
// trick): placing moves start[k + 1] from bucket k's start to its end, which
// is bucket k + 1's start, so the buckets' starts are left in `start` after
// placing without a copy of them to place by.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_LIB_COUNTINGSORT_H
#define MAPC_RUNTIME_LIB_COUNTINGSORT_H

#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace mapc::rt {

/// A stable counting sort by keys below `buckets`, over the caller's
/// `start` (scratch that keeps its memory from call to call). Count every
/// item's key, sum(), then place() the same items in the same order; after
/// that start[k] is the first position of key k for k <= buckets
/// (start[buckets] the total; `start` holds buckets + 2 entries).
template <class Index> class CountingSort {
public:
  CountingSort(std::vector<Index> &start, size_t buckets) : at(start) {
    at.assign(buckets + 2, 0);
  }

  /// Counts `n` more items of key `key`.
  void count(size_t key, Index n = 1) {
    assert(key + 2 < at.size() && "a key past the buckets");
    at[key + 2] += n;
  }

  /// Ends the counting: the total is known, the items may be placed.
  void sum() {
    for (size_t k = 2; k < at.size(); ++k)
      at[k] += at[k - 1];
  }

  /// How many items were counted (after sum()).
  Index total() const { return at.back(); }

  /// The position in the sorted order of the next item of key `key`: the
  /// items of a key take their positions in the order they are placed.
  Index place(size_t key) { return at[key + 1]++; }

private:
  std::vector<Index> &at;
};

/// Stably sorts `items` by `key(item)`, below `buckets`, into `out`
/// (resized), with `start` as CountingSort's scratch.
template <class T, class Index, class Key>
void countingSort(const std::vector<T> &items, size_t buckets, Key key,
                  std::vector<Index> &start, std::vector<T> &out) {
  CountingSort<Index> sort(start, buckets);
  for (const T &x : items)
    sort.count(key(x));
  sort.sum();
  out.resize(items.size());
  for (const T &x : items)
    out[sort.place(key(x))] = x;
}

/// Moves item i of `items` to position to[i], in place, following the
/// permutation's cycles (a copy of the items would be 20 bytes an element
/// more for an exchange's sends). `to` must be a permutation of 0 .. n-1;
/// it is left as the identity.
template <class T, class Index>
void permuteInPlace(std::vector<T> &items, std::vector<Index> &to) {
  assert(items.size() == to.size() && "a position per item");
  for (size_t i = 0; i < items.size(); ++i)
    while (size_t(to[i]) != i) {
      const size_t j = size_t(to[i]);
      std::swap(items[i], items[j]);
      std::swap(to[i], to[j]); // item j's target comes to i; j is placed
    }
}

/// countingSort of `items` in place: a position an item (4 bytes) instead
/// of a second list of them.
template <class T, class Index, class Key>
void countingSortInPlace(std::vector<T> &items, size_t buckets, Key key,
                         std::vector<Index> &start) {
  std::vector<Index> to(items.size());
  {
    CountingSort<Index> sort(start, buckets);
    for (const T &x : items)
      sort.count(key(x));
    sort.sum();
    for (size_t i = 0; i < items.size(); ++i)
      to[i] = sort.place(key(items[i]));
  }
  permuteInPlace(items, to);
}

} // namespace mapc::rt

#endif // MAPC_RUNTIME_LIB_COUNTINGSORT_H
