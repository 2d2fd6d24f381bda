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
//===----------------------------------------------------------------------===//
#include "passes/Lowering.h"
#include "passes/TileBuilder.h"

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

} // namespace

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
