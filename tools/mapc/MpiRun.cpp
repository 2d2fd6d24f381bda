//===- MpiRun.cpp - the driver's --target=mpi ----------------------------===//
#include "MpiRun.h"

#include "backend/MpiEmitter.h"
#include "passes/RemapSpec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#ifdef MAPC_HAVE_MPI
#include "mapc/mpi/Remap.h"
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include <unistd.h>

using namespace mapc;
namespace cl = llvm::cl;

llvm::cl::OptionCategory &mapc::mpiOptionCategory() {
  static cl::OptionCategory category("--target=mpi options (docs/mpi.md)");
  return category;
}

namespace {

cl::opt<std::string> mpiAlgorithm(
    "mpi-algorithm",
    cl::desc("All-to-all algorithm (004): auto, pairwise, mpich, bruck, "
             "butterfly, gbutterfly or alltoallv (default auto: the model's "
             "cheapest)"),
    cl::init("auto"), cl::cat(mpiOptionCategory()));
cl::opt<std::string> mpiTransport(
    "mpi-transport",
    cl::desc("How elements travel between ranks: auto, messages, cma "
             "(single-copy reads with process_vm_readv, ranks on one node) "
             "or shm (copies out of MPI-3 shared windows, ranks on one "
             "node; default auto: the model's cheapest of those possible)"),
    cl::init("auto"), cl::cat(mpiOptionCategory()));
cl::opt<unsigned> mpiRadix("mpi-radix",
                           cl::desc("Bruck's radix (default: the model's)"),
                           cl::init(0), cl::cat(mpiOptionCategory()));
cl::opt<double> mpiTs("mpi-ts",
                      cl::desc("Message start-up time Ts in seconds (default: "
                               "measured under mpirun)"),
                      cl::init(-1), cl::cat(mpiOptionCategory()));
cl::opt<double> mpiTw("mpi-tw",
                      cl::desc("Seconds per byte sent, Tw (default: "
                               "measured under mpirun)"),
                      cl::init(-1), cl::cat(mpiOptionCategory()));
cl::opt<double> mpiTo("mpi-to",
                      cl::desc("Seconds each further message posted in the "
                               "same step adds, To (default: measured under "
                               "mpirun; --mpi-to=TS is 004's model)"),
                      cl::init(-1), cl::cat(mpiOptionCategory()));
cl::opt<double> mpiTc("mpi-tc",
                      cl::desc("Seconds per byte packed or unpacked, Tc "
                               "(default: measured under mpirun)"),
                      cl::init(-1), cl::cat(mpiOptionCategory()));
cl::opt<double> mpiTq("mpi-tq",
                      cl::desc("Seconds a round of waits on other ranks "
                               "costs when a node runs more ranks than it "
                               "has cores, Tq (default: measured under "
                               "mpirun, 0 outside)"),
                      cl::init(-1), cl::cat(mpiOptionCategory()));
cl::opt<std::string> mpiCmaCosts(
    "mpi-cma-costs",
    cl::desc("The single-copy transport's costs, any of "
             "tr=S,tseg=S,tpiece=S,tcall=S (seconds per byte read, per "
             "further source run, per further destination run, per system "
             "call; default: measured under mpirun)"),
    cl::cat(mpiOptionCategory()));
cl::opt<std::string> mpiShmCosts(
    "mpi-shm-costs",
    cl::desc("The shared-memory transport's costs, any of tsh=S,tshrun=S "
             "(seconds per byte copied out of another rank's window, per "
             "further piece copied; default: measured under mpirun)"),
    cl::cat(mpiOptionCategory()));
// Test hook (test/mpi/errors.test): this rank spoils one element after the
// checked run, so that the verdict path is exercised.
cl::opt<int> corruptRank("mpi-test-corrupt-rank", cl::Hidden, cl::init(-1),
                         cl::cat(mpiOptionCategory()));
cl::opt<int> ranksOpt("ranks",
                      cl::desc("Rank count --emit=plan --target=mpi prices "
                               "when not under mpirun (default 1)"),
                      cl::init(0), cl::cat(mpiOptionCategory()));

/// The rank count mpirun started, from its environment; 0 outside mpirun.
[[maybe_unused]] int launcherRanks() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char *v = std::getenv(name))
      return std::max(1, std::atoi(v));
  return 0;
}

[[maybe_unused]] std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", s);
  return buf;
}

