//===- Native.cpp - the native target's kernels against memcpy ------------===//
//
// mapc-bench-native [--quick] [--threads=N] [--describe] [--only=TEXT]
//
// For each remap of issue 12 it prints GB/s (bytes read plus written per
// second, best of several runs) of mapc's native kernel, of memcpy of the
// same bytes on the same threads (run alternately with mapc's), of a naive loop
// (one thread, the index maps written out as a programmer would) and, for
// transposes, of OpenBLAS cblas_somatcopy; then mapc's ratio to memcpy. Every
// mapc result is compared with the naive loop's, cell by cell. --quick runs
// small sizes in seconds (the CTest smoke test). docs/native.md records a
// table.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

#include "mapc/native/Remap.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <sys/mman.h>
#include <thread>
#include <vector>

#ifdef MAPC_HAVE_OPENBLAS
extern "C" void cblas_somatcopy(int order, int trans, int rows, int cols,
                                float alpha, const float *a, int lda, float *b,
                                int ldb);
#endif

using namespace mapc;
using namespace mapc::bench;

namespace {

const char *kDriver = "mapc-bench-native";

/// A page-aligned buffer, on huge pages where the kernel grants them, touched
/// once so that no run pays for first faults.
struct Buffer {
  size_t bytes = 0;
  uint8_t *data = nullptr;
  explicit Buffer(size_t n) : bytes(n) {
    size_t align = size_t(2) << 20;
    size_t rounded = (n + align - 1) / align * align;
    data = static_cast<uint8_t *>(std::aligned_alloc(align, rounded));
    if (!data)
      die(kDriver, "out of memory");
    madvise(data, rounded, MADV_HUGEPAGE);
    std::memset(data, 0, n);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer &) = delete;
};

unsigned gThreads = 0;
int gRuns = 5;
bool gDescribe = false;
std::string gOnly; ///< --only=TEXT: rows whose name holds TEXT
/// --ab=VAR=VALUE: each row also planned with VAR=VALUE in the environment
/// (the kernels' switches, e.g. MAPC_NATIVE_TRANSPOSE=off), run alternately
/// with the default plan; the last column is that plan's time over the
/// default's.
std::string gAbVar, gAbValue;

double bestOf(int runs, const std::function<void()> &f) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, secondsSince(t0));
  }
  return best;
}

/// memcpy of `bytes` split over the same threads as mapc (and by the
/// same rule: a quarter MiB per thread).
void threadedMemcpy(uint8_t *to, const uint8_t *from, size_t bytes) {
  unsigned n = unsigned(std::min<uint64_t>(
      gThreads, std::max<uint64_t>(1, 2 * bytes / (uint64_t(1) << 18))));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t)
    pool.emplace_back([=] {
      size_t lo = bytes * t / n, hi = bytes * (t + 1) / n;
      std::memcpy(to + lo, from + lo, hi - lo);
    });
  std::memcpy(to, from, bytes / n);
  for (auto &th : pool)
    th.join();
}

struct Row {
  std::string name;
  double mapc = 0, memcpy = 0, naive = 0, blas = 0;
  double ab = 0; ///< --ab: the other plan's time over the default's
};
std::vector<Row> gRows;

void printRow(const Row &r) {
  auto col = [](double v) {
    char buf[32];
    if (v > 0)
      std::snprintf(buf, sizeof buf, "%8.2f", v);
    else
      std::snprintf(buf, sizeof buf, "%8s", "-");
    return std::string(buf);
  };
  std::printf("%-44s %s %s %s %s %7.2fx", r.name.c_str(), col(r.mapc).c_str(),
              col(r.memcpy).c_str(), col(r.naive).c_str(), col(r.blas).c_str(),
              r.mapc / r.memcpy);
  if (r.ab > 0)
    std::printf(" %7.2f", r.ab);
  std::printf("\n");
  std::fflush(stdout);
}

