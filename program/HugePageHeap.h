//===- HugePageHeap.h - the process heap on transparent huge pages --------===//
//
// Planning a large statement touches tens of megabytes once: the route
// walks' calendars, the tables of moves, cells and rounds. Every first
// touch of a 4 KiB page is a page fault, and on a virtual machine a fault
// costs microseconds (8 us each on the reference machine of
// docs/cost-model.md): a 10-cube broadcast's 4,000 faults were half of
// `mapc FILE --emit=plan`'s 82 ms. On 2 MiB pages the same memory takes a
// fault per 512 pages.
//
// useHugePageHeap sets glibc's malloc up once, at the start of a process,
// before its threads: one arena (the heap, grown with brk), blocks up to
// 32 MiB carved from it rather than mapped one by one (so that memory a
// plan frees is reused, not faulted in again), the heap grown and kept in
// steps of `reserve` bytes, and that reserve advised MADV_HUGEPAGE
// (transparent huge pages in "madvise" mode, Debian's default). What glibc
// 2.35's tunable glibc.malloc.hugetlb=1 does, from inside the program.
//
// The mapc tool calls it first thing, and so do the benchmarks that time
// what mapc does. A program that calls mapc's library may call it too; it
// changes nothing but the process's malloc settings. It does nothing under
// AddressSanitizer (its own allocator), on other C libraries, or when the
// heap cannot grow.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_PROGRAM_HUGEPAGEHEAP_H
#define MAPC_PROGRAM_HUGEPAGEHEAP_H

#include <cstddef>

namespace mapc {

struct HugePageHeapSetup {
  bool configured = false; ///< malloc's settings were changed
  size_t advisedBytes = 0; ///< of the heap advised MADV_HUGEPAGE
};

/// Sets the process's malloc up as above; call once, before any thread
/// starts. `reserve` (address space; only what is touched is memory) is
/// rounded to whole 2 MiB pages; the heap grows past it in 4 KiB pages.
HugePageHeapSetup useHugePageHeap(size_t reserve = size_t(256) << 20);

} // namespace mapc

#endif
