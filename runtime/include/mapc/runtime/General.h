//===- General.h - remaps between any two layouts (003 ch. 6) -------------===//
//
// A general plan takes an array between two layouts of any shape: HPF
// distributions on any number of PEs, index digit maps of mixed radix, k-Tile
// formats with templates, offsets and replication (rt::TileMap). Device dim 0
// of a layout is PE memory (its slots); its PE dims flatten, first fastest,
// to the PE number iproc, as in the radix-2 plans.
//
// Each step moves the array from the layout before it to the layout it names
// (`to`), by one of these methods, cheapest first:
//
//   Local       no element changes PE: direct loads and stores when every PE
//               moves the same slots (003 6.2.1's memory permutation, one
//               read and one write per slot), indirect ones otherwise.
//   Slotwise    every element of one source slot lands in one destination
//               slot, whatever its PE: a processor permutation per slot
//               (003 6.2.1, permute_p) with direct addressing and no address
//               sent; a PE that feeds several PEs (a replicated destination)
//               sends once per copy.
//   Exchange    a P/M digit exchange (003 6.2.1, function 6.1) and every step
//               whose transfers can be put in rounds in which each PE sends
//               and receives at most one element, with receivers knowing
//               their slots: König's edge colouring of the send graph gives
//               the fewest rounds (max degree); indirect addressing.
//   DigitExchange  one P/M digit exchange (003 6.2.1, function 6.1): the
//               b - 1 rounds of exchange_dig with offsets each PE computes
//               from its own digit, the identity memory digits below the
//               exchanged one sent together in chunks of up to 64 bits,
//               in place by pairing rounds k and b - k; loads and stores
//               direct, every slot digit once into registers, where they
//               fit (DigitExchange.h).
//   BruteForce  003 6.3.3's brute_copy: each PE sends its elements one per
//               round with their destination slot, starting at a skewed
//               element (6.3.8); senders that collide on a PE go in
//               successive sends; every round computes destinations with
//               mixed-radix division (CostModel::divmod). In place, 6.3.9's
//               tags and bounded stacks (TransferRounds.h).
//   Resignify   003 6.3.4's resig_mp: two data-adjacent digits, one in the
//               PE number and one in the slot number, exchange their
//               significance (Resignify.h), brute force with one division
//               per slot digit value and chunks; in place as brute force.
//   Route       on a hypercube or mesh (runtime/NetworkExecute.h), not the
//               MasPar: every element to its destination node by
//               dimension-order routing, store and forward.
//
// A step reads one region and writes another, or the same one when it runs
// in place (a local step whose slot map is one-to-one and the same in every
// PE walks its cycles as permute_m does; a slotwise step that keeps every
// slot). The first step reads the source (a copy) or the destination (in
// place); every step that is not in place writes the region the data is not
// in (the scratch or the destination), and the last step must write the
// destination. A copy's steps out of place take turns from the source so
// that the last writes the destination: with an even number, the first
// writes the scratch (ping-pong). An in-place plan that would end in the
// scratch region ends with an identity local step copying it back, as 003
// 6.3.3 says of in-place brute force.
//
// Prediction and simulation are one computation: a step is predicted by
// running it on a pricing-only MasPar (MasPar::pricing).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_GENERAL_H
#define MAPC_RUNTIME_GENERAL_H

#include "mapc/runtime/ExchangeRoundList.h"
#include "mapc/runtime/Execute.h"
#include "mapc/runtime/MoveCounts.h"
#include "mapc/runtime/TileMap.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mapc::rt {

/// Memory slots per PE of a layout: device dim 0's template length.
inline int64_t slotsOf(const TileMap &l) {
  return l.device.empty() ? 1 : l.device[0].tlen;
}
/// PEs a layout spans: the product of its PE dims' template lengths.
inline int64_t pesOf(const TileMap &l) { return l.deviceSize() / slotsOf(l); }

/// Route is the one method of a hypercube or mesh machine
/// (NetworkExecute.h): every element goes to its cell by dimension-order
/// routing; the MasPar refuses it.
enum class GeneralStepKind {
  Local,
  Slotwise,
  Exchange,
  BruteForce,
  Route,
  DigitExchange,
  Resignify
};
/// The most items a PE's stack holds in an in-place brute-force or
/// resig_mp step (003 6.3.9 runs with 50).
constexpr unsigned kInPlaceStackLimit = 50;
constexpr unsigned kRouteDimsDown = 1, kRouteFarthestFirst = 2,
                   kRouteRotated = 4;