/// Plans and times one remap; `naive` writes the expected destination.
/// `blas`, when given, is timed too.
Row measure(const std::string &name, const rt::RemapSpec &spec,
            const std::function<void(const uint8_t *, uint8_t *)> &naive,
            const std::function<void(const uint8_t *, uint8_t *)> &blas = {},
            bool runNaive = true) {
  native::NativeOptions opt;
  opt.threads = gThreads;
  auto t0 = Clock::now();
  auto planned = native::NativeRemap::plan(spec, opt);
  double planSeconds = secondsSince(t0);
  if (!std::holds_alternative<native::NativeRemap>(planned))
    die(kDriver, name + ": " + std::get<std::string>(planned));
  const auto &remap = std::get<native::NativeRemap>(planned);
  if (gDescribe)
    std::printf("# %s (planned in %.3f ms)\n%s\n", name.c_str(),
                planSeconds * 1e3, remap.describe().c_str());
  size_t eb = spec.elementBytes;
  Buffer src(size_t(spec.source.size()) * eb),
      dst(size_t(spec.dest.size()) * eb);
  for (size_t i = 0; i < src.bytes; ++i)
    src.data[i] = uint8_t(i * 2654435761u >> 13);
  Row r;
  r.name = name;
  double bytes = double(remap.bytesMoved());
  // mapc and memcpy alternate, so that both see the same load on a shared
  // machine; each keeps its best run.
  Buffer copyFrom(size_t(bytes / 2)), copyTo(size_t(bytes / 2));
  std::optional<native::NativeRemap> other;
  if (!gAbVar.empty()) {
    const char *was = getenv(gAbVar.c_str());
    std::string saved = was ? was : "";
    setenv(gAbVar.c_str(), gAbValue.c_str(), 1);
    auto p = native::NativeRemap::plan(spec, opt);
    if (was)
      setenv(gAbVar.c_str(), saved.c_str(), 1);
    else
      unsetenv(gAbVar.c_str());
    if (!std::holds_alternative<native::NativeRemap>(p))
      die(kDriver, name + ": " + std::get<std::string>(p));
    other.emplace(std::move(std::get<native::NativeRemap>(p)));
    if (gDescribe)
      std::printf("# with %s=%s:\n%s\n", gAbVar.c_str(), gAbValue.c_str(),
                  other->describe().c_str());
  }
  double bestMapc = 1e30, bestCopy = 1e30, bestOther = 1e30;
  for (int run = 0; run < gRuns; ++run) {
    bestMapc = std::min(bestMapc,
                        bestOf(1, [&] { remap.execute(src.data, dst.data); }));
    bestCopy =
        std::min(bestCopy, bestOf(1, [&] {
                   threadedMemcpy(copyTo.data, copyFrom.data, copyFrom.bytes);
                 }));
    if (other)
      bestOther = std::min(
          bestOther, bestOf(1, [&] { other->execute(src.data, dst.data); }));
  }
  if (other)
    r.ab = bestOther / bestMapc;
  r.mapc = bytes / bestMapc / 1e9;
  r.memcpy = bytes / bestCopy / 1e9;
  if (runNaive && !getenv("MAPC_NOVERIFY")) {
    Buffer expect(dst.bytes);
    r.naive = bytes / bestOf(1, [&] { naive(src.data, expect.data); }) / 1e9;
    if (std::memcmp(expect.data, dst.data, dst.bytes) != 0)
      die(kDriver, name + ": mapc and the naive loop disagree");
  }
  if (blas)
    r.blas = bytes / bestOf(gRuns, [&] { blas(src.data, dst.data); }) / 1e9;
  return r;
}

/// An affine layout on n address bits, all data: address bit i is the XOR
/// of the data bits in rows[i].
rt::DeviceLayout affineLayout(const std::vector<uint64_t> &rows,
                              uint64_t constant = 0) {
  rt::AffineLayout l;
  l.mBits = unsigned(rows.size());
  l.dataBits = unsigned(rows.size());
  l.row = rows;
  l.constant = constant;
  return rt::DeviceLayout::fromAffine(l);
}

std::vector<uint64_t> identityRows(unsigned n) {
  std::vector<uint64_t> rows(n);
  for (unsigned i = 0; i < n; ++i)
    rows[i] = uint64_t(1) << i;
  return rows;
}

rt::RemapSpec specOf(rt::DeviceLayout a, rt::DeviceLayout b, unsigned eb) {
  rt::RemapSpec s;
  s.label = "bench";
  s.source = std::move(a);
  s.dest = std::move(b);
  s.elementBytes = eb;
  return s;
}

