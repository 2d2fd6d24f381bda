//===- HPFLowering.cpp - DISTRIBUTE and ALIGN as k-Tile formats (003 7.1) -===//
#include "passes/Lowering.h"
#include "passes/TileBuilder.h"

#include <algorithm>

using namespace mapc;

namespace {

std::string str(int64_t v) { return std::to_string(v); }
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A format opened up for editing: k-Tile dims addressed by stable handles.
struct OpenTile {
  std::vector<KDim> dims;
  std::vector<std::vector<unsigned>> groupOf; // per new data dim
  std::vector<unsigned> empties;
  std::vector<std::vector<unsigned>> m;
  std::vector<SpaceDim> data;
  std::vector<SpaceDim> device;

  /// Inserts a new dim just below `below` in its device group.
  unsigned splitBelow(unsigned below, KDim low) {
    dims.push_back(low);
    unsigned h = dims.size() - 1;
    for (auto &group : m)
      for (size_t p = 0; p < group.size(); ++p)
        if (group[p] == below) {
          group.insert(group.begin() + p, h);
          return h;
        }
    return h;
  }

  /// Takes the empty dims `handles` that lie in memory (device dim 0) out
  /// of the format, dividing memory by their lengths, where memory has no
  /// template or offset and the dims none (so the division is exact).
  void dropFromMemory(const std::vector<unsigned> &handles) {
    SpaceDim &mem = device[0];
    if (mem.tlen != mem.len || mem.off != 0 || mem.toff != 0)
      return;
    for (unsigned h : handles) {
      auto at = std::find(m[0].begin(), m[0].end(), h);
      const KDim &d = dims[h];
      if (at == m[0].end() || d.k != d.tk || d.otk != 0)
        continue;
      mem.len = mem.tlen = mem.len / d.k;
      if (m[0].size() == 1) {
        // Memory keeps one k-Tile dim: this one, of length 1.
        dims[h] = KDim::plain(1);
        continue;
      }
      m[0].erase(at);
      empties.erase(std::find(empties.begin(), empties.end(), h));
    }
  }

  KTile close() const {
    KTile t;
    t.data = data;
    t.device = device;
    std::vector<unsigned> number(dims.size(), ~0u);
    auto take = [&](const std::vector<unsigned> &handles) {
      for (unsigned h : handles) {
        number[h] = t.kdims.size();
        t.kdims.push_back(dims[h]);
      }
      return unsigned(handles.size());
    };
    for (const auto &g : groupOf)
      t.groups.push_back(take(g));
    if (!empties.empty())
      t.groups.push_back(take(empties));
    for (const auto &group : m) {
      std::vector<unsigned> renumbered;
      for (unsigned h : group)
        renumbered.push_back(number[h]);
      t.m.push_back(renumbered);
    }
    return t;
  }
};

bool isSplittable(const KDim &d) {
  return d.k == d.tk && d.otk == 0 && d.ok == 0 && d.enc == Encoding::Binary;
}

} // namespace

LowerResult mapc::lowerDistribute(llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<DistFormatSpec> formats,
                                  llvm::ArrayRef<int64_t> procs) {
  if (formats.size() != shape.size())
    return LoweringError{"distribute gives " + str(formats.size()) +
                             " formats for an array of rank " +
                             str(shape.size()),
                         "give one of block, cyclic or * per dimension"};
  unsigned distributed = 0;
  for (const DistFormatSpec &f : formats)
    distributed += f.kind != DistFormatSpec::Star;
  if (distributed != procs.size()) {
    const std::string what = str(distributed) + " distributed dim" +
                             (distributed == 1 ? "" : "s") + " onto a " +
                             str(procs.size()) + "-d processor arrangement";
    if (procs.size() <= shape.size())
      return LoweringError{what, "HPF maps each distributed dim to one "
                                 "processor dim: use as many block/cyclic "
                                 "formats as the processors have dims, the "
                                 "rest '*'"};
    // More processor dims than the array has: no formats fit, only
    // another arrangement of the same processors.
    int64_t count = 1;
    for (int64_t p : procs)
      count *= p;
    return LoweringError{
        what,
        "HPF maps each distributed dim to one processor dim, and the "
        "array has " +
            str(shape.size()) + ": distribute it onto processors of " +
            (shape.size() == 1 ? std::string("one dim")
                               : "at most " + str(shape.size()) + " dims") +
            " (for example 'processors Q(" + str(count) + ")')"};
  }

  TileBuilder b(shape, 1 + procs.size());
  unsigned pc = 0;
  for (unsigned j = 0; j < shape.size(); ++j) {
    const DistFormatSpec &f = formats[j];
    int64_t n = shape[j];
    if (f.kind == DistFormatSpec::Star) {
      b.add(j, n, 0);
      continue;
    }
    int64_t p = procs[pc];
    unsigned peDim = 1 + pc++;
    if (f.kind == DistFormatSpec::Block) {
      int64_t block = f.arg ? f.arg : ceilDiv(n, p);
      if (satMul(block, p) < n)
        return LoweringError{
            "block(" + str(block) + ") over " + str(p) +
                " processors holds only " + str(block * p) + " of " + str(n) +
                " elements",
            "use a block size of at least " + str(ceilDiv(n, p)), int(j)};
      b.add(j, block, 0);
      b.add(j, p, peDim);
      b.dataDim(j).tlen = satMul(block, p);
    } else {
      int64_t width = f.arg ? f.arg : 1;
      int64_t rounds = ceilDiv(n, satMul(width, p));
      if (width > 1)
        b.add(j, width, 0);
      b.add(j, p, peDim);
      b.add(j, rounds, 0);
      b.dataDim(j).tlen = satMul(satMul(width, p), rounds);
    }
  }
  return b.finish();
}

