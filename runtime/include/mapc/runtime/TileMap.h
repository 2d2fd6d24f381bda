//===- TileMap.h - evaluating an extended k-Tile format (003 3.2.6) -------===//
//
// The index map of a k-Tile format, as plain data that emitted code and the
// simulators can evaluate without the compiler: g_K composes five maps, read
// from the device towards the data (003 3.2.6):
//
//   g_K = otemplate(t_A, a, o_TA, o_A)      data template -> data (3.2.4)
//       o ikmap(k, t_A)                     K -> data template (3.1.8, 3.2.1)
//       o otemplate*(t_K, k, o_TK, o_K)     k-Tile template -> K, `*` offsets
//                                           replicate (3.2.5)
//       o skmap^-1(t_K, d, m, s)            device -> k-Tile template, with
//                                           sense (3.2.2)
//       o otemplate(t_D, d, o_TD, o_D)      device template -> device
//
// plus the encoding `e` of each k-Tile dim (001 section 2): the k-Tile
// template index w of a Gray dim is stored at device position G(w).
//
// Every layout mapc accepts that is not GF(2)-affine is one of these: HPF
// distributions and alignments lower to it (003 7.1) and so do index digit
// maps (003 6.1.3, a digit being a k-Tile dim of one data dim holding the
// linear data index). The compiler's ir::KTile derives from TileMap and adds
// verification; a TileMap must come from a verified format.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_TILEMAP_H
#define MAPC_RUNTIME_TILEMAP_H

#include <cstdint>
#include <vector>

namespace mapc::rt {

enum class Sense : uint8_t { Plus, Minus };
enum class Encoding : uint8_t { Binary, Gray };

/// The `*` offset of 003 3.2.5: every value of the dim holds the data.
constexpr int64_t kReplicated = -1;

/// Binary-reflected Gray code and its inverse (001 lemma 1).
inline uint64_t grayEncode(uint64_t w) { return w ^ (w >> 1); }
inline uint64_t grayDecode(uint64_t g) {
  uint64_t w = g;
  for (unsigned shift = 1; shift < 64; shift <<= 1)
    w ^= w >> shift;
  return w;
}

/// Multiplies with saturation at INT64_MAX, so size checks cannot overflow.
int64_t satMul(int64_t a, int64_t b);

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

struct TileMap {
  std::vector<SpaceDim> data;   ///< a, t_A, o_A, o_TA per data dim
  std::vector<KDim> kdims;      ///< all k-Tile dims, numbered
  std::vector<unsigned> groups; ///< number of k-Tile dims per `k` group;
                                ///< groups past data.size() are empty dims
  std::vector<std::vector<unsigned>> m; ///< per device dim, least sig. first
  std::vector<SpaceDim> device;         ///< d, t_D, o_D, o_TD per device dim

  /// Index of the first empty k-Tile dim (all dims from here on are empty).
  unsigned firstEmptyDim() const;
  /// Number of elements of the data space (product of a), saturating.
  int64_t dataSize() const;
  /// Shape of the device template T_D: [memory, PE dims...].
  std::vector<int64_t> deviceShape() const;
  int64_t deviceSize() const;

  /// g_K: the linear data index held at the linear device template address,
  /// or -1 if that address is empty.
  int64_t dataAt(int64_t deviceAddr) const;
  /// The inverse: appends every linear device template address holding
  /// `dataIndex` (more than one when the format replicates).
  template <class Out> void addressesOf(int64_t dataIndex, Out &out) const {
    Cursor c = start(dataIndex);
    do
      out.push_back(c.address);
    while (next(c));
  }
  /// The first of addressesOf(dataIndex): the copy a replicated source
  /// reads (003 6.2.1, "Data replication").
  int64_t firstAddressOf(int64_t dataIndex) const;
  /// Whether some data element is held at more than one address.
  bool replicates() const;
  /// The same format, field by field.
  bool operator==(const TileMap &o) const;

private:
  /// An odometer over the replicated k-Tile dims of one data index.
  struct Cursor {
    std::vector<int64_t> w; ///< k-Tile template index per dim
    int64_t address = 0;
  };
  Cursor start(int64_t dataIndex) const;
  bool next(Cursor &c) const;
  /// The k-Tile template index of every dim for `dataIndex`, replicated
  /// dims at their first value, into w[0 .. kdims.size()).
  void templateIndex(int64_t dataIndex, int64_t *w) const;
  int64_t addressOf(const int64_t *w) const;
};

} // namespace mapc::rt

#endif
