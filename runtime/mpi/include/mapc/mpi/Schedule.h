//===- Schedule.h - 004's all-to-all algorithms and their cost model ------===//
//
// A remap over R ranks is an all-to-all personalised exchange: rank o owes
// rank d a block of counts[o][d] elements (the traffic matrix). 004 gives
// several ways to deliver the blocks; each is written here as a schedule of
// steps, and a step as the messages one rank sends and receives in it (all
// of a step's messages are in flight together):
//
//   * pairwise (004 3.3, fig. 4, "transpose"): R - 1 steps; in step k rank i
//     sends its block to i xor k (R a power of two, Scott's contention-free
//     order) or to i + k mod R, and receives from i xor k or i - k.
//   * mpich (004 3.1, fig. 2, MPICH-1.2.4): one step, every block posted at
//     once.
//   * bruck with radix r (004 3.2 and 5, Bruck's index algorithm): block
//     (o, d) travels j = d - o mod R ranks to the right, one radix-r digit
//     of j at a time; sub-phase x, step z sends every held block whose
//     digit x is z to rank i + z r^x. ceil(log_r R) sub-phases of at most
//     r - 1 steps; blocks are forwarded, so bytes travel more than once.
//   * butterfly (004 4.1, Johnsson-Ho): R a power of two; phase k swaps with
//     i xor 2^k every held block whose destination differs from i in bit k.
//   * gbutterfly (004 4.2, the generalized butterfly): Bruck with radix 2,
//     ceil(log2 R) steps for any R.
//   * alltoallv: MPI_Alltoallv, the library's own, as the baseline.
//   * cma: no messages for the data at all. Ranks on one node read their
//     elements straight out of each other's source buffers with
//     process_vm_readv(2) (Linux's cross-memory attach, the single copy
//     MPI itself uses for large contiguous messages), one iovec per run of
//     cells that is consecutive on both sides (Cma.h).
//   * shm: the same reads as cma, done with memcpy from the peers' source
//     buffers when they lie in MPI-3 shared-memory windows (Shm.h): no
//     system call and no page pinning.
//
// 004 prices a step as Ts + Tw * bytes (eqs. 1-18, blocks of one size).
// predict() applies the same price to the real traffic matrix: a step costs
// the most any rank spends in it (Ts for its first message, To for every
// further message posted with it, Tw per byte), and a rank's pack and
// unpack cost Tc per byte copied (004 6 names the copies it left out as the
// reason its measurements differ from the model). With To = Ts this is
// 004's model; measured here, messages posted together overlap (To < Ts).
// Empty blocks are never sent, so ranks that keep their data send nothing
// and a remap that only pairs ranks takes one step under pairwise.
//
// Nothing here calls MPI: the driver prices plans for any R without it.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MPI_SCHEDULE_H
#define MAPC_MPI_SCHEDULE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mapc::mpi {

enum class Algorithm {
  Auto,
  Alltoallv,
  Mpich,
  Pairwise,
  Bruck,
  Butterfly,
  GeneralizedButterfly,
  /// The single-copy transport (Cma.h): not one of 004's algorithms and not
  /// a value of --mpi-algorithm; --mpi-transport=cma selects it.
  Cma,
  /// The shared-memory transport (Shm.h): the same reads as Cma, copied
  /// with plain loads and stores from the peers' MPI-3 shared windows;
  /// --mpi-transport=shm selects it.
  Shm
};

/// How a remap's elements travel between ranks: MPI messages under one of
/// 004's algorithms, single-copy reads (Cma.h), copies out of shared
/// windows (Shm.h), or whichever the model prices cheapest among those
/// possible (auto).
enum class Transport { Auto, Messages, Cma, Shm };

/// "auto", "messages", "cma", "shm".
const char *transportName(Transport t);
std::optional<Transport> parseTransport(const std::string &name);

/// "auto", "alltoallv", "mpich", "pairwise", "bruck", "butterfly",
/// "gbutterfly".
const char *algorithmName(Algorithm a);
std::optional<Algorithm> parseAlgorithm(const std::string &name);

/// Elements every rank sends every rank: counts[o * ranks + d].
struct TrafficMatrix {
  int ranks = 1;
  unsigned elementBytes = 1;
  std::vector<int64_t> counts;
  /// The single-copy transport reads block (o, d) in the receiver's order
  /// (by source address): sourceRuns counts its stretches of consecutive
  /// source cells (an iovec each in the sender's memory), destRuns those of
  /// consecutive destination cells (an iovec each in the receiver's).
  /// Empty when unknown (then every element counts as a run).
  std::vector<int64_t> sourceRuns, destRuns;

