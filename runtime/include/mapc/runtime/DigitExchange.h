//===- DigitExchange.h - the P/M digit exchange (003 6.2.1, function 6.1) ===//
//
// A step that exchanges one PE digit with one memory digit of the same base
// b (or two compound digits of the same size), every other digit kept: the
// element at PE digit x and slot digit y goes to PE digit y and slot digit
// x. Function 6.1 (exchange_dig, fig. 6.3) does it in b - 1 rounds: in
// round k every PE sends to the PE whose digit is x + k (mod b) the element
// at its slot digit x + k, and stores what arrives from digit x - k at its
// slot digit x - k. Every PE computes its offsets from its own digit (no
// schedule table), and rounds k and b - k pair up so that the step runs in
// place. The identity memory digits below the exchanged one keep their
// order, so their elements travel together in router sends of up to 64
// bits (003 5.6.3), as the slotwise method's chunks do; a chunk need not be
// a power of two of elements (6 u8 go as one 64-bit send).
//
// Memory permutations folded in: every load and store already goes through
// a per-PE offset (function 6.1's `*(m+moff0)`), so the step may also move
// the other memory digits above the chunk (whole chunks change places) and
// put the exchanged digit at another place on arrival, at no extra cost per
// transfer. A plan local + exchange + local (003 6.2.2) then becomes one
// step where the chunk structure allows. In place it needs the exchanged
// digit at the same place on both sides: each round pair then reads and
// writes the same cells, walked along the cycles of the chunk permutation.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_DIGITEXCHANGE_H
#define MAPC_RUNTIME_DIGITEXCHANGE_H

#include "mapc/runtime/DigitCount.h"
#include "mapc/runtime/General.h"

#include <array>

namespace mapc::rt {

/// The exchanged digits: base, and their places in the PE number and the
/// slot number (the product of the digits below each), and the memory
/// permutation folded into the step.
struct DigitExchangeShape {
  int64_t base = 0, peWeight = 0, slotWeight = 0;
  int64_t pes = 0, slots = 0; ///< of both layouts
  /// The first PE that takes part: PEs firstPe .. firstPe + pes - 1 run the
  /// exchange, the others idle (constant digits on top of the PE number,
  /// 003 3.2.5, leave them empty). The PE side below (p, sendDigit,
  /// recvDigit, destPe) counts PEs from it: function 6.1's own side reads
  /// x = (p - firstPe) / peWeight % base, the subtraction register work
  /// that fig. 5.2 does not price, as it prices no address increment.
  int64_t firstPe = 0;
  /// The first slot: the exchange reads and writes slots firstSlot ..
  /// firstSlot + slots - 1 of each region (a constant memory digit of
  /// another value than 0 on top, 003 3.2.5), a base address offset.
  int64_t firstSlot = 0;
  /// The identity slot digits at the bottom of memory that travel together
  /// (their product; divides slotWeight and destSlotWeight).
  int64_t chunk = 0;
  /// The exchanged memory digit's weight on arrival (slotWeight if kept).
  int64_t destSlotWeight = 0;
  /// Per high part h (the slot digits other than the chunk and the
  /// exchanged digit, numbered in the source's order), its first slot in
  /// the destination, exchanged digit 0. Empty: the same as in the source.
  std::vector<int64_t> destHigh;
  /// The same read off digits (a planner pricing digit frames,
  /// FrameExchange.h), instead of destHigh: the slot digits above the chunk
  /// other than the exchanged one, in the source's order (high part h's
  /// digits, least significant first), each with its weights in the
  /// source's and the destination's slots. Set only when some of them
  /// move; a table of 10^6 high parts would cost more than their price.
  std::vector<DigitPlace> highDigits;
  /// A processor permutation folded in: the PE side when it is not
  /// function 6.1's own (digit x = p / peWeight % base, sending slot digit
  /// y to p + (y - x) peWeight; peWeight is then 0). Per PE p its digit x
  /// (sendDigit), the digit y of the elements it receives (recvDigit), and
  /// destPe[p * base + y], where it sends its slot digit y. The exchanged
  /// PE digits need not be neighbours nor keep their places. The digits
  /// come from a schedule-table load, and so does each round's destination,
  /// as the exchange step's rounds; the elements that keep their digit go
  /// in a round 0 of sends. Empty: function 6.1's.
  std::vector<int64_t> sendDigit, recvDigit, destPe;
  /// Whether every PE receives the digit it sends (a PE permutation that
  /// keeps each PE's exchanged digit): needed in place.
  bool keepsPeDigit = true;

