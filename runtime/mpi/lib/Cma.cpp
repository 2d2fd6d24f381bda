//===- Cma.cpp - single-copy reads between ranks on one node --------------===//
#include "mapc/mpi/Cma.h"
#include "mapc/mpi/Schedule.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#ifdef __linux__
#include <sys/uio.h>
#include <unistd.h>
#endif

using namespace mapc::mpi;

namespace {

int deleteInfo(MPI_Comm, int, void *value, void *) {
  delete static_cast<CmaInfo *>(value);
  return MPI_SUCCESS;
}

#ifdef __linux__
/// One process_vm_readv of `n` iovecs each side; the bytes it must return.
bool readBatch(int64_t pid, const iovec *local, size_t nl, const iovec *remote,
               size_t nr, size_t bytes, std::string *why) {
  ssize_t got = process_vm_readv(pid_t(pid), local, nl, remote, nr, 0);
  if (got == ssize_t(bytes))
    return true;
  if (why)
    *why = got < 0
               ? std::string("process_vm_readv failed: ") + std::strerror(errno)
               : "process_vm_readv read " + std::to_string(got) + " of " +
                     std::to_string(bytes) + " bytes";
  return false;
}
#endif

/// This rank's probe: reads `peer`'s word at `address` and expects `want`.
bool probe(int64_t pid, uint64_t address, uint64_t want, std::string &why) {
#ifdef __linux__
  uint64_t got = 0;
  iovec l{&got, sizeof got}, r{reinterpret_cast<void *>(address), sizeof got};
  if (!readBatch(pid, &l, 1, &r, 1, sizeof got, &why))
    return false;
  if (got != want) {
    why = "process_vm_readv read the wrong word";
    return false;
  }
  return true;
#else
  (void)pid, (void)address, (void)want;
  why = "process_vm_readv is Linux's";
  return false;
#endif
}

} // namespace

const CmaInfo &mapc::mpi::cmaInfo(MPI_Comm comm) {
  static int keyval = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteInfo, &keyval, nullptr);
  void *cached = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, keyval, &cached, &found);
  if (found)
    return *static_cast<CmaInfo *>(cached);

  auto *info = new CmaInfo;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::string why;
  bool ok = true;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int nodeSize = 0;
  MPI_Comm_size(node, &nodeSize);
  MPI_Comm_free(&node);
  info->oneNode = nodeSize == size;
  if (nodeSize != size) {
    ok = false;
    why = "the ranks are on more than one node";
  }
  // Every rank publishes its pid and a word that the next rank reads.
  volatile uint64_t word = 0x6d61706300000000ull | uint64_t(rank);
  int64_t mine[2] = {0, int64_t(reinterpret_cast<uintptr_t>(&word))};
#ifdef __linux__
  mine[0] = int64_t(getpid());
#endif
  std::vector<int64_t> all(size_t(size) * 2);
  MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm);
  info->pids.resize(size_t(size));
  for (int r = 0; r < size; ++r)
    info->pids[size_t(r)] = all[size_t(r) * 2];
  if (ok && size > 1) {
    int peer = (rank + 1) % size;
    ok = probe(all[size_t(peer) * 2], uint64_t(all[size_t(peer) * 2 + 1]),
               0x6d61706300000000ull | uint64_t(peer), why);
  }
  const char *hook = std::getenv("MAPC_MPI_TEST_CMA_FAIL");
  if (ok && hook && *hook && std::atoi(hook) == rank) {
    ok = false;
    why = std::string("process_vm_readv failed: ") + std::strerror(EPERM) +
          " (MAPC_MPI_TEST_CMA_FAIL)";
  }
  // The lowest failing rank's reason, on every rank. The reduction is also
  // the barrier that keeps `word` alive until every probe has read it.
  int in[2] = {ok ? 1 : 0, rank}, out[2] = {1, 0};
  MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, comm);
  info->usable = out[0] == 1;
  if (!info->usable) {
    char text[256] = {0};
    if (rank == out[1])
      std::snprintf(text, sizeof text, "rank %d: %s", rank, why.c_str());
    MPI_Bcast(text, sizeof text, MPI_CHAR, out[1], comm);
    info->why = text;
  }
  MPI_Comm_set_attr(comm, keyval, info);
  return *info;
}

