//===- MpiCheck.cpp - many remaps per mpirun launch, every element checked ===//
//
// mapc-mpi-check [--all] [--transport=T] [--in-place] FILE.map... reads
// each program and runs every data-moving statement over the ranks of
// MPI_COMM_WORLD, each run on fresh data, checking every destination cell
// on every rank: under the model's choice (auto) and one more algorithm in
// turn (statement i takes the i-th of alltoallv, mpich, pairwise,
// gbutterfly, butterfly and Bruck with radix 3 to R), or with --all under
// every one of them. --transport=messages keeps the single-copy transport
// out of auto's choice; --transport=cma runs every statement once under it
// (Cma.h); --transport=shm too, with the buffers in MPI-3 shared windows
// (Shm.h). --in-place passes one buffer as both source and destination
// (sized for the larger layout). Rank 0 prints one line per failure and
//
//   P programs, S statements, E executions verified on R ranks, F failures
//
// and, under shm, how many senders' sources were copied out of windows and
// how many read with process_vm_readv instead (in place: the copy aside).
//
// and every rank exits non-zero when anything failed anywhere. One launch
// covers thousands of remaps, where one mapc launch per program would spend
// the test's time starting MPI.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "mapc/mpi/Remap.h"
#include "passes/RemapSpec.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace mapc;
using namespace mapc::mpi;

