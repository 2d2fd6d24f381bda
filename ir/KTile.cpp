//===- KTile.cpp - evaluation and verification of k-Tile formats ----------===//
#include "ir/KTile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace mapc;

namespace {
/// Formats larger than this are rejected: nothing real needs 2^40 cells and
/// every later product then fits comfortably in int64_t.
constexpr int64_t kMaxSpaceSize = int64_t(1) << 40;

std::string str(int64_t v) { return std::to_string(v); }
} // namespace

int64_t mapc::shapeSize(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n = satMul(n, s);
  return n;
}

const char *mapc::fieldName(KField f) {
  switch (f) {
  case KField::A:
    return "a";
  case KField::TA:
    return "ta";
  case KField::OA:
    return "oa";
  case KField::OTA:
    return "ota";
  case KField::K:
    return "k";
  case KField::TK:
    return "tk";
  case KField::OK:
    return "ok";
  case KField::OTK:
    return "otk";
  case KField::S:
    return "s";
  case KField::E:
    return "e";
  case KField::M:
    return "m";
  case KField::D:
    return "d";
  case KField::TD:
    return "td";
  case KField::OD:
    return "od";
  case KField::OTD:
    return "otd";
  }
  return "?";
}

llvm::SmallVector<unsigned, 4> KTile::dataGroup(unsigned j) const {
  unsigned start = 0;
  for (unsigned g = 0; g < j; ++g)
    start += groups[g];
  llvm::SmallVector<unsigned, 4> dims;
  for (unsigned l = 0; l < groups[j]; ++l)
    dims.push_back(start + l);
  return dims;
}

int KTile::dataDimOf(unsigned l) const {
  unsigned start = 0;
  for (unsigned j = 0; j < data.size(); ++j) {
    if (l < start + groups[j])
      return j;
    start += groups[j];
  }
  return -1;
}

llvm::SmallVector<int64_t, 4> KTile::deviceShape() const {
  llvm::SmallVector<int64_t, 4> shape;
  for (const SpaceDim &s : device)
    shape.push_back(s.tlen);
  return shape;
}

namespace {
/// Checks one data or device dim: lengths, template and offsets (3.2.3-4).
void verifySpaceDim(const SpaceDim &s, unsigned i, bool isData,
                    std::vector<KTileProblem> &out) {
  KField len = isData ? KField::A : KField::D;
  KField tlen = isData ? KField::TA : KField::TD;
  KField off = isData ? KField::OA : KField::OD;
  KField toff = isData ? KField::OTA : KField::OTD;
  const char *space = isData ? "data" : "device";
  std::string dim = std::string(space) + " dim " + str(i);
  if (s.len < 1 || s.len > kMaxSpaceSize) {
    out.push_back({len, dim + " has length " + str(s.len),
                   "lengths must be between 1 and 2^40"});
    return;
  }
  if (s.tlen > kMaxSpaceSize)
    out.push_back({tlen,
                   "template of " + dim + " has length " + str(s.tlen) +
                       ", more than 2^40",
                   "use a smaller block or cycle length"});
  else if (s.tlen < s.len)
    out.push_back({tlen,
                   "template of " + dim + " has length " + str(s.tlen) +
                       ", smaller than the " + space + " length " + str(s.len),
                   "a template must be at least as long as its space"});
  else if (s.toff < 0 || s.toff > s.tlen - s.len)
    out.push_back({toff,
                   "template offset " + str(s.toff) + " of " + dim +
                       " puts the space outside its template",
                   "use an offset between 0 and " + str(s.tlen - s.len)});
  if (s.off < 0 || s.off >= s.len)
    out.push_back({off,
                   "offset " + str(s.off) + " of " + dim + " is out of range",
                   "use an offset between 0 and " + str(s.len - 1)});
}
} // namespace

