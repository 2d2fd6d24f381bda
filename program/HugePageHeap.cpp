//===- HugePageHeap.cpp - the process heap on transparent huge pages ------===//
//
// useHugePageHeap (HugePageHeap.h): glibc's malloc settings by mallopt,
// then the heap grown once by the reserve and that stretch advised
// MADV_HUGEPAGE, so that its first touches fault 2 MiB at a time.
//
//===----------------------------------------------------------------------===//
#include "HugePageHeap.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__) &&                                \
    (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) // mallinfo2
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#define MAPC_GLIBC_HEAP 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#undef MAPC_GLIBC_HEAP // ASan's allocator is not glibc's
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#undef MAPC_GLIBC_HEAP
#endif
#endif

namespace {
/// The filler below the huge pages (useHugePageHeap), never freed.
void *volatile keptFiller = nullptr;
} // namespace

mapc::HugePageHeapSetup mapc::useHugePageHeap(size_t reserve) {
  HugePageHeapSetup out;
#ifdef MAPC_GLIBC_HEAP
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  reserve = (reserve + kHuge - 1) & ~(kHuge - 1);
  // Under an address-space limit (ulimit -v) the reserve takes at most a
  // quarter of it, so that the compile thread's stack and the plan's own
  // mappings still fit.
  if (rlimit as; getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    reserve = std::min<size_t>(reserve, size_t(as.rlim_cur / 4) & ~(kHuge - 1));
  if (reserve < 4 * kHuge || reserve > (size_t(1) << 34))
    return out;
  // One arena: the planner's thread allocates from the brk heap advised
  // below, not from an arena of its own mapped later.
  if (!mallopt(M_ARENA_MAX, 1))
    return out;
  // glibc's largest: blocks below it come from the heap, so that a plan's
  // tables, freed and made again, reuse memory already touched.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Freed memory stays: no trim gives it back to be faulted in again.
  mallopt(M_TRIM_THRESHOLD, int(std::min<size_t>(4 * reserve, 1u << 30)));
  out.configured = true;
  // Grow the heap by the reserve now: a block just larger than the top of
  // the heap takes `reserve` more with it (M_TOP_PAD), then the pad drops
  // back to a step of 16 MiB for later growth. Carving that block writes
  // the new top's header just past the old end: a block of 2 MiB would
  // write it inside the first huge page before the advice, which then
  // faults in 4 KiB pages.
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  mallopt(M_TOP_PAD, int(std::min<size_t>(reserve, 1u << 30)));
  if (void *p = std::malloc(mallinfo2().keepcost + 64))
    std::free(p);
  mallopt(M_TOP_PAD, 16 << 20);
  const auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  if (before == uintptr_t(-1) || after == uintptr_t(-1) || after <= before)
    return out; // no brk heap (glibc mapped the block instead)
  // The whole 2 MiB pages of the new stretch past that header; what lies
  // before was touched in 4 KiB pages already.
  const uintptr_t begin = (before + 4096 + kHuge - 1) & ~(kHuge - 1),
                  end = after & ~(kHuge - 1);
  if (end <= begin ||
      madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE) != 0)
    return out;
  out.advisedBytes = end - begin;
  // Blocks are carved from the top of the heap upwards, and its top now
  // starts below `begin`, in the last 4 KiB pages: a block larger
  // than any free one is carved there, so it shows where (the chunk's
  // header is 16 bytes before it). A filler from there to `begin`, kept
  // and never touched past its header, makes the next blocks start on
  // the huge pages.
  constexpr uintptr_t kHeader = 2 * sizeof(size_t);
  if (void *probe = std::malloc(kHuge)) {
    const uintptr_t top = reinterpret_cast<uintptr_t>(probe) - kHeader;
    std::free(probe);
    // Volatile: a malloc whose block is never read may be left out.
    if (top < begin && begin - top >= 4 * kHeader)
      keptFiller = std::malloc(begin - top - kHeader / 2);
  }
#else
  (void)reserve;
#endif
  return out;
}
