//===- Butterfly.cpp ------------------------------------------------------===//
#include "backend/Butterfly.h"
#include "passes/Lowering.h"

#include "llvm/Support/MathExtras.h"

using namespace mapc;

namespace {

bool isPow2(int64_t v) { return v > 0 && llvm::isPowerOf2_64(uint64_t(v)); }
unsigned log2(int64_t v) { return llvm::Log2_64(uint64_t(v)); }

/// Whether device bit `b`'s row holds linear data bit x.
bool rowHolds(const DeviceBit &b, unsigned x) {
  return b.enabled && (b.dataBit == x || (b.alsoXor >> x & 1));
}

/// Mesh dim and bit within it of PE bit `pe`: dims take the PE bits in
/// order, dim 0 lowest (the flattened PE index, device dim 1 fastest).
std::pair<unsigned, unsigned> meshPlace(llvm::ArrayRef<int64_t> mesh,
                                        unsigned pe) {
  unsigned dim = 0;
  while (dim + 1 < mesh.size() && pe >= log2(mesh[dim]))
    pe -= log2(mesh[dim++]);
  return {dim, pe};
}

std::string meshProblem(llvm::ArrayRef<int64_t> mesh) {
  for (unsigned i = 0; i < mesh.size(); ++i)
    if (!isPow2(mesh[i]))
      return "mesh dim " + std::to_string(i) + " has " +
             std::to_string(mesh[i]) + " PEs, not a power of two";
  return "";
}

} // namespace

int64_t mapc::meshDiameter(llvm::ArrayRef<int64_t> mesh) {
  int64_t d = 0;
  for (int64_t len : mesh)
    d += len - 1;
  return d;
}

ButterflyStep mapc::translateBit(const IndexBitMap &map,
                                 llvm::ArrayRef<int64_t> mesh, unsigned x) {
  ButterflyStep step;
  unsigned changed = 0;
  for (unsigned pe = 0; pe < map.peBits; ++pe) {
    if (!rowHolds(map.bits[map.memoryBits + pe], x))
      continue;
    auto [dim, b] = meshPlace(mesh, pe);
    step.meshDim = dim;
    // Several PE bits: a node whose changed bits are all 0 moves by the sum
    // of their weights, the largest distance; such a node exists when the
    // rows are independent, as in every bijective layout.
    step.distance += int64_t(1) << b;
    ++changed;
  }
  step.kind = changed == 0   ? ButterflyStep::Local
              : changed == 1 ? ButterflyStep::SingleDim
                             : ButterflyStep::Nonuniform;
  return step;
}

std::variant<ButterflyReport, std::string>
mapc::analyzeButterfly(const IndexBitMap &map, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> mesh) {
  std::string why = meshProblem(mesh);
  if (!why.empty())
    return why;
  unsigned meshBits = 0;
  for (int64_t len : mesh)
    meshBits += log2(len);
  if (map.peBits > meshBits)
    return "the layout addresses " + std::to_string(map.peBits) +
           " PE bits, but the mesh has " + std::to_string(meshBits);
  ButterflyReport report;
  report.diameter = meshDiameter(mesh);
  unsigned x = 0; // linear data bit of C(p, q)
  for (unsigned p = 0; p < shape.size(); ++p) {
    if (!isPow2(shape[p]))
      return "data dim " + std::to_string(p) + " has length " +
             std::to_string(shape[p]) + ", not a power of two";
    for (unsigned q = 0; q < log2(shape[p]); ++q, ++x) {
      ButterflyStep step = translateBit(map, mesh, x);
      step.dataDim = p;
      step.bit = q;
      report.total += step.distance;
      report.steps.push_back(step);
    }
  }
  return report;
}

void mapc::printButterfly(const ButterflyReport &report,
                          llvm::raw_ostream &os) {
  for (const ButterflyStep &s : report.steps) {
    os << "C(" << s.dataDim << ", " << s.bit << ") -> ";
    switch (s.kind) {
    case ButterflyStep::Local:
      os << "local\n";
      break;
    case ButterflyStep::SingleDim:
      os << "sd(" << s.meshDim << ", " << s.distance << ")\n";
      break;
    case ButterflyStep::Nonuniform:
      os << "nonuniform, max distance " << s.distance << "\n";
      break;
    }
  }
  os << "total distance " << report.total << ", diameter " << report.diameter
     << "\n";
}

ButterflyOutcome mapc::emitButterfly(const Program &program, Diagnostics &diags,
                                     llvm::raw_ostream &os) {
  std::vector<int64_t> mesh = meshShapeOf(program.machine);
  if (mesh.empty())
    return ButterflyOutcome::NoNetwork;
  bool ok = true;
  for (const ArrayInfo &array : program.arrays) {
    // The array's initial mapping is the static layout named after it.
    const Layout *initial = nullptr;
    for (unsigned i = 0; i < program.numStaticLayouts && !initial; ++i)
      if (program.layouts[i].name == array.name &&
          program.layouts[i].array == array.name)
        initial = &program.layouts[i];
    if (!initial)
      continue;
    auto map = toAffineBitMap(*initial);
    std::variant<ButterflyReport, std::string> report;
    if (auto *why = std::get_if<std::string>(&map))
      report = "its layout is not a radix-2 bit map: " + *why;
    else
      report = analyzeButterfly(std::get<IndexBitMap>(map), array.shape, mesh);
    if (auto *why = std::get_if<std::string>(&report)) {
      diags.error(array.loc,
                  "cannot analyse the FFT communication of '" + array.name +
                      "': " + *why,
                  "--emit=butterfly needs power-of-two array and mesh lengths "
                  "and a bit map layout, e.g. fftidentity, mkshuffle or "
                  "bits [...]");
      ok = false;
      continue;
    }
    printButterfly(std::get<ButterflyReport>(report), os);
  }
  return ok ? ButterflyOutcome::Printed : ButterflyOutcome::Errors;
}