LowerResult mapc::lowerAlign(llvm::ArrayRef<int64_t> aligneeShape,
                             const KTile &target,
                             llvm::ArrayRef<AlignSubSpec> subs) {
  if (subs.size() != target.numDataDims())
    return LoweringError{"align target has rank " + str(target.numDataDims()) +
                             " but " + str(subs.size()) +
                             " subscripts are given",
                         "give one subscript per target dimension"};
  OpenTile t;
  t.dims = target.kdims;
  t.m = target.m;
  t.device = target.device;
  t.groupOf.resize(aligneeShape.size());
  t.data.resize(aligneeShape.size());
  for (unsigned l = target.firstEmptyDim(); l < target.kdims.size(); ++l)
    t.empties.push_back(l);
  std::vector<bool> used(aligneeShape.size(), false);
  // The k-Tile dims a `*` or a constant subscript empties.
  std::vector<unsigned> oneCell;

  for (unsigned r = 0; r < subs.size(); ++r) {
    const AlignSubSpec &sub = subs[r];
    const SpaceDim &x = target.data[r];
    auto group = target.dataGroup(r);
    std::vector<unsigned> ids(group.begin(), group.end());
    auto fail = [&](const std::string &msg, const std::string &hint,
                    int64_t stride = 0) {
      return LoweringError{msg, hint, int(r), stride};
    };

    if (sub.kind == AlignSubSpec::Replicate) {
      // 003 7.1.1 "Replicated arrays": the dim's k-Tile dims become empty
      // and replicated.
      for (unsigned l : ids) {
        t.dims[l].ok = kReplicated;
        t.empties.push_back(l);
        oneCell.push_back(l);
      }
      continue;
    }
    if (sub.kind == AlignSubSpec::Constant) {
      if (sub.offset < 0 || sub.offset >= x.len)
        return fail("subscript " + str(sub.offset) +
                        " is outside the target's dim " + str(r) + " (0.." +
                        str(x.len - 1) + ")",
                    "use a position inside the target");
      // The position's digits become constant values of empty dims (3.2.5).
      int64_t u = (sub.offset + x.off) % x.len + x.toff;
      for (unsigned l : ids) {
        KDim &d = t.dims[l];
        int64_t digit = u % d.k;
        u /= d.k;
        if (d.ok != kReplicated)
          d.ok = (d.ok + digit) % d.k;
        t.empties.push_back(l);
        oneCell.push_back(l);
      }
      continue;
    }

    unsigned q = sub.dummy;
    used[q] = true;
    int64_t n = aligneeShape[q];
    int64_t first = sub.offset, span, last;
    bool overflow = __builtin_mul_overflow(sub.stride, n - 1, &span) ||
                    __builtin_add_overflow(first, span, &last);
    if (overflow)
      return fail("the alignee's dim " + str(q) +
                      " reaches far outside the "
                      "target's dim " +
                      str(r),
                  "stride and offset must keep every alignee index inside "
                  "the target (HPF align)");
    if (std::min(first, last) < 0 || std::max(first, last) >= x.len)
      return fail("the alignee's dim " + str(q) + " reaches index " +
                      str(std::min(first, last) < 0 ? std::min(first, last)
                                                    : std::max(first, last)) +
                      " of the target's dim " + str(r) + ", outside 0.." +
                      str(x.len - 1),
                  "stride and offset must keep every alignee index inside "
                  "the target (HPF align)");

    // Position of alignee index i in the target's data template: base +
    // stride * i, in a frame that is reversed when the stride is negative.
    int64_t base;
    int64_t stride = sub.stride;
    if (x.off != 0) {
      int64_t start = (sub.offset + x.off) % x.len;
      if (stride == 1 && n == x.len) {
        t.groupOf[q] = ids;
        t.data[q] = x;
        continue;
      }
      if (stride != 1 || start + n > x.len)
        return fail("the alignment crosses the wrap-around offset of the "
                    "target's dim " +
                        str(r),
                    "align with a target that has no `oa` offset in this "
                    "dim");
      base = x.toff + start;
    } else {
      base = x.toff + sub.offset;
    }
    int64_t tlen = x.tlen;
    if (stride < 0) {
      // Reversal (003 7.1.1 "Index negation"): flip the sense of every
      // k-Tile dim of the group, which maps template index u to tlen-1-u.
      for (unsigned l : ids) {
        if (!isSplittable(t.dims[l]))
          return fail("cannot reverse the target's dim " + str(r) +
                          ": its k-Tile dims have templates, offsets or a "
                          "Gray encoding",
                      "align with a plainer target, or reverse in a "
                      "ktile layout with `s`");
        t.dims[l].sense =
            t.dims[l].sense == Sense::Plus ? Sense::Minus : Sense::Plus;
      }
      base = tlen - 1 - base;
      stride = -stride;
    }
    if (stride > 1) {
      // 003 7.1.1 "Index multiplication": the stride's factors peel off the
      // least significant k-Tile dims as empty dims whose constant value is
      // the position's low digits.
      int64_t rest = stride;
      int64_t low = base % stride;
      size_t idx = 0;
      while (rest > 1) {
        if (idx >= ids.size() || !isSplittable(t.dims[ids[idx]]))
          return fail("stride " + str(stride) +
                          " does not divide the tiles of the target's dim " +
                          str(r),
                      "k-Tile formats express a stride only when it factors "
                      "the target's tile lengths (003 7.1.1)",
                      stride);
        unsigned l = ids[idx];
        int64_t len = t.dims[l].k;
        if (rest % len == 0) {
          t.dims[l].ok = low % len;
          low /= len;
          rest /= len;
          t.empties.push_back(l);
          ++idx;
        } else if (len % rest == 0) {
          KDim lowDim = t.dims[l];
          lowDim.k = lowDim.tk = rest;
          lowDim.ok = low % rest;
          t.dims[l].k = t.dims[l].tk = len / rest;
          t.empties.push_back(t.splitBelow(l, lowDim));
          rest = 1;
        } else {
          return fail("stride " + str(stride) +
                          " does not divide the tiles of the target's dim " +
                          str(r) + " (a tile of length " + str(len) + ")",
                      "k-Tile formats express a stride only when it factors "
                      "the target's tile lengths (003 7.1.1)",
                      stride);
        }
      }
      ids.erase(ids.begin(), ids.begin() + idx);
      if (ids.empty()) {
        // Every tile was peeled: the alignee dim has length 1.
        KDim one = KDim::plain(1);
        t.dims.push_back(one);
        ids.push_back(t.dims.size() - 1);
        t.m[0].push_back(ids.back());
      }
      base /= stride;
      tlen /= stride;
    }
    t.groupOf[q] = ids;
    SpaceDim d = SpaceDim::plain(n);
    d.tlen = tlen;
    d.toff = base;
    t.data[q] = d;
  }

  // HPF keeps one copy of a replicated alignee per processor, and a
  // constant subscript picks one position of the target's dim: the k-Tile
  // dims they empty in memory would only repeat the copy or hold nothing
  // (003 7.1.1 keeps them as empty dims), so they leave memory, which
  // shrinks by their lengths. The PE dims keep theirs: a copy on every PE
  // of the dim, or only on the PEs of the position.
  t.dropFromMemory(oneCell);

  // Alignee dims no subscript uses are collapsed: they live in memory.
  for (unsigned q = 0; q < aligneeShape.size(); ++q) {
    if (used[q])
      continue;
    SpaceDim &mem = t.device[0];
    if (mem.tlen != mem.len || mem.off != 0)
      return LoweringError{"cannot collapse dim " + str(q) +
                               " into memory: the target's memory dim has a "
                               "template or offset",
                           "use the dummy in a subscript"};
    t.dims.push_back(KDim::plain(aligneeShape[q]));
    t.groupOf[q] = {unsigned(t.dims.size() - 1)};
    t.m[0].push_back(t.dims.size() - 1);
    t.data[q] = SpaceDim::plain(aligneeShape[q]);
    mem.len = mem.tlen = satMul(mem.len, aligneeShape[q]);
  }
  return t.close();
}
