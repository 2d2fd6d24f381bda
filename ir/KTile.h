//===- KTile.h - the extended k-Tile format (003 chapter 3) ---------------===//
//
// A k-Tile format maps a device index space D onto a data index space A
// through a k-Tile space K (003 3.1.5). The extended format of 003 3.2.6
// composes five index maps, read from the device towards the data:
//
//   g_K = otemplate(t_A, a, o_TA, o_A)      data template -> data (3.2.4)
//       o ikmap(k, t_A)                     K -> data template, implicit,
//                                           with empty dims (3.1.8, 3.2.1)
//       o otemplate*(t_K, k, o_TK, o_K)     k-Tile template -> K, `*` offsets
//                                           replicate (3.2.5)
//       o skmap^-1(t_K, d, m, s)            device -> k-Tile template, with
//                                           sense (3.2.2)
//       o otemplate(t_D, d, o_TD, o_D)      device template -> device
//
// mapc adds one field, the encoding `e` of each k-Tile dim (001 section 2):
// the k-Tile template index w of a Gray dim is stored at device position
// G(w) = w xor (w >> 1), before the sense is applied.
//
// Worked example (003 3.2.4): a = [6], k = [3, 2], o_K = [1, 0], m = [0, 1],
// d = [6]. Device address x splits into digits (x mod 3, x / 3); the offset
// maps digit 0 through (w + 3 - 1) mod 3; so the device holds 2 0 1 5 3 4.
//
// Numbering: k-Tile dims are numbered in the order of the data groups of `k`
// (data dim 0's dims first, least significant first); groups past the data
// rank hold empty dims. `m` lists, per device dim, the k-Tile dims from least
// significant upward. Dimension 0 of every space is the fastest varying.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_KTILE_H
#define MAPC_IR_KTILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mapc {

enum class Sense : uint8_t { Plus, Minus };
enum class Encoding : uint8_t { Binary, Gray };

/// The `*` offset of 003 3.2.5: every value of the dim holds the data.
constexpr int64_t kReplicated = -1;

/// One dimension of the k-Tile space with its template, offsets, sense and
/// encoding.
struct KDim {
  int64_t k = 1;   ///< length in K
  int64_t tk = 1;  ///< length in the k-Tile template T_K (>= k)
  int64_t otk = 0; ///< where K starts inside T_K (o_TK)
  int64_t ok = 0;  ///< offset inside K (o_K), or kReplicated
  Sense sense = Sense::Plus;
  Encoding enc = Encoding::Binary;

  static KDim plain(int64_t len) {
    KDim d;
    d.k = d.tk = len;
    return d;
  }
  bool isPlain() const {
    return k == tk && otk == 0 && ok == 0 && enc == Encoding::Binary;
  }
};

/// One dimension of the data or device space with its template and offsets.
struct SpaceDim {
  int64_t len = 1;  ///< a_i or d_i
  int64_t tlen = 1; ///< template length (t_A or t_D), >= len
  int64_t off = 0;  ///< o_A or o_D: wrap-around offset inside the space
  int64_t toff = 0; ///< o_TA or o_TD: where the space starts in its template

  static SpaceDim plain(int64_t len) {
    SpaceDim d;
    d.len = d.tlen = len;
    return d;
  }
};

/// The fields of a k-Tile format, named as in the thesis and the language.
enum class KField { A, TA, OA, OTA, K, TK, OK, OTK, S, E, M, D, TD, OD, OTD };
const char *fieldName(KField f);

/// A problem found by KTile::verify, in terms of the field it concerns.
struct KTileProblem {
  KField field;
  std::string message;
  std::string hint;
};

/// An extended k-Tile format (003 3.2.6 plus the encoding field).
struct KTile {
  std::vector<SpaceDim> data;   ///< a, t_A, o_A, o_TA per data dim
  std::vector<KDim> kdims;      ///< all k-Tile dims, numbered
  std::vector<unsigned> groups; ///< number of k-Tile dims per `k` group;
                                ///< groups past data.size() are empty dims
  std::vector<std::vector<unsigned>> m; ///< per device dim, least sig. first
  std::vector<SpaceDim> device;         ///< d, t_D, o_D, o_TD per device dim

  unsigned numDataDims() const { return data.size(); }
  unsigned numDeviceDims() const { return device.size(); }
  /// Index of the first empty k-Tile dim (all dims from here on are empty).
  unsigned firstEmptyDim() const;
  bool isEmptyDim(unsigned l) const { return l >= firstEmptyDim(); }
  /// The k-Tile dims of data dim j, least significant first.
  llvm::SmallVector<unsigned, 4> dataGroup(unsigned j) const;
  /// The data dim of k-Tile dim l, or -1 for an empty dim.
  int dataDimOf(unsigned l) const;

  /// Checks every condition of 003 3.1.7, 3.2.3-3.2.5 and B.2.1. An empty
  /// result means the format is well formed and can be evaluated.
  std::vector<KTileProblem> verify() const;

  /// Number of elements of the data space (product of a).
  int64_t dataSize() const;
  /// Shape of the device template T_D (what the device array occupies).
  llvm::SmallVector<int64_t, 4> deviceShape() const;
  int64_t deviceSize() const;

  /// g_K: the linear data index held at the linear device template address,
  /// or -1 if that address is empty. Requires a verified format.
  int64_t dataAt(int64_t deviceAddr) const;
  /// The inverse: every linear device template address holding `dataIndex`
  /// (more than one when the format replicates).
  void addressesOf(int64_t dataIndex,
                   llvm::SmallVectorImpl<int64_t> &out) const;
};

/// Binary-reflected Gray code and its inverse (001 lemma 1).
inline uint64_t grayEncode(uint64_t w) { return w ^ (w >> 1); }
uint64_t grayDecode(uint64_t g);

/// Multiplies with saturation at INT64_MAX, so size checks cannot overflow.
int64_t satMul(int64_t a, int64_t b);
/// The saturating product of a shape: its number of elements.
int64_t shapeSize(llvm::ArrayRef<int64_t> shape);

} // namespace mapc

#endif
