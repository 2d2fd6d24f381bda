//===- Remap.cpp - the native target's planner and executor ---------------===//
//
// plan() tries the kernels from the most structured down and keeps the
// first that applies: the affine tile kernel for two GF(2)-affine layouts
// (AffineKernel.h), the strided loop nest for two separable k-Tile layouts
// (StrideKernel.h), the affine tiles again for radix-2 k-Tile formats whose
// affine form was not given (Gray dims: AffineProbe.h), and the
// element-by-element gather for the rest.
//
//===----------------------------------------------------------------------===//
#include "mapc/native/Remap.h"

#include "AffineKernel.h"
#include "AffineProbe.h"
#include "GatherKernel.h"
#include "Kernel.h"
#include "Parallel.h"
#include "StrideKernel.h"

#include <cstring>
#include <limits>

using namespace mapc;
using namespace mapc::native;

struct NativeRemap::Impl {
  rt::RemapSpec spec;
  NativeOptions options;
  ThreadBudget threads;
  uint64_t held = 0; ///< destination cells that hold data
  std::unique_ptr<Kernel> kernel;
  std::string note; ///< how the planner reached the kernel, if not direct
};

NativeRemap::NativeRemap(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
NativeRemap::NativeRemap(NativeRemap &&) noexcept = default;
NativeRemap &NativeRemap::operator=(NativeRemap &&) noexcept = default;
NativeRemap::~NativeRemap() = default;

/// Destination cells holding data: every element times its copies.
static uint64_t heldCells(const rt::DeviceLayout &l) {
  uint64_t n = uint64_t(l.dataSize());
  if (l.tile())
    for (const rt::KDim &kd : l.tile()->kdims)
      if (kd.ok == rt::kReplicated)
        n *= uint64_t(kd.k);
  return n;
}

std::variant<NativeRemap, std::string>
NativeRemap::plan(const rt::RemapSpec &spec, const NativeOptions &options) {
  if (spec.source.dataSize() != spec.dest.dataSize())
    return std::string("the two layouts map different data spaces (" +
                       std::to_string(spec.source.dataSize()) + " and " +
                       std::to_string(spec.dest.dataSize()) + " elements)");
  if (spec.elementBytes == 0)
    return std::string("elements of 0 bytes cannot be moved");
  int64_t cells = std::max(spec.source.size(), spec.dest.size());
  if (cells == std::numeric_limits<int64_t>::max() ||
      uint64_t(cells) >
          std::numeric_limits<uint64_t>::max() / 2 / spec.elementBytes)
    return std::string("the layouts' buffers exceed the host's address space");
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->options = options;
  impl->threads.threads = resolveThreads(options.threads);
  impl->threads.minBytesPerThread = options.minBytesPerThread;
  impl->held = heldCells(spec.dest);
  if (!impl->kernel)
    impl->kernel = planAffineKernel(spec);
  if (!impl->kernel)
    impl->kernel = planStrideKernel(spec);
  if (!impl->kernel) {
    // Gray dims of radix-2 formats built without an affine form (the API,
    // tests): find it, so the affine tiles replace the gather.
    rt::RemapSpec probed = spec;
    probed.source = withAffineForm(spec.source);
    probed.dest = withAffineForm(spec.dest);
    if (probed.source.affine() && probed.dest.affine() &&
        (!spec.source.affine() || !spec.dest.affine())) {
      impl->kernel = planAffineKernel(probed);
      if (impl->kernel)
        impl->note = "\n  affine forms found from the radix-2 k-Tile formats "
                     "(Gray dims or senses the strided nest cannot take)";
    }
  }
  if (!impl->kernel)
    impl->kernel = planGatherKernel(
        spec, spec.source.tile() && spec.dest.tile()
                  ? "a layout has wrap-around offsets or Gray dims"
                  : "one layout is an XOR bit map, the other not affine");
  return NativeRemap(std::move(impl));
}

void NativeRemap::execute(const void *src, void *dst) const {
  impl->kernel->run(static_cast<const uint8_t *>(src),
                    static_cast<uint8_t *>(dst), impl->threads);
}

void NativeRemap::executeInPlace(void *buffer, void *scratch) const {
  const rt::RemapSpec &s = impl->spec;
  std::memcpy(scratch, buffer, size_t(s.source.size()) * s.elementBytes);
  execute(scratch, buffer);
}

std::string NativeRemap::describe() const {
  // The host's core count stays out of the text, so that it reads the same
  // on every machine (--emit=plan output is pinned by tests).
  return impl->kernel->describe() + impl->note + "\n  threads: " +
         (impl->options.threads ? std::to_string(impl->options.threads)
                                : std::string("every core"));
}

uint64_t NativeRemap::bytesMoved() const {
  return 2 * impl->held * impl->spec.elementBytes;
}

const rt::RemapSpec &NativeRemap::spec() const { return impl->spec; }