/// Source in data order, destination address bits rows[i]: the naive loop
/// evaluates the destination's address of every element.
Row affineRow(const std::string &name, const std::vector<uint64_t> &rows,
              uint64_t constant = 0, bool runNaive = true) {
  unsigned n = unsigned(rows.size());
  rt::RemapSpec spec =
      specOf(affineLayout(identityRows(n)), affineLayout(rows, constant), 4);
  auto naive = [&](const uint8_t *s, uint8_t *d) {
    const float *in = reinterpret_cast<const float *>(s);
    float *out = reinterpret_cast<float *>(d);
    for (uint64_t x = 0; x < (uint64_t(1) << n); ++x) {
      uint64_t a = constant;
      for (unsigned i = 0; i < n; ++i)
        a ^= uint64_t(__builtin_parityll(rows[i] & x)) << i;
      out[a] = in[x];
    }
  };
  return measure(name, spec, naive, {}, runNaive);
}

/// A rows x cols f32 matrix (row-major) transposed, as two k-Tile formats.
Row transposeRow(const std::string &name, int64_t rows, int64_t cols) {
  auto layout = [&](bool transposed) {
    rt::TileMap t;
    t.data = {rt::SpaceDim::plain(cols), rt::SpaceDim::plain(rows)};
    t.kdims = {rt::KDim::plain(cols), rt::KDim::plain(rows)};
    t.groups = {1, 1};
    t.m = {transposed ? std::vector<unsigned>{1, 0}
                      : std::vector<unsigned>{0, 1},
           {}};
    // One PE: a device dim of length 1 holding an empty k-Tile dim.
    t.kdims.push_back(rt::KDim::plain(1));
    t.groups.push_back(1);
    t.m[1] = {2};
    t.device = {rt::SpaceDim::plain(rows * cols), rt::SpaceDim::plain(1)};
    return rt::DeviceLayout::fromTile(t);
  };
  rt::RemapSpec spec = specOf(layout(false), layout(true), 4);
  auto naive = [&](const uint8_t *s, uint8_t *d) {
    const float *in = reinterpret_cast<const float *>(s);
    float *out = reinterpret_cast<float *>(d);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        out[j * rows + i] = in[i * cols + j];
  };
  std::function<void(const uint8_t *, uint8_t *)> blas;
#ifdef MAPC_HAVE_OPENBLAS
  blas = [&](const uint8_t *s, uint8_t *d) {
    cblas_somatcopy(101 /*RowMajor*/, 112 /*Trans*/, int(rows), int(cols), 1.0f,
                    reinterpret_cast<const float *>(s), int(cols),
                    reinterpret_cast<float *>(d), int(rows));
  };
#endif
  return measure(name, spec, naive, blas);
}

/// A side x side f32 matrix transposed into a k-Tile format whose two dims
/// are Gray coded, built in code without an affine form (AffineProbe.h
/// finds it; before, the gather moved it).
Row grayTileRow(const std::string &name, int64_t side) {
  auto layout = [&](bool gray) {
    rt::TileMap t;
    t.data = {rt::SpaceDim::plain(side), rt::SpaceDim::plain(side)};
    t.kdims = {rt::KDim::plain(side), rt::KDim::plain(side)};
    t.groups = {1, 1};
    t.m = {gray ? std::vector<unsigned>{1, 0} : std::vector<unsigned>{0, 1},
           {2}};
    if (gray)
      t.kdims[0].enc = t.kdims[1].enc = rt::Encoding::Gray;
    t.kdims.push_back(rt::KDim::plain(1));
    t.groups.push_back(1);
    t.device = {rt::SpaceDim::plain(side * side), rt::SpaceDim::plain(1)};
    return rt::DeviceLayout::fromTile(t);
  };
  rt::RemapSpec spec = specOf(layout(false), layout(true), 4);
  auto naive = [&](const uint8_t *s, uint8_t *d) {
    const float *in = reinterpret_cast<const float *>(s);
    float *out = reinterpret_cast<float *>(d);
    for (int64_t i = 0; i < side; ++i)
      for (int64_t j = 0; j < side; ++j)
        out[int64_t(rt::grayEncode(uint64_t(i))) +
            side * int64_t(rt::grayEncode(uint64_t(j)))] = in[i * side + j];
  };
  return measure(name, spec, naive);
}

