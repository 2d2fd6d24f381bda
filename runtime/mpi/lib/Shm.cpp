//===- Shm.cpp - copies out of MPI-3 shared-memory windows ----------------===//
#include "mapc/mpi/Shm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <unistd.h>

using namespace mapc::mpi;

namespace {

/// One rank's buffer of a window: where its owner sees it (the address the
/// owner posts) and where this process sees it.
struct Part {
  int64_t pid = 0;
  uint64_t base = 0;
  size_t bytes = 0;
  const unsigned char *mapped = nullptr;
};

struct Window {
  MPI_Win win = MPI_WIN_NULL;
  MPI_Comm node = MPI_COMM_NULL;
  unsigned char *base = nullptr;
  size_t bytes = 0;
  std::vector<Part> parts;
};

/// The windows of allocShared() not yet freed.
std::vector<std::unique_ptr<Window>> &windows() {
  static std::vector<std::unique_ptr<Window>> all;
  return all;
}

} // namespace

void *mapc::mpi::allocShared(size_t bytes, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  auto w = std::make_unique<Window>();
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                      &w->node);
  // Every rank's part on its own pages: page-aligned, as the other buffers
  // of the benchmark (a transpose's runs straddle pages otherwise).
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  size_t page = size_t(std::max(4096L, sysconf(_SC_PAGESIZE)));
  size_t rounded = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  void *base = nullptr;
  int rc = MPI_Win_allocate_shared(MPI_Aint(rounded), 1, info, w->node, &base,
                                   &w->win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS || !base) {
    MPI_Comm_free(&w->node);
    return nullptr;
  }
  w->base = static_cast<unsigned char *>(base);
  w->bytes = rounded;
  std::memset(base, 0, rounded); // first touched by its owner
  int nodeRanks = 1;
  MPI_Comm_size(w->node, &nodeRanks);
  int64_t mine[3] = {int64_t(getpid()),
                     int64_t(reinterpret_cast<uintptr_t>(base)),
                     int64_t(rounded)};
  std::vector<int64_t> all(size_t(nodeRanks) * 3);
  MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, w->node);
  for (int q = 0; q < nodeRanks; ++q) {
    MPI_Aint size = 0;
    int unit = 1;
    void *at = nullptr;
    MPI_Win_shared_query(w->win, q, &size, &unit, &at);
    w->parts.push_back({all[size_t(q) * 3], uint64_t(all[size_t(q) * 3 + 1]),
                        size_t(all[size_t(q) * 3 + 2]),
                        static_cast<const unsigned char *>(at)});
  }
  windows().push_back(std::move(w));
  return base;
}

void mapc::mpi::freeShared(void *buffer) {
  if (!buffer)
    return;
  auto &all = windows();
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const auto &w) { return w->base == buffer; });
  if (it == all.end())
    return;
  MPI_Win_free(&(*it)->win);
  MPI_Comm_free(&(*it)->node);
  all.erase(it);
}

bool mapc::mpi::inSharedWindow(const void *p, size_t bytes) {
  auto at = reinterpret_cast<uintptr_t>(p);
  for (const auto &w : windows()) {
    auto b = reinterpret_cast<uintptr_t>(w->base);
    if (at >= b && at < b + w->bytes && bytes <= b + w->bytes - at)
      return true;
  }
  return false;
}

const unsigned char *mapc::mpi::sharedView(int64_t pid, uint64_t address,
                                           size_t bytes) {
  for (const auto &w : windows())
    for (const Part &p : w->parts)
      if (p.pid == pid && address >= p.base && address < p.base + p.bytes &&
          bytes <= p.base + p.bytes - address)
        return p.mapped + (address - p.base);
  return nullptr;
}

void mapc::mpi::shmCopy(const unsigned char *remote, unsigned char *local,
                        const CmaReads &reads, unsigned elementBytes) {
  const std::vector<CmaRun> &from = reads.source, &into = reads.dest;
  size_t eb = elementBytes;
  size_t ri = 0, li = 0;
  uint64_t rUsed = 0, lUsed = 0;
  while (ri < from.size() && li < into.size()) {
    // A transpose's destination runs are a few KiB, apart: fetch the next
    // one's first lines while this one is copied (as copyLocal does).
    if (lUsed == 0 && li + 1 < into.size()) {
      size_t bytes = std::min<size_t>(size_t(into[li + 1].cells) * eb, 4096);
      const unsigned char *at = local + size_t(into[li + 1].start) * eb;
      if (bytes >= 256)
        for (size_t b = 0; b < bytes; b += 64)
          __builtin_prefetch(at + b, 1, 3);
    }
    uint64_t cells = std::min(from[ri].cells - rUsed, into[li].cells - lUsed);
    std::memcpy(local + (into[li].start + lUsed) * eb,
                remote + (from[ri].start + rUsed) * eb, cells * eb);
    if ((rUsed += cells) == from[ri].cells) {
      ++ri;
      rUsed = 0;
    }
    if ((lUsed += cells) == into[li].cells) {
      ++li;
      lUsed = 0;
    }
  }
}

bool mapc::mpi::oneNode(MPI_Comm comm) { return cmaInfo(comm).oneNode; }

bool mapc::mpi::measureShmCosts(MPI_Comm comm, LinkCosts &c) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2 || !oneNode(comm))
    return false;
  constexpr uint32_t kBig = 1 << 20;
  auto *mine = static_cast<unsigned char *>(allocShared(kBig, comm));
  int ok = mine != nullptr, allOk = 0;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm);
  if (!allOk) {
    freeShared(mine);
    return false;
  }
  std::memset(mine, 7, kBig);
  uint64_t address = reinterpret_cast<uintptr_t>(mine);
  std::vector<uint64_t> addresses(static_cast<size_t>(size));
  MPI_Allgather(&address, 1, MPI_UINT64_T, addresses.data(), 1, MPI_UINT64_T,
                comm);
  int peer = (rank + 1) % size;
  const unsigned char *from = sharedView(cmaInfo(comm).pids[size_t(peer)],
                                         addresses[size_t(peer)], kBig);
  ok = from != nullptr;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm);
  std::vector<unsigned char> into(kBig);
  // As measureCmaCosts: every rank copies at once (the ranks share caches,
  // and beyond the cores the cores), each try until the slowest is done.
  auto best = [&](const CmaReads &reads) {
    double t = 1e30;
    for (int k = 0; k < 7; ++k) {
      MPI_Barrier(comm);
      double t0 = MPI_Wtime();
      shmCopy(from, into.data(), reads, 1);
      double mine = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      t = std::min(t, slowest);
    }
    return t;
  };
  if (allOk) {
    double one = best({{{0, 8}}, {{0, 8}}});
    double big = best({{{0, kBig}}, {{0, kBig}}});
    CmaReads spread;
    for (uint32_t k = 0; k < 1024; ++k)
      spread.source.push_back({k * 128, 64});
    spread.dest = {{0, 65536}};
    double pieces = best(spread);
    c.tsh = std::max(1e-13, (big - one) / double(kBig));
    c.tshrun = std::max(1e-11, (pieces - one - c.tsh * 65536) / 1023);
  }
  // No rank frees its part while another may still copy from it.
  MPI_Barrier(comm);
  freeShared(mine);
  return allOk;
}

void *mapc_mpi_alloc_shared(size_t bytes, MPI_Comm comm) {
  return allocShared(bytes, comm);
}

void mapc_mpi_free_shared(void *buffer) { freeShared(buffer); }
