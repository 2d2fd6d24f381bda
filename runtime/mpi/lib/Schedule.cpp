//===- Schedule.cpp - 004's all-to-all schedules and their prices ---------===//
#include "mapc/mpi/Schedule.h"

#include <algorithm>
#include <cmath>

using namespace mapc::mpi;

namespace {

bool isPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

int64_t blockId(int o, int d, int ranks) { return int64_t(o) * ranks + d; }

int mod(int64_t a, int n) { return int(((a % n) + n) % n); }

/// 004 3.3 fig. 4: R - 1 steps of one partner each; Scott's xor order when
/// R is a power of two (every step a perfect matching).
std::vector<Step> pairwiseSteps(int ranks, int me) {
  std::vector<Step> steps;
  bool xorOrder = isPowerOfTwo(ranks);
  for (int k = 1; k < ranks; ++k) {
    int to = xorOrder ? me ^ k : mod(me + k, ranks);
    int from = xorOrder ? me ^ k : mod(me - k, ranks);
    Step s;
    s.sends.push_back({to, {blockId(me, to, ranks)}});
    s.recvs.push_back({from, {blockId(from, me, ranks)}});
    steps.push_back(std::move(s));
  }
  return steps;
}

/// 004 3.1 fig. 2: every block posted at once.
std::vector<Step> mpichSteps(int ranks, int me) {
  Step s;
  for (int k = 1; k < ranks; ++k) {
    int to = mod(me + k, ranks), from = mod(me - k, ranks);
    s.sends.push_back({to, {blockId(me, to, ranks)}});
    s.recvs.push_back({from, {blockId(from, me, ranks)}});
  }
  return {s};
}

/// Bruck's index algorithm (004 3.2, 5): block (o, d) with j = d - o mod R
/// moves right by digit x of j (radix r) times r^x in sub-phase x. Before
/// sub-phase x it sits at o + (j mod r^x).
std::vector<Step> bruckSteps(int ranks, unsigned radix, int me) {
  std::vector<Step> steps;
  int64_t r = radix;
  for (int64_t weight = 1; weight < ranks; weight *= r) {
    for (int64_t z = 1; z < r; ++z) {
      int64_t shift = z * weight;
      if (shift >= ranks)
        break;
      int to = mod(me + shift, ranks), from = mod(me - shift, ranks);
      Message send{to, {}}, recv{from, {}};
      for (int64_t j = 1; j < ranks; ++j) {
        if ((j / weight) % r != z)
          continue;
        int64_t low = j % weight;
        int o = mod(me - low, ranks);
        send.blocks.push_back(blockId(o, mod(o + j, ranks), ranks));
        int oi = mod(from - low, ranks);
        recv.blocks.push_back(blockId(oi, mod(oi + j, ranks), ranks));
      }
      Step s;
      s.sends.push_back(std::move(send));
      s.recvs.push_back(std::move(recv));
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

/// 004 4.1: before phase k rank i holds the blocks (o, d) whose o agrees
/// with i from bit k up and whose d agrees with i below bit k; it sends
/// those whose d differs from i in bit k to i xor 2^k.
std::vector<Step> butterflySteps(int ranks, int me) {
  std::vector<Step> steps;
  for (int bit = 1; bit < ranks; bit <<= 1) {
    int partner = me ^ bit;
    int low = bit - 1;
    Message send{partner, {}}, recv{partner, {}};
    for (int lo = 0; lo < bit; ++lo)
      for (int hi = 0; hi < ranks / (bit << 1); ++hi) {
        int high = hi * (bit << 1);
        int o = (me & ~low) | lo;
        int d = (me & low) | (partner & bit) | high;
        send.blocks.push_back(blockId(o, d, ranks));
        int oi = (partner & ~low) | lo;
        int di = (me & low) | (me & bit) | high;
        recv.blocks.push_back(blockId(oi, di, ranks));
      }
    Step s;
    s.sends.push_back(std::move(send));
    s.recvs.push_back(std::move(recv));
    steps.push_back(std::move(s));
  }
  return steps;
}

} // namespace

const char *mapc::mpi::algorithmName(Algorithm a) {
  switch (a) {
  case Algorithm::Auto:
    return "auto";
  case Algorithm::Alltoallv:
    return "alltoallv";
  case Algorithm::Mpich:
    return "mpich";
  case Algorithm::Pairwise:
    return "pairwise";
  case Algorithm::Bruck:
    return "bruck";
  case Algorithm::Butterfly:
    return "butterfly";
  case Algorithm::GeneralizedButterfly:
    return "gbutterfly";
  case Algorithm::Cma:
    return "cma";
  case Algorithm::Shm:
    return "shm";
  }
  return "?";
}

const char *mapc::mpi::transportName(Transport t) {
  switch (t) {
  case Transport::Auto:
    return "auto";
  case Transport::Messages:
    return "messages";
  case Transport::Cma:
    return "cma";
  case Transport::Shm:
    return "shm";
  }
  return "?";
}

std::optional<Transport> mapc::mpi::parseTransport(const std::string &name) {
  for (Transport t :
       {Transport::Auto, Transport::Messages, Transport::Cma, Transport::Shm})
    if (name == transportName(t))
      return t;
  return std::nullopt;
}

std::optional<Algorithm> mapc::mpi::parseAlgorithm(const std::string &name) {
  for (Algorithm a : {Algorithm::Auto, Algorithm::Alltoallv, Algorithm::Mpich,
                      Algorithm::Pairwise, Algorithm::Bruck,
                      Algorithm::Butterfly, Algorithm::GeneralizedButterfly})
    if (name == algorithmName(a))
      return a;
  return std::nullopt;
}

uint64_t TrafficMatrix::crossBytes() const {
  uint64_t sum = 0;
  for (int o = 0; o < ranks; ++o)
    for (int d = 0; d < ranks; ++d)
      if (o != d)
        sum += bytes(o, d);
  return sum;
}

uint64_t TrafficMatrix::maxSendBytes() const {
  uint64_t best = 0;
  for (int o = 0; o < ranks; ++o) {
    uint64_t sum = 0;
    for (int d = 0; d < ranks; ++d)
      if (o != d)
        sum += bytes(o, d);
    best = std::max(best, sum);
  }
  return best;
}

int TrafficMatrix::activeRanks() const {
  int n = 0;
  for (int i = 0; i < ranks; ++i) {
    bool active = false;
    for (int k = 0; k < ranks; ++k)
      active |= k != i && (at(i, k) || at(k, i));
    n += active;
  }
  return n;
}

bool mapc::mpi::applicable(Algorithm a, unsigned radix, int ranks,
                           std::string *why) {
  auto no = [&](std::string text) {
    if (why)
      *why = std::move(text);
    return false;
  };
  if (ranks < 1)
    return no("there are no ranks");
  switch (a) {
  case Algorithm::Butterfly:
    if (!isPowerOfTwo(ranks))
      return no("butterfly needs a power-of-two rank count, not " +
                std::to_string(ranks) + "; use gbutterfly (004 4.2)");
    return true;
  case Algorithm::Bruck:
    if (radix != 0 && (radix < 2 || (ranks > 1 && int64_t(radix) > ranks)))
      return no("bruck's radix must be from 2 to the rank count (" +
                std::to_string(ranks) + "), not " + std::to_string(radix));
    return true;
  default:
    return true;
  }
}

static std::vector<Step> unnumbered(Algorithm a, unsigned radix, int ranks,
                                    int me) {
  switch (a) {
  case Algorithm::Pairwise:
    return pairwiseSteps(ranks, me);
  case Algorithm::Mpich:
    return mpichSteps(ranks, me);
  case Algorithm::Bruck:
    return bruckSteps(ranks, std::max(2u, radix), me);
  case Algorithm::GeneralizedButterfly:
    return bruckSteps(ranks, 2, me);
  case Algorithm::Butterfly:
    return butterflySteps(ranks, me);
  case Algorithm::Auto:
  case Algorithm::Alltoallv:
  case Algorithm::Cma:
  case Algorithm::Shm:
    break;
  }
  return {};
}

std::vector<Step> mapc::mpi::schedule(Algorithm a, unsigned radix, int ranks,
                                      int me) {
  if (ranks <= 1)
    return {};
  std::vector<Step> steps = unnumbered(a, radix, ranks, me);
  for (size_t s = 0; s < steps.size(); ++s)
    steps[s].index = unsigned(s);
  return steps;
}

void mapc::mpi::pruneEmpty(std::vector<Step> &steps, const TrafficMatrix &t) {
  auto empty = [&](int64_t id) { return t.counts[size_t(id)] == 0; };
  auto pruneMessages = [&](std::vector<Message> &ms) {
    for (Message &m : ms)
      m.blocks.erase(std::remove_if(m.blocks.begin(), m.blocks.end(), empty),
                     m.blocks.end());
    ms.erase(std::remove_if(ms.begin(), ms.end(),
                            [](const Message &m) { return m.blocks.empty(); }),
             ms.end());
  };
  for (Step &s : steps) {
    pruneMessages(s.sends);
    pruneMessages(s.recvs);
  }
  steps.erase(std::remove_if(steps.begin(), steps.end(),
                             [](const Step &s) {
                               return s.sends.empty() && s.recvs.empty();
                             }),
              steps.end());
}

std::string Prediction::name() const {
  if (algorithm == Algorithm::Bruck)
    return "bruck(r=" + std::to_string(radix) + ")";
  return algorithmName(algorithm);
}

/// The transports that send no data messages (cma, shm): every rank copies
/// what stays (Tc per byte) and takes each origin's block at
/// `fromOrigin(o, d)`, then pays `sync(peers)` for the addresses and "done"s
/// it exchanges with its peers. One step; the slowest rank counts.
template <typename FromOrigin, typename Sync>
static Prediction predictCopies(Algorithm a, const TrafficMatrix &t,
                                const LinkCosts &c, FromOrigin fromOrigin,
                                Sync sync) {
  Prediction p;
  p.algorithm = a;
  int n = t.ranks;
  bool any = false;
  for (int d = 0; d < n; ++d) {
    double time = c.tc * double(t.bytes(d, d));
    unsigned peers = 0;
    for (int o = 0; o < n; ++o) {
      if (o == d || t.at(o, d) == 0)
        continue;
      time += fromOrigin(o, d);
      p.wireBytes += t.bytes(o, d);
      ++peers;
    }
    if (peers)
      time += sync(peers);
    any |= peers > 0;
    p.maxMessages = std::max(p.maxMessages, peers);
    p.seconds = std::max(p.seconds, time);
  }
  p.steps = any;
  return p;
}

/// The single-copy transport: each origin's block read with one system call
/// per kCmaBatch runs (Tcall), Tseg per further run of source cells, Tpiece
/// per further run of destination cells and Tr per byte; around the reads
/// the sender's address arrives and a "done" goes back (a start-up each, To
/// for every further peer, as messages posted together, and Tq each on an
/// oversubscribed node).
static Prediction predictCma(const TrafficMatrix &t, const LinkCosts &c) {
  return predictCopies(
      Algorithm::Cma, t, c,
      [&](int o, int d) {
        int64_t from = std::max<int64_t>(1, t.sourceRunsAt(o, d)),
                into = std::max<int64_t>(1, t.destRunsAt(o, d)),
                calls = (std::max(from, into) + kCmaBatch - 1) / kCmaBatch;
        return c.tcall * double(calls) + c.tseg * double(from - 1) +
               c.tpiece * double(into - 1) + c.tr * double(t.bytes(o, d));
      },
      [&](unsigned peers) { return 2 * (c.ts + c.to * (peers - 1) + c.tq); });
}

/// The shared-memory transport: the single-copy reads' protocol, but each
/// origin's elements copied with memcpy out of its window: Tsh per byte and
/// Tshrun per further piece. Of the synchronisation only the addresses'
/// round is waited for (a start-up, To per further peer, a Tq); the
/// "done"s cost To each to post, their wait overlapped by the copies of
/// the ranks that send them, which finish with this one's (4 ranks on 2
/// cores at 4 KiB per rank: shm took 8.4 us, as one round predicts, where
/// two rounds predict 16 us; docs/mpi.md "The model"). A piece ends where a
/// source run or a destination run ends; the larger of the two run counts
/// is the pieces' count when the ends coincide (a transpose: one source
/// run, a piece per destination run), and at most their sum otherwise.
static Prediction predictShm(const TrafficMatrix &t, const LinkCosts &c) {
  return predictCopies(
      Algorithm::Shm, t, c,
      [&](int o, int d) {
        int64_t pieces =
            std::max<int64_t>({1, t.sourceRunsAt(o, d), t.destRunsAt(o, d)});
        return c.tshrun * double(pieces - 1) + c.tsh * double(t.bytes(o, d));
      },
      [&](unsigned peers) { return c.ts + c.to * (2 * peers - 1) + c.tq; });
}

Prediction mapc::mpi::predict(Algorithm a, unsigned radix,
                              const TrafficMatrix &t, const LinkCosts &c) {
  if (a == Algorithm::Cma)
    return predictCma(t, c);
  if (a == Algorithm::Shm)
    return predictShm(t, c);
  Prediction p;
  p.algorithm = a;
  p.radix = a == Algorithm::Bruck ? radix : 0;
  int n = t.ranks;
  // Pack and unpack: every rank copies what it sends and receives once
  // (the self block is one copy too); the slowest rank counts.
  double copy = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t bytes = 0;
    for (int k = 0; k < n; ++k)
      bytes += k == i ? t.bytes(i, i) : t.bytes(i, k) + t.bytes(k, i);
    copy = std::max(copy, double(bytes) * c.tc);
  }
  p.seconds = copy;
  if (a == Algorithm::Alltoallv) // no model of its own: priced as mpich
    a = Algorithm::Mpich;
  std::vector<std::vector<Step>> all(n);
  for (int i = 0; i < n; ++i) {
    all[i] = schedule(a, radix, n, i);
    // Prune blocks but keep step numbering: steps align across ranks.
    for (Step &s : all[i])
      for (auto *ms : {&s.sends, &s.recvs})
        for (Message &m : *ms)
          m.blocks.erase(std::remove_if(m.blocks.begin(), m.blocks.end(),
                                        [&](int64_t id) {
                                          return t.counts[size_t(id)] == 0;
                                        }),
                         m.blocks.end());
  }
  size_t numSteps = n ? all[0].size() : 0;
  for (size_t s = 0; s < numSteps; ++s) {
    double slowest = 0;
    bool any = false;
    for (int i = 0; i < n; ++i) {
      double time = 0;
      unsigned messages = 0;
      for (const Message &m : all[i][s].sends) {
        if (m.blocks.empty())
          continue;
        uint64_t bytes = 0;
        for (int64_t id : m.blocks)
          bytes += uint64_t(t.counts[size_t(id)]) * t.elementBytes;
        // The first message of a step starts up in Ts; the others, in
        // flight with it, add To each (To = Ts is 004's eq. 1).
        time += (messages ? c.to : c.ts) + c.tw * double(bytes);
        // Forwarded blocks are gathered into one message first.
        if (m.blocks.size() > 1)
          time += c.tc * double(bytes);
        p.wireBytes += bytes;
        ++messages;
      }
      p.maxMessages = std::max(p.maxMessages, messages);
      any |= messages > 0;
      slowest = std::max(slowest, time);
    }
    p.seconds += slowest + (any ? c.tq : 0);
    p.steps += any;
  }
  return p;
}

std::vector<Prediction> mapc::mpi::predictAll(const TrafficMatrix &t,
                                              const LinkCosts &c, bool withCma,
                                              bool withShm) {
  std::vector<Prediction> out;
  int n = t.ranks;
  out.push_back(predict(Algorithm::Pairwise, 0, t, c));
  out.push_back(predict(Algorithm::Mpich, 0, t, c));
  if (isPowerOfTwo(n))
    out.push_back(predict(Algorithm::Butterfly, 0, t, c));
  out.push_back(predict(Algorithm::GeneralizedButterfly, 0, t, c));
  // Radices above kMaxTriedRadix only add steps unless r = R (pairwise's
  // price); trying them all would cost O(R^4).
  for (int r = 3; r <= n && r <= kMaxTriedRadix; ++r)
    out.push_back(predict(Algorithm::Bruck, unsigned(r), t, c));
  if (n > kMaxTriedRadix)
    out.push_back(predict(Algorithm::Bruck, unsigned(n), t, c));
  if (withCma)
    out.push_back(predictCma(t, c));
  if (withShm)
    out.push_back(predictShm(t, c));
  // Prices equal to the picosecond tie (sums in another order differ in the
  // last bit); ties go to the order above: pairwise before mpich (004 3.3
  // finds it the faster of the two), butterfly before gbutterfly, messages
  // before single-copy reads, those before shared-memory copies.
  auto key = [](const Prediction &p) { return std::llround(p.seconds * 1e12); };
  std::stable_sort(out.begin(), out.end(),
                   [&](const Prediction &a, const Prediction &b) {
                     return key(a) < key(b);
                   });
  out.push_back(predict(Algorithm::Alltoallv, 0, t, c));
  return out;
}

double mapc::mpi::paper::pairwise(double n, int p, double ts, double tw) {
  return (ts + tw * n / (double(p) * p)) * (p - 1);
}

double mapc::mpi::paper::butterfly(double n, int p, double ts, double tw) {
  return (ts + tw * n / (2.0 * p)) * std::log2(double(p));
}

double mapc::mpi::paper::bruck(double n, int p, unsigned r, double ts,
                               double tw) {
  double w = std::ceil(std::log(double(p)) / std::log(double(r)) - 1e-9);
  double steps = (r - 1) * w;
  double blocks = (r - 1) * std::ceil(double(p) / r) * w;
  return steps * ts + n / (double(p) * p) * blocks * tw;
}