/// A Route step that fills a replicated destination by recursive doubling
/// (NetworkReplication.h), its rounds routed dims up.
constexpr unsigned kRouteDoubling = 8;
const char *generalStepKindName(GeneralStepKind k);

struct GeneralStep {
  GeneralStepKind kind = GeneralStepKind::BruteForce;
  TileMap to;           ///< the layout after this step
  bool inPlace = false; ///< reads and writes the same region
  /// A Route step's order (NetworkExecute.h): kRouteDimsDown routes the
  /// dims from the last down, kRouteRotated starts each element's route in
  /// dim (source node mod dims) and wraps around, kRouteFarthestFirst lets
  /// the elements with the longest paths win contended links;
  /// kRouteDoubling replicates by recursive doubling.
  unsigned routeOrder = 0;
  int64_t predictedTicks = 0;
  std::string why; ///< the planner's reason, shown by --emit=plan
};

struct GeneralPlan {
  TileMap source, dest;
  unsigned elemBytes = 1;
  bool copy = false;   ///< source and destination are different arrays
  std::string planner; ///< "general"
  std::vector<GeneralStep> steps;
  int64_t predictedTicks = 0;
  int64_t lowerBound = 0;

  /// The layout after step i (i = -1: the source).
  const TileMap &layoutAfter(int i) const {
    return i < 0 ? source : steps[size_t(i)].to;
  }
};

/// Where every element of `to` comes from in `from`: for each cell of `to`'s
/// device (memory fastest), the cell of `from`'s device whose element it
/// takes, or kNoSource where `to` holds nothing. A replicated source is read
/// where it is cheapest: the same PE (the same slot first), else the copy
/// whose PE shares the most coordinates with the cell's along `to`'s PE
/// dims (so copies along a PE dim both layouts replicate feed their own
/// lines of PEs), then the same slot, else its first copy (003 6.2.1,
/// "Data replication").
constexpr uint32_t kNoSource = ~uint32_t(0);
std::vector<uint32_t> sourcesOf(const TileMap &from, const TileMap &to);

/// What a step from `from` to `to` allows (the planner's choice of method).
struct MoveShape {
  bool identity = true;        ///< every element keeps its cell
  bool local = true;           ///< no element changes PE
  bool slotUniformTo = true;   ///< each destination slot reads one slot
  bool slotUniformFrom = true; ///< each source slot feeds one slot
  bool keepsSlots = true;      ///< every element keeps its slot
  int64_t moved = 0; ///< held cells whose element comes from elsewhere
  int64_t held = 0;  ///< cells of the destination holding data
  /// Held destination cells fed by the busiest source PE: brute force's
  /// rounds.
  int64_t busiestSource = 0;
  /// Per source PE, the held destination cells it feeds on other PEs.
  std::vector<int64_t> leaving;
};
MoveShape analyseMove(const TileMap &from, const TileMap &to,
                      const std::vector<uint32_t> &sources);
/// The same from a move's counts (MoveCounts.h), `fromPes` the source's
/// PEs: without a table of sources.
MoveShape analyseMove(const MoveCounts &counts, int64_t fromPes);
/// analyseMove's moved and held cells of a move from `t` to itself when `t`
/// replicates nothing (an in-place plan's copy back): none moved, one cell
/// per element, with no table of sources. Nullopt for other moves.
std::optional<std::pair<int64_t, int64_t>>
identityMoveFigures(const TileMap &from, const TileMap &to);

/// A proper edge colouring of a bipartite multigraph (edge = {left vertex,
/// right vertex}, both below `vertices`) with as many colours as its largest
/// degree, by Kempe chains (König's theorem). For sends between PEs it gives
/// an exchange step's rounds; for a processor permutation's sends between
/// clusters it gives 003 6.4's contention-free transmission order (Hall's
/// theorem, fig. 6.15). False if the chains grow past `budget` steps.
bool colourBipartite(const std::vector<std::pair<uint32_t, uint32_t>> &edges,
                     unsigned vertices, std::vector<uint32_t> &colour,
                     uint32_t &colours, uint64_t budget);