/// HPF block or cyclic(c) of n elements on p PEs, as its k-Tile format.
rt::DeviceLayout hpf(int64_t n, int64_t p, int64_t c) {
  rt::TileMap t;
  rt::SpaceDim data = rt::SpaceDim::plain(n);
  if (c == 0) {
    int64_t b = (n + p - 1) / p;
    t.kdims = {rt::KDim::plain(b), rt::KDim::plain(p)};
    t.groups = {2};
    t.m = {{0}, {1}};
    t.device = {rt::SpaceDim::plain(b), rt::SpaceDim::plain(p)};
    data.tlen = b * p;
  } else {
    int64_t q = (n + c * p - 1) / (c * p);
    t.kdims = {rt::KDim::plain(c), rt::KDim::plain(p), rt::KDim::plain(q)};
    t.groups = {3};
    t.m = {{0, 2}, {1}};
    t.device = {rt::SpaceDim::plain(c * q), rt::SpaceDim::plain(p)};
    data.tlen = c * p * q;
  }
  t.data = {data};
  return rt::DeviceLayout::fromTile(t);
}

/// Device address of element i under hpf(n, p, c), written out naively.
int64_t hpfAddress(int64_t i, int64_t n, int64_t p, int64_t c) {
  if (c == 0)
    return i; // block: PE i / b, memory i % b, address m + b * pe
  int64_t q = (n + c * p - 1) / (c * p);
  int64_t pe = (i / c) % p, m = i % c + c * (i / (c * p));
  return m + c * q * pe;
}

Row hpfRow(const std::string &name, int64_t n, int64_t p, int64_t cs,
           int64_t cd) {
  rt::RemapSpec spec = specOf(hpf(n, p, cs), hpf(n, p, cd), 4);
  auto naive = [&](const uint8_t *s, uint8_t *d) {
    const float *in = reinterpret_cast<const float *>(s);
    float *out = reinterpret_cast<float *>(d);
    for (int64_t i = 0; i < n; ++i)
      out[hpfAddress(i, n, p, cd)] = in[hpfAddress(i, n, p, cs)];
  };
  return measure(name, spec, naive);
}

/// Is the row (or group of rows) titled `title` wanted (--only)?
bool wanted(const std::string &title) {
  return gOnly.empty() || title.find(gOnly) != std::string::npos;
}

