//===- Mpi.cpp - the MPI target against a bare MPI_Alltoall ---------------===//
//
// mpirun -np R mapc-bench-mpi [--malloc] [--from-kib=N] [--only=LIST]
//     [--rounds=K] [MAX_MIB]: 004's subject, the
// transpose of an n x n array of 8-byte elements distributed by block rows over
// R ranks (one PE each) into block columns (`redistribute A(*, block)`): an
// all-to-all of uniform blocks. For every size from 4 KiB to MAX_MIB MiB
// (default 64) per rank it times, in the same run and on the same ranks:
//
//   * a bare MPI_Alltoall of pre-packed buffers of the same bytes per rank
//     (the baseline; no packing, no index maps),
//   * the remap under every algorithm of 004 (Schedule.h) and alltoallv,
//     and under the single-copy transport (cma, Cma.h) when the ranks can
//     read each other's memory,
//   * the remap under the shared-memory transport (shm, Shm.h) when the
//     ranks share a node: its source and destination in MPI-3 shared
//     windows (every other column, the baseline included, keeps its
//     ordinary buffers),
//
// each the best of several runs (the slowest rank's time each run), and
// marks with '*' the one the model picks (a plan with default options and
// the source in a shared window, so that shm is a candidate) from the
// costs measured at start-up. Columns: seconds; the last two are
// the pick against the fastest and against MPI_Alltoall (the issue's
// goals: within 1.1x and 1.2x). A second table says where the time of
// pairwise and cma goes (MpiRemap::lastTimes: pack, local copy, exchange,
// unpack; per phase the slowest rank, in the fastest of a few runs). A
// third says how much CPU time a run costs all ranks together (user and
// system time; a rank that waits inside MPI spins, so waiting counts): on
// a node with more ranks than cores the wall time is the CPU time of all
// ranks shared out over the cores, and the two tell work from waiting.
//
// --from-kib=N starts at N KiB per rank, --only=LIST times only the listed
// variants (column names, comma-separated; MPI_Alltoall always runs), and
// --rounds=K times every size K times over, the baseline and each variant
// in turn, each with a K-th of the time: the times are the best of the
// rounds and pick/best and pick/a2a the medians of the ratios within one
// round, so that a machine whose load changes during the run disturbs the
// baseline and the variants alike.
//
// Every buffer, the baseline's as the remap's, starts on a page boundary
// (as MPI_Alloc_mem's and posix_memalign's do); --malloc takes them from
// plain std::vectors instead, wherever malloc puts them (then a transpose's
// runs straddle pages, which costs the strided reads and copies more than
// the baseline's contiguous ones: docs/mpi.md).
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "mapc/mpi/Remap.h"
#include "passes/RemapSpec.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include <sys/resource.h>

using namespace mapc;
using namespace mapc::mpi;

namespace {

const char *kDriver = "mapc-bench-mpi";

/// The transpose as the compiler sees it, for an n x n array.
rt::RemapSpec transposeSpec(int64_t n, int ranks) {
  std::string text =
      "machine maspar(pes = [" + std::to_string(ranks) +
      "], memory = " + std::to_string((n + ranks - 1) / ranks * n) + ");\n" +
      "processors P(" + std::to_string(ranks) + ");\n" + "array A(" +
      std::to_string(n) + ", " + std::to_string(n) + ") : f64;\n" +
      "distribute A(block, *) onto P;\n" + "redistribute A(*, block) onto P;\n";
  llvm::SourceMgr srcMgr;
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "bench.map"), llvm::SMLoc());
  Diagnostics diags(srcMgr, llvm::errs());
  ast::Program ast = parseMap(id, diags);
  Program program = analyze(ast, diags);
  if (diags.hadError() || program.statements.size() != 1)
    bench::die(kDriver, "the transpose program did not check");
  return remapSpecOf(program, program.statements[0]);
}

/// This process's CPU time, user and system, in seconds.
double cpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// A timed variant: the best wall time (the slowest rank's, each run) and
/// the CPU time of all ranks per run.
struct Timing {
  double seconds = 1e30, cpu = 0;
};

