//===- Reshape.cpp --------------------------------------------------------===//
#include "ir/Reshape.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mapc;

namespace {

std::string str(int64_t v) { return std::to_string(v); }
bool pow2(int64_t v) { return v > 0 && llvm::isPowerOf2_64(uint64_t(v)); }
unsigned log2(int64_t v) { return llvm::Log2_64(uint64_t(v)); }

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + str(shape[i]);
  return s + ")";
}

/// Why the element counts differ, or "".
std::string countProblem(int64_t oldSize, llvm::ArrayRef<int64_t> newShape) {
  if (shapeSize(newShape) == oldSize)
    return "";
  return "the new shape " + shapeText(newShape) + " has " +
         str(shapeSize(newShape)) + " elements, not " + str(oldSize) +
         "; give a shape with the same number of elements";
}

/// Why `t` has no radix-2 bit assignment to keep, or "".
std::string radix2Problem(const KTile &t) {
  const char *fix = "; remap the array to a layout with power-of-two "
                    "lengths and plain k-Tile dims (or a bits layout) "
                    "before the reshape";
  for (unsigned j = 0; j < t.numDataDims(); ++j) {
    const SpaceDim &s = t.data[j];
    if (!pow2(s.len))
      return "data dim " + str(j) + " has length " + str(s.len) +
             ", not a power of two, so it has no data bits to keep; remap "
             "the array to a digits layout first (a digit map stays as it "
             "is under any reshape)";
    if (s.tlen != s.len || s.off || s.toff)
      return "data dim " + str(j) +
             " has a data template or offset (ta, oa, ota)" + fix;
  }
  unsigned firstEmpty = t.firstEmptyDim();
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    const KDim &d = t.kdims[l];
    if (d.ok == kReplicated)
      return "the layout replicates data (ok = *); remap the array to a "
             "layout without replication before the reshape";
    if (l < firstEmpty && (!pow2(d.k) || d.tk != d.k || d.otk || d.ok))
      return "k-Tile dim " + str(l) + " of length " + str(d.k) +
             " is not a plain power of two (or has a template or offset)" + fix;
  }
  return "";
}

/// First linear data bit of every axis of `shape`, then the total.
std::vector<unsigned> axisStarts(llvm::ArrayRef<int64_t> shape) {
  std::vector<unsigned> starts{0};
  for (int64_t n : shape)
    starts.push_back(starts.back() + log2(n));
  return starts;
}

/// The axis whose bit range holds `bit`.
unsigned axisOf(const std::vector<unsigned> &starts, unsigned bit) {
  return std::upper_bound(starts.begin(), starts.end() - 1, bit) -
         starts.begin() - 1;
}

/// A run of linear data bits [lo, lo + width) cut from one old k-Tile dim,
/// or (empty = true) an old empty dim carried over as it was.
struct Piece {
  unsigned lo = 0, width = 0;
  unsigned oldAxis = 0, newAxis = 0;
  bool empty = false;
  KDim dim; ///< sense and encoding; the whole dim for an empty piece
};

/// Where a piece sits in m: device dim and place in its list.
struct Slot {
  unsigned device = 0, index = 0;
};

class Reshaper {
public:
  Reshaper(const KTile &old, llvm::ArrayRef<int64_t> newShape)
      : old(old), newShape(newShape), newStarts(axisStarts(newShape)) {}

  KTile run() {
    cut();
    placeInM();
    merge();
    return build();
  }

private:
  /// Cuts every old data k-Tile dim at the new axes' bit boundaries, low
  /// piece first; a cut Gray dim gives Gray pieces (001 lemma 2).
  void cut() {
    unsigned bit = 0;
    piecesOf.resize(old.kdims.size());
    for (unsigned j = 0; j < old.numDataDims(); ++j)
      for (unsigned l : old.dataGroup(j)) {
        unsigned end = bit + log2(old.kdims[l].k);
        while (bit < end) {
          unsigned axis = axisOf(newStarts, bit);
          unsigned stop = std::min(end, newStarts[axis + 1]);
          Piece p;
          p.lo = bit;
          p.width = stop - bit;
          p.oldAxis = j;
          p.newAxis = axis;
          p.dim.sense = old.kdims[l].sense;
          p.dim.enc = old.kdims[l].enc;
          piecesOf[l].push_back(pieces.size());
          pieces.push_back(p);
          bit = stop;
        }
      }
    numData = pieces.size();
    for (unsigned l = old.firstEmptyDim(); l < old.kdims.size(); ++l) {
      Piece p;
      p.empty = true;
      p.dim = old.kdims[l];
      piecesOf[l].push_back(pieces.size());
      pieces.push_back(p);
    }
  }

  /// The pieces of each old m list, in place of the dim they came from.
  void placeInM() {
    slots.resize(pieces.size());
    m.resize(old.m.size());
    for (unsigned i = 0; i < old.m.size(); ++i)
      for (unsigned l : old.m[i])
        for (unsigned p : piecesOf[l]) {
          slots[p] = {i, unsigned(m[i].size())};
          m[i].push_back(p);
        }
  }

