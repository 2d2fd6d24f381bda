//===- StandardMappings.cpp - MasPar's named mappings (003 5.3.4, 2.4.7) --===//
//
// 1d hierarchical and 1d cut'n'stack treat the array as one-dimensional (its
// linear index) and deal it out to the PEs in blocks or one element at a
// time (003 2.4.7); 2d hierarchical (crinkle) and 2d cut'n'stack (sheet) cut
// the first two dims into tiles over a 2-d PE grid, i.e. DISTRIBUTE
// (block, block, *, ...) and (cyclic, cyclic, *, ...). A 1d scan mapping
// gives each scan line (dim 0) a PE when there are no more lines than PEs,
// and is 1d hierarchical otherwise (003 B.2.4). Lengths that do not split
// evenly are padded with data templates rather than rejected.
//
// The FFT mappings of 002 on a k-d mesh are bit permutations: the identical
// mapping (002 algorithm 1) keeps linear data bit x at device bit x, the m-k
// shuffle mapping (002 algorithm 4) moves it to S(x) of 002 thm 10, so that
// the butterfly steps of consecutive bits of a data dim go round the mesh
// dims (002 thm 11, fig. 5). Both are optimal (002 thm 9, 13).
//
//===----------------------------------------------------------------------===//
#include "passes/Lowering.h"
#include "passes/TileBuilder.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mapc;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Smallest divisor of `n` that is at least `atLeast`.
int64_t divisorAtLeast(int64_t n, int64_t atLeast) {
  for (int64_t d = atLeast; d < n; ++d)
    if (n % d == 0)
      return d;
  return n;
}

/// How one data dim is split between memory and the 1-d PE view.
struct DimSplit {
  int64_t local = 1, pe = 1, tlen = 0;
  bool peLow = false; // the PE part is the less significant one
};

/// Deals the linear index over `pes` PEs: from the most significant dim
/// downwards for blocks (hierarchical), from dim 0 upwards for cut'n'stack.
KTile linearMapping(llvm::ArrayRef<int64_t> shape, int64_t pes,
                    bool hierarchical) {
  unsigned rank = shape.size();
  std::vector<DimSplit> split(rank);
  int64_t rest = pes;
  for (unsigned step = 0; step < rank; ++step) {
    unsigned j = hierarchical ? rank - 1 - step : step;
    int64_t n = shape[j];
    DimSplit &s = split[j];
    s.tlen = n;
    s.peLow = !hierarchical;
    if (rest == 1) {
      s.local = n;
    } else if (rest % n == 0) {
      s.pe = n;
      rest /= n;
    } else if (n > rest) {
      int64_t other = ceilDiv(n, rest);
      s.pe = rest;
      s.local = other;
      s.tlen = other * rest;
      rest = 1;
    } else {
      s.pe = divisorAtLeast(rest, n);
      s.tlen = s.pe;
      rest /= s.pe;
    }
  }
  TileBuilder b(shape, 2);
  bool anyLocal = false, anyPE = rest > 1;
  for (unsigned j = 0; j < rank; ++j) {
    const DimSplit &s = split[j];
    b.dataDim(j).tlen = s.tlen;
    anyPE |= s.pe > 1;
    if (s.peLow && s.pe > 1)
      b.add(j, s.pe, 1);
    if (s.local > 1 || s.pe == 1) {
      b.add(j, s.local, 0);
      anyLocal = true;
    }
    if (!s.peLow && s.pe > 1)
      b.add(j, s.pe, 1);
  }
  if (rest > 1) // fewer elements than PEs: the top PEs stay empty
    b.add(-1, rest, 1);
  if (!anyLocal) // one element per PE: memory is a dim of length 1
    b.add(-1, 1, 0);
  if (!anyPE) // a single PE
    b.add(-1, 1, 1);
  return b.finish();
}

