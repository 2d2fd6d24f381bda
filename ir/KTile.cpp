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

int64_t mapc::satMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::numeric_limits<int64_t>::max();
  return r;
}

int64_t mapc::shapeSize(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n = satMul(n, s);
  return n;
}

uint64_t mapc::grayDecode(uint64_t g) {
  uint64_t w = g;
  for (unsigned shift = 1; shift < 64; shift <<= 1)
    w ^= w >> shift;
  return w;
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

unsigned KTile::firstEmptyDim() const {
  unsigned n = 0;
  for (unsigned j = 0; j < data.size() && j < groups.size(); ++j)
    n += groups[j];
  return n;
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

int64_t KTile::dataSize() const {
  int64_t n = 1;
  for (const SpaceDim &s : data)
    n = satMul(n, s.len);
  return n;
}

llvm::SmallVector<int64_t, 4> KTile::deviceShape() const {
  llvm::SmallVector<int64_t, 4> shape;
  for (const SpaceDim &s : device)
    shape.push_back(s.tlen);
  return shape;
}

int64_t KTile::deviceSize() const {
  int64_t n = 1;
  for (const SpaceDim &s : device)
    n = satMul(n, s.tlen);
  return n;
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
        {KField::K, "k groups do not account for every k-Tile dim", ""});
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
    out.push_back({KField::D, "the device space has more than 2^40 cells", ""});
  return out;
}

int64_t KTile::dataAt(int64_t addr) const {
  llvm::SmallVector<int64_t, 16> w(kdims.size());
  // otemplate(t_D, d, o_TD, o_D), then skmap^-1 per device dim.
  for (unsigned i = 0; i < device.size(); ++i) {
    const SpaceDim &s = device[i];
    int64_t v = addr % s.tlen;
    addr /= s.tlen;
    if (v < s.toff || v >= s.toff + s.len)
      return -1;
    int64_t b = (v - s.toff + s.len - s.off) % s.len;
    for (unsigned l : m[i]) {
      const KDim &kd = kdims[l];
      int64_t x = b % kd.tk;
      b /= kd.tk;
      if (kd.sense == Sense::Minus)
        x = kd.tk - 1 - x;
      if (kd.enc == Encoding::Gray)
        x = int64_t(grayDecode(uint64_t(x)));
      w[l] = x;
    }
  }
  // otemplate*(t_K, k, o_TK, o_K).
  unsigned firstEmpty = firstEmptyDim();
  for (unsigned l = 0; l < kdims.size(); ++l) {
    const KDim &kd = kdims[l];
    if (w[l] < kd.otk || w[l] >= kd.otk + kd.k)
      return -1;
    int64_t b =
        kd.ok == kReplicated ? 0 : (w[l] - kd.otk + kd.k - kd.ok) % kd.k;
    if (l >= firstEmpty && b != 0)
      return -1;
    w[l] = b;
  }
  // ikmap(k, t_A) and otemplate(t_A, a, o_TA, o_A), linearised.
  int64_t linear = 0, place = 1;
  unsigned l = 0;
  for (unsigned j = 0; j < data.size(); ++j) {
    int64_t u = 0, radix = 1;
    for (unsigned g = 0; g < groups[j]; ++g, ++l) {
      u += w[l] * radix;
      radix *= kdims[l].k;
    }
    const SpaceDim &s = data[j];
    if (u < s.toff || u >= s.toff + s.len)
      return -1;
    linear += ((u - s.toff + s.len - s.off) % s.len) * place;
    place *= s.len;
  }
  return linear;
}

void KTile::addressesOf(int64_t dataIndex,
                        llvm::SmallVectorImpl<int64_t> &out) const {
  // Back through the data template to K (unique).
  llvm::SmallVector<int64_t, 16> b(kdims.size(), 0);
  unsigned l = 0;
  for (unsigned j = 0; j < data.size(); ++j) {
    const SpaceDim &s = data[j];
    int64_t i = dataIndex % s.len;
    dataIndex /= s.len;
    int64_t u = (i + s.off) % s.len + s.toff;
    for (unsigned g = 0; g < groups[j]; ++g, ++l) {
      b[l] = u % kdims[l].k;
      u /= kdims[l].k;
    }
  }
  // K -> T_K: replicated dims take every value; the rest one value each.
  llvm::SmallVector<unsigned, 8> replicated;
  llvm::SmallVector<int64_t, 16> w(kdims.size());
  for (unsigned d = 0; d < kdims.size(); ++d) {
    const KDim &kd = kdims[d];
    if (kd.ok == kReplicated)
      replicated.push_back(d);
    else
      w[d] = kd.otk + (b[d] + kd.ok) % kd.k;
  }
  auto emit = [&]() {
    int64_t addr = 0, place = 1;
    for (unsigned i = 0; i < device.size(); ++i) {
      const SpaceDim &s = device[i];
      int64_t u = 0, radix = 1;
      for (unsigned d : m[i]) {
        const KDim &kd = kdims[d];
        int64_t x = w[d];
        if (kd.enc == Encoding::Gray)
          x = int64_t(grayEncode(uint64_t(x)));
        if (kd.sense == Sense::Minus)
          x = kd.tk - 1 - x;
        u += x * radix;
        radix *= kd.tk;
      }
      int64_t v = s.toff + (u + s.off) % s.len;
      addr += v * place;
      place *= s.tlen;
    }
    out.push_back(addr);
  };
  // Odometer over the replicated dims.
  for (unsigned d : replicated)
    w[d] = kdims[d].otk;
  while (true) {
    emit();
    unsigned r = 0;
    for (; r < replicated.size(); ++r) {
      unsigned d = replicated[r];
      if (++w[d] < kdims[d].otk + kdims[d].k)
        break;
      w[d] = kdims[d].otk;
    }
    if (r == replicated.size())
      return;
  }
}