  int64_t highs() const { return slots / (chunk * base); }
  /// High part h's first slot in the source, exchanged digit 0.
  int64_t srcHigh(int64_t h) const {
    const int64_t below = slotWeight / chunk;
    return h % below * chunk + h / below * slotWeight * base;
  }
  int64_t dstHigh(int64_t h) const;
  /// How many high parts keep their place (dstHigh(h) == srcHigh(h)),
  /// counted over highDigits when they are set (DigitCount.h).
  int64_t highsKept() const;
  /// Whether memory digits other than the two exchanged ones move.
  bool foldsPermutation() const {
    return destSlotWeight != slotWeight || !destHigh.empty() ||
           !highDigits.empty();
  }
  bool foldsPePermutation() const { return !destPe.empty(); }
  /// Whether the step can run in place (each round pair writes the cells it
  /// read).
  bool canRunInPlace() const {
    return destSlotWeight == slotWeight && keepsPeDigit;
  }
  /// PE p's exchanged digit x: the slot digit its values take on arrival.
  int64_t ownDigit(int64_t p) const {
    return foldsPePermutation() ? sendDigit[size_t(p)] : p / peWeight % base;
  }
  /// Where PE p sends its slot digit y.
  int64_t destOf(int64_t p, int64_t y) const {
    return foldsPePermutation() ? destPe[size_t(p * base + y)]
                                : p + (y - ownDigit(p)) * peWeight;
  }
};

/// A run of chunk elements sent as one router transfer: `elems` elements
/// from byte `first` of the chunk, `bytes` of data in one send of the next
/// power of two up to 8 bytes (wider elements go in 8-byte parts, one
/// element at a time).
struct DigitExchangeChunk {
  int64_t first = 0;
  unsigned elems = 0, bytes = 0;
};
/// The transfers of one chunk of `chunk` elements of `elemBytes` each:
/// as many elements per send as fit in 64 bits (003 5.6.3).
std::vector<DigitExchangeChunk> digitExchangeChunks(int64_t chunk,
                                                    unsigned elemBytes);

/// A run of one high part's chunk inside a router transfer: `bytes` from
/// byte `first` of the chunk, at byte `at` of the value sent.
struct DigitExchangePiece {
  int64_t high = 0;
  uint64_t first = 0;
  unsigned bytes = 0, at = 0;
};
/// One router send of the exchange: its pieces, `elems` elements, `bytes`
/// of data sent in the next power of two.
struct DigitExchangeTransfer {
  std::vector<DigitExchangePiece> pieces;
  unsigned elems = 0, bytes = 0;
};
/// What one round pair of `shape` sends, and the copies of the diagonal
/// (elements that stay on their PE): sequences of transfers, each stored
/// just after the next one of its sequence is loaded (in place along a
/// folded permutation's cycles, so that every store lands on cells already
/// read). The rounds pack the chunks of several high parts into one 64-bit
/// send (3 high parts of 3 u8 elements go as 8 + 1 elements, not 3 + 3 +
/// 3): every piece's loads and stores are paid, only sends are saved
/// (assembling a value from several loads is register work, which fig. 5.2
/// does not price, as it does not price address increments).
struct DigitExchangeSequences {
  std::vector<std::vector<DigitExchangeTransfer>> rounds, diagonal;
};
DigitExchangeSequences digitExchangeSequences(const DigitExchangeShape &shape,
                                              unsigned elemBytes, bool inPlace);

/// What the pricing of an exchange needs of its sequences: the rounds'
/// transfers (how many, the widest's bytes of data, how many of each send
/// width: 1, 2, 4, 8 bytes), and the loads, each with its store, of the
/// rounds' and the diagonal's pieces by width (forEachPart's powers of two).
struct DigitExchangeTally {
  int64_t transfers = 0;
  /// Transfers whose data fill their send (no spare byte in it).
  int64_t filledSends = 0;
  unsigned widest = 1;
  int64_t perSendWidth[4] = {0, 0, 0, 0};
  int64_t roundParts[4] = {0, 0, 0, 0}, diagonalParts[4] = {0, 0, 0, 0};
};
/// The tally of `seqs`.
DigitExchangeTally digitExchangeTally(const DigitExchangeSequences &seqs);
/// The tally of digitExchangeSequences(shape, elemBytes, inPlace), counted
/// without making them: the rounds' stream of chunks is cut alike every
/// lcm(chunk, elements per send) elements, so one such period is cut and
/// counted as often as it comes (a planner prices exchanges of 10^5 high
/// parts a dozen times).
DigitExchangeTally digitExchangeTally(const DigitExchangeShape &shape,
                                      unsigned elemBytes, bool inPlace);

/// How the exchange loads and stores. Direct (003 function 6.1 with every
/// address the same in all PEs): each transfer's pieces are loaded at every
/// slot digit y, one direct load per digit serving every PE, kept in
/// registers while the rounds send them and receive into them, and stored
/// back per digit: b direct loads and stores per transfer against b - 1
/// indirect ones (b with a processor permutation's round 0, plus the
/// diagonal's copies otherwise). Chosen when cheaper under `cost` and the
/// values fit the PE's registers (003 5.6.2), packed byte after byte when
/// that takes fewer registers than one or two whole registers per value.
/// A permuted exchange keeps its round pairs' schedule entries in registers
/// when they fit beside the values, and otherwise loads each pair's entry
/// when the pair runs, for every transfer (`reloadsEntries`), paying a
/// table load each time.
struct DigitExchangeLoads {
  bool direct = false, reloadsEntries = false;
};
DigitExchangeLoads digitExchangeLoads(const DigitExchangeShape &shape,
                                      const DigitExchangeSequences &seqs,
                                      unsigned elemBytes, bool inPlace,
                                      const CostModel &cost);
/// The same from the sequences' tally.
DigitExchangeLoads digitExchangeLoads(const DigitExchangeShape &shape,
                                      const DigitExchangeTally &tally,
                                      unsigned elemBytes, bool inPlace,
                                      const CostModel &cost);
/// Whether digitExchangeLoads loads directly.
bool digitExchangeLoadsDirect(const DigitExchangeShape &shape,
                              const DigitExchangeSequences &seqs,
                              unsigned elemBytes, bool inPlace,
                              const CostModel &cost);
/// The registers of 32 bits the direct form needs for one transfer's values
/// of `bytes` bytes at each of `base` slot digits (`inHand` transfers at a
/// time): one or two whole registers per value, or the values packed byte
/// after byte plus a register pair to assemble the one sent or received,
/// whichever is fewer.
int64_t digitExchangeValueRegisters(int64_t base, unsigned bytes,
                                    int64_t inHand);

/// Whether the step can run in place: shape.canRunInPlace(), or, when the
/// exchanged digit moves or a PE receives a digit other than the one it
/// sends, loaded directly with every transfer writing exactly the cells it
/// reads (all of a transfer's values are in registers before any of them is
/// stored, so no store lands on a cell a later transfer reads: random #5 of
/// the benchmark, whose 90 u8 a PE are one 5-byte transfer per slot digit).
bool digitExchangeRunsInPlace(const DigitExchangeShape &shape,
                              unsigned elemBytes, const CostModel &cost);

/// Sets the PE side of `shape` (base and pes set) from every PE's digit x
/// (sendDigit[p]), the digit y it receives (recvDigit[p]) and where it
/// sends its slot digit y (destPe[p * base + y]): function 6.1's own
/// (peWeight, the lists left empty) when they are that, else the lists;
/// and keepsPeDigit. findDigitExchange reads the lists off a table of
/// sources, a planner pricing digit frames off their digits.
void setDigitExchangePeSide(DigitExchangeShape &shape,
                            std::vector<int64_t> sendDigit,
                            std::vector<int64_t> recvDigit,
                            std::vector<int64_t> destPe);

/// Whether the move `sources` (sourcesOf(from, to)) is one P/M digit
/// exchange; fills `shape` if so. Reads the digits off the elements of PE 0
/// and then checks every held cell of `to`, so a yes is exact. When no
/// element sits above or below some slot or PE in either layout (constant
/// digits on top, 003 3.2.5), the exchange is read over the held cells'
/// extent: its shape's slots and PEs are those (from firstSlot and
/// firstPe), and it moves nothing outside.
bool findDigitExchange(const TileMap &from, const TileMap &to,
                       const std::vector<uint32_t> &sources,
                       DigitExchangeShape &shape, std::string *why);

/// Where a digit exchange step reads and writes, and in what widths.
struct DigitExchangeRegions {
  uint64_t readBase = 0, writeBase = 0;
  unsigned elemBytes = 1;
  bool inPlace = false;
};

/// Runs the exchange on `m` (function 6.1, chunked), in partial rounds
/// when digitExchangeRoundsChoice picks them.
void runDigitExchange(MasPar &m, const DigitExchangeShape &shape,
                      const DigitExchangeRegions &where);

/// One send of a partial round: PE `pe` sends its slot digit `slot` to
/// shape.destOf(pe, slot).
struct DigitExchangePartialSend {
  uint32_t pe = 0, slot = 0;
};
/// Rounds in which only some PEs send (docs/cost-model.md, "Random #5 in
/// partial rounds"): every value that leaves its PE once, a PE sending and
/// receiving at most once a round. Run loaded directly (every slot digit in
/// registers), each round's entries (an active bit, the slot sent, the
/// destination) loaded from a schedule table as the rounds come, several
/// rounds an 8-byte entry, for every transfer. The receiver keeps a value
/// at the sender's own digit, which the sender puts in its send's spare
/// bytes, or, when some transfer fills its send, the receiver's entry holds
/// too. A PE receives into registers freed by its sends or spare ones: its
/// values in hand (unsent and received) never exceed `live`.
struct DigitExchangePartialRounds {
  std::vector<std::vector<DigitExchangePartialSend>> rounds;
};
/// How an exchange runs partial rounds, when it can (`usable`): loaded
/// directly, not walking a folded permutation's cycles.
struct DigitExchangePartialForm {
  bool usable = false, slotInSpare = false;
  int64_t roundsPerEntry = 0, live = 0;
};
DigitExchangePartialForm digitExchangePartialForm(const DigitExchangeShape &s,
                                                  const DigitExchangeTally &t,
                                                  const DigitExchangeLoads &l,
                                                  bool inPlace);
/// Empty when `rounds` sends every value of `s` that leaves its PE exactly
/// once, each PE at most once a round each way, within `live` values in
/// hand; else what is wrong.
std::string
checkDigitExchangePartialRounds(const DigitExchangeShape &s,
                                const DigitExchangePartialRounds &rounds,
                                int64_t live);
/// A greedy search for cheap partial rounds (docs/cost-model.md, "Partial
/// rounds for random #5"): each round tries cluster-pair shapes (P partner
/// clusters of groups of G), opening the pairs of the busiest clusters
/// first, and keeps the candidate of fewest ticks (MasPar's router price of
/// `bytes`-wide sends) per weighted value. Empty when it finds none.
/// `ticks`, when given, gets each round's MasPar::cheaperRouterCost at
/// `bytes` (the search prices its candidates), so callers price no round
/// again. It searches each PE's slots in digitExchangeSendOrder's ranks,
/// so a shape with the same destinations in other slots finds the same
/// rounds, slots renamed (the planner, the runtime and the emitted C++
/// all find the rounds the plan priced, however a search was shared).
DigitExchangePartialRounds
searchDigitExchangePartialRounds(const MasPar &m, const DigitExchangeShape &s,
                                 unsigned bytes, int64_t live,
                                 std::vector<int64_t> *ticks = nullptr);

/// Each PE's slots of `s` ranked by destination PE, then by slot: two
/// shapes whose PEs send to the same PEs, in any order of slots, have the
/// same `shape`, and partial rounds of one run on the other with their
/// slots renamed through the ranks (a value's sender and receiver are all
/// the rounds' check and price read). `shape` has the exchange's PEs and
/// base, PE p's rank-th slot sending to `shape.destOf(p, rank)`.
struct DigitExchangeSendOrder {
  DigitExchangeShape shape;
  std::vector<uint32_t> slotOfRank; ///< p * base + rank: the slot of s
  /// Rounds of `shape` (slots are ranks) to rounds of `s`.
  void toSlots(DigitExchangePartialRounds &rounds) const;
};
DigitExchangeSendOrder digitExchangeSendOrder(const DigitExchangeShape &s);
/// searchDigitExchangePartialRounds of any shape of `order`, its slots
/// left as ranks.
DigitExchangePartialRounds searchDigitExchangePartialRoundsInRanks(
    const MasPar &m, const DigitExchangeSendOrder &order, unsigned bytes,
    int64_t live, std::vector<int64_t> *ticks = nullptr);

/// A floor under any partial rounds of `s`, whatever a search finds: its
/// rounds (a PE sends and receives at most one value a round) and their
/// router ticks at `bytes` (MasPar::cheaperRouterCost). A round's price,
/// min(partners x (ropen + group x rsend), busiest x (ropen + rsend)), is
/// at least ropen x partners + rsend x senders of any one cluster (each
/// partner carries at most a group; each sender opens at most one
/// partner), and at least ropen + rsend; over the rounds a cluster sends
/// each of its values once and opens each partner cluster at least as
/// often as one PE at either end has values between the two (a PE sends
/// and receives one a round), and the same for receiving.
struct DigitExchangePartialFloor {
  int64_t rounds = 0, ticks = 0;
};
DigitExchangePartialFloor
digitExchangePartialRoundsFloor(const MasPar &m, const DigitExchangeShape &s,
                                unsigned bytes);
/// digitExchangePartialRoundsFloor at every send width (1, 2, 4 and 8
/// bytes), counted once.
std::array<DigitExchangePartialFloor, 4>
digitExchangePartialRoundsFloors(const MasPar &m, const DigitExchangeShape &s);

/// While one is alive on a thread, a pricing machine prices an exchange
/// whose partial rounds are not searched yet, and whose floor
/// (digitExchangePartialRoundsFloor) beats function 6.1's rounds, at that
/// floor instead of searching; `floored` then says that some step's price
/// is only a floor of it. A planner prices a candidate so first and
/// searches only where the floor does not already lose (DigitPlanner.cpp).
class DigitExchangeFloorPricing {
public:
  DigitExchangeFloorPricing();
  ~DigitExchangeFloorPricing();
  DigitExchangeFloorPricing(const DigitExchangeFloorPricing &) = delete;
  DigitExchangeFloorPricing &
  operator=(const DigitExchangeFloorPricing &) = delete;
  bool floored() const { return floored_; }
  /// The innermost one alive on this thread, if any.
  static DigitExchangeFloorPricing *active();
  void markFloored() { floored_ = true; }

private:
  DigitExchangeFloorPricing *outer_;
  bool floored_ = false;
};

/// Which rounds an exchange runs: function 6.1's full ones or partial ones,
/// the cheaper in sends and schedule entries (the loads and stores are the
/// same). `partialTicks` is 0 when none were searched (`whyNot`).
struct DigitExchangeRoundsChoice {
  bool partial = false;
  int64_t fullTicks = 0, partialTicks = 0;
  size_t partialRounds = 0;
  std::string whyNot;
};
DigitExchangeRoundsChoice digitExchangeRoundsChoice(const MasPar &m,
                                                    const DigitExchangeShape &s,
                                                    unsigned elemBytes,
                                                    bool inPlace);
/// Runs the exchange in the given partial rounds (which must be usable and
/// pass checkDigitExchangePartialRounds), priced as the machine charges
/// them on a pricing machine.
void runDigitExchangePartial(MasPar &m, const DigitExchangeShape &shape,
                             const DigitExchangeRegions &where,
                             const DigitExchangePartialRounds &rounds);

} // namespace mapc::rt

#endif
