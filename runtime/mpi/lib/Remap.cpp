//===- Remap.cpp - pack, exchange, unpack over MPI ranks ------------------===//
#include "mapc/mpi/Remap.h"
#include "mapc/runtime/Contents.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <new>

#include <unistd.h>

using namespace mapc;
using namespace mapc::mpi;

namespace {

/// Where a block lies on this rank: buffer 0 holds what this rank packs,
/// buffer s + 1 what step s receives.
struct Place {
  unsigned buffer = 0;
  uint64_t offset = 0;
};

/// One message as execute() posts it.
struct Wire {
  int peer = -1;
  unsigned buffer = 0; ///< where it is sent from or received into
  /// kSrcBuffer or kDstBuffer: the cells themselves, through this type.
  MPI_Datatype type = MPI_DATATYPE_NULL;
  uint64_t offset = 0, bytes = 0;
  /// Sends whose blocks are not contiguous: the pieces gathered into the
  /// pack buffer at `offset` first (004's packing of forwarded blocks).
  std::vector<std::pair<Place, uint64_t>> pieces;
};

struct WireStep {
  std::vector<Wire> sends, recvs;
  int tag = 0; ///< from the step's number before pruning: alike on all ranks
};

constexpr unsigned kPackBuffer = ~0u;
constexpr unsigned kSrcBuffer = ~0u - 1;
constexpr unsigned kDstBuffer = ~0u - 2;
constexpr int kTagBase = 0x4d50; // "MP"
// The single-copy transport's two messages.
constexpr int kTagAddress = kTagBase + 4096;
constexpr int kTagDone = kTagBase + 4097;

/// Element moves by element size, so the compiler copies words, not bytes.
template <unsigned N> struct Cell { unsigned char b[N]; };

template <unsigned N>
void gatherN(unsigned char *out, const unsigned char *in, const uint32_t *idx,
             size_t n) {
  auto *o = reinterpret_cast<Cell<N> *>(out);
  for (size_t k = 0; k < n; ++k)
    std::memcpy(&o[k], in + size_t(idx[k]) * N, N);
}

template <unsigned N>
void scatterN(unsigned char *out, const unsigned char *in, const uint32_t *idx,
              size_t n) {
  for (size_t k = 0; k < n; ++k)
    std::memcpy(out + size_t(idx[k]) * N, in + k * N, N);
}

/// Local cell offsets in packing order: as runs of consecutive cells when
/// the runs are long enough to pay (a memcpy, or one piece of an MPI
/// datatype, per run), else one offset per element.
struct IndexList {
  std::vector<uint32_t> idx;
  std::vector<std::pair<uint32_t, uint32_t>> runs; ///< start, length
  size_t count = 0;
  bool useRuns = false;

  void push(uint32_t x) {
    idx.push_back(x);
    ++count;
  }
  bool empty() const { return count == 0; }
  size_t size() const { return count; }
  /// Runs of at least 4 elements on average replace the offsets.
  void finish() {
    for (size_t k = 0; k < idx.size(); ++k)
      if (!runs.empty() && runs.back().first + runs.back().second == idx[k])
        ++runs.back().second;
      else
        runs.push_back({idx[k], 1});
    useRuns = runs.size() * 4 <= count;
    if (useRuns)
      idx = {};
    else
      runs = {};
  }
};

void gather(unsigned char *out, const unsigned char *in, const IndexList &l,
            unsigned eb) {
  if (l.useRuns) {
    for (auto [start, len] : l.runs) {
      std::memcpy(out, in + size_t(start) * eb, size_t(len) * eb);
      out += size_t(len) * eb;
    }
    return;
  }
  size_t n = l.idx.size();
  switch (eb) {
  case 1:
    return gatherN<1>(out, in, l.idx.data(), n);
  case 2:
    return gatherN<2>(out, in, l.idx.data(), n);
  case 4:
    return gatherN<4>(out, in, l.idx.data(), n);
  case 8:
    return gatherN<8>(out, in, l.idx.data(), n);
  case 16:
    return gatherN<16>(out, in, l.idx.data(), n);
  default:
    for (size_t k = 0; k < n; ++k)
      std::memcpy(out + k * eb, in + size_t(l.idx[k]) * eb, eb);
  }
}

void scatter(unsigned char *out, const unsigned char *in, const IndexList &l,
             unsigned eb) {
  if (l.useRuns) {
    for (auto [start, len] : l.runs) {
      std::memcpy(out + size_t(start) * eb, in, size_t(len) * eb);
      in += size_t(len) * eb;
    }
    return;
  }
  size_t n = l.idx.size();
  switch (eb) {
  case 1:
    return scatterN<1>(out, in, l.idx.data(), n);
  case 2:
    return scatterN<2>(out, in, l.idx.data(), n);
  case 4:
    return scatterN<4>(out, in, l.idx.data(), n);
  case 8:
    return scatterN<8>(out, in, l.idx.data(), n);
  case 16:
    return scatterN<16>(out, in, l.idx.data(), n);
  default:
    for (size_t k = 0; k < n; ++k)
      std::memcpy(out + size_t(l.idx[k]) * eb, in + k * eb, eb);
  }
}

/// An MPI datatype over a list's runs (bytes from the buffer's start), so
/// that MPI reads or writes the cells in place: no pack, no unpack.
MPI_Datatype runsType(const IndexList &l, unsigned eb) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  for (auto [start, len] : l.runs) {
    lengths.push_back(int(len * eb));
    displacements.push_back(MPI_Aint(start) * eb);
  }
  MPI_Datatype t;
  MPI_Type_create_hindexed(int(lengths.size()), lengths.data(),
                           displacements.data(), MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

/// The sorted destination addresses of data index `d`.
void destAddresses(const rt::DeviceLayout &dest, int64_t d,
                   std::vector<int64_t> &out) {
  out.clear();
  dest.addressesOf(d, out);
  if (out.size() > 1)
    std::sort(out.begin(), out.end());
}

/// Of the copies of a replicated source's element (`copies`, from
/// addressesOf), the one destination cell `b` reads: the first copy on b's
/// own rank, so that copies the ranks already hold stay local (HPF's
/// A(i, *) redistributed with its template), else the first copy (003
/// 6.2.1). Sender and receiver both call it, so they agree on every
/// element.
int64_t copyFor(const std::vector<int64_t> &copies, const BlockDistribution &s,
                const BlockDistribution &t, int64_t b) {
  const int q = t.rankOf(b);
  int64_t best = -1, first = -1;
  for (int64_t a : copies) {
    if (first < 0 || a < first)
      first = a;
    if (s.rankOf(a) == q && (best < 0 || a < best))
      best = a;
  }
  return best >= 0 ? best : first;
}

} // namespace

struct MpiRemap::Impl {
  rt::RemapSpec spec;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, ranks = 1;
  BlockDistribution srcDist, dstDist;
  TrafficMatrix traffic;
  LinkCosts costs;
  Prediction chosen;
  std::vector<Prediction> predictions;