/// 1d scan: dim 0 in memory, one line per PE.
KTile scanMapping(llvm::ArrayRef<int64_t> shape, int64_t pes) {
  TileBuilder b(shape, 2);
  b.add(0, shape[0], 0);
  for (unsigned j = 1; j < shape.size(); ++j)
    b.add(j, shape[j], 1);
  if (shape.size() == 1)
    b.add(-1, 1, 1);
  b.padDevice(1, pes);
  return b.finish();
}

bool isPow2(int64_t v) { return v > 0 && llvm::isPowerOf2_64(uint64_t(v)); }
unsigned log2(int64_t v) { return llvm::Log2_64(uint64_t(v)); }

/// A bit permutation as a k-Tile format: data dim p of `shape` splits into
/// one k-Tile dim per bit, so k-Tile dim x is linear data bit x; it sits at
/// linear device bit deviceBit[x] of `device` (memory dim first).
KTile bitPermutationTile(llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> device,
                         llvm::ArrayRef<unsigned> deviceBit) {
  KTile t;
  for (int64_t len : shape) {
    t.data.push_back(SpaceDim::plain(len));
    t.groups.push_back(log2(len));
  }
  t.kdims.assign(deviceBit.size(), KDim::plain(2));
  std::vector<int> holder(deviceBit.size(), -1);
  for (unsigned x = 0; x < deviceBit.size(); ++x)
    holder[deviceBit[x]] = int(x);
  unsigned first = 0;
  for (int64_t len : device) {
    std::vector<unsigned> group;
    for (unsigned b = 0; b < log2(len); ++b)
      group.push_back(unsigned(holder[first + b]));
    first += log2(len);
    if (group.empty()) {
      // A device dim of length 1 still needs a k-Tile dim (003 3.1.7).
      group.push_back(t.kdims.size());
      t.kdims.push_back(KDim::plain(1));
    }
    t.m.push_back(group);
    t.device.push_back(SpaceDim::plain(len));
  }
  if (t.kdims.size() > deviceBit.size())
    t.groups.push_back(t.kdims.size() - deviceBit.size());
  return t;
}

/// Where the m-k shuffle mapping puts each linear data bit: the low
/// `memBits / m` bits of every data dim in memory (local parts column-major,
/// as HPF's), the rest dealt to the PE bits by S of 002 thm 10.
std::vector<unsigned> mkShuffleBits(llvm::ArrayRef<int64_t> shape,
                                    unsigned memBits, unsigned peBits,
                                    unsigned meshDims) {
  unsigned m = shape.size(), local = memBits / m;
  std::vector<unsigned> out;
  unsigned card = 0;
  for (unsigned p = 0; p < m; ++p)
    for (unsigned q = 0; q < log2(shape[p]); ++q)
      out.push_back(q < local
                        ? p * local + q
                        : memBits + mkShuffle(card++, peBits, m, meshDims));
  return out;
}

/// Why the m-k shuffle cannot map this array, or "" when it can.
std::string mkShuffleProblem(llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<int64_t> mesh, unsigned memBits,
                             unsigned peBits) {
  unsigned m = shape.size(), k = mesh.size();
  if (m == 0 || k == 0)
    return "mkshuffle needs an array and a mesh of at least one dim each";
  for (int64_t len : mesh)
    if (len != mesh[0])
      return "mkshuffle needs a regular mesh (all dims of one size, 002 "
             "section 5)";
  if (memBits % m)
    return "mkshuffle puts the same number of low bits of every data dim "
           "in memory, but " +
           std::to_string(memBits) + " memory bits do not split over " +
           std::to_string(m) + " dims";
  for (int64_t len : shape)
    if (log2(len) < memBits / m)
      return "a data dim of length " + std::to_string(len) +
             " has fewer bits than its share of memory";
  if (peBits % m || peBits % k || (peBits / m) % k)
    return "the m-k shuffle of " + std::to_string(peBits) + " PE bits needs " +
           "m = " + std::to_string(m) + " and k = " + std::to_string(k) +
           " to divide them and k to divide n/m (002 thm 10)";
  return "";
}

} // namespace