int emitCpp(const Program &program, const MpiDriver &driver, bool header) {
  std::vector<MpiEmitted> remaps;
  unsigned number = 0;
  for (const Statement &st : program.statements) {
    ++number;
    MpiEmitted r;
    r.function = statementFunction(st, number);
    auto lc = driver.srcMgr->getLineAndColumn(st.loc);
    r.label = statementLabel(program, st);
    r.description = r.label + " (" + driver.inputFile + ":" +
                    std::to_string(lc.first) + ":" + std::to_string(lc.second) +
                    ")";
    r.spec = remapSpecOf(program, st);
    remaps.push_back(std::move(r));
  }
  auto out = driver.openOutput();
  if (!out)
    return 2;
  if (header)
    emitMpiHeader(remaps, driver.headerName, out->os());
  else
    emitMpiSource(remaps, out->os());
  return driver.finish(*out, 0);
}

} // namespace

std::string mapc::givenMpiOption() {
  const cl::Option *options[] = {&mpiAlgorithm, &mpiTransport, &mpiRadix,
                                 &mpiTs,        &mpiTw,        &mpiTo,
                                 &mpiTc,        &mpiTq,        &mpiCmaCosts,
                                 &mpiShmCosts,  &corruptRank,  &ranksOpt};
  for (const cl::Option *o : options)
    if (o->getNumOccurrences())
      return o->ArgStr.str();
  return {};
}

#ifndef MAPC_HAVE_MPI

#ifdef MAPC_MPI_DRIVER
namespace {
/// --run and --emit=plan need MPI (they measure costs under mpirun, and
/// price with the MPI library's model). mapc-mpi, built and installed
/// beside mapc, is this driver linked with MPI: it runs in mapc's place,
/// the same process under mpirun with the same arguments, so that mapc
/// itself loads no MPI library. Returns only when it cannot be run.
int execMpiDriver(const MpiDriver &driver) {
  const std::string self = llvm::sys::fs::getMainExecutable(
      driver.commandLine.empty() ? nullptr : driver.commandLine[0],
      reinterpret_cast<void *>(&execMpiDriver));
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, MAPC_MPI_DRIVER);
  std::vector<char *> args;
  args.push_back(const_cast<char *>(path.c_str()));
  for (size_t i = 1; i < driver.commandLine.size(); ++i)
    args.push_back(const_cast<char *>(driver.commandLine[i]));
  args.push_back(nullptr);
  llvm::outs().flush();
  llvm::errs().flush();
  execv(path.c_str(), args.data());
  const int why = errno; // before driverError(), whose colour test may set it
  driverError()
      << "cannot run '" << path << "': " << std::strerror(why)
      << "; --target=mpi --run and --emit=plan run in " MAPC_MPI_DRIVER
         ", which is installed beside mapc: reinstall mapc\n";
  return 2;
}
} // namespace
#endif

int mapc::runMpiTarget(const Program &program, MpiMode mode,
                       const MpiDriver &driver) {
  if (mode == MpiMode::Cpp || mode == MpiMode::Header)
    return emitCpp(program, driver, mode == MpiMode::Header);
#ifdef MAPC_MPI_DRIVER
  return execMpiDriver(driver);
#else
  driverError() << "this mapc was built without MPI; install libopenmpi-dev "
                   "(scripts/install-deps.sh) and rebuild\n";
  return 2;
#endif
}

#else

