//===- TransferRounds.h - brute-force transfers in rounds -----------------===//
//
// The engine under 003 6.3.3's brute force and 6.3.4's resig_mp: every PE
// holds a list of transfers (an element, or a chunk of neighbouring
// elements, bound for a cell of some PE) and sends one per round, with its
// destination address; senders that collide on a PE go in successive sends.
//
// Out of place the rounds simply walk the lists. In place (003 6.3.9) a
// received item can only be written once the cell it is bound for has sent
// its own element, so each PE keeps a tag per slot (sent or free) and a
// stack of items waiting for their cell. A PE with a waiting item sends the
// element of the cell that item needs first, so that its stack shrinks as
// it sends. Stacks are bounded: a PE accepts an item only while its stack
// holds fewer than limit - 2, fuller senders first (6.3.9's precedence);
// when no PE can send or write, the PE with the fullest stack sends the
// element its oldest waiting item needs whatever its receiver holds. Only
// that one stack can pass limit - 2 (the next forced sender is the PE it
// filled), and one more entry covers a PE sending to itself, so no stack
// ever holds more than `limit` items and the step cannot deadlock.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_TRANSFERROUNDS_H
#define MAPC_RUNTIME_TRANSFERROUNDS_H

#include "mapc/runtime/MasPar.h"

#include <vector>

namespace mapc::rt {

/// One item a PE sends: `elems` elements from `srcSlot` on to the PE
/// `dstPe`'s `dstSlot` on. `divmods` is the address arithmetic computing it
/// costs (brute force: two mixed-radix divisions; resig_mp: one for the
/// first chunk of a memory digit value, none for the increments after).
struct SendItem {
  uint32_t srcSlot = 0, dstSlot = 0, dstPe = 0;
  uint32_t elems = 1;
  uint32_t divmods = 0;
};

struct TransferOptions {
  uint64_t readBase = 0, writeBase = 0;
  unsigned elemBytes = 1;
  bool inPlace = false;
  /// In place: the most items a PE's stack may hold (at least 3, 6.3.9).
  unsigned stackLimit = 50;
  /// In place: slots per PE of the region (the tags cover them).
  int64_t slots = 0;
};

struct TransferStats {
  int64_t rounds = 0;    ///< send rounds
  int64_t stackHigh = 0; ///< the fullest any stack got (in place)
  int64_t forced = 0;    ///< rounds of one forced send (in place)
};

/// Runs the transfers: `lists[p]` is PE p's, in its sending order (a skewed
/// start already applied). Out of place every PE sends its item r in round
/// r; in place the order is a preference, the stacks as above.
void runTransfers(MasPar &m, const std::vector<std::vector<SendItem>> &lists,
                  const TransferOptions &opt, TransferStats *stats = nullptr);

/// A floor on the ticks runTransfers charges in place (003 6.3.9) for
/// `lists` on `m` (its shape and prices; nothing is run): every item sent
/// pays, in the round its PE sends it, two tag accesses, its loads and the
/// stack's charges, and its divisions, then one write from its receiver's
/// stack; each round sends at most one item a PE, each write pass writes at
/// most one, and a plain send costs a round per PE of the busiest cluster.
/// So the busiest sender's items, the busiest receiver's and the busiest
/// cluster's items that leave their PE bound the step from below, whatever
/// order the stacks impose.
int64_t inPlaceTransfersFloor(const MasPar &m,
                              const std::vector<std::vector<SendItem>> &lists,
                              unsigned elemBytes);

} // namespace mapc::rt

#endif
