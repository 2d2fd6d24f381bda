// Drives the code mapc --emit=cpp wrote for any program, on the MasPar or a
// hypercube or mesh network (the header's `Machine`), and prints what
// `mapc --run --memory-digest` prints for it, so that a test can diff the
// two: fills every array with the data set --run gives it in its first
// layout (the affine one for Gray codes, 001), runs every remap in program
// order, checks every element after each one, and prints per remap
//   LABEL: verified, ticks=N, lower_bound=L    (or MISMATCH, ...)
// with ticks the ledger's total on the MasPar and its cycles on a network,
// then a digest of the whole machine memory:
//   memory: B bytes per PE (or node), fnv1a64=0x...
// Exits non-zero if a remap failed or left an element in the wrong place.
#include "mapc_program.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/Network.h"

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <type_traits>

using namespace mapc_program;

namespace {

constexpr bool kOnNetwork = std::is_same_v<Machine, mapc::rt::NetworkMachine>;

// Templates, so that `if constexpr` drops the other machine's calls.
template <typename M> uint8_t *memoryOf(M &m, unsigned node) {
  if constexpr (kOnNetwork)
    return m.memory(node);
  else
    return m.memoryOf(node);
}

template <typename M> int64_t ticks(const M &m) {
  if constexpr (kOnNetwork)
    return m.ledger().cycles;
  else
    return m.ledger().total();
}

} // namespace

int main() {
  Machine m = makeMachine();
  auto mem = [&](unsigned node) { return memoryOf(m, node); };
  auto constMem = [&](unsigned node) -> const uint8_t * {
    return memoryOf(m, node);
  };
  // As --run: which data set the array at each base holds, and whether it
  // has been filled (a copy hands its source's data set to the target).
  std::map<uint64_t, uint64_t> dataSet;
  std::map<uint64_t, bool> filled;
  bool allGood = true;
  for (unsigned i = 0; i < remapCount(); ++i) {
    const RemapEntry &e = remaps()[i];
    // A statement in stages starts in its first stage's source layout and
    // ends in its last stage's destination.
    const RemapEntry &first = e.stageCount ? e.stages[0] : e;
    const RemapEntry &last = e.stageCount ? e.stages[e.stageCount - 1] : e;
    // The layouts the remap starts and ends in: a general plan's index maps
    // (003 ch. 6), or bit layouts as affine ones (the same addresses, so
    // the same bytes as the BitLayout overloads --run uses for them).
    std::function<void(uint64_t)> fill;
    std::function<uint64_t(uint64_t)> mismatches;
    uint64_t elements = 0;
    const int64_t bound = e.lowerBound;
    if (first.generalPlan) {
      const mapc::rt::GeneralPlan &g = first.generalPlan();
      fill = [&, g](uint64_t tag) {
        mapc::rt::storePattern(mem, g.source, g.elemBytes, e.srcBase, tag);
      };
    } else {
      const mapc::rt::Plan &p = first.plan();
      mapc::rt::AffineLayout src = p.affineAfter(-1);
      fill = [&, src, p](uint64_t tag) {
        mapc::rt::storePattern(mem, src, p.elemBytes, e.srcBase, tag);
      };
    }
    if (last.generalPlan) {
      const mapc::rt::GeneralPlan &g = last.generalPlan();
      mismatches = [&, g](uint64_t tag) {
        return mapc::rt::countMismatches(constMem, g.dest, g.elemBytes,
                                         e.dstBase, tag);
      };
      elements = uint64_t(g.dest.dataSize());
    } else {
      const mapc::rt::Plan &p = last.plan();
      mapc::rt::AffineLayout dst =
          p.affine ? p.affineDest : mapc::rt::AffineLayout::fromBits(p.dest);
      mismatches = [&, dst, p](uint64_t tag) {
        return mapc::rt::countMismatches(constMem, dst, p.elemBytes, e.dstBase,
                                         tag);
      };
      elements = uint64_t(1) << dst.dataBits;
    }
    if (!filled[e.srcBase]) {
      dataSet[e.srcBase] = e.dataSet;
      fill(e.dataSet);
      filled[e.srcBase] = true;
    }
    int64_t before = ticks(m);
    std::string why;
    bool ran = e.run(m, &why);
    int64_t spent = ticks(m) - before;
    dataSet[e.dstBase] = dataSet[e.srcBase];
    filled[e.dstBase] = true;
    uint64_t bad = ran ? mismatches(dataSet[e.dstBase]) : 0;
    if (!ran) {
      std::printf("%s: MISMATCH, the plan failed: %s\n", e.label, why.c_str());
      allGood = false;
    } else if (bad) {
      std::printf("%s: MISMATCH, %llu of %llu elements wrong, ticks=%lld, "
                  "lower_bound=%lld\n",
                  e.label, static_cast<unsigned long long>(bad),
                  static_cast<unsigned long long>(elements),
                  static_cast<long long>(spent), static_cast<long long>(bound));
      allGood = false;
    } else {
      std::printf("%s: verified, ticks=%lld, lower_bound=%lld\n", e.label,
                  static_cast<long long>(spent), static_cast<long long>(bound));
    }
  }
  std::printf("memory: %llu bytes per %s, fnv1a64=0x%016llx\n",
              static_cast<unsigned long long>(m.memoryBytes()),
              kOnNetwork ? "node" : "PE",
              static_cast<unsigned long long>(mapc::rt::memoryDigest(m)));
  return allGood ? 0 : 1;
}