std::vector<int64_t> mapc::meshShapeOf(const Machine &machine) {
  switch (machine.kind) {
  case Machine::Mesh:
    return machine.pes;
  case Machine::Hypercube:
    // 002 2.1: a hypercube is a mesh of n dims of size 2.
    return std::vector<int64_t>(log2(machine.peCount()), 2);
  case Machine::MasPar:
    break;
  }
  return {};
}

std::optional<FftMapping> mapc::parseFftMapping(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<FftMapping>>(name.lower())
      .Case("fftidentity", FftMapping::Identical)
      .Case("mkshuffle", FftMapping::MkShuffle)
      .Default(std::nullopt);
}

unsigned mapc::mkShuffle(unsigned x, unsigned n, unsigned m, unsigned k) {
  unsigned w1 = n / m, w2 = n / k;
  return (x % k) * w2 + ((x % w1) / k) * m + x / w1;
}

LowerResult mapc::lowerFftMapping(FftMapping kind,
                                  llvm::ArrayRef<int64_t> shape,
                                  const Machine &machine) {
  const char *name =
      kind == FftMapping::Identical ? "fftidentity" : "mkshuffle";
  for (int64_t len : machine.pes)
    if (!isPow2(len))
      return LoweringError{std::string(name) +
                               " needs a PE grid of power-of-two lengths, "
                               "not " +
                               std::to_string(len),
                           "declare the machine with pes = [2^a, 2^b, ...]"};
  unsigned dataBits = 0;
  for (int64_t len : shape) {
    if (!isPow2(len))
      return LoweringError{std::string(name) +
                               " needs power-of-two array lengths, not " +
                               std::to_string(len),
                           "pad the array to a power of two"};
    dataBits += log2(len);
  }
  unsigned peBits = log2(machine.peCount());
  if (dataBits < peBits)
    return LoweringError{std::string(name) +
                             " needs at least as many "
                             "elements as PEs (" +
                             std::to_string(machine.peCount()) + ")",
                         "use a bigger array or a smaller machine"};
  unsigned memBits = dataBits - peBits;
  if (memBits >= 63 || (int64_t(1) << memBits) > machine.memory)
    return LoweringError{std::string(name) + " needs 2^" +
                             std::to_string(memBits) +
                             " elements of memory per PE",
                         "raise the machine's memory"};
  std::vector<int64_t> device{int64_t(1) << memBits};
  device.insert(device.end(), machine.pes.begin(), machine.pes.end());
  std::vector<unsigned> bits;
  if (kind == FftMapping::Identical) {
    for (unsigned x = 0; x < dataBits; ++x)
      bits.push_back(x);
  } else {
    std::vector<int64_t> mesh = meshShapeOf(machine);
    if (mesh.empty())
      mesh = machine.pes;
    std::string why = mkShuffleProblem(shape, mesh, memBits, peBits);
    if (!why.empty())
      return LoweringError{why, "use fftidentity or a bits layout (any bit "
                                "permutation is optimal, 002 thm 16)"};
    bits = mkShuffleBits(shape, memBits, peBits, mesh.size());
  }
  return bitPermutationTile(shape, device, bits);
}