namespace {

using namespace mapc::mpi;

/// Statements the driver prices for --emit=plan without MPI: the traffic
/// matrix visits every cell, so huge layouts are refused.
constexpr int64_t kMaxPricedCells = int64_t(1) << 26;
/// --run's local buffers: refused above this, per rank and layout (the
/// simulators' 256 MiB; planning needs about 4 bytes more per element).
constexpr uint64_t kMaxLocalBytes = uint64_t(256) << 20;

struct Setup {
  MpiOptions options;
  bool costsGiven = false;
};

/// Parses the --mpi-* options for `ranks` ranks; reports and returns false.
bool readOptions(int ranks, Setup &s, bool report) {
  std::optional<Algorithm> a = parseAlgorithm(mpiAlgorithm);
  if (!a) {
    if (report)
      driverError()
          << "--mpi-algorithm=" << mpiAlgorithm
          << " is not an algorithm; use auto, pairwise, mpich, bruck, "
             "butterfly, gbutterfly or alltoallv\n";
    return false;
  }
  s.options.algorithm = *a;
  s.options.radix = mpiRadix;
  std::optional<Transport> transport = parseTransport(mpiTransport);
  if (!transport) {
    if (report)
      driverError() << "--mpi-transport=" << mpiTransport
                    << " is not a transport; use auto, messages, cma or shm\n";
    return false;
  }
  s.options.transport = *transport;
  if ((*transport == Transport::Cma || *transport == Transport::Shm) &&
      *a != Algorithm::Auto) {
    if (report)
      driverError() << "--mpi-transport=" << mpiTransport
                    << " reads every element directly and runs "
                       "no all-to-all algorithm; drop --mpi-algorithm="
                    << mpiAlgorithm << " or use --mpi-transport=messages\n";
    return false;
  }
  if (mpiRadix.getNumOccurrences() && *a != Algorithm::Bruck) {
    if (report)
      driverError() << "--mpi-radix needs --mpi-algorithm=bruck\n";
    return false;
  }
  std::string why;
  if (!applicable(*a, s.options.radix, ranks, &why)) {
    if (report)
      driverError() << why << " (" << ranks << " ranks)\n";
    return false;
  }
  for (auto *o : {&mpiTs, &mpiTw, &mpiTc, &mpiTo, &mpiTq})
    if (o->getNumOccurrences() && !(o->getValue() >= 0)) {
      if (report)
        driverError() << "--" << o->ArgStr << " must be a time of 0 seconds or "
                      << "more, not " << o->getValue() << "\n";
      return false;
    }
  if (mpiTs.getNumOccurrences())
    s.options.ts = mpiTs;
  if (mpiTw.getNumOccurrences())
    s.options.tw = mpiTw;
  if (mpiTc.getNumOccurrences())
    s.options.tc = mpiTc;
  if (mpiTo.getNumOccurrences())
    s.options.to = mpiTo;
  if (mpiTq.getNumOccurrences())
    s.options.tq = mpiTq;
  using CostParser = std::string (*)(const std::string &, MpiOptions &);
  for (auto [costs, parse] : {std::pair<cl::opt<std::string> *, CostParser>{
                                  &mpiCmaCosts, parseCmaCosts},
                              {&mpiShmCosts, parseShmCosts}}) {
    if (!costs->getNumOccurrences())
      continue;
    std::string why = parse(*costs, s.options);
    if (!why.empty()) {
      if (report)
        driverError() << "--" << costs->ArgStr << "=" << costs->getValue()
                      << ": " << why << "\n";
      return false;
    }
  }
  s.costsGiven = mpiTs.getNumOccurrences() && mpiTw.getNumOccurrences() &&
                 mpiTc.getNumOccurrences() && mpiTo.getNumOccurrences();
  return true;
}

void printCosts(const LinkCosts &c, const char *source, llvm::raw_ostream &os) {
  os << "  costs: ts=" << seconds(c.ts) << " s, tw=" << seconds(c.tw)
     << " s/byte, tc=" << seconds(c.tc) << " s/byte, to=" << seconds(c.to)
     << " s (" << source << ")\n";
  os << "  cma costs: tr=" << seconds(c.tr)
     << " s/byte, tseg=" << seconds(c.tseg)
     << " s/source run, tpiece=" << seconds(c.tpiece)
     << " s/destination run, tcall=" << seconds(c.tcall) << " s/call\n";
  os << "  shm costs: tsh=" << seconds(c.tsh)
     << " s/byte, tshrun=" << seconds(c.tshrun) << " s/piece\n";
  if (c.tq > 0)
    os << "  oversubscribed: tq=" << seconds(c.tq)
       << " s per round of waits (more ranks than cores)\n";
}

/// Whether the single-copy transport can run: `why` says so or why not;
/// the same for the shared-memory one.
struct CmaState {
  bool usable = false;
  std::string why;
  bool shmUsable = false;
  std::string shmWhy;
};

/// --emit=plan's lines for one statement.
void printPlan(const rt::RemapSpec &spec, int ranks, const LinkCosts &c,
               const MpiOptions &options, const CmaState &cma,
               llvm::raw_ostream &os) {
  os << spec.label << "\n";
  BlockDistribution s = distributionOf(spec.source, ranks);
  BlockDistribution d = distributionOf(spec.dest, ranks);
  auto dist = [&](const char *what, const BlockDistribution &b) {
    os << "  " << what << ": " << b.pes() << " PEs of " << b.memory()
       << " cells; rank r holds PEs "
       << "floor(r*" << b.pes() << "/" << ranks << ") on (";
    for (int r = 0; r < ranks && r < 8; ++r)
      os << (r ? " " : "") << b.firstPe(r + 1) - b.firstPe(r);
    os << (ranks > 8 ? " ..." : "") << " PEs per rank)\n";
  };
  dist("source", s);
  dist("dest", d);
  if (std::max(spec.source.size(), spec.dest.size()) > kMaxPricedCells) {
    os << "  not priced: more than " << kMaxPricedCells
       << " cells; run it under mpirun with --run to plan it\n";
    return;
  }
  TrafficMatrix t = trafficOf(spec, ranks);
  os << "  traffic: " << t.crossBytes() << " bytes change rank; "
     << t.activeRanks() << " of " << ranks
     << " ranks send or receive; the busiest sends " << t.maxSendBytes()
     << " bytes\n";
  Prediction chosen = chooseAlgorithm(t, c, options, cma.usable, cma.shmUsable);
  os << "  choice: " << chosen.name() << " (" << chosen.steps << " steps, "
     << "predicted " << seconds(chosen.seconds) << " s"
     << (options.algorithm == Algorithm::Auto &&
                 options.transport != Transport::Cma &&
                 options.transport != Transport::Shm
             ? ", the model's cheapest"
             : ", as asked")
     << ")\n";
  auto print = [&](const Prediction &p, const std::string &note) {
    bool reads = p.algorithm == Algorithm::Cma || p.algorithm == Algorithm::Shm;
    os << "  model " << p.name() << ": " << seconds(p.seconds) << " s, "
       << p.steps << " steps, " << p.maxMessages
       << (reads ? " ranks read per rank at most, "
                 : " messages per rank per step at most, ")
       << p.wireBytes << (reads ? " bytes read" : " bytes on the wire") << note
       << "\n";
  };
  bool withCma = cma.usable && options.transport != Transport::Messages;
  bool withShm = cma.shmUsable && options.transport != Transport::Messages;
  for (const Prediction &p : predictAll(t, c, withCma, withShm))
    print(p, p.algorithm == Algorithm::Alltoallv
                 ? " (no model: priced as mpich)"
                 : "");
  if (!withCma)
    print(predict(Algorithm::Cma, 0, t, c), " (" + cma.why + ")");
  if (!withShm)
    print(predict(Algorithm::Shm, 0, t, c), " (" + cma.shmWhy + ")");
  if (ranks > 1) {
    // 004's closed forms for the same bytes in uniform blocks (N in 8-byte
    // words of the whole array, Tw per word).
    double n = double(spec.dataSize()) * spec.elementBytes / 8.0;
    double tw = c.tw * 8;
    os << "  004 uniform blocks: eq. 1 "
       << seconds(paper::pairwise(n, ranks, c.ts, tw)) << " s";
    if ((ranks & (ranks - 1)) == 0)
      os << ", eq. 2 " << seconds(paper::butterfly(n, ranks, c.ts, tw)) << " s";
    for (int r = 2; r <= ranks && r <= 8; ++r)
      os << ", eq. 6 r=" << r << " "
         << seconds(paper::bruck(n, ranks, unsigned(r), c.ts, tw)) << " s";
    os << "\n";
  }
}

/// The best of `runs` timed calls of `f` (the slowest rank each time).
template <typename F> double bestOf(MPI_Comm comm, int runs, F &&f) {
  double best = 1e30;
  for (int k = 0; k < runs; ++k) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    f();
    double mine = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    best = std::min(best, slowest);
  }
  return best;
}