namespace {

struct Variant {
  Algorithm algorithm;
  unsigned radix;
};

std::vector<Variant> variantsFor(int ranks) {
  std::vector<Variant> v = {{Algorithm::Auto, 0},
                            {Algorithm::Alltoallv, 0},
                            {Algorithm::Mpich, 0},
                            {Algorithm::Pairwise, 0},
                            {Algorithm::GeneralizedButterfly, 0}};
  if ((ranks & (ranks - 1)) == 0)
    v.push_back({Algorithm::Butterfly, 0});
  for (int r = 3; r <= ranks; ++r)
    v.push_back({Algorithm::Bruck, unsigned(r)});
  return v;
}

/// A buffer in a shared window that grows (collectively) as needed: one
/// window per statement would spend the test's time creating windows.
class SharedPool {
public:
  unsigned char *get(size_t bytes) {
    int grow = !at || bytes > capacity, anyGrow = 0;
    MPI_Allreduce(&grow, &anyGrow, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anyGrow) {
      freeShared(at);
      capacity = std::max(bytes, 2 * capacity);
      at = static_cast<unsigned char *>(allocShared(capacity, MPI_COMM_WORLD));
      if (!at)
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return at;
  }
  /// Collective; before MPI_Finalize.
  void release() {
    freeShared(at);
    at = nullptr;
  }

private:
  unsigned char *at = nullptr;
  size_t capacity = 0;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Fixed costs: every rank must price alike, and the run is not timed.
  LinkCosts costs;
  unsigned programs = 0, statements = 0, verified = 0, failures = 0;
  bool all = false, inPlace = false;
  Transport transport = Transport::Auto;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; ++first) {
    std::string flag = argv[first];
    std::optional<Transport> t;
    if (flag == "--all")
      all = true;
    else if (flag == "--in-place")
      inPlace = true;
    else if (flag.rfind("--transport=", 0) == 0 &&
             (t = parseTransport(flag.substr(12))))
      transport = *t;
    else {
      if (rank == 0)
        std::fprintf(stderr, "mapc-mpi-check: unknown option '%s'\n",
                     flag.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  std::vector<Variant> variants = variantsFor(ranks);
  if (transport == Transport::Cma || transport == Transport::Shm)
    variants = {{Algorithm::Auto, 0}};
  bool shared = transport == Transport::Shm;
  SharedPool srcPool, dstPool;
  uint64_t shmCopies = 0, shmFallbacks = 0;
  for (int i = first; i < argc; ++i) {
    auto file = llvm::MemoryBuffer::getFile(argv[i]);
    if (!file) {
      if (rank == 0)
        std::fprintf(stderr, "mapc-mpi-check: cannot read '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    llvm::SourceMgr srcMgr;
    unsigned id = srcMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
    Diagnostics diags(srcMgr, rank == 0 ? llvm::errs() : llvm::nulls());
    ast::Program ast = parseMap(id, diags);
    Program program = analyze(ast, diags);
    if (diags.hadError()) {
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ++programs;
    for (const Statement &st : program.statements) {
      rt::RemapSpec spec = remapSpecOf(program, st);
      ++statements;
      BlockDistribution sd = distributionOf(spec.source, ranks);
      BlockDistribution dd = distributionOf(spec.dest, ranks);
      unsigned eb = spec.elementBytes;
      uint64_t tag = statements;
      std::vector<Variant> chosen = variants;
      if (!all && variants.size() > 1)
        chosen = {variants[0],
                  variants[1 + statements % (variants.size() - 1)]};
      for (Variant v : chosen) {
        MpiOptions options;
        options.algorithm = v.algorithm;
        options.radix = v.radix;
        // Forced algorithms travel as messages anyway.
        options.transport = transport;
        auto planned = MpiRemap::plan(spec, MPI_COMM_WORLD, options, costs);
        std::string name =
            transport == Transport::Cma || transport == Transport::Shm
                ? transportName(transport)
                : algorithmName(v.algorithm);
        if (v.radix)
          name += "(r=" + std::to_string(v.radix) + ")";
        if (auto *why = std::get_if<std::string>(&planned)) {
          ++failures;
          if (rank == 0)
            std::printf("%s: %s: %s: plan failed: %s\n", argv[i],
                        spec.label.c_str(), name.c_str(), why->c_str());
          continue;
        }
        MpiRemap &remap = std::get<MpiRemap>(planned);
        std::vector<unsigned char> src(size_t(remap.sourceCells()) * eb),
            dst(size_t(remap.destCells()) * eb, 0xA5);
        if (inPlace) {
          src.resize(std::max(src.size(), dst.size()), 0xA5);
          storeLocalPattern(spec.source, sd, rank, eb, tag, src.data());
          dst = src;
        } else {
          storeLocalPattern(spec.source, sd, rank, eb, tag, src.data());
        }
        unsigned char *in = inPlace ? dst.data() : src.data();
        if (shared) {
          // The same bytes, moved into the shared windows.
          unsigned char *d = dstPool.get(dst.size());
          std::copy(dst.begin(), dst.end(), d);
          if (!inPlace) {
            unsigned char *s = srcPool.get(src.size());
            std::copy(src.begin(), src.end(), s);
            in = s;
          } else {
            in = d;
          }
        }
        unsigned char *out = shared ? dstPool.get(dst.size()) : dst.data();
        int ran = remap.execute(in, out), allRan = 0;
        if (shared) {
          std::copy(out, out + dst.size(), dst.begin());
          shmCopies += remap.lastTimes().shmCopies;
          shmFallbacks += remap.lastTimes().shmFallbacks;
        }
        uint64_t bad = countLocalMismatches(spec.dest, dd, rank, eb, tag,
                                            dst.data()),
                 allBad = 0;
        MPI_Allreduce(&ran, &allRan, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&bad, &allBad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (allRan && !allBad)
          ++verified;
        else {
          ++failures;
          if (rank == 0)
            std::printf("%s: %s: %s (chosen %s): %llu of %lld elements "
                        "wrong%s\n",
                        argv[i], spec.label.c_str(), name.c_str(),
                        remap.chosen().name().c_str(),
                        (unsigned long long)allBad,
                        (long long)spec.dest.dataSize(),
                        allRan ? "" : ", MPI reported an error");
        }
      }
    }
  }
  if (rank == 0)
    std::printf("%u programs, %u statements, %u executions verified on %d "
                "ranks, %u failures\n",
                programs, statements, verified, ranks, failures);
  srcPool.release();
  dstPool.release();
  if (shared) {
    uint64_t mine[2] = {shmCopies, shmFallbacks}, sum[2] = {0, 0};
    MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("shm: %s senders' sources copied out of windows, %llu "
                  "read with process_vm_readv\n",
                  sum[0] ? "some" : "no", (unsigned long long)sum[1]);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