  /// Local offsets: what this rank sends each rank, in packing order; where
  /// what each rank sends it lands; the pairs that stay.
  std::vector<IndexList> sendIdx, recvIdx;
  std::vector<uint32_t> selfSrc, selfDst;
  /// Runs of cells that stay: source start, destination start, length.
  std::vector<std::array<uint32_t, 3>> selfRuns;
  size_t selfCount = 0;
  /// Peers whose elements MPI reads or writes in place (pairwise, mpich).
  std::vector<char> sendDirect, recvDirect;
  std::vector<MPI_Datatype> types;

  /// The single-copy transport: the runs read from each origin rank (in
  /// its source cells and this rank's destination cells), the ranks that
  /// read from this one and those it reads from, their process ids.
  bool cma = false;
  /// The shm transport (the same reads, copied out of shared windows), and
  /// whether process_vm_readv can stand in for a source in no window.
  bool shm = false, cmaUsable = false;
  std::vector<CmaReads> cmaReads;
  std::vector<int> cmaReaders, cmaOrigins;
  std::vector<int64_t> pids;
  std::vector<uint64_t> peerAddress;
  std::vector<MPI_Request> addressRequests;
  /// Runs of each origin's block (TrafficMatrix::sourceRuns, destRuns),
  /// from build().
  std::vector<int64_t> recvSourceRuns, recvDestRuns;
  /// The source copied aside when execute() works in place.
  std::vector<unsigned char> scratch;
  ExecuteTimes times;
  /// Whether execute() reads the CPU clock too (setCpuTimes).
  bool cpuTimes = false;
  double cpuNow() const;

  ~Impl() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      for (MPI_Datatype &t : types)
        MPI_Type_free(&t);
  }

  std::vector<std::vector<unsigned char>> buffers; ///< 0: packed blocks
  std::vector<unsigned char> pack;
  std::vector<uint64_t> packOffset; ///< in buffer 0, per destination rank
  std::vector<Place> finalPlace;    ///< per origin rank: block (o, me)
  std::vector<WireStep> steps;
  // Alltoallv's arguments, in bytes.
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
  std::vector<MPI_Request> requests;

  std::string build();
  std::string layOut();
  std::string layOutCma();
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> arrivals() const;
  bool executeCma(const unsigned char *src, unsigned char *dst);
};

BlockDistribution mapc::mpi::distributionOf(const rt::DeviceLayout &l,
                                            int ranks) {
  return BlockDistribution(std::max<int64_t>(l.pes(), 1),
                           std::max<int64_t>(l.memory(), 1), ranks);
}

TrafficMatrix mapc::mpi::trafficOf(const rt::RemapSpec &spec, int ranks) {
  TrafficMatrix t;
  t.ranks = ranks;
  t.elementBytes = spec.elementBytes;
  t.counts.assign(size_t(ranks) * ranks, 0);
  BlockDistribution s = distributionOf(spec.source, ranks);
  BlockDistribution d = distributionOf(spec.dest, ranks);
  t.sourceRuns.assign(size_t(ranks) * ranks, 0);
  t.destRuns.assign(size_t(ranks) * ranks, 0);
  // Sources in order and each element's destinations sorted are the
  // receiver's order (MpiRemap::Impl::arrivals).
  std::vector<int64_t> lastA(t.counts.size(), -2), lastB(t.counts.size(), -2);
  std::vector<int64_t> bs, copies;
  const bool replicated = spec.source.replicates();
  for (int64_t a = 0; a < spec.source.size(); ++a) {
    int64_t x = spec.source.dataAt(a);
    if (x < 0)
      continue;
    destAddresses(spec.dest, x, bs);
    if (replicated) {
      copies.clear();
      spec.source.addressesOf(x, copies);
    }
    for (int64_t b : bs) {
      if (replicated && copyFor(copies, s, d, b) != a)
        continue;
      size_t k = size_t(s.rankOf(a)) * ranks + d.rankOf(b);
      ++t.counts[k];
      t.sourceRuns[k] += a != lastA[k] + 1;
      t.destRuns[k] += b != lastB[k] + 1;
      lastA[k] = a;
      lastB[k] = b;
    }
  }
  return t;
}

Prediction mapc::mpi::chooseAlgorithm(const TrafficMatrix &t,
                                      const LinkCosts &c,
                                      const MpiOptions &options, bool cmaUsable,
                                      bool shmUsable) {
  if (options.transport == Transport::Cma)
    return predict(Algorithm::Cma, 0, t, c);
  if (options.transport == Transport::Shm)
    return predict(Algorithm::Shm, 0, t, c);
  bool any = options.transport == Transport::Auto;
  switch (options.algorithm) {
  case Algorithm::Auto:
    return predictAll(t, c, cmaUsable && any, shmUsable && any).front();
  case Algorithm::Bruck: {
    if (options.radix)
      return predict(Algorithm::Bruck, options.radix, t, c);
    Prediction best = predict(Algorithm::Bruck, 2, t, c);
    for (int r = 3; r <= t.ranks && r <= kMaxTriedRadix; ++r) {
      Prediction p = predict(Algorithm::Bruck, unsigned(r), t, c);
      if (p.seconds < best.seconds)
        best = p;
    }
    return best;
  }
  default:
    return predict(options.algorithm, 0, t, c);
  }
}