/// The rounds of an exchange step from `from` to `to` (`sources` from
/// sourcesOf) on a machine of `pes` PEs: in each, every PE sends at most one
/// element and receives at most one, in as few rounds as the busiest PE
/// needs. An element bound for several cells of one PE is sent once;
/// `fanOut` lists the copies the receiver then makes (srcSlot: the cell it
/// arrived in). An element bound for several PEs may go by recursive
/// doubling (003 6.2.1), receivers forwarding their copies in later rounds,
/// or with the copies of all such elements scheduled together, when that
/// takes fewer rounds; not when `forward` is false (an in-place step, which
/// cannot read its written region). False if the search for rounds runs
/// past its budget.
bool exchangeSchedule(const TileMap &from, const TileMap &to,
                      const std::vector<uint32_t> &sources, unsigned pes,
                      ExchangeRoundList &rounds,
                      std::vector<ExchangeSend> &fanOut, bool forward = true);

/// Which region step i of `plan` reads and which it writes.
void stepRegions(const GeneralPlan &plan, size_t i, const Regions &regions,
                 uint64_t &readBase, uint64_t &writeBase);

/// Whether `plan` can run on `regions` as a whole: its last step writes the
/// destination region and a copy does not start in place. Says why not.
bool checkPlanRegions(const GeneralPlan &plan, const Regions &regions,
                      std::string *why);

/// Runs step i of `plan` on `machine` (a pricing-only machine prices it).
/// Returns false with a reason if the step cannot be done by its method.
/// `sources`, when given, is sourcesOf(the layout before step i, its `to`),
/// so that a caller pricing several methods walks the elements once.
/// `counts`, when given, are the counts of the same move (MoveCounts.h):
/// a pricing machine then prices an exchange step from them, building the
/// table of sources only for what they cannot price.
bool runGeneralStep(MasPar &machine, const GeneralPlan &plan, size_t i,
                    const Regions &regions, std::string *why = nullptr,
                    const std::vector<uint32_t> *sources = nullptr,
                    const MoveCounts *counts = nullptr);

/// The ticks step i costs: runGeneralStep on a pricing-only machine.
int64_t predictGeneralStep(const GeneralPlan &plan, size_t i,
                           const MachineShape &shape, const CostModel &cost,
                           const std::vector<uint32_t> *sources = nullptr,
                           const MoveCounts *counts = nullptr);

/// Carries out every step, calling `observer` after each (step number from
/// 1, the layout now held). Checks that both layouts fit the machine.
bool executeGeneralPlan(
    MasPar &machine, const GeneralPlan &plan, const Regions &regions,
    const std::function<void(unsigned, const TileMap &)> &observer = {},
    std::string *why = nullptr);

/// The least ticks any plan of element transfers can take under the cost
/// model (docs/cost-model.md, "General remaps"): the busiest PE reads and
/// writes every element it must move, at direct prices, and every address
/// read (written) in n of P PEs costs at least min(direct, indirect n / P)
/// a byte; the busiest cluster sends and receives every element that
/// leaves or enters it, one per send, and every send opens a connection,
/// at least one per 64 bits the busiest PE sends or receives.
int64_t generalLowerBound(const TileMap &src, const TileMap &dst,
                          unsigned elemBytes, bool copy,
                          const MachineShape &shape, const CostModel &cost,
                          const std::vector<uint32_t> *sources = nullptr);
/// The same bound from the counts of a move between layouts that replicate
/// nothing (MoveCounts.h), without the per-address terms (the counts have
/// no slots): never above the bound from the table.
int64_t generalLowerBound(const MoveCounts &counts, unsigned elemBytes,
                          bool copy, const MachineShape &shape,
                          const CostModel &cost);

/// A lower bound of an exchange step's ticks (General.h's Exchange, in
/// place or not) whose destination does not replicate, from `leaving[p]`,
/// the elements PE p sends to other PEs (MoveShape::leaving): a round per
/// element of the busiest sender, each a schedule-table load and per
/// transfer an indirect load and store and a router send that opens at
/// least one connection, and every element leaving a cluster one rsend of
/// its connection (MasPar.h's router model, either mode). Planners skip
/// the exchange unpriced when this cannot beat a plan they have.
int64_t exchangeStepBound(const std::vector<int64_t> &leaving,
                          unsigned elemBytes, const MachineShape &shape,
                          const CostModel &cost);

} // namespace mapc::rt

#endif