/// A rank's zeroed buffer: in a shared window (collective) or on the heap.
class LocalBuffer {
public:
  LocalBuffer(size_t bytes, MPI_Comm comm, bool shared) {
    if (shared)
      window = allocSharedBuffer(bytes, comm);
    if (!window)
      heap.assign(std::max<size_t>(bytes, 1), 0);
  }
  unsigned char *data() { return window ? window.get() : heap.data(); }
  unsigned char &operator[](size_t k) { return data()[k]; }

private:
  SharedBuffer window;
  std::vector<unsigned char> heap;
};

/// Runs, verifies and times one statement; rank 0 reports. Returns whether
/// every rank verified every element.
bool runStatement(const rt::RemapSpec &spec, uint64_t tag, MPI_Comm comm,
                  int rank, int ranks, const MpiOptions &options,
                  const LinkCosts &costs, bool shared, llvm::raw_ostream *os) {
  auto failed = [&](const std::string &why) {
    if (os)
      *os << spec.label << ": MISMATCH, the plan failed: " << why << "\n";
    return false;
  };
  BlockDistribution sd = distributionOf(spec.source, ranks);
  BlockDistribution dd = distributionOf(spec.dest, ranks);
  uint64_t eb = spec.elementBytes;
  int fits = uint64_t(sd.cells(rank)) * eb <= kMaxLocalBytes &&
             uint64_t(dd.cells(rank)) * eb <= kMaxLocalBytes,
      allFit = 0;
  MPI_Allreduce(&fits, &allFit, 1, MPI_INT, MPI_MIN, comm);
  if (!allFit)
    return failed("a rank would hold more than 256 MiB of one layout; use "
                  "more ranks");
  // On one node the arrays live in MPI-3 shared windows, so that the shm
  // transport can copy out of them (the baseline keeps ordinary buffers).
  LocalBuffer src(size_t(sd.cells(rank)) * eb, comm, shared),
      dst(size_t(dd.cells(rank)) * eb, comm, shared);
  storeLocalPattern(spec.source, sd, rank, unsigned(eb), tag, src.data());
  auto planned = MpiRemap::plan(spec, comm, options, costs, src.data());
  if (auto *why = std::get_if<std::string>(&planned))
    return failed(*why);
  MpiRemap &remap = std::get<MpiRemap>(planned);
  int ran = remap.execute(src.data(), dst.data()), allRan = 0;
  if (rank == corruptRank)
    for (int64_t k = 0; k < remap.destCells(); ++k)
      if (spec.dest.dataAt(dd.firstAddress(rank) + k) >= 0) {
        dst[size_t(k) * eb] ^= 0x5a;
        break;
      }
  uint64_t bad = countLocalMismatches(spec.dest, dd, rank, unsigned(eb), tag,
                                      dst.data()),
           allBad = 0;
  MPI_Allreduce(&ran, &allRan, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, comm);

  // Timing: as many runs as fit in about 0.05 s, from 3 to 10.
  double once = bestOf(comm, 1, [&] { remap.execute(src.data(), dst.data()); });
  int runs = std::clamp(int(0.05 / std::max(once, 1e-6)), 3, 10);
  double s = bestOf(comm, runs, [&] { remap.execute(src.data(), dst.data()); });
  // A bare MPI_Alltoall of the bytes of the fullest rank's elements.
  uint64_t held = 0, most = 0;
  for (int q = 0; q < ranks; ++q)
    held += remap.traffic().bytes(rank, q);
  MPI_Allreduce(&held, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
  uint64_t block = (most + ranks - 1) / uint64_t(ranks);
  double a = 0;
  if (block <= uint64_t(INT_MAX)) {
    std::vector<unsigned char> in(block * ranks, 1), out(block * ranks);
    a = bestOf(comm, runs, [&] {
      MPI_Alltoall(in.data(), int(block), MPI_BYTE, out.data(), int(block),
                   MPI_BYTE, comm);
    });
  }
  if (os) {
    *os << spec.label << ": ";
    if (!allRan)
      *os << "MISMATCH, MPI reported an error, ";
    else if (allBad)
      *os << "MISMATCH, " << allBad << " of " << spec.dest.dataSize()
          << " elements wrong, ";
    else
      *os << "verified, ";
    *os << "seconds=" << seconds(s) << ", alltoall_seconds=" << seconds(a)
        << ", bytes=" << remap.traffic().crossBytes() << "\n";
  }
  return allRan && !allBad;
}

int runUnderMpi(const Program &program, MpiMode mode, const MpiDriver &driver) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  auto end = [&](int rc) {
    MPI_Finalize();
    return rc;
  };
  // Usage errors are the same on every rank: rank 0 reports, all exit 2.
  if (ranksOpt.getNumOccurrences() && ranksOpt != ranks) {
    if (rank == 0)
      driverError() << "--ranks=" << ranksOpt << " but mpirun started " << ranks
                    << " rank" << (ranks == 1 ? "" : "s")
                    << "; drop --ranks or "
                    << "run mpirun -np " << ranksOpt << "\n";
    return end(2);
  }
  Setup setup;
  if (!readOptions(ranks, setup, rank == 0))
    return end(2);
  LinkCosts costs = setup.costsGiven ? LinkCosts{} : measureLinkCosts(comm);
  costs = withOverrides(costs, setup.options);

  std::unique_ptr<llvm::ToolOutputFile> out;
  int opened = 1;
  if (rank == 0)
    opened = (out = driver.openOutput()) != nullptr;
  MPI_Bcast(&opened, 1, MPI_INT, 0, comm);
  if (!opened)
    return end(2);
  llvm::raw_ostream *os = rank == 0 ? &out->os() : nullptr;

  bool good = true;
  bool shared = ranks > 1 && cmaInfo(comm).oneNode;
  try {
    if (mode == MpiMode::Plan) {
      CmaState cma;
      if (setup.options.transport != Transport::Messages) {
        const CmaInfo &info = cmaInfo(comm);
        cma.usable = info.usable;
        cma.why = info.usable ? "" : "not usable: " + info.why;
        // --run puts the arrays in shared windows when the ranks share a
        // node.
        cma.shmUsable = info.oneNode && ranks > 1;
        cma.shmWhy = ranks == 1 ? "not usable: one rank"
                                : "not usable: the ranks are on more than "
                                  "one node";
      } else {
        cma.why = "not considered: --mpi-transport=messages";
        cma.shmWhy = cma.why;
      }
      if (os)
        printCosts(costs, setup.costsGiven ? "given" : "measured", *os);
      for (const Statement &st : program.statements)
        if (os)
          printPlan(remapSpecOf(program, st), ranks, costs, setup.options, cma,
                    *os);
    } else {
      for (const Statement &st : program.statements) {
        uint64_t tag = 0;
        for (size_t i = 0; i < program.arrays.size(); ++i)
          if (program.arrays[i].name == st.array)
            tag = i + 1;
        good &= runStatement(remapSpecOf(program, st), tag, comm, rank, ranks,
                             setup.options, costs, shared, os);
        if (os)
          os->flush();
      }
    }
  } catch (const std::bad_alloc &) {
    llvm::errs() << "mapc: rank " << rank
                 << ": error: out of memory; ending every rank\n";
    MPI_Abort(comm, 3);
  } catch (const std::exception &e) {
    llvm::errs() << "mapc: rank " << rank << ": error: " << e.what()
                 << "; ending every rank\n";
    MPI_Abort(comm, 3);
  }
  int rc = good ? 0 : 1;
  if (out)
    rc = driver.finish(*out, rc);
  // Every rank exits with rank 0's verdict (a failed write included).
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  return end(rc);
}

} // namespace