/// Tq: when this node runs more of the ranks than it has cores, a barrier
/// of every rank (the median of 61), else 0. Collective.
static double measureOversubscription(MPI_Comm comm) {
  MPI_Comm node;
  int rank = 0, nodeRanks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &nodeRanks);
  MPI_Comm_free(&node);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int over = cores > 0 && nodeRanks > cores, anyOver = 0;
  MPI_Allreduce(&over, &anyOver, 1, MPI_INT, MPI_MAX, comm);
  if (!anyOver)
    return 0;
  // The median of single barriers: a mean would count every time another
  // program took the core.
  std::vector<double> times(61);
  MPI_Barrier(comm);
  for (double &t : times) {
    double t0 = MPI_Wtime();
    MPI_Barrier(comm);
    t = MPI_Wtime() - t0;
  }
  std::nth_element(times.begin(), times.begin() + 30, times.end());
  double best = times[30];
  // Rank 0's, so that every rank prices alike.
  MPI_Bcast(&best, 1, MPI_DOUBLE, 0, comm);
  return best;
}

LinkCosts mapc::mpi::measureLinkCosts(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double values[4] = {0, 0, 0, 0};
  using Clock = std::chrono::steady_clock;
  if (rank == 0) { // Tc: a 4 MiB memcpy, best of three
    std::vector<unsigned char> a(4 << 20, 1), b(4 << 20);
    double best = 1e30;
    for (int k = 0; k < 3; ++k) {
      auto t0 = Clock::now();
      std::memcpy(b.data(), a.data(), a.size());
      best = std::min(best,
                      std::chrono::duration<double>(Clock::now() - t0).count());
      a[k] = b[k + 1]; // keep the copy
    }
    values[2] = best / double(a.size());
  }
  if (size > 1 && rank < 2) {
    auto roundTrip = [&](size_t bytes, int rounds) {
      std::vector<unsigned char> buf(bytes, 0);
      int peer = 1 - rank;
      double best = 1e30;
      for (int pass = 0; pass < 3; ++pass) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < rounds; ++k) {
          if (rank == 0) {
            MPI_Send(buf.data(), int(bytes), MPI_BYTE, peer, kTagBase, comm);
            MPI_Recv(buf.data(), int(bytes), MPI_BYTE, peer, kTagBase, comm,
                     MPI_STATUS_IGNORE);
          } else {
            MPI_Recv(buf.data(), int(bytes), MPI_BYTE, peer, kTagBase, comm,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf.data(), int(bytes), MPI_BYTE, peer, kTagBase, comm);
          }
        }
        best = std::min(best, (MPI_Wtime() - t0) / (2.0 * rounds));
      }
      return best;
    };
    // 8 messages posted at once one way, one back.
    auto burst = [&](int rounds) {
      constexpr int kBurst = 8;
      std::vector<unsigned char> buf(8 * kBurst, 0);
      MPI_Request req[kBurst];
      double best = 1e30;
      for (int pass = 0; pass < 3; ++pass) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < rounds; ++k) {
          int peer = 1 - rank;
          for (int j = 0; j < kBurst; ++j)
            if (rank == 0)
              MPI_Isend(buf.data() + 8 * j, 8, MPI_BYTE, peer, kTagBase + 1,
                        comm, &req[j]);
            else
              MPI_Irecv(buf.data() + 8 * j, 8, MPI_BYTE, peer, kTagBase + 1,
                        comm, &req[j]);
          MPI_Waitall(kBurst, req, MPI_STATUSES_IGNORE);
          if (rank == 0)
            MPI_Recv(buf.data(), 8, MPI_BYTE, peer, kTagBase, comm,
                     MPI_STATUS_IGNORE);
          else
            MPI_Send(buf.data(), 8, MPI_BYTE, peer, kTagBase, comm);
        }
        best = std::min(best, (MPI_Wtime() - t0) / rounds);
      }
      return best;
    };
    // Best of several tries: the machine may be shared.
    double small = 1e30, large = 1e30, many = 1e30;
    for (int k = 0; k < 3; ++k) {
      small = std::min(small, roundTrip(8, 200));
      large = std::min(large, roundTrip(1 << 20, 8));
      many = std::min(many, burst(100));
    }
    values[0] = small;
    values[1] = std::max(1e-13, (large - small) / double(1 << 20));
    values[3] = std::max(0.0, (many - 2 * small) / 7);
  }
  // The single-copy transport's reads, when the ranks can use it.
  LinkCosts measured;
  double cma[5] = {0, 0, 0, 0, 0};
  if (size > 1 && cmaInfo(comm).usable && measureCmaCosts(comm, measured)) {
    cma[0] = measured.tr;
    cma[1] = measured.tseg;
    cma[2] = measured.tcall;
    cma[3] = 1;
    cma[4] = measured.tpiece;
  }
  MPI_Bcast(values, 4, MPI_DOUBLE, 0, comm);
  MPI_Bcast(cma, 5, MPI_DOUBLE, 0, comm);
  LinkCosts c;
  if (size > 1) {
    c.ts = values[0];
    c.tw = values[1];
    c.to = values[3];
  }
  if (cma[3] != 0) {
    c.tr = cma[0];
    c.tseg = cma[1];
    c.tcall = cma[2];
    c.tpiece = cma[4];
  }
  // The shared-memory copies, when the ranks share a node (the same on
  // every rank: each try is the slowest rank's).
  measureShmCosts(comm, c);
  c.tc = std::max(1e-13, values[2]);
  c.tq = measureOversubscription(comm);
  return c;
}

namespace {
/// The attribute key of linkCostsOf's costs; created on first use.
int linkCostsKey = MPI_KEYVAL_INVALID;

int deleteLinkCosts(MPI_Comm, int, void *value, void *) {
  delete static_cast<LinkCosts *>(value);
  return MPI_SUCCESS;
}
} // namespace

const LinkCosts &mapc::mpi::linkCostsOf(MPI_Comm comm) {
  if (linkCostsKey == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteLinkCosts,
                           &linkCostsKey, nullptr);
  void *value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, linkCostsKey, &value, &found);
  if (found)
    return *static_cast<LinkCosts *>(value);
  auto *costs = new LinkCosts(measureLinkCosts(comm));
  MPI_Comm_set_attr(comm, linkCostsKey, costs);
  return *costs;
}

