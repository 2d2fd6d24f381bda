// Drives the code mapc --emit=cpp wrote for any program, through the table
// of remaps the header declares: fills every array with the data set
// mapc --run gives it (mapc/runtime/Contents.h) in its first layout, runs
// every remap in program order, checks every element after each one, and
// prints per remap
//   emitted NAME: ok, ticks=N        (or WRONG, with the reason)
// then a digest of the whole machine memory, every PE's bytes in PE order:
//   emitted memory: B bytes per PE, fnv1a64=0x...
// Exits non-zero if a remap failed or left an element in the wrong place.
#include "mapc_program.h"

#include "mapc/runtime/Contents.h"
#include "mapc/runtime/Execute.h"

#include <cstdio>
#include <map>
#include <string>

using namespace mapc_program;

int main() {
  mapc::rt::MasPar m = makeMachine();
  // As --run: which data set the array at each base holds, and whether it
  // has been filled (a copy hands its source's data set to the target).
  std::map<uint64_t, uint64_t> dataSet;
  std::map<uint64_t, bool> filled;
  bool allGood = true;
  for (unsigned i = 0; i < remapCount(); ++i) {
    const RemapEntry &e = remaps()[i];
    auto mem = [&](unsigned pe) { return m.memoryOf(pe); };
    auto constMem = [&](unsigned pe) -> const uint8_t * {
      return m.memoryOf(pe);
    };
    // A general plan's index maps (003 ch. 6), or the bit layouts; a
    // statement in stages starts as its first and ends as its last.
    const RemapEntry &first = e.stageCount ? e.stages[0] : e;
    const RemapEntry &last = e.stageCount ? e.stages[e.stageCount - 1] : e;
    if (!filled[e.srcBase]) {
      dataSet[e.srcBase] = e.dataSet;
      if (first.generalPlan) {
        const mapc::rt::GeneralPlan &g = first.generalPlan();
        mapc::rt::storePattern(mem, g.source, g.elemBytes, e.srcBase,
                               e.dataSet);
      } else {
        // As affine layouts, which Gray-coded and XOR layouts need (001).
        const mapc::rt::Plan &p = first.plan();
        mapc::rt::storePattern(mem, p.affineAfter(-1), p.elemBytes, e.srcBase,
                               e.dataSet);
      }
      filled[e.srcBase] = true;
    }
    const mapc::rt::GeneralPlan *g =
        last.generalPlan ? &last.generalPlan() : nullptr;
    const mapc::rt::Plan *p = last.plan ? &last.plan() : nullptr;
    int64_t before = m.ledger().total();
    std::string why;
    bool ran = e.run(m, &why);
    int64_t ticks = m.ledger().total() - before;
    dataSet[e.dstBase] = dataSet[e.srcBase];
    filled[e.dstBase] = true;
    uint64_t bad = 0;
    if (ran && g)
      bad = mapc::rt::countMismatches(constMem, g->dest, g->elemBytes,
                                      e.dstBase, dataSet[e.dstBase]);
    else if (ran)
      bad = mapc::rt::countMismatches(
          constMem,
          p->affine ? p->affineDest : mapc::rt::AffineLayout::fromBits(p->dest),
          p->elemBytes, e.dstBase, dataSet[e.dstBase]);
    uint64_t elements =
        g ? uint64_t(g->dest.dataSize()) : uint64_t(1) << p->dest.dataBits;
    if (!ran) {
      std::printf("emitted %s: WRONG, the plan failed: %s\n", e.name,
                  why.c_str());
      allGood = false;
    } else if (bad) {
      std::printf(
          "emitted %s: WRONG, %llu of %llu elements wrong, ticks=%lld\n",
          e.name, static_cast<unsigned long long>(bad),
          static_cast<unsigned long long>(elements),
          static_cast<long long>(ticks));
      allGood = false;
    } else {
      std::printf("emitted %s: ok, ticks=%lld\n", e.name,
                  static_cast<long long>(ticks));
    }
  }
  std::printf("emitted memory: %llu bytes per PE, fnv1a64=0x%016llx\n",
              static_cast<unsigned long long>(m.memoryBytes()),
              static_cast<unsigned long long>(mapc::rt::memoryDigest(m)));
  return allGood ? 0 : 1;
}
