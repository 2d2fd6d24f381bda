//===- Remap.cpp - the native target's planner and executor ---------------===//
//
// Reference implementation: a gather over the destination addresses through
// the two index maps, element by element. Correct for every layout; the
// fast kernels replace it case by case.
//
//===----------------------------------------------------------------------===//
#include "mapc/native/Remap.h"

#include <cstring>
#include <vector>

using namespace mapc;
using namespace mapc::native;

struct NativeRemap::Impl {
  rt::RemapSpec spec;
  NativeOptions options;
  uint64_t held = 0; ///< destination cells that hold data
};

NativeRemap::NativeRemap(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
NativeRemap::NativeRemap(NativeRemap &&) noexcept = default;
NativeRemap &NativeRemap::operator=(NativeRemap &&) noexcept = default;
NativeRemap::~NativeRemap() = default;

std::variant<NativeRemap, std::string>
NativeRemap::plan(const rt::RemapSpec &spec, const NativeOptions &options) {
  if (spec.source.dataSize() != spec.dest.dataSize())
    return std::string("the two layouts map different data spaces (" +
                       std::to_string(spec.source.dataSize()) + " and " +
                       std::to_string(spec.dest.dataSize()) + " elements)");
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->options = options;
  for (int64_t a = 0; a < spec.dest.size(); ++a)
    impl->held += spec.dest.dataAt(a) >= 0;
  return NativeRemap(std::move(impl));
}

void NativeRemap::execute(const void *src, void *dst) const {
  const rt::RemapSpec &s = impl->spec;
  size_t bytes = s.elementBytes;
  const auto *in = static_cast<const uint8_t *>(src);
  auto *out = static_cast<uint8_t *>(dst);
  for (int64_t a = 0; a < s.dest.size(); ++a) {
    int64_t d = s.dest.dataAt(a);
    if (d >= 0)
      std::memcpy(out + a * bytes, in + s.source.firstAddressOf(d) * bytes,
                  bytes);
  }
}

void NativeRemap::executeInPlace(void *buffer, void *scratch) const {
  const rt::RemapSpec &s = impl->spec;
  std::memcpy(scratch, buffer, size_t(s.source.size()) * s.elementBytes);
  execute(scratch, buffer);
}

std::string NativeRemap::describe() const {
  return "gather: every destination cell reads its source through the two "
         "index maps";
}

uint64_t NativeRemap::bytesMoved() const {
  return 2 * impl->held * impl->spec.elementBytes;
}

const rt::RemapSpec &NativeRemap::spec() const { return impl->spec; }