LowerResult mapc::lowerStandardMapping(StandardMapping kind,
                                       llvm::ArrayRef<int64_t> shape,
                                       int64_t pes1d,
                                       llvm::ArrayRef<int64_t> pes2d) {
  switch (kind) {
  case StandardMapping::Hierarchical1d:
    return linearMapping(shape, pes1d, true);
  case StandardMapping::CutNStack1d:
    return linearMapping(shape, pes1d, false);
  case StandardMapping::Scan1d: {
    int64_t lines = 1;
    for (unsigned j = 1; j < shape.size(); ++j)
      lines = satMul(lines, shape[j]);
    if (lines <= pes1d)
      return scanMapping(shape, pes1d);
    return linearMapping(shape, pes1d, true);
  }
  case StandardMapping::Hierarchical2d:
  case StandardMapping::CutNStack2d: {
    if (shape.size() < 2)
      return LoweringError{"a 2d mapping needs an array of rank 2 or more",
                           "use hierarchical1d or cutnstack1d for a "
                           "1-d array"};
    if (pes2d.size() != 2)
      return LoweringError{"a 2d mapping needs a 2-d PE grid",
                           "use a 1d mapping on this machine"};
    DistFormatSpec f;
    f.kind = kind == StandardMapping::Hierarchical2d ? DistFormatSpec::Block
                                                     : DistFormatSpec::Cyclic;
    std::vector<DistFormatSpec> formats(shape.size());
    formats[0] = formats[1] = f;
    return lowerDistribute(shape, formats, pes2d);
  }
  }
  return LoweringError{"unknown standard mapping", ""};
}

LowerResult mapc::bitReverse(const KTile &tile, unsigned dim) {
  int64_t len = tile.data[dim].len;
  if (!llvm::isPowerOf2_64(uint64_t(len)) || tile.data[dim].tlen != len ||
      tile.data[dim].off != 0)
    return LoweringError{"bit reversal of dim " + std::to_string(dim) +
                             " needs a power-of-two length without template "
                             "or offset, not " +
                             std::to_string(len),
                         "bitrev applies to radix-2 dims (003 5.3.5)"};
  // Split each k-Tile dim of the group into bits, then reverse the order of
  // the bits on the data side; the device side keeps every bit where it was.
  KTile out = tile;
  auto group = tile.dataGroup(dim);
  std::vector<KDim> bitsDims;
  std::vector<unsigned> bitsOf(tile.kdims.size(), 0);
  for (unsigned l : group) {
    const KDim &d = tile.kdims[l];
    if (!(d.k == d.tk && d.otk == 0 && d.ok == 0 && d.enc == Encoding::Binary &&
          llvm::isPowerOf2_64(uint64_t(d.k))))
      return LoweringError{"bit reversal needs plain power-of-two k-Tile dims "
                           "in dim " +
                               std::to_string(dim),
                           "remove templates, offsets and Gray encoding from "
                           "this dim first"};
    bitsOf[l] = llvm::Log2_64(uint64_t(d.k));
  }
  // Renumber: old dims before the group keep their numbers; the group's
  // dims become bit dims (reversed); later dims shift.
  unsigned first = group.empty() ? 0 : group.front();
  unsigned numBits = 0;
  for (unsigned l : group)
    numBits += bitsOf[l];
  if (numBits == 0)
    return tile; // length 1: nothing to reverse
  std::vector<std::vector<unsigned>> newIds(tile.kdims.size());
  out.kdims.clear();
  for (unsigned l = 0; l < first; ++l) {
    newIds[l] = {unsigned(out.kdims.size())};
    out.kdims.push_back(tile.kdims[l]);
  }
  // Bit b of the group (b = 0 least significant) gets number first+(n-1-b).
  unsigned b = 0;
  out.kdims.resize(first + numBits);
  for (unsigned l : group)
    for (unsigned i = 0; i < bitsOf[l]; ++i, ++b) {
      unsigned id = first + (numBits - 1 - b);
      KDim bit = KDim::plain(2);
      bit.sense = tile.kdims[l].sense;
      out.kdims[id] = bit;
      newIds[l].push_back(id);
    }
  for (unsigned l = group.back() + 1; l < tile.kdims.size(); ++l) {
    newIds[l] = {unsigned(out.kdims.size())};
    out.kdims.push_back(tile.kdims[l]);
  }
  out.groups[dim] = numBits;
  for (auto &g : out.m) {
    std::vector<unsigned> renumbered;
    for (unsigned l : g)
      renumbered.insert(renumbered.end(), newIds[l].begin(), newIds[l].end());
    g = renumbered;
  }
  return out;
}