/// Parses `name=S` items separated by commas into `fields` (each once,
/// seconds of 0 or more); `hint` lists the names for the error.
static std::string parseCosts(
    const std::string &text,
    const std::vector<std::pair<const char *, std::optional<double> *>> &fields,
    const char *hint) {
  size_t n = fields.size();
  std::vector<bool> seen(n, false);
  std::vector<double> values(n, 0);
  size_t at = 0;
  do {
    size_t end = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, end - at);
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    size_t k = 0;
    while (k < n && key != fields[k].first)
      ++k;
    if (eq == std::string::npos || k == n)
      return "'" + item + "' is not a cost; write " + hint +
             ", separated by commas";
    if (seen[k])
      return std::string(fields[k].first) + " is given twice";
    seen[k] = true;
    std::string number = item.substr(eq + 1);
    char *stop = nullptr;
    double v = number.empty() ? -1 : std::strtod(number.c_str(), &stop);
    if (number.empty() || *stop != '\0' || !(v >= 0) || !std::isfinite(v))
      return std::string(fields[k].first) + " must be a time of 0 seconds " +
             "or more, not '" + number + "'";
    values[k] = v;
    at = end + 1;
  } while (at <= text.size());
  for (size_t k = 0; k < n; ++k)
    if (seen[k])
      *fields[k].second = values[k];
  return "";
}

std::string mapc::mpi::parseCmaCosts(const std::string &text,
                                     MpiOptions &options) {
  return parseCosts(text,
                    {{"tr", &options.tr},
                     {"tseg", &options.tseg},
                     {"tpiece", &options.tpiece},
                     {"tcall", &options.tcall}},
                    "tr=S, tseg=S, tpiece=S or tcall=S");
}

std::string mapc::mpi::parseShmCosts(const std::string &text,
                                     MpiOptions &options) {
  return parseCosts(text, {{"tsh", &options.tsh}, {"tshrun", &options.tshrun}},
                    "tsh=S or tshrun=S");
}

LinkCosts mapc::mpi::withOverrides(LinkCosts c, const MpiOptions &o) {
  auto set = [](double &value, const std::optional<double> &given) {
    if (given)
      value = *given;
  };
  set(c.ts, o.ts);
  set(c.tw, o.tw);
  set(c.tc, o.tc);
  set(c.to, o.to);
  set(c.tr, o.tr);
  set(c.tseg, o.tseg);
  set(c.tpiece, o.tpiece);
  set(c.tcall, o.tcall);
  set(c.tq, o.tq);
  set(c.tsh, o.tsh);
  set(c.tshrun, o.tshrun);
  return c;
}