  /// 001 section 3: two Gray axes that end up in one new axis merge into
  /// one Gray code. Only pieces that an old axis boundary separated, with
  /// one sense, and that are neighbours in one device dim (low one first)
  /// can form one k-Tile dim.
  bool mergeable(unsigned p, unsigned q) const {
    const Piece &a = pieces[p], &b = pieces[q];
    return a.newAxis == b.newAxis && a.oldAxis != b.oldAxis &&
           a.dim.enc == Encoding::Gray && b.dim.enc == Encoding::Gray &&
           a.dim.sense == b.dim.sense && slots[p].device == slots[q].device &&
           slots[q].index == slots[p].index + 1;
  }

  void merge() {
    head.resize(pieces.size());
    for (unsigned p = 0; p < pieces.size(); ++p)
      head[p] = p;
    for (unsigned p = 0; p + 1 < numData; ++p)
      if (mergeable(p, p + 1)) {
        head[p + 1] = head[p];
        pieces[head[p]].width += pieces[p + 1].width;
      }
  }

  KTile build() {
    KTile t;
    for (int64_t n : newShape)
      t.data.push_back(SpaceDim::plain(n));
    t.device = old.device;
    std::vector<unsigned> number(pieces.size(), ~0u);
    std::vector<unsigned> unitDims; // k-Tile dims of length-1 axes
    for (unsigned axis = 0; axis < newShape.size(); ++axis) {
      unsigned count = 0;
      for (unsigned p = 0; p < numData; ++p)
        if (head[p] == p && pieces[p].newAxis == axis) {
          KDim d = KDim::plain(int64_t(1) << pieces[p].width);
          d.sense = pieces[p].dim.sense;
          d.enc = pieces[p].dim.enc;
          number[p] = t.kdims.size();
          t.kdims.push_back(d);
          ++count;
        }
      if (!count) { // a length-1 axis has no bits but needs a k-Tile dim
        unitDims.push_back(t.kdims.size());
        t.kdims.push_back(KDim::plain(1));
        count = 1;
      }
      t.groups.push_back(count);
    }
    unsigned numEmpty = 0;
    for (unsigned p = numData; p < pieces.size(); ++p, ++numEmpty) {
      number[p] = t.kdims.size();
      t.kdims.push_back(pieces[p].dim);
    }
    for (const std::vector<unsigned> &list : m) {
      std::vector<unsigned> out;
      for (unsigned p : list)
        if (out.empty() || out.back() != number[head[p]])
          out.push_back(number[head[p]]);
      t.m.push_back(out);
    }
    // Length-1 axes fill device dims left without k-Tile dims (their old
    // dims held no bits), else go first in device dim 0; a device dim still
    // empty gets an empty dim of length 1.
    for (unsigned u : unitDims) {
      auto hole = std::find_if(t.m.begin(), t.m.end(),
                               [](const auto &g) { return g.empty(); });
      if (hole != t.m.end())
        hole->push_back(u);
      else
        t.m[0].insert(t.m[0].begin(), u);
    }
    for (std::vector<unsigned> &g : t.m)
      if (g.empty()) {
        g.push_back(t.kdims.size());
        t.kdims.push_back(KDim::plain(1));
        ++numEmpty;
      }
    if (numEmpty)
      t.groups.push_back(numEmpty);
    return t;
  }

  const KTile &old;
  llvm::ArrayRef<int64_t> newShape;
  std::vector<unsigned> newStarts;
  std::vector<Piece> pieces; ///< data pieces in linear bit order, then
                             ///< the empty dims
  unsigned numData = 0;      ///< number of data pieces
  std::vector<std::vector<unsigned>> piecesOf; ///< per old k-Tile dim
  std::vector<Slot> slots;                     ///< per piece
  std::vector<std::vector<unsigned>> m;        ///< pieces per device dim
  std::vector<unsigned> head; ///< the lowest piece of each merged run
};

} // namespace

std::variant<KTile, std::string>
mapc::reshapeTile(const KTile &old, llvm::ArrayRef<int64_t> newShape) {
  if (std::string why = countProblem(old.dataSize(), newShape); !why.empty())
    return why;
  // Power-of-two data dims make the new lengths powers of two as well.
  if (std::string why = radix2Problem(old); !why.empty())
    return why;
  KTile t = Reshaper(old, newShape).run();
  std::vector<KTileProblem> problems = t.verify();
  if (!problems.empty())
    return "internal error: the reshaped k-Tile format is invalid (" +
           problems.front().message + "); please report this";
  return t;
}

std::variant<DigitMap, std::string>
mapc::reshapeDigits(const DigitMap &old, llvm::ArrayRef<int64_t> newShape) {
  if (std::string why = countProblem(old.dataSize(), newShape); !why.empty())
    return why;
  DigitMap d = old;
  d.shape.assign(newShape.begin(), newShape.end());
  return d;
}