void add(Row r) {
  printRow(r);
  gRows.push_back(std::move(r));
}

} // namespace

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a.rfind("--threads=", 0) == 0)
      gThreads = unsigned(std::atoi(a.c_str() + 10));
    else if (a.rfind("--only=", 0) == 0)
      gOnly = a.substr(7);
    else if (a == "--describe")
      gDescribe = true;
    else if (a.rfind("--runs=", 0) == 0 && std::atoi(a.c_str() + 7) > 0)
      gRuns = std::atoi(a.c_str() + 7);
    else if (a.rfind("--ab=", 0) == 0 && a.find('=', 5) != std::string::npos) {
      gAbVar = a.substr(5, a.find('=', 5) - 5);
      gAbValue = a.substr(a.find('=', 5) + 1);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--threads=N] [--runs=N] [--describe] "
                   "[--only=TEXT] [--ab=VAR=VALUE]\n",
                   kDriver);
      return 2;
    }
  }
  if (!gThreads)
    gThreads = std::max(1u, std::thread::hardware_concurrency());
  if (quick)
    gRuns = std::min(gRuns, 2);
  const unsigned bits = quick ? 16 : 26;
  const int64_t side = quick ? 256 : 8192;
  std::printf("mapc-bench-native: %u threads, f32, best of %d runs; GB/s = "
              "bytes read + written per second; naive: 1 thread\n",
              gThreads, gRuns);
  std::printf("%-44s %8s %8s %8s %8s %8s\n", "remap", "mapc", "memcpy", "naive",
              "openblas", "mapc/memcpy");

  // Radix 2 / GF(2)-affine.
  if (wanted("transpose bit swap")) {
    unsigned h = bits / 2;
    std::vector<uint64_t> rows(bits);
    for (unsigned i = 0; i < bits; ++i)
      rows[i] = uint64_t(1) << (i < h ? i + h : i - h);
    Row r = affineRow(std::to_string(side) + "^2 transpose (2^" +
                          std::to_string(bits) + " bit swap)",
                      rows);
    add(r);
  }
  if (wanted("full bit reversal")) {
    std::vector<uint64_t> rows(bits);
    for (unsigned i = 0; i < bits; ++i)
      rows[i] = uint64_t(1) << (bits - 1 - i);
    add(affineRow("full bit reversal, 2^" + std::to_string(bits), rows));
  }
  if (wanted("2-bit reversal")) {
    std::vector<uint64_t> rows(bits);
    unsigned digits = bits / 2;
    for (unsigned i = 0; i < bits; ++i)
      rows[i] = uint64_t(1) << (2 * (digits - 1 - i / 2) + i % 2);
    add(affineRow(std::to_string(digits) + "-d 2-bit reversal, 2^" +
                      std::to_string(bits),
                  rows));
  }
  if (wanted("20 random bit permutations")) {
    std::mt19937_64 rng(12);
    std::vector<Row> perms;
    for (int k = 0; k < 20; ++k) {
      std::vector<unsigned> perm(bits);
      for (unsigned i = 0; i < bits; ++i)
        perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<uint64_t> rows(bits);
      for (unsigned i = 0; i < bits; ++i)
        rows[i] = uint64_t(1) << perm[i];
      perms.push_back(affineRow("perm", rows, 0, k == 0));
    }
    std::sort(perms.begin(), perms.end(),
              [](const Row &a, const Row &b) { return a.mapc < b.mapc; });
    Row worst = perms.front(), median = perms[perms.size() / 2];
    worst.name = "20 random bit permutations: slowest";
    median.name = "20 random bit permutations: median";
    median.naive = 0;
    add(worst);
    add(median);
  }
  if (wanted("Gray code")) {
    std::vector<uint64_t> rows(bits);
    for (unsigned i = 0; i < bits; ++i)
      rows[i] =
          (uint64_t(1) << i) | (i + 1 < bits ? uint64_t(1) << (i + 1) : 0);
    add(affineRow("Gray code of all bits, 2^" + std::to_string(bits), rows));
  }
  if (wanted("random GF(2)-affine maps")) {
    std::mt19937_64 rng(13);
    std::vector<Row> maps;
    for (int k = 0; k < 5; ++k) {
      std::vector<uint64_t> rows = identityRows(bits);
      for (unsigned t = 0; t < 4 * bits; ++t) {
        unsigned a = unsigned(rng() % bits), b = unsigned(rng() % bits);
        if (a != b)
          rows[a] ^= rows[b];
      }
      std::shuffle(rows.begin(), rows.end(), rng);
      maps.push_back(affineRow("affine", rows,
                               rng() & ((uint64_t(1) << bits) - 1), k == 0));
    }
    std::sort(maps.begin(), maps.end(),
              [](const Row &a, const Row &b) { return a.mapc < b.mapc; });
    Row worst = maps.front();
    worst.name = "5 random GF(2)-affine maps: slowest";
    add(worst);
  }
  if (wanted("Gray k-Tile"))
    add(grayTileRow(std::to_string(side) + "^2 transpose into Gray k-Tile dims",
                    side));
  // General layouts.
  if (wanted("x 30 transpose") || wanted("x 3000 transpose"))
    add(quick ? transposeRow("100 x 30 transpose", 100, 30)
              : transposeRow("10000 x 3000 transpose", 10000, 3000));
  int64_t n = quick ? int64_t(1) << 14 : int64_t(1) << 24;
  std::string size = quick ? "2^14" : "2^24";
  if (wanted("HPF block -> cyclic(3)"))
    add(hpfRow("HPF block -> cyclic(3), 7 PEs, " + size, n, 7, 0, 3));
  if (wanted("HPF cyclic(3) -> block"))
    add(hpfRow("HPF cyclic(3) -> block, 7 PEs, " + size, n, 7, 3, 0));
  return 0;
}