bool mapc::mpi::cmaRead(int64_t pid, uint64_t remote, unsigned char *local,
                        const CmaReads &reads, unsigned elementBytes,
                        std::string *why) {
#ifdef __linux__
  const std::vector<CmaRun> &from = reads.source, &into = reads.dest;
  iovec r[kCmaBatch], l[kCmaBatch];
  size_t eb = elementBytes;
  // Cursors into both run lists: run ri (cells rUsed of it consumed), li.
  size_t ri = 0, li = 0;
  uint64_t rUsed = 0, lUsed = 0;
  while (ri < from.size() && li < into.size()) {
    size_t nr = 0, nl = 0, bytes = 0;
    bool rOpen = false, lOpen = false;
    // Each step moves the cells up to the nearer end of the two runs; a
    // run begun in this call is one iovec, however many steps it takes.
    while (ri < from.size() && li < into.size()) {
      if (!rOpen) {
        if (nr == size_t(kCmaBatch))
          break;
        r[nr++] = {
            reinterpret_cast<void *>(remote + (from[ri].start + rUsed) * eb),
            0};
        rOpen = true;
      }
      if (!lOpen) {
        if (nl == size_t(kCmaBatch)) {
          if (r[nr - 1].iov_len == 0)
            --nr;
          break;
        }
        l[nl++] = {local + (into[li].start + lUsed) * eb, 0};
        lOpen = true;
      }
      uint64_t cells = std::min(from[ri].cells - rUsed, into[li].cells - lUsed);
      r[nr - 1].iov_len += cells * eb;
      l[nl - 1].iov_len += cells * eb;
      bytes += cells * eb;
      if ((rUsed += cells) == from[ri].cells) {
        ++ri;
        rUsed = 0;
        rOpen = false;
      }
      if ((lUsed += cells) == into[li].cells) {
        ++li;
        lUsed = 0;
        lOpen = false;
      }
    }
    if (!readBatch(pid, l, nl, r, nr, bytes, why))
      return false;
  }
  return true;
#else
  (void)pid, (void)remote, (void)local, (void)reads, (void)elementBytes;
  if (why)
    *why = "process_vm_readv is Linux's";
  return false;
#endif
}

bool mapc::mpi::measureCmaCosts(MPI_Comm comm, LinkCosts &c) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const CmaInfo &info = cmaInfo(comm);
  if (size < 2 || !info.usable)
    return false;
  // Every rank reads the next rank's buffer at the same time, as every rank
  // reads in a remap: both ranks of a pair reading at once share the caches
  // and the memory bus, and ranks beyond the cores share the cores, so
  // costs measured by one rank reading alone would price the reads too low.
  constexpr uint32_t kBig = 1 << 20;
  std::vector<unsigned char> buffer(kBig, 7), into(kBig);
  uint64_t mine = reinterpret_cast<uintptr_t>(buffer.data());
  std::vector<uint64_t> addresses(size_t(size), 0);
  MPI_Allgather(&mine, 1, MPI_UINT64_T, addresses.data(), 1, MPI_UINT64_T,
                comm);
  int peer = (rank + 1) % size;
  int64_t pid = info.pids[size_t(peer)];
  uint64_t address = addresses[size_t(peer)];
  bool ok = true;
  // A system call's fixed cost: rank 0 alone reads 8 bytes of rank 1's,
  // the best of fifteen (reads started together would add their skew).
  double call = 1e30;
  if (rank == 0)
    for (int k = 0; k < 15; ++k) {
      double t0 = MPI_Wtime();
      ok &=
          cmaRead(pid, address, into.data(), {{{0, 8}}, {{0, 8}}}, 1, nullptr);
      call = std::min(call, MPI_Wtime() - t0);
    }
  MPI_Bcast(&call, 1, MPI_DOUBLE, 0, comm);
  // The others: each try starts together and lasts until the slowest rank
  // is done (a rank that waited for a core counts its wait); the best of
  // seven, since the machine may be shared.
  auto best = [&](const CmaReads &reads) {
    double t = 1e30;
    for (int k = 0; k < 7; ++k) {
      MPI_Barrier(comm);
      double t0 = MPI_Wtime();
      ok &= cmaRead(pid, address, into.data(), reads, 1, nullptr);
      double mine = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      t = std::min(t, slowest);
    }
    return t;
  };
  double one = best({{{0, 8}}, {{0, 8}}});
  double big = best({{{0, kBig}}, {{0, kBig}}});
  // 64 KiB as 1024 runs of 64 bytes, 128 bytes apart, on one side.
  CmaReads spread, whole{{{0, 65536}}, {{0, 65536}}};
  for (uint32_t k = 0; k < 1024; ++k)
    spread.source.push_back({k * 128, 64});
  spread.dest = whole.dest;
  double sourceRuns = best(spread);
  spread.dest = spread.source;
  spread.source = whole.source;
  double destRuns = best(spread);
  // Every rank agrees whether all reads worked; the reduction also keeps
  // every buffer alive until every rank has finished reading.
  int good = ok, allGood = 0;
  MPI_Allreduce(&good, &allGood, 1, MPI_INT, MPI_MIN, comm);
  if (!allGood)
    return false;
  c.tcall = call;
  c.tr = std::max(1e-13, (big - one) / double(kBig));
  c.tseg = std::max(1e-10, (sourceRuns - one - c.tr * 65536) / 1023);
  c.tpiece = std::max(1e-11, (destRuns - one - c.tr * 65536) / 1023);
  return true;
}
