//===- LoweringTest.cpp - HPF lowering and standard mappings, by meaning --===//
//
// Each test states what the directive means element by element and checks
// the lowered format against it through the inverse map, rather than
// pinning the format's fields.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowering.h"
#include "RandomTile.h"
#include "mapc/runtime/General.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace mapc;

namespace {

std::set<int64_t> addrs(const KTile &t, int64_t i) {
  llvm::SmallVector<int64_t, 8> out;
  t.addressesOf(i, out);
  return {out.begin(), out.end()};
}

/// The PEs of device addresses `a` of `t`: the address over memory's size.
std::set<int64_t> pesOf(const KTile &t, const std::set<int64_t> &a) {
  const int64_t mem = t.deviceShape()[0];
  std::set<int64_t> out;
  for (int64_t x : a)
    out.insert(x / mem);
  return out;
}

KTile ok(const LowerResult &r) {
  if (auto *e = std::get_if<LoweringError>(&r))
    ADD_FAILURE() << e->message;
  return std::get<KTile>(r);
}

/// Linear index of a multi-index, dim 0 fastest.
int64_t linear(const std::vector<int64_t> &idx,
               const std::vector<int64_t> &shape) {
  int64_t v = 0, place = 1;
  for (size_t j = 0; j < shape.size(); ++j) {
    v += idx[j] * place;
    place *= shape[j];
  }
  return v;
}

std::vector<int64_t> unlinear(int64_t v, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx;
  for (int64_t n : shape) {
    idx.push_back(v % n);
    v /= n;
  }
  return idx;
}

TEST(Distribute, Example714) {
  KTile t = ok(lowerDistribute({256, 256, 256},
                               {{DistFormatSpec::Block, 0},
                                {DistFormatSpec::Cyclic, 0},
                                {DistFormatSpec::Star, 0}},
                               {32, 32}));
  KTile c = canonicalize(t);
  std::vector<int64_t> ks;
  for (auto &d : c.kdims)
    ks.push_back(d.k);
  EXPECT_EQ(ks, (std::vector<int64_t>{8, 32, 32, 8, 256}));
  EXPECT_EQ(c.m, (std::vector<std::vector<unsigned>>{{0, 3, 4}, {1}, {2}}));
}

TEST(Distribute, BlockAndCyclicPlaceEveryElementOnItsOwner) {
  std::mt19937 rng(4);
  for (int iter = 0; iter < 300; ++iter) {
    auto pick = [&](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    std::vector<int64_t> shape = {pick(1, 13), pick(1, 9)};
    std::vector<int64_t> procs = {pick(1, 4)};
    std::vector<DistFormatSpec> f(2);
    unsigned dist = pick(0, 1);
    f[dist].kind = DistFormatSpec::Kind(pick(1, 2));
    if (pick(0, 1))
      f[dist].arg = f[dist].kind == DistFormatSpec::Block
                        ? (shape[dist] + procs[0] - 1) / procs[0] + pick(0, 2)
                        : pick(1, 3);
    KTile t = ok(lowerDistribute(shape, f, procs));
    ASSERT_TRUE(t.verify().empty());
    int64_t mem = t.device[0].tlen;
    for (int64_t i = 0; i < shape[0] * shape[1]; ++i) {
      auto idx = unlinear(i, shape);
      int64_t x = idx[dist], p = procs[0], owner, local;
      int64_t n = f[dist].arg;
      if (f[dist].kind == DistFormatSpec::Block) {
        int64_t b = n ? n : (shape[dist] + p - 1) / p;
        owner = x / b;
        local = x % b;
      } else {
        int64_t w = n ? n : 1;
        owner = (x / w) % p;
        local = x % w + w * (x / (w * p));
      }
      auto where = addrs(t, i);
      ASSERT_EQ(where.size(), 1u);
      int64_t a = *where.begin();
      EXPECT_EQ(a / mem, owner) << "element " << i;
      // Local parts are column-major: the distributed dim's local index
      // varies fastest when it is dim 0.
      if (dist == 0) {
        EXPECT_EQ((a % mem) % (mem / shape[1]), local);
      }
    }
  }
}

/// Alignee index -> target index for a subscript list; -1 for replicated.
std::vector<int64_t> targetIndex(const std::vector<int64_t> &b,
                                 const std::vector<AlignSubSpec> &subs) {
  std::vector<int64_t> x;
  for (const AlignSubSpec &s : subs)
    x.push_back(s.kind == AlignSubSpec::Replicate ? -1
                : s.kind == AlignSubSpec::Constant
                    ? s.offset
                    : s.offset + s.stride * b[s.dummy]);
  return x;
}

TEST(Align, RandomAlignmentsPutEachElementWithItsTarget) {
  std::mt19937 rng(5);
  int checked = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    auto pick = [&](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    // Target: a plain 2-d format (templates allowed on the data side only
    // through distribution padding).
    std::vector<int64_t> tshape = {pick(2, 12), pick(2, 8)};
    std::vector<DistFormatSpec> f = {{DistFormatSpec::Kind(pick(0, 2)), 0},
                                     {DistFormatSpec::Star, 0}};
    std::vector<int64_t> procs;
    if (f[0].kind != DistFormatSpec::Star)
      procs.push_back(pick(1, 3));
    KTile target = ok(lowerDistribute(tshape, f, procs));
    // Alignee of rank 1 or 2 with random subscripts.
    std::vector<AlignSubSpec> subs(2);
    std::vector<int64_t> ashape;
    std::vector<unsigned> perm = {0, 1};
    if (pick(0, 1))
      std::swap(perm[0], perm[1]);
    unsigned rank = pick(1, 2);
    for (unsigned r = 0; r < 2; ++r) {
      AlignSubSpec &s = subs[r];
      int kind = pick(0, 3);
      if (perm[r] >= rank || kind == 0) {
        s.kind = pick(0, 1) ? AlignSubSpec::Replicate : AlignSubSpec::Constant;
        s.offset = pick(0, int(tshape[r] - 1));
        continue;
      }
      s.kind = AlignSubSpec::Dummy;
      s.dummy = perm[r];
      s.stride = pick(0, 2) ? 1 : (pick(0, 1) ? 2 : -1);
      if (pick(0, 4) == 0)
        s.stride = -2;
    }
    ashape.assign(rank, 1);
    for (unsigned r = 0; r < 2; ++r) {
      AlignSubSpec &s = subs[r];
      if (s.kind != AlignSubSpec::Dummy)
        continue;
      int64_t stride = s.stride < 0 ? -s.stride : s.stride;
      int64_t maxLen = (tshape[r] - 1) / stride + 1;
      ashape[s.dummy] = pick(1, int(maxLen));
      int64_t span = stride * (ashape[s.dummy] - 1);
      int64_t start = pick(0, int(tshape[r] - 1 - span));
      s.offset = s.stride > 0 ? start : start + span;
    }
    LowerResult r = lowerAlign(ashape, target, subs);
    if (std::holds_alternative<LoweringError>(r))
      continue; // e.g. a stride that does not factor the tiles
    KTile t = std::get<KTile>(r);
    ASSERT_TRUE(t.verify().empty()) << iter;
    ++checked;
    int64_t asize = 1;
    for (int64_t n : ashape)
      asize *= n;
    for (int64_t i = 0; i < asize; ++i) {
      auto x = targetIndex(unlinear(i, ashape), subs);
      std::set<int64_t> want;
      if (x[0] >= 0 && x[1] >= 0) {
        want = addrs(target, linear(x, tshape));
      } else {
        // Replicated: every target element along those dims.
        for (int64_t j = 0; j < tshape[0] * tshape[1]; ++j) {
          auto y = unlinear(j, tshape);
          if ((x[0] < 0 || y[0] == x[0]) && (x[1] < 0 || y[1] == x[1]))
            for (int64_t a : addrs(target, j))
              want.insert(a);
        }
      }
      auto got = addrs(t, i);
      const bool dummiesOnly =
          std::all_of(subs.begin(), subs.end(), [](const AlignSubSpec &s) {
            return s.kind == AlignSubSpec::Dummy;
          });
      if (dummiesOnly) {
        EXPECT_EQ(got, want) << "iter " << iter << " element " << i;
      } else {
        // HPF's replication and constants: on every PE of those target
        // elements (PEs are the address over the memory's size), one copy
        // a PE, the memory dims they cover left out.
        EXPECT_EQ(pesOf(t, got).size(), got.size())
            << "iter " << iter << " element " << i;
        for (int64_t pe : pesOf(target, want))
          EXPECT_TRUE(pesOf(t, got).count(pe))
              << "iter " << iter << " element " << i << " PE " << pe;
      }
      if (HasFailure())
        return;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(StandardMappings, LinearMappingsDealTheLinearIndex) {
  for (auto shape : std::vector<std::vector<int64_t>>{
           {512, 512}, {4096, 4096}, {16, 4}, {8}, {3, 2}, {5, 7}}) {
    for (int64_t pes : {1, 4, 16, 1024}) {
      for (bool hier : {true, false}) {
        KTile t = ok(lowerStandardMapping(hier ? StandardMapping::Hierarchical1d
                                               : StandardMapping::CutNStack1d,
                                          shape, pes, {}));
        auto problems = t.verify();
        ASSERT_TRUE(problems.empty())
            << problems[0].message << " pes " << pes << " hier " << hier
            << " rank " << shape.size() << " " << shape[0];
        int64_t n = 1;
        for (int64_t s : shape)
          n *= s;
        if (n % pes != 0 || n > (1 << 16))
          continue; // padded, or too big to enumerate here
        int64_t mem = t.device[0].tlen;
        for (int64_t i = 0; i < n; ++i) {
          auto where = addrs(t, i);
          ASSERT_EQ(where.size(), 1u);
          int64_t pe = *where.begin() / mem;
          EXPECT_EQ(pe, hier ? i / (n / pes) : i % pes);
        }
      }
    }
  }
}

TEST(StandardMappings, HalfScanLinePerPE) {
  // 003 7.3.4: 512 x 512 on 1024 PEs is k = [256, 2; 512], m = [0; 1, 2].
  KTile t = canonicalize(ok(lowerStandardMapping(
      StandardMapping::Hierarchical1d, {512, 512}, 1024, {})));
  std::vector<int64_t> ks;
  for (auto &d : t.kdims)
    ks.push_back(d.k);
  EXPECT_EQ(ks, (std::vector<int64_t>{256, 2, 512}));
  EXPECT_EQ(t.m, (std::vector<std::vector<unsigned>>{{0}, {1, 2}}));
}

TEST(StandardMappings, BitReverseReversesTheIndexBits) {
  KTile t =
      ok(lowerStandardMapping(StandardMapping::Hierarchical1d, {16}, 4, {}));
  KTile r = ok(bitReverse(t, 0));
  ASSERT_TRUE(r.verify().empty());
  for (int64_t i = 0; i < 16; ++i) {
    int64_t rev =
        ((i & 1) << 3) | ((i & 2) << 1) | ((i & 4) >> 1) | ((i & 8) >> 3);
    EXPECT_EQ(addrs(r, i), addrs(t, rev));
  }
}

} // namespace

// HPF's A(i, k) with T(i, *) redistributed: both layouts replicate along
// the PE dim of T's columns, so each destination cell reads the copy on its
// own column of PEs (sourcesOf), and the columns move side by side, not all
// from the first copy.
TEST(Align, ReplicatedSourcesReadTheirOwnLineOfPEs) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 200; ++iter) {
    const std::vector<int64_t> procs = {pick(1, 4), pick(2, 4)};
    const std::vector<int64_t> tshape = {pick(1, 12), pick(2, 12)};
    auto format = [&] {
      return DistFormatSpec{
          pick(0, 1) ? DistFormatSpec::Block : DistFormatSpec::Cyclic, 0};
    };
    const KTile from = ok(lowerDistribute(tshape, {format(), format()}, procs));
    const KTile to = ok(lowerDistribute(tshape, {format(), format()}, procs));
    AlignSubSpec row, star;
    row.kind = AlignSubSpec::Dummy;
    row.dummy = 0;
    row.stride = 1;
    star.kind = AlignSubSpec::Replicate;
    const std::vector<int64_t> ashape = {tshape[0], pick(1, 3)};
    const KTile a = ok(lowerAlign(ashape, from, {row, star}));
    const KTile b = ok(lowerAlign(ashape, to, {row, star}));
    const std::vector<uint32_t> src = rt::sourcesOf(a, b);
    const int64_t fromSlots = a.deviceShape()[0], toSlots = b.deviceShape()[0];
    for (size_t cell = 0; cell < src.size(); ++cell) {
      if (src[cell] == rt::kNoSource)
        continue;
      // PE numbers count T's row dim fastest: the column is pe / procs[0].
      const int64_t toColumn = int64_t(cell) / toSlots / procs[0];
      const int64_t fromColumn = int64_t(src[cell]) / fromSlots / procs[0];
      ASSERT_EQ(toColumn, fromColumn) << "iter " << iter << " cell " << cell;
    }
  }
}
