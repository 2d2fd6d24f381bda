//===- Remap.h - remaps of arrays spread over MPI ranks
//--------------------===//
//
// The MPI target: each rank holds its block of the layout's PEs
// (Distribution.h) as one local buffer per layout. A remap is
// pack -> exchange -> unpack:
//
//   plan    every rank walks its own source cells and destination cells
//           through the two index maps of the rt::RemapSpec and learns which
//           of its elements go to which rank and where the ones it receives
//           land; one MPI_Allgather then gives every rank the whole traffic
//           matrix, from which every rank prices 004's algorithms the same
//           way and so picks the same one (Schedule.h).
//   execute packs each destination rank's elements into one block, copies
//           the elements that stay, runs the chosen schedule (forwarding
//           blocks for Bruck and the butterflies) and unpacks every block
//           that arrived; or, under the single-copy transport (Cma.h),
//           reads every element it receives straight from the sender's
//           source buffer into its destination buffer; or, under the
//           shared-memory transport (Shm.h), copies it from the sender's
//           source mapped into this rank (MPI-3 shared windows).
//
// Semantics of execute(src, dst), per rank: src holds this rank's cells of
// the source layout, dst its cells of the destination layout, in address
// order; every destination cell that holds data receives the element of that
// data index (every copy of a replicated destination; a replicated source
// is read at its first address, 003 6.2.1); padding is left as it was.
// src and dst may overlap (a remap in place, the same buffer sized for the
// larger layout): the rank then copies its source cells aside first and
// every transport reads from that copy. plan() and execute() are collective
// over the communicator.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_MPI_REMAP_H
#define MAPC_MPI_REMAP_H