/// Best of as many runs as fit in about `budget` seconds (3 to 200).
template <typename F> Timing bestOf(MPI_Comm comm, double budget, F &&f) {
  Timing t;
  double spent = 0, c0 = cpuSeconds();
  int runs = 0;
  for (; runs < 200 && (runs < 3 || spent < budget); ++runs) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    f();
    double mine = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    t.seconds = std::min(t.seconds, slowest);
    spent += slowest;
  }
  double mine = (cpuSeconds() - c0) / runs;
  MPI_Allreduce(&mine, &t.cpu, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0)
    return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Variant {
  Algorithm a;
  unsigned radix;
  std::string name;
  Transport transport = Transport::Messages;
};

/// A zeroed buffer, page-aligned unless `anywhere`.
class Buffer {
public:
  Buffer(size_t bytes, bool anywhere) : bytes(bytes) {
    if (anywhere) {
      plain.assign(bytes, 0);
      at = plain.data();
      return;
    }
    size_t rounded = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
    at = static_cast<unsigned char *>(std::aligned_alloc(4096, rounded));
    if (!at)
      bench::die(kDriver, "out of memory");
    std::memset(at, 0, rounded);
    aligned.reset(at);
  }
  unsigned char *data() { return at; }
  size_t size() const { return bytes; }
  unsigned char *begin() { return at; }
  unsigned char *end() { return at + bytes; }

private:
  struct Free {
    void operator()(unsigned char *p) const { std::free(p); }
  };
  size_t bytes;
  unsigned char *at = nullptr;
  std::vector<unsigned char> plain;
  std::unique_ptr<unsigned char, Free> aligned;
};

/// A zeroed part of a shared window (collective), or nothing.
SharedBuffer windowBuffer(size_t bytes, MPI_Comm comm, bool shared) {
  if (!shared)
    return nullptr;
  SharedBuffer at = allocSharedBuffer(bytes, comm);
  if (!at)
    bench::die(kDriver, "MPI_Win_allocate_shared failed");
  return at;
}