MpiRemap::MpiRemap(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
MpiRemap::MpiRemap(MpiRemap &&) noexcept = default;
MpiRemap &MpiRemap::operator=(MpiRemap &&) noexcept = default;
MpiRemap::~MpiRemap() = default;

/// This rank's element lists (no MPI). Returns an error or "".
std::string MpiRemap::Impl::build() {
  const rt::DeviceLayout &src = spec.source, &dst = spec.dest;
  if (srcDist.cells(rank) > int64_t(UINT32_MAX) ||
      dstDist.cells(rank) > int64_t(UINT32_MAX))
    return "a rank would hold more than 2^32 cells of one layout; use more "
           "ranks";
  sendIdx.assign(ranks, {});
  recvIdx.assign(ranks, {});
  int64_t s0 = srcDist.firstAddress(rank), s1 = s0 + srcDist.cells(rank);
  int64_t d0 = dstDist.firstAddress(rank);
  std::vector<int64_t> bs, copies;
  const bool replicated = src.replicates();
  for (int64_t a = s0; a < s1 && a < src.size(); ++a) {
    int64_t x = src.dataAt(a);
    if (x < 0)
      continue;
    destAddresses(dst, x, bs);
    if (replicated) {
      copies.clear();
      src.addressesOf(x, copies);
    }
    for (int64_t b : bs) {
      if (replicated && copyFor(copies, srcDist, dstDist, b) != a)
        continue;
      int q = dstDist.rankOf(b);
      if (q == rank) {
        selfSrc.push_back(uint32_t(a - s0));
        selfDst.push_back(uint32_t(b - d0));
      } else {
        sendIdx[q].push(uint32_t(a - s0));
      }
    }
  }
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> from = arrivals();
  recvSourceRuns.assign(ranks, 0);
  recvDestRuns.assign(ranks, 0);
  for (int p = 0; p < ranks; ++p) {
    auto &list = from[p];
    for (size_t k = 0; k < list.size(); ++k) {
      recvIdx[p].push(list[k].second);
      recvSourceRuns[p] += k == 0 || list[k].first != list[k - 1].first + 1;
      recvDestRuns[p] += k == 0 || list[k].second != list[k - 1].second + 1;
    }
    list = {};
  }
  for (int p = 0; p < ranks; ++p) {
    sendIdx[p].finish();
    recvIdx[p].finish();
  }
  // Cells that stay move as runs when they come in runs.
  selfCount = selfSrc.size();
  for (size_t k = 0; k < selfSrc.size(); ++k)
    if (!selfRuns.empty() &&
        selfRuns.back()[0] + selfRuns.back()[2] == selfSrc[k] &&
        selfRuns.back()[1] + selfRuns.back()[2] == selfDst[k])
      ++selfRuns.back()[2];
    else
      selfRuns.push_back({selfSrc[k], selfDst[k], 1});
  if (selfRuns.size() * 4 <= selfSrc.size()) {
    selfSrc = {};
    selfDst = {};
  } else {
    selfRuns = {};
  }
  return "";
}

/// What arrives from each rank p: (p's source address, this rank's
/// destination cell), in p's packing order (by source address, then by
/// destination address), which is also the order the single-copy transport
/// reads in.
std::vector<std::vector<std::pair<int64_t, uint32_t>>>
MpiRemap::Impl::arrivals() const {
  const rt::DeviceLayout &src = spec.source, &dst = spec.dest;
  int64_t d0 = dstDist.firstAddress(rank), d1 = d0 + dstDist.cells(rank);
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> from(ranks);
  std::vector<int64_t> copies;
  const bool replicated = src.replicates();
  for (int64_t b = d0; b < d1 && b < dst.size(); ++b) {
    int64_t x = dst.dataAt(b);
    if (x < 0)
      continue;
    int64_t a;
    if (replicated) {
      copies.clear();
      src.addressesOf(x, copies);
      a = copyFor(copies, srcDist, dstDist, b);
    } else {
      a = src.firstAddressOf(x);
    }
    int p = srcDist.rankOf(a);
    if (p != rank)
      from[p].push_back({a, uint32_t(b - d0)});
  }
  for (auto &list : from)
    if (!std::is_sorted(list.begin(), list.end()))
      std::sort(list.begin(), list.end());
  return from;
}

/// Appends cell `x` to `runs`, extending the last run when it is the next.
static void extend(std::vector<CmaRun> &runs, uint32_t x) {
  if (!runs.empty() && runs.back().start + runs.back().cells == x)
    ++runs.back().cells;
  else
    runs.push_back({x, 1});
}

/// The single-copy transport's reads (no MPI): from each origin, the runs
/// of its source cells and of this rank's destination cells, in order.
std::string MpiRemap::Impl::layOutCma() {
  cma = true;
  cmaReads.assign(ranks, {});
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> from = arrivals();
  for (int p = 0; p < ranks; ++p) {
    int64_t s0 = srcDist.firstAddress(p);
    CmaReads &reads = cmaReads[p];
    for (auto [a, b] : from[p]) {
      extend(reads.source, uint32_t(a - s0));
      extend(reads.dest, b);
    }
    from[p] = {};
    if (!reads.source.empty())
      cmaOrigins.push_back(p);
    if (p != rank && !sendIdx[p].empty())
      cmaReaders.push_back(p);
  }
  peerAddress.assign(ranks, 0);
  // The element lists of the messages are not needed.
  for (int p = 0; p < ranks; ++p) {
    sendIdx[p].idx = {};
    sendIdx[p].runs = {};
    recvIdx[p].idx = {};
    recvIdx[p].runs = {};
  }
  return "";
}

/// Buffers and messages for the chosen schedule (no MPI).
std::string MpiRemap::Impl::layOut() {
  if (chosen.algorithm == Algorithm::Cma)
    return layOutCma();
  if (chosen.algorithm == Algorithm::Shm) {
    shm = true;
    return layOutCma();
  }
  unsigned eb = spec.elementBytes;
  auto blockBytes = [&](int64_t id) {
    return uint64_t(traffic.counts[size_t(id)]) * eb;
  };
  auto tooLarge = [](uint64_t bytes) { return bytes > uint64_t(INT_MAX); };
  const char *tooLargeText = "a message would exceed 2 GiB; use more ranks";
  // Buffer 0: the blocks this rank packs, by destination rank.
  packOffset.assign(ranks, 0);
  uint64_t total = 0;
  for (int q = 0; q < ranks; ++q) {
    packOffset[q] = total;
    if (q != rank)
      total += uint64_t(sendIdx[q].size()) * eb;
  }
  buffers.assign(1, std::vector<unsigned char>(total));
  std::map<int64_t, Place> where;
  for (int q = 0; q < ranks; ++q)
    if (q != rank && !sendIdx[q].empty())
      where[int64_t(rank) * ranks + q] = Place{0, packOffset[q]};

  if (chosen.algorithm == Algorithm::Alltoallv) {
    sendCounts.assign(ranks, 0);
    sendDispls.assign(ranks, 0);
    recvCounts.assign(ranks, 0);
    recvDispls.assign(ranks, 0);
    uint64_t in = 0;
    for (int q = 0; q < ranks; ++q) {
      if (q == rank)
        continue;
      uint64_t out = uint64_t(sendIdx[q].size()) * eb;
      uint64_t got = uint64_t(recvIdx[q].size()) * eb;
      if (tooLarge(packOffset[q] + out) || tooLarge(in + got))
        return tooLargeText;
      sendCounts[q] = int(out);
      sendDispls[q] = int(packOffset[q]);
      recvCounts[q] = int(got);
      recvDispls[q] = int(in);
      in += got;
    }
    buffers.emplace_back(in);
    finalPlace.assign(ranks, Place{});
    for (int p = 0; p < ranks; ++p)
      finalPlace[p] = Place{1, uint64_t(recvDispls[p])};
    return "";
  }

  std::vector<Step> plan =
      schedule(chosen.algorithm, chosen.radix, ranks, rank);
  pruneEmpty(plan, traffic);
  // Pairwise and mpich send each block straight to its destination: when
  // its cells come in runs MPI reads and writes them in place through a
  // datatype, saving the pack and the unpack.
  bool direct = chosen.algorithm == Algorithm::Pairwise ||
                chosen.algorithm == Algorithm::Mpich;
  sendDirect.assign(ranks, 0);
  recvDirect.assign(ranks, 0);
  uint64_t packBytes = 0;
  for (size_t s = 0; s < plan.size(); ++s) {
    WireStep ws;
    ws.tag = kTagBase + int(plan[s].index % 4096);
    uint64_t stepPack = 0;
    for (const Message &m : plan[s].sends) {
      Wire w;
      w.peer = m.peer;
      for (int64_t id : m.blocks) {
        auto it = where.find(id);
        if (it == where.end())
          return "internal error: the schedule sends block " +
                 std::to_string(id) + " that rank " + std::to_string(rank) +
                 " does not hold";
        w.pieces.push_back({it->second, blockBytes(id)});
        w.bytes += blockBytes(id);
      }
      // One contiguous run needs no packing.
      bool contiguous = true;
      for (size_t k = 1; k < w.pieces.size(); ++k)
        contiguous &= w.pieces[k].first.buffer == w.pieces[0].first.buffer &&
                      w.pieces[k].first.offset ==
                          w.pieces[k - 1].first.offset + w.pieces[k - 1].second;
      int q = m.peer;
      if (direct && m.blocks.size() == 1 && sendIdx[q].useRuns) {
        w.buffer = kSrcBuffer;
        w.offset = 0;
        w.type = runsType(sendIdx[q], eb);
        types.push_back(w.type);
        w.pieces.clear();
        sendDirect[q] = 1;
      } else if (contiguous) {
        w.buffer = w.pieces[0].first.buffer;
        w.offset = w.pieces[0].first.offset;
        w.pieces.clear();
      } else {
        w.buffer = kPackBuffer;
        w.offset = stepPack;
        stepPack += w.bytes;
      }
      if (tooLarge(w.bytes))
        return tooLargeText;
      ws.sends.push_back(std::move(w));
    }
    packBytes = std::max(packBytes, stepPack);
    uint64_t in = 0;
    unsigned buffer = unsigned(buffers.size());
    for (const Message &m : plan[s].recvs) {
      Wire w;
      w.peer = m.peer;
      int p = m.peer;
      if (direct && m.blocks.size() == 1 && recvIdx[p].useRuns) {
        w.buffer = kDstBuffer;
        w.type = runsType(recvIdx[p], eb);
        types.push_back(w.type);
        w.bytes = blockBytes(m.blocks[0]);
        recvDirect[p] = 1;
        ws.recvs.push_back(std::move(w));
        continue;
      }
      w.buffer = buffer;
      w.offset = in;
      for (int64_t id : m.blocks) {
        where[id] = Place{buffer, in + w.bytes};
        w.bytes += blockBytes(id);
      }
      if (tooLarge(w.bytes))
        return tooLargeText;
      in += w.bytes;
      ws.recvs.push_back(std::move(w));
    }
    buffers.emplace_back(in);
    steps.push_back(std::move(ws));
  }
  pack.assign(packBytes, 0);
  finalPlace.assign(ranks, Place{});
  for (int p = 0; p < ranks; ++p) {
    if (p == rank || recvIdx[p].empty() || recvDirect[p])
      continue;
    auto it = where.find(int64_t(p) * ranks + rank);
    if (it == where.end())
      return "internal error: the schedule never delivers rank " +
             std::to_string(p) + "'s block to rank " + std::to_string(rank);
    finalPlace[p] = it->second;
  }
  return "";
}

std::variant<MpiRemap, std::string> MpiRemap::plan(const rt::RemapSpec &spec,
                                                   MPI_Comm comm,
                                                   const MpiOptions &options,
                                                   const LinkCosts &costs,
                                                   const void *source) {
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->comm = comm;
  impl->costs = withOverrides(costs, options);
  MPI_Comm_rank(comm, &impl->rank);
  MPI_Comm_size(comm, &impl->ranks);
  int R = impl->ranks;
  std::string error;
  if (spec.source.dataSize() != spec.dest.dataSize())
    error = "the two layouts map different data spaces (" +
            std::to_string(spec.source.dataSize()) + " and " +
            std::to_string(spec.dest.dataSize()) + " elements)";
  else if (spec.elementBytes == 0)
    error = "elements of 0 bytes";
  else if (!applicable(options.algorithm, options.radix, R, &error))
    ;
  else {
    impl->srcDist = distributionOf(spec.source, R);
    impl->dstDist = distributionOf(spec.dest, R);
    try {
      error = impl->build();
    } catch (const std::bad_alloc &) {
      error = "out of memory while planning";
    }
  }
  // Every rank learns whether all could plan before anything else.
  int ok = error.empty(), allOk = 0;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm);
  if (!allOk)
    return error.empty() ? std::string("another rank could not plan") : error;

  // The single-copy transport is a candidate when asked for, or when
  // nothing is forced and every rank can read every other (probed once per
  // communicator, agreed by all).
  // Auto weighs the copying transports against 004's algorithms.
  bool autoCopies = options.transport == Transport::Auto &&
                    options.algorithm == Algorithm::Auto && R > 1;
  bool considerCma = options.transport == Transport::Cma || autoCopies;
  bool considerShm = options.transport == Transport::Shm || autoCopies;
  bool cmaUsable = false, shmUsable = false;
  if (considerCma || considerShm) {
    const CmaInfo &info = cmaInfo(comm);
    cmaUsable = info.usable;
    if (options.transport == Transport::Cma && !cmaUsable)
      return "the single-copy transport (--mpi-transport=cma) cannot run "
             "here: " +
             info.why + "; use --mpi-transport=auto or messages";
    if (options.transport == Transport::Shm && !info.oneNode)
      return "the shared-memory transport (--mpi-transport=shm) cannot run "
             "here: the ranks are on more than one node; use "
             "--mpi-transport=auto or messages";
    impl->pids = info.pids;
    impl->cmaUsable = cmaUsable;
    // Auto prices shm only when every rank's source lies in a shared window
    // (a rank holding no source cells is read by nobody).
    size_t srcBytes =
        size_t(impl->srcDist.cells(impl->rank)) * spec.elementBytes;
    int mine = srcBytes == 0 || (source && inSharedWindow(source, srcBytes)),
        all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    shmUsable = info.oneNode && all && considerShm;
  }

  std::vector<int64_t> row(R);
  for (int q = 0; q < R; ++q)
    row[q] = q == impl->rank ? int64_t(impl->selfCount)
                             : int64_t(impl->sendIdx[q].size());
  TrafficMatrix &t = impl->traffic;
  t.ranks = R;
  t.elementBytes = spec.elementBytes;
  t.counts.assign(size_t(R) * R, 0);
  MPI_Allgather(row.data(), R, MPI_INT64_T, t.counts.data(), R, MPI_INT64_T,
                comm);
  if (cmaUsable || shmUsable || options.transport == Transport::Shm) {
    // Each rank knows the runs of what it receives: gathered by receiver,
    // stored by sender.
    std::vector<int64_t> mine(size_t(R) * 2), byReceiver(size_t(R) * R * 2);
    for (int o = 0; o < R; ++o) {
      mine[size_t(o) * 2] = impl->recvSourceRuns[size_t(o)];
      mine[size_t(o) * 2 + 1] = impl->recvDestRuns[size_t(o)];
    }
    MPI_Allgather(mine.data(), 2 * R, MPI_INT64_T, byReceiver.data(), 2 * R,
                  MPI_INT64_T, comm);
    t.sourceRuns.assign(size_t(R) * R, 0);
    t.destRuns.assign(size_t(R) * R, 0);
    for (int d = 0; d < R; ++d)
      for (int o = 0; o < R; ++o) {
        size_t k = (size_t(d) * R + o) * 2;
        t.sourceRuns[size_t(o) * R + d] = byReceiver[k];
        t.destRuns[size_t(o) * R + d] = byReceiver[k + 1];
      }
  }
  bool messagesOnly = options.transport == Transport::Messages;
  impl->predictions = predictAll(
      t, impl->costs, cmaUsable && !messagesOnly,
      (shmUsable || options.transport == Transport::Shm) && !messagesOnly);
  impl->chosen = chooseAlgorithm(t, impl->costs, options, cmaUsable, shmUsable);
  try {
    error = impl->layOut();
  } catch (const std::bad_alloc &) {
    error = "out of memory while planning";
  }
  ok = error.empty();
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm);
  if (!allOk)
    return error.empty() ? std::string("another rank could not plan") : error;
  return MpiRemap(std::move(impl));
}