#include "mapc/mpi/Cma.h"
#include "mapc/mpi/Distribution.h"
#include "mapc/mpi/Schedule.h"
#include "mapc/mpi/Shm.h"
#include "mapc/runtime/RemapSpec.h"

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace mapc::mpi {

struct MpiOptions {
  Algorithm algorithm = Algorithm::Auto;
  /// Bruck's radix; 0 lets the model choose.
  unsigned radix = 0;
  /// Messages, single-copy reads, copies out of shared windows, or (Auto)
  /// the model's cheapest among those possible when `algorithm` is Auto.
  Transport transport = Transport::Auto;
  /// The model's parameters; unset ones are measured (measureLinkCosts).
  std::optional<double> ts, tw, tc, to;
  /// The single-copy transport's (LinkCosts::tr, tseg, tpiece, tcall).
  std::optional<double> tr, tseg, tpiece, tcall;
  /// The shared-memory transport's (LinkCosts::tsh, tshrun).
  std::optional<double> tsh, tshrun;
  /// A round of waits on an oversubscribed node (LinkCosts::tq).
  std::optional<double> tq;
};

/// `c` with every parameter `options` sets replacing the measured one.
/// MpiRemap::plan applies it to the costs it is given.
LinkCosts withOverrides(LinkCosts c, const MpiOptions &options);

/// Parses `tr=S,tseg=S,tpiece=S,tcall=S` (any of them, each once, seconds
/// of 0 or more) into `options`; returns why not, or "" when it parsed.
std::string parseCmaCosts(const std::string &text, MpiOptions &options);
/// Parses `tsh=S,tshrun=S` alike.
std::string parseShmCosts(const std::string &text, MpiOptions &options);

/// Where a layout's cells lie on `ranks` ranks.
BlockDistribution distributionOf(const rt::DeviceLayout &l, int ranks);

/// The traffic matrix of `spec` over `ranks` ranks, computed alone from the
/// index maps (every element visited: for --emit=plan, not for execution).
TrafficMatrix trafficOf(const rt::RemapSpec &spec, int ranks);

/// 004 6: a ping-pong between ranks 0 and 1 (Ts from 8-byte messages, Tw
/// from 1 MiB ones, To from 8 messages posted at once), and a 4 MiB memcpy
/// (Tc), broadcast from rank 0 so every rank prices alike; the single-copy
/// reads' costs (measureCmaCosts) when usable, the shared-memory copies'
/// (measureShmCosts) when the ranks share a node; and, when a node runs more
/// ranks than it has cores, Tq as a barrier of every rank. Collective. One
/// rank: only Tc is measured.
LinkCosts measureLinkCosts(MPI_Comm comm);

/// measureLinkCosts(comm) on the first call for `comm`, the same costs on
/// later ones: kept as an attribute of the communicator (MPI's attribute
/// caching), so they go when it is freed, and a duplicate measures again.
/// Collective on the first call for a communicator; every rank of `comm`
/// must make its first call together (as emitted functions do).
const LinkCosts &linkCostsOf(MPI_Comm comm);

/// The model's choice for `t` under `options` (Auto: the cheapest; the
/// single-copy transport among the candidates when `cmaUsable`, the
/// shared-memory one when `shmUsable`).
Prediction chooseAlgorithm(const TrafficMatrix &t, const LinkCosts &c,
                           const MpiOptions &options, bool cmaUsable = false,
                           bool shmUsable = false);

/// Where the last execute() spent its time on this rank, in seconds:
/// gathering blocks into send buffers, copying the elements that stay, the
/// exchange (MPI calls, or the single-copy reads and their synchronisation)
/// and scattering what arrived. Datatype sends pack and unpack inside MPI,
/// so that time counts as exchange.
struct ExecuteTimes {
  double pack = 0, local = 0, exchange = 0, unpack = 0;
  /// The same phases in this rank's CPU time (its thread's clock): less
  /// than the wall time when the rank waited off its core (a node with
  /// more ranks than cores, or a loaded one); waiting inside MPI polls, so
  /// it counts. For the single-copy transport `readCpu` is the part of
  /// `exchangeCpu` spent in the reads, the rest is synchronisation. Only
  /// after MpiRemap::setCpuTimes(true).
  double packCpu = 0, localCpu = 0, exchangeCpu = 0, unpackCpu = 0;
  double readCpu = 0;
  /// Under the shm transport: how many senders' sources were copied out of
  /// shared windows and how many were read with process_vm_readv instead.
  unsigned shmCopies = 0, shmFallbacks = 0;
};

class MpiRemap {
public:
  /// Plans `spec` on `comm` (collective). Fails on every rank alike, with
  /// the reason, when one rank cannot plan. `source`: the source buffer
  /// execute() will be given, when known; when every rank's lies in a
  /// buffer of allocShared() (and the ranks share a node), the
  /// shared-memory transport is among Auto's candidates.
  static std::variant<MpiRemap, std::string>
  plan(const rt::RemapSpec &spec, MPI_Comm comm, const MpiOptions &options,
       const LinkCosts &costs, const void *source = nullptr);

  /// See the file comment. Collective; returns false (on the ranks that
  /// saw it) when MPI reported an error or a single-copy read failed, or,
  /// under the shm transport, when a sender's source is in no shared window
  /// and process_vm_readv cannot stand in.
  bool execute(const void *src, void *dst);

  /// This rank's cells of the two layouts.
  int64_t sourceCells() const;
  int64_t destCells() const;
  const BlockDistribution &sourceDistribution() const;
  const BlockDistribution &destDistribution() const;
  const TrafficMatrix &traffic() const;
  /// The algorithm run and its price, then every price.
  const Prediction &chosen() const;
  const std::vector<Prediction> &predictions() const;
  const LinkCosts &costs() const;
  const rt::RemapSpec &spec() const;
  const ExecuteTimes &lastTimes() const;
  /// Whether execute() also times its phases in CPU time (ExecuteTimes'
  /// *Cpu fields; 0 otherwise). Off by default: a thread's CPU clock is a
  /// system call (about 0.3 us), several per execute, as much as a whole
  /// small remap on two ranks.
  void setCpuTimes(bool on);

  MpiRemap(MpiRemap &&) noexcept;
  MpiRemap &operator=(MpiRemap &&) noexcept;
  ~MpiRemap();

  struct Impl;

private:
  explicit MpiRemap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Fills this rank's cells of `l` with data set `tag` (rt::patternByte).
void storeLocalPattern(const rt::DeviceLayout &l, const BlockDistribution &d,
                       int rank, unsigned elementBytes, uint64_t tag,
                       void *buffer);
/// How many of this rank's cells of `l` do not hold data set `tag`.
uint64_t countLocalMismatches(const rt::DeviceLayout &l,
                              const BlockDistribution &d, int rank,
                              unsigned elementBytes, uint64_t tag,
                              const void *buffer);

} // namespace mapc::mpi

#endif