/// One row of the phase table.
struct Phases {
  std::string size, variant;
  ExecuteTimes t;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int64_t maxMiB = 64, fromKiB = 4;
  int rounds = 1;
  bool anywhere = false;
  std::vector<std::string> only;
  auto usage = [&](const char *arg) {
    bench::die(kDriver, std::string("usage: ") + kDriver +
                            " [--malloc] [--from-kib=N] [--only=LIST] "
                            "[--rounds=K] [MAX_MIB]; not '" +
                            arg + "'");
  };
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? argv[k] + n : nullptr;
    };
    if (arg == "--malloc") {
      anywhere = true;
    } else if (const char *v = value("--from-kib=")) {
      if ((fromKiB = std::atoll(v)) <= 0)
        usage(argv[k]);
    } else if (const char *v = value("--rounds=")) {
      if ((rounds = std::atoi(v)) <= 0 || rounds > 100)
        usage(argv[k]);
    } else if (const char *v = value("--only=")) {
      std::stringstream names(v);
      for (std::string name; std::getline(names, name, ',');)
        only.push_back(name);
      if (only.empty())
        usage(argv[k]);
    } else if ((maxMiB = std::atoll(argv[k])) <= 0) {
      usage(argv[k]);
    }
  }
  LinkCosts costs = measureLinkCosts(comm);

  std::vector<Variant> variants = {{Algorithm::Alltoallv, 0, "alltoallv"},
                                   {Algorithm::Mpich, 0, "mpich"},
                                   {Algorithm::Pairwise, 0, "pairwise"}};
  if ((ranks & (ranks - 1)) == 0)
    variants.push_back({Algorithm::Butterfly, 0, "butterfly"});
  variants.push_back({Algorithm::GeneralizedButterfly, 0, "bruck2"});
  for (int r = 3; r <= ranks; ++r)
    variants.push_back(
        {Algorithm::Bruck, unsigned(r), "bruck" + std::to_string(r)});
  const CmaInfo &cma = cmaInfo(comm);
  if (cma.usable)
    variants.push_back({Algorithm::Auto, 0, "cma", Transport::Cma});
  bool shm = ranks > 1 && cma.oneNode;
  if (shm)
    variants.push_back({Algorithm::Auto, 0, "shm", Transport::Shm});
  if (!only.empty()) {
    std::vector<Variant> kept;
    for (const std::string &name : only) {
      auto v = std::find_if(variants.begin(), variants.end(),
                            [&](const Variant &v) { return v.name == name; });
      if (v == variants.end())
        bench::die(kDriver, "--only: no variant '" + name + "' on " +
                                std::to_string(ranks) + " ranks");
      kept.push_back(*v);
    }
    variants = kept;
  }
  std::vector<Phases> phases;
  std::vector<std::string> cpuRows;

  if (rank == 0) {
    std::printf("# %d ranks; measured ts=%.3g s, to=%.3g s, tw=%.3g s/byte "
                "(%.2f GB/s), tc=%.3g s/byte (%.2f GB/s)\n",
                ranks, costs.ts, costs.to, costs.tw, 1e-9 / costs.tw, costs.tc,
                1e-9 / costs.tc);
    if (costs.tq > 0)
      std::printf("# oversubscribed: tq=%.3g s per round of waits\n", costs.tq);
    std::printf("# buffers: %s\n",
                anywhere ? "malloc (--malloc)" : "page-aligned");
    if (rounds > 1)
      std::printf("# rounds: %d per size (times: the best; ratios: the "
                  "median within a round)\n",
                  rounds);
    if (cma.usable)
      std::printf("# cma: tr=%.3g s/byte (%.2f GB/s), tseg=%.3g s/source "
                  "run, tpiece=%.3g s/destination run, tcall=%.3g s\n",
                  costs.tr, 1e-9 / costs.tr, costs.tseg, costs.tpiece,
                  costs.tcall);
    else
      std::printf("# cma: not usable: %s\n", cma.why.c_str());
    if (shm)
      std::printf("# shm: tsh=%.3g s/byte (%.2f GB/s), tshrun=%.3g s/piece; "
                  "its buffers in shared windows\n",
                  costs.tsh, 1e-9 / costs.tsh, costs.tshrun);
    std::printf("%-9s %10s", "per rank", "alltoall");
    for (const Variant &v : variants)
      std::printf(" %11s", v.name.c_str());
    std::printf(" %9s %9s\n", "pick/best", "pick/a2a");
  }
  for (int64_t bytes = 4096; bytes <= (maxMiB << 20); bytes *= 4) {
    if (bytes < (fromKiB << 10))
      continue;
    int64_t n = int64_t(std::llround(std::sqrt(double(bytes) * ranks / 8)));
    rt::RemapSpec spec = transposeSpec(n, ranks);
    BlockDistribution sd = distributionOf(spec.source, ranks);
    BlockDistribution dd = distributionOf(spec.dest, ranks);
    Buffer src(size_t(sd.cells(rank)) * 8, anywhere),
        dst(size_t(dd.cells(rank)) * 8, anywhere);
    storeLocalPattern(spec.source, sd, rank, 8, 1, src.data());
    // The shm column's buffers (page-aligned parts of shared windows).
    SharedBuffer srcShm = windowBuffer(src.size(), comm, shm),
                 dstShm = windowBuffer(dst.size(), comm, shm);
    if (shm)
      std::memcpy(srcShm.get(), src.data(), src.size());
    double budget = 0.3 / rounds;

    // The baseline: the same bytes per rank in R pre-packed blocks.
    int64_t block = int64_t(src.size()) / ranks;
    Buffer in(size_t(block) * ranks, anywhere),
        out(size_t(block) * ranks, anywhere);
    std::fill(in.begin(), in.end(), 1);
    auto alltoall = [&] {
      MPI_Alltoall(in.data(), int(block), MPI_BYTE, out.data(), int(block),
                   MPI_BYTE, comm);
    };

    std::string pick;
    {
      auto planned = MpiRemap::plan(spec, comm, MpiOptions{}, costs,
                                    shm ? srcShm.get() : nullptr);
      if (auto *why = std::get_if<std::string>(&planned))
        bench::die(kDriver, "auto: " + *why);
      pick = std::get<MpiRemap>(planned).chosen().name();
    }
    if (pick.rfind("bruck(r=", 0) == 0)
      pick = "bruck" + pick.substr(8, pick.size() - 9);
    if (pick == "gbutterfly")
      pick = "bruck2";
    // Every variant planned and checked once, then timed in rounds.
    std::vector<MpiRemap> remaps;
    std::vector<std::pair<unsigned char *, unsigned char *>> buffers;
    for (const Variant &v : variants) {
      MpiOptions o;
      o.algorithm = v.a;
      o.radix = v.radix;
      o.transport = v.transport;
      bool windows = v.transport == Transport::Shm;
      unsigned char *in = windows ? srcShm.get() : src.data(),
                    *out = windows ? dstShm.get() : dst.data();
      auto planned = MpiRemap::plan(spec, comm, o, costs, in);
      if (auto *why = std::get_if<std::string>(&planned))
        bench::die(kDriver, v.name + ": " + *why);
      MpiRemap &remap = std::get<MpiRemap>(planned);
      std::memset(out, 0, dst.size());
      remap.execute(in, out);
      uint64_t bad = countLocalMismatches(spec.dest, dd, rank, 8, 1, out),
               allBad = 0;
      MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, comm);
      if (allBad)
        bench::die(kDriver, v.name + " left elements in the wrong place");
      if (windows && remap.lastTimes().shmFallbacks)
        bench::die(kDriver, "shm read a source with process_vm_readv");
      remaps.push_back(std::move(remap));
      buffers.push_back({in, out});
    }
    size_t pickAt = variants.size();
    for (size_t k = 0; k < variants.size(); ++k)
      if (variants[k].name == pick)
        pickAt = k;
    // Per round: the baseline, then every variant; [0] is the baseline.
    std::vector<std::vector<Timing>> timed(variants.size() + 1);
    std::vector<double> pickBest, pickA2a;
    for (int round = 0; round < rounds; ++round) {
      timed[0].push_back(bestOf(comm, budget, alltoall));
      double best = 1e30;
      for (size_t k = 0; k < variants.size(); ++k) {
        MpiRemap &remap = remaps[k];
        unsigned char *in = buffers[k].first, *out = buffers[k].second;
        timed[k + 1].push_back(
            bestOf(comm, budget, [&] { remap.execute(in, out); }));
        // alltoallv is the baseline, not one of 004's algorithms.
        if (variants[k].a != Algorithm::Alltoallv)
          best = std::min(best, timed[k + 1].back().seconds);
      }
      if (pickAt < variants.size()) {
        double t = timed[pickAt + 1].back().seconds;
        pickBest.push_back(t / best);
        pickA2a.push_back(t / timed[0].back().seconds);
      }
    }
    auto bestTime = [](const std::vector<Timing> &ts) {
      double t = 1e30;
      for (const Timing &x : ts)
        t = std::min(t, x.seconds);
      return t;
    };
    auto medianCpu = [](const std::vector<Timing> &ts) {
      std::vector<double> c;
      for (const Timing &x : ts)
        c.push_back(x.cpu);
      return median(c);
    };
    double a2a = bestTime(timed[0]);
    std::vector<double> times;
    for (size_t k = 0; k < variants.size(); ++k)
      times.push_back(bestTime(timed[k + 1]));
    for (size_t k = 0; k < variants.size(); ++k) {
      const Variant &v = variants[k];
      MpiRemap &remap = remaps[k];
      if (v.name == "pairwise" || v.name == "cma" || v.name == "shm") {
        // The phases of the fastest of a few runs (this rank's total), in
        // wall and CPU time (not while timed above: the CPU clock costs).
        remap.setCpuTimes(true);
        ExecuteTimes best;
        double bestTotal = 1e30;
        unsigned char *in = buffers[k].first, *out = buffers[k].second;
        for (int run = 0; run < 5; ++run) {
          MPI_Barrier(comm);
          remap.execute(in, out);
          const ExecuteTimes &e = remap.lastTimes();
          double total = e.pack + e.local + e.exchange + e.unpack;
          if (total < bestTotal) {
            bestTotal = total;
            best = e;
          }
        }
        double mine[9] = {best.pack,        best.local,     best.exchange,
                          best.unpack,      best.packCpu,   best.localCpu,
                          best.exchangeCpu, best.unpackCpu, best.readCpu},
               most[9];
        MPI_Reduce(mine, most, 9, MPI_DOUBLE, MPI_MAX, 0, comm);
        ExecuteTimes t;
        t.pack = most[0];
        t.local = most[1];
        t.exchange = most[2];
        t.unpack = most[3];
        t.packCpu = most[4];
        t.localCpu = most[5];
        t.exchangeCpu = most[6];
        t.unpackCpu = most[7];
        t.readCpu = most[8];
        phases.push_back({"", v.name, t});
      }
    }
    if (rank == 0) {
      char size[32];
      if (bytes >= (1 << 20))
        std::snprintf(size, sizeof size, "%lld MiB", (long long)(bytes >> 20));
      else
        std::snprintf(size, sizeof size, "%lld KiB", (long long)(bytes >> 10));
      std::printf("%-9s %10.3g", size, a2a);
      for (size_t k = 0; k < variants.size(); ++k)
        std::printf(" %10.3g%c", times[k],
                    variants[k].name == pick ? '*' : ' ');
      // The pick not timed (--only): no ratios.
      if (pickAt < variants.size())
        std::printf(" %9.2f %9.2f\n", median(pickBest), median(pickA2a));
      else
        std::printf(" %9s %9s\n", "-", "-");
      std::fflush(stdout);
      char cell[32];
      std::string row = size;
      row.resize(std::max<size_t>(row.size(), 9), ' ');
      std::snprintf(cell, sizeof cell, " %10.3g", medianCpu(timed[0]));
      row += cell;
      for (size_t k = 0; k < variants.size(); ++k) {
        std::snprintf(cell, sizeof cell, " %11.3g", medianCpu(timed[k + 1]));
        row += cell;
      }
      cpuRows.push_back(row);
      for (Phases &p : phases)
        if (p.size.empty())
          p.size = size;
    }
  }
  if (rank == 0) {
    std::printf(
        "\n# where the time goes: per phase the slowest rank, "
        "seconds; cpu: the same phases' CPU time (the exchange's "
        "reads apart for cma and shm; pack: pack and unpack)\n%-9s %-9s %10s "
        "%10s %10s %10s %10s "
        "%10s %10s %10s\n",
        "per rank", "variant", "pack", "local", "exchange", "unpack",
        "cpu:local", "cpu:exch", "cpu:read", "cpu:pack");
    for (const Phases &p : phases)
      std::printf("%-9s %-9s %10.3g %10.3g %10.3g %10.3g %10.3g %10.3g "
                  "%10.3g %10.3g\n",
                  p.size.c_str(), p.variant.c_str(), p.t.pack, p.t.local,
                  p.t.exchange, p.t.unpack, p.t.localCpu, p.t.exchangeCpu,
                  p.t.readCpu, p.t.packCpu + p.t.unpackCpu);
    std::printf("\n# CPU seconds per run, all ranks together (user and "
                "system; waiting in MPI spins and counts)\n%-9s %10s",
                "per rank", "alltoall");
    for (const Variant &v : variants)
      std::printf(" %11s", v.name.c_str());
    std::printf("\n");
    for (const std::string &row : cpuRows)
      std::printf("%s\n", row.c_str());
  }
  MPI_Finalize();
  return 0;
}