int mapc::runMpiTarget(const Program &program, MpiMode mode,
                       const MpiDriver &driver) {
  if (mode == MpiMode::Cpp || mode == MpiMode::Header)
    return emitCpp(program, driver, mode == MpiMode::Header);
  if (mode == MpiMode::Run || launcherRanks())
    return runUnderMpi(program, mode, driver);
  // --emit=plan outside mpirun: price for --ranks with the given costs.
  int ranks = ranksOpt.getNumOccurrences() ? int(ranksOpt) : 1;
  // Pricing every algorithm for every rank grows as R^3.
  if (ranks < 1 || ranks > 256) {
    driverError() << "--ranks=" << ranksOpt
                  << " is out of range; give 1 to 256\n";
    return 2;
  }
  Setup setup;
  if (!readOptions(ranks, setup, true))
    return 2;
  LinkCosts costs = withOverrides(LinkCosts{}, setup.options);
  auto out = driver.openOutput();
  if (!out)
    return 2;
  printCosts(costs,
             setup.costsGiven ? "given"
                              : "defaults where not given; under mpirun they "
                                "are measured",
             out->os());
  // Outside mpirun nobody knows where the ranks will run: the single-copy
  // transport is priced but chosen only when forced.
  CmaState cma;
  cma.usable = setup.options.transport == Transport::Cma;
  cma.why = setup.options.transport == Transport::Messages
                ? "not considered: --mpi-transport=messages"
                : "chosen under mpirun when the ranks share a node";
  cma.shmUsable = setup.options.transport == Transport::Shm;
  cma.shmWhy = cma.why;
  for (const Statement &st : program.statements)
    printPlan(remapSpecOf(program, st), ranks, costs, setup.options, cma,
              out->os());
  return driver.finish(*out, 0);
}

#endif