  int64_t at(int o, int d) const { return counts[size_t(o) * ranks + d]; }
  int64_t sourceRunsAt(int o, int d) const {
    return sourceRuns.empty() ? at(o, d) : sourceRuns[size_t(o) * ranks + d];
  }
  int64_t destRunsAt(int o, int d) const {
    return destRuns.empty() ? at(o, d) : destRuns[size_t(o) * ranks + d];
  }
  uint64_t bytes(int o, int d) const {
    return uint64_t(at(o, d)) * elementBytes;
  }
  /// Bytes that change rank, summed over all ranks.
  uint64_t crossBytes() const;
  /// The most bytes one rank sends to other ranks.
  uint64_t maxSendBytes() const;
  /// Ranks that send or receive anything.
  int activeRanks() const;
};

/// 004's two machine parameters, the start-up of messages in flight
/// together, and the copy cost 004 leaves out.
struct LinkCosts {
  double ts = 2e-6;  ///< start-up time of a message, seconds
  double tw = 1e-10; ///< seconds per byte sent (004's Tw is per 8 bytes)
  double tc = 1e-10; ///< seconds per byte packed or unpacked
  /// What each further message posted in the same step adds (004 prices
  /// every message at Ts; posted together they overlap).
  double to = 2e-6;
  /// The single-copy transport: seconds per byte read from another rank
  /// (process_vm_readv of one long run), per further run of the sender's
  /// cells (the kernel pins each run's pages apart), per further run of the
  /// receiver's cells, and per system call (kCmaBatch runs at most).
  double tr = 1e-10;
  double tseg = 1.5e-7;
  double tpiece = 1e-8;
  double tcall = 3e-7;
  /// A round of waits on other ranks when the node runs more ranks than it
  /// has cores: the rank waited for may first have to be scheduled. Added
  /// once per step with traffic, and twice for the single-copy reads (the
  /// addresses, then the "done"s); 0 when every rank has a core.
  double tq = 0;
  /// The shared-memory transport: seconds per byte copied out of another
  /// rank's window (every rank copying at once), and per further piece
  /// copied (a memcpy per stretch consecutive on both sides).
  double tsh = 1e-10;
  double tshrun = 2e-8;
};

/// Runs one process_vm_readv call takes (Linux's IOV_MAX).
constexpr int64_t kCmaBatch = 1024;

/// One message of a step: the peer and the blocks it carries, block
/// (o, d) numbered o * ranks + d, in order.
struct Message {
  int peer = -1;
  std::vector<int64_t> blocks;
};

struct Step {
  std::vector<Message> sends, recvs;
  /// The step's number before pruneEmpty: the same on every rank, so it
  /// tags the step's messages.
  unsigned index = 0;
};

/// Whether `a` (with `radix` for Bruck) runs on `ranks` ranks; says why not.
bool applicable(Algorithm a, unsigned radix, int ranks, std::string *why);

/// Rank `me`'s steps under `a`, blocks of every size included (the caller
/// drops empty ones). Not for Auto or Alltoallv.
std::vector<Step> schedule(Algorithm a, unsigned radix, int ranks, int me);

/// Drops empty blocks and then empty messages and steps, the same way on
/// every rank (every rank knows the whole traffic matrix).
void pruneEmpty(std::vector<Step> &steps, const TrafficMatrix &t);

/// One algorithm's price for a traffic matrix.
struct Prediction {
  Algorithm algorithm = Algorithm::Pairwise;
  unsigned radix = 0;       ///< Bruck only
  double seconds = 0;       ///< the model's time
  unsigned steps = 0;       ///< steps with traffic
  unsigned maxMessages = 0; ///< most messages one rank sends
  uint64_t wireBytes = 0;   ///< bytes on the wire, every hop, all ranks
  std::string name() const; ///< "bruck(r=3)", "pairwise", ...
};

Prediction predict(Algorithm a, unsigned radix, const TrafficMatrix &t,
                   const LinkCosts &c);

/// Bruck radices predictAll tries besides R itself.
constexpr int kMaxTriedRadix = 16;

/// Every algorithm that runs on t.ranks ranks (Bruck with radix 2 to
/// kMaxTriedRadix and R; with `withCma`, the single-copy transport too;
/// with `withShm`, the shared-memory one), cheapest first; alltoallv last
/// (it has no model and is never chosen).
std::vector<Prediction> predictAll(const TrafficMatrix &t, const LinkCosts &c,
                                   bool withCma = false, bool withShm = false);

/// 004's closed forms for N 8-byte words in uniform blocks over P ranks,
/// in the paper's words-of-8-bytes units (Tw per word).
namespace paper {
double pairwise(double n, int p, double ts, double tw);  ///< eq. 1
double butterfly(double n, int p, double ts, double tw); ///< eq. 2
/// eq. 6, Bruck's bound; eqs. 10-13 are not used: for P = 8, r = 4 their
/// second sub-phase sends P - r^2 < 0 blocks.
double bruck(double n, int p, unsigned r, double ts, double tw);
} // namespace paper

} // namespace mapc::mpi

#endif