/// This thread's CPU time in seconds, when asked for (setCpuTimes), else
/// 0 (and where there is no such clock).
double MpiRemap::Impl::cpuNow() const {
#ifdef CLOCK_THREAD_CPUTIME_ID
  timespec ts;
  if (cpuTimes && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
#endif
  return 0;
}

/// Copies the elements that stay on this rank.
static void copyLocal(const MpiRemap::Impl &m, const unsigned char *src,
                      unsigned char *dst);

bool MpiRemap::execute(const void *srcBuffer, void *dstBuffer) {
  Impl &m = *impl;
  unsigned eb = m.spec.elementBytes;
  const auto *src = static_cast<const unsigned char *>(srcBuffer);
  auto *dst = static_cast<unsigned char *>(dstBuffer);
  m.times = ExecuteTimes{};
  double t0 = MPI_Wtime(), c0 = m.cpuNow();
  // In place: every transport reads the source from a copy, so that no
  // element is overwritten (here or by a reader on another rank) before it
  // has been read.
  size_t srcBytes = size_t(m.srcDist.cells(m.rank)) * eb,
         dstBytes = size_t(m.dstDist.cells(m.rank)) * eb;
  auto s = reinterpret_cast<uintptr_t>(src),
       d = reinterpret_cast<uintptr_t>(dst);
  if (srcBytes && dstBytes && s < d + dstBytes && d < s + srcBytes) {
    m.scratch.resize(srcBytes);
    std::memcpy(m.scratch.data(), src, srcBytes);
    src = m.scratch.data();
  }
  if (m.cma)
    return m.executeCma(src, dst);
  unsigned char *packed = m.buffers[0].data();
  bool alltoallv = m.chosen.algorithm == Algorithm::Alltoallv;
  for (int q = 0; q < m.ranks; ++q)
    if (q != m.rank && !m.sendIdx[q].empty() && (alltoallv || !m.sendDirect[q]))
      gather(packed + m.packOffset[q], src, m.sendIdx[q], eb);
  double t1 = MPI_Wtime(), c1 = m.cpuNow();
  m.times.pack = t1 - t0;
  m.times.packCpu = c1 - c0;
  // What stays on this rank moves while nothing else can.
  copyLocal(m, src, dst);
  double t2 = MPI_Wtime(), c2 = m.cpuNow();
  m.times.local = t2 - t1;
  m.times.localCpu = c2 - c1;

  int rc = MPI_SUCCESS;
  if (alltoallv) {
    rc = MPI_Alltoallv(packed, m.sendCounts.data(), m.sendDispls.data(),
                       MPI_BYTE, m.buffers[1].data(), m.recvCounts.data(),
                       m.recvDispls.data(), MPI_BYTE, m.comm);
  } else {
    auto at = [&](unsigned buffer, uint64_t offset) {
      return (buffer == kPackBuffer ? m.pack.data()
                                    : m.buffers[buffer].data()) +
             offset;
    };
    for (size_t s = 0; s < m.steps.size() && rc == MPI_SUCCESS; ++s) {
      const WireStep &ws = m.steps[s];
      int tag = ws.tag;
      m.requests.clear();
      for (const Wire &w : ws.recvs) {
        m.requests.emplace_back();
        if (w.type != MPI_DATATYPE_NULL)
          rc |= MPI_Irecv(dst, 1, w.type, w.peer, tag, m.comm,
                          &m.requests.back());
        else
          rc |= MPI_Irecv(at(w.buffer, w.offset), int(w.bytes), MPI_BYTE,
                          w.peer, tag, m.comm, &m.requests.back());
      }
      for (const Wire &w : ws.sends) {
        uint64_t off = w.offset;
        for (const auto &piece : w.pieces) {
          std::memcpy(m.pack.data() + off,
                      at(piece.first.buffer, piece.first.offset), piece.second);
          off += piece.second;
        }
        m.requests.emplace_back();
        if (w.type != MPI_DATATYPE_NULL)
          rc |= MPI_Isend(src, 1, w.type, w.peer, tag, m.comm,
                          &m.requests.back());
        else
          rc |= MPI_Isend(at(w.buffer, w.offset), int(w.bytes), MPI_BYTE,
                          w.peer, tag, m.comm, &m.requests.back());
      }
      rc |= MPI_Waitall(int(m.requests.size()), m.requests.data(),
                        MPI_STATUSES_IGNORE);
    }
  }
  double t3 = MPI_Wtime(), c3 = m.cpuNow();
  m.times.exchange = t3 - t2;
  m.times.exchangeCpu = c3 - c2;
  for (int p = 0; p < m.ranks; ++p) {
    if (p == m.rank || m.recvIdx[p].empty() || (!alltoallv && m.recvDirect[p]))
      continue;
    const Place &pl = m.finalPlace[p];
    scatter(dst, m.buffers[pl.buffer].data() + pl.offset, m.recvIdx[p], eb);
  }
  m.times.unpack = MPI_Wtime() - t3;
  m.times.unpackCpu = m.cpuNow() - c3;
  return rc == MPI_SUCCESS;
}

static void copyLocal(const MpiRemap::Impl &m, const unsigned char *src,
                      unsigned char *dst) {
  unsigned eb = m.spec.elementBytes;
  // A transpose's runs are a few KiB each, apart: each starts cold in a new
  // page, where the hardware's prefetcher has not yet found the stream. The
  // lines the next run writes are fetched while this one is copied (about
  // 10% of the copy at 1 MiB per rank on 2 ranks, docs/mpi.md).
  size_t n = m.selfRuns.size();
  for (size_t k = 0; k < n; ++k) {
    const auto &r = m.selfRuns[k];
    if (k + 1 < n) {
      const auto &next = m.selfRuns[k + 1];
      size_t bytes = std::min<size_t>(size_t(next[2]) * eb, 4096);
      const unsigned char *at = dst + size_t(next[1]) * eb;
      if (bytes >= 256)
        for (size_t b = 0; b < bytes; b += 64)
          __builtin_prefetch(at + b, 1, 3);
    }
    std::memcpy(dst + size_t(r[1]) * eb, src + size_t(r[0]) * eb,
                size_t(r[2]) * eb);
  }
  for (size_t k = 0; k < m.selfSrc.size(); ++k)
    std::memcpy(dst + size_t(m.selfDst[k]) * eb,
                src + size_t(m.selfSrc[k]) * eb, eb);
}

/// The single-copy transport (Cma.h). The address message tells a reader
/// that the sender's source is ready; the reader's "done" tells the sender
/// that it may return (and so let its caller overwrite the source). Reads
/// start with whichever sender's address arrives first, and the copy of the
/// elements that stay fills the first wait for one (ranks arrive skewed; a
/// rank that waited idle would only add the skew to the copy after it).
bool MpiRemap::Impl::executeCma(const unsigned char *src, unsigned char *dst) {
  double t0 = MPI_Wtime(), local = 0, c0 = cpuNow(), localCpu = 0, readCpu = 0;
  int rc = MPI_SUCCESS;
  bool read = true, copied = false;
  uint64_t mine = reinterpret_cast<uintptr_t>(src);
  static char token = 0;
  requests.clear();
  // The caller's stores to the source come before the address that says it
  // is ready (shm readers load it through their mapping, not through MPI).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int d : cmaReaders) {
    requests.emplace_back();
    rc |= MPI_Irecv(&token, 0, MPI_BYTE, d, kTagDone, comm, &requests.back());
    requests.emplace_back();
    rc |= MPI_Isend(&mine, 1, MPI_UINT64_T, d, kTagAddress, comm,
                    &requests.back());
  }
  addressRequests.resize(cmaOrigins.size());
  for (size_t k = 0; k < cmaOrigins.size(); ++k)
    rc |= MPI_Irecv(&peerAddress[cmaOrigins[k]], 1, MPI_UINT64_T, cmaOrigins[k],
                    kTagAddress, comm, &addressRequests[k]);
  auto copyOwn = [&] {
    double t = MPI_Wtime(), c = cpuNow();
    copyLocal(*this, src, dst);
    local += MPI_Wtime() - t;
    localCpu += cpuNow() - c;
    copied = true;
  };
  int count = int(addressRequests.size());
  for (size_t k = 0; k < cmaOrigins.size(); ++k) {
    int which = MPI_UNDEFINED, flag = 0;
    if (!copied) {
      rc |= MPI_Testany(count, addressRequests.data(), &which, &flag,
                        MPI_STATUS_IGNORE);
      if (!flag) {
        copyOwn();
        which = MPI_UNDEFINED;
      }
    }
    if (!flag)
      rc |=
          MPI_Waitany(count, addressRequests.data(), &which, MPI_STATUS_IGNORE);
    if (which == MPI_UNDEFINED)
      break;
    int o = cmaOrigins[size_t(which)];
    double c = cpuNow();
    // The sender's stores to its source happened before it posted the
    // address; MPI's message orders them, the fence keeps ours after.
    const unsigned char *view = nullptr;
    if (shm) {
      std::atomic_thread_fence(std::memory_order_acquire);
      view = sharedView(pids[size_t(o)], peerAddress[size_t(o)],
                        size_t(srcDist.cells(o)) * spec.elementBytes);
    }
    if (view) {
      shmCopy(view, dst, cmaReads[size_t(o)], spec.elementBytes);
      ++times.shmCopies;
    } else if (!shm || cmaUsable) {
      read &= cmaRead(pids[size_t(o)], peerAddress[size_t(o)], dst,
                      cmaReads[size_t(o)], spec.elementBytes, nullptr);
      times.shmFallbacks += shm;
    } else {
      read = false; // no window and no process_vm_readv: cannot read
    }
    readCpu += cpuNow() - c;
    // Our loads from the sender's window come before its "done".
    if (view)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    requests.emplace_back();
    rc |= MPI_Isend(&token, 0, MPI_BYTE, o, kTagDone, comm, &requests.back());
  }
  if (!copied)
    copyOwn();
  // No return before every reader is done with this rank's source.
  rc |= MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  times.local = local;
  times.exchange = MPI_Wtime() - t0 - local;
  times.localCpu = localCpu;
  times.exchangeCpu = cpuNow() - c0 - localCpu;
  times.readCpu = readCpu;
  return rc == MPI_SUCCESS && read;
}