std::vector<KTileProblem> KTile::verify() const {
  std::vector<KTileProblem> out;
  if (data.empty())
    out.push_back({KField::A, "the data space has no dimensions",
                   "give `a` at least one length"});
  if (device.empty())
    out.push_back({KField::D, "the device space has no dimensions",
                   "give `d` at least one length"});
  for (unsigned i = 0; i < data.size(); ++i)
    verifySpaceDim(data[i], i, true, out);
  for (unsigned i = 0; i < device.size(); ++i)
    verifySpaceDim(device[i], i, false, out);
  if (!out.empty())
    return out;

  // The grouping of k by data dim (003 3.1.8, 3.2.1).
  unsigned total = 0;
  for (unsigned g : groups)
    total += g;
  if (groups.size() < data.size()) {
    out.push_back({KField::K,
                   "k has " + str(groups.size()) + " groups but the data has " +
                       str(data.size()) + " dims",
                   "separate the k-Tile dims of each data dim with ';'"});
    return out;
  }
  if (total != kdims.size()) {
    out.push_back(
        {KField::K, "k groups do not account for every k-Tile dim",
         "every k-Tile dim belongs to one group of k: a group per data dim, "
         "then one group of empty dims"});
    return out;
  }
  for (unsigned j = 0; j < data.size(); ++j)
    if (groups[j] == 0)
      out.push_back({KField::K, "data dim " + str(j) + " has no k-Tile dims",
                     "give each data dim at least one k-Tile dim"});

  unsigned firstEmpty = firstEmptyDim();
  for (unsigned l = 0; l < kdims.size(); ++l) {
    const KDim &kd = kdims[l];
    std::string dim = "k-Tile dim " + str(l);
    if (kd.k < 1 || kd.k > kMaxSpaceSize) {
      out.push_back({KField::K, dim + " has length " + str(kd.k),
                     "lengths must be between 1 and 2^40"});
      continue;
    }
    if (kd.tk > kMaxSpaceSize)
      out.push_back({KField::TK,
                     "template of " + dim + " has length " + str(kd.tk) +
                         ", more than 2^40",
                     "use a smaller template"});
    else if (kd.tk < kd.k)
      out.push_back({KField::TK,
                     "template of " + dim + " has length " + str(kd.tk) +
                         ", smaller than its length " + str(kd.k),
                     "a template must be at least as long as its space"});
    else if (kd.otk < 0 || kd.otk > kd.tk - kd.k)
      out.push_back({KField::OTK,
                     "template offset " + str(kd.otk) + " of " + dim +
                         " puts it outside its template",
                     "use an offset between 0 and " + str(kd.tk - kd.k)});
    if (kd.ok == kReplicated) {
      if (l < firstEmpty)
        out.push_back({KField::OK,
                       "'*' offset on " + dim + ", which holds data dim " +
                           str(dataDimOf(l)),
                       "only empty k-Tile dims can be replicated (003 3.2.5)"});
    } else if (kd.ok < 0 || kd.ok >= kd.k) {
      out.push_back({KField::OK,
                     "offset " + str(kd.ok) + " of " + dim + " is out of range",
                     "use an offset between 0 and " + str(kd.k - 1) +
                         ", or '*' on an empty dim"});
    }
    if (kd.enc == Encoding::Gray && !llvm::isPowerOf2_64(kd.tk))
      out.push_back({KField::E,
                     "Gray encoding of " + dim + " needs a power-of-two " +
                         "length, not " + str(kd.tk),
                     "use 'b' for this dim, or make its length a power of "
                     "two"});
  }
  if (!out.empty())
    return out;

  // Each data group must fit snugly into its data template (003 eq. 3.2).
  for (unsigned j = 0; j < data.size(); ++j) {
    int64_t prod = 1;
    for (unsigned l : dataGroup(j))
      prod = satMul(prod, kdims[l].k);
    if (prod != data[j].tlen) {
      bool less = prod < data[j].tlen;
      out.push_back(
          {KField::K,
           std::string(less ? "k-Tile dims do not cover"
                            : "k-Tile dims do not fit in") +
               " data dim " + str(j) + ": their product is " + str(prod) +
               " but the data " +
               (data[j].tlen != data[j].len ? "template " : "") + "length is " +
               str(data[j].tlen),
           "the k-Tile dims of each data dim must multiply to its length; "
           "pad with `ta` if it does not factor"});
    }
  }

  // m must be a permutation of the k-Tile dims (003 3.1.7).
  if (m.size() != device.size()) {
    out.push_back({KField::M,
                   "m has " + str(m.size()) + " groups but the device has " +
                       str(device.size()) + " dims",
                   "separate the k-Tile dims of each device dim with ';'"});
    return out;
  }
  std::vector<int> seen(kdims.size(), 0);
  for (unsigned i = 0; i < m.size(); ++i) {
    int64_t prod = 1;
    for (unsigned l : m[i]) {
      if (l >= kdims.size()) {
        out.push_back({KField::M,
                       "m names k-Tile dim " + str(l) +
                           ", but there are only " + str(kdims.size()),
                       "k-Tile dims are numbered from 0 in the order of `k`"});
        continue;
      }
      if (seen[l]++)
        out.push_back({KField::M,
                       "k-Tile dim " + str(l) + " is mentioned twice in m",
                       "list every k-Tile dim exactly once in m"});
      prod = satMul(prod, kdims[l].tk);
    }
    if (m[i].empty())
      out.push_back({KField::M, "device dim " + str(i) + " has no k-Tile dims",
                     "give each device dim at least one k-Tile dim"});
    else if (prod != device[i].len)
      out.push_back(
          {KField::M,
           std::string(prod < device[i].len ? "k-Tile dims do not cover"
                                            : "k-Tile dims overflow") +
               " device dim " + str(i) + ": their product is " + str(prod) +
               " but its length is " + str(device[i].len),
           "the k-Tile dims mapped to each device dim must multiply to its "
           "length; add an empty k-Tile dim to fill it"});
  }
  for (unsigned l = 0; l < kdims.size(); ++l)
    if (!seen[l])
      out.push_back({KField::M, "k-Tile dim " + str(l) + " is missing from m",
                     "list every k-Tile dim exactly once in m"});
  if (!out.empty())
    return out;

  if (deviceSize() > kMaxSpaceSize)
    out.push_back({KField::D, "the device space has more than 2^40 cells",
                   "mapc's index spaces hold at most 2^40 cells "
                   "(docs/language.md, \"Sizes\"): use a smaller device"});
  return out;
}