int64_t MpiRemap::sourceCells() const {
  return impl->srcDist.cells(impl->rank);
}
int64_t MpiRemap::destCells() const { return impl->dstDist.cells(impl->rank); }
const BlockDistribution &MpiRemap::sourceDistribution() const {
  return impl->srcDist;
}
const BlockDistribution &MpiRemap::destDistribution() const {
  return impl->dstDist;
}
const TrafficMatrix &MpiRemap::traffic() const { return impl->traffic; }
const Prediction &MpiRemap::chosen() const { return impl->chosen; }
const std::vector<Prediction> &MpiRemap::predictions() const {
  return impl->predictions;
}
const LinkCosts &MpiRemap::costs() const { return impl->costs; }
const rt::RemapSpec &MpiRemap::spec() const { return impl->spec; }
const ExecuteTimes &MpiRemap::lastTimes() const { return impl->times; }
void MpiRemap::setCpuTimes(bool on) { impl->cpuTimes = on; }

void mapc::mpi::storeLocalPattern(const rt::DeviceLayout &l,
                                  const BlockDistribution &d, int rank,
                                  unsigned elementBytes, uint64_t tag,
                                  void *buffer) {
  auto *out = static_cast<unsigned char *>(buffer);
  int64_t a0 = d.firstAddress(rank), n = d.cells(rank);
  for (int64_t k = 0; k < n; ++k) {
    int64_t x = a0 + k < l.size() ? l.dataAt(a0 + k) : -1;
    if (x >= 0)
      for (unsigned b = 0; b < elementBytes; ++b)
        out[size_t(k) * elementBytes + b] =
            rt::patternByte(uint64_t(x), tag, b);
  }
}

uint64_t mapc::mpi::countLocalMismatches(const rt::DeviceLayout &l,
                                         const BlockDistribution &d, int rank,
                                         unsigned elementBytes, uint64_t tag,
                                         const void *buffer) {
  const auto *in = static_cast<const unsigned char *>(buffer);
  int64_t a0 = d.firstAddress(rank), n = d.cells(rank);
  uint64_t bad = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t x = a0 + k < l.size() ? l.dataAt(a0 + k) : -1;
    if (x < 0)
      continue;
    for (unsigned b = 0; b < elementBytes; ++b)
      if (in[size_t(k) * elementBytes + b] !=
          rt::patternByte(uint64_t(x), tag, b)) {
        ++bad;
        break;
      }
  }
  return bad;
}
