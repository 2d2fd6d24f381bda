//===- AffineNetwork.h - GF(2)-affine tiles moved inside registers --------===//
//
// A dense BMMC permutation (Cormen et al., "BMMC permutations on parallel
// disks"; 003 4.1) mixes the rows and columns of every tile, so a
// destination line takes cells from many source lines and lanes. Take a
// tile of 2^n source lines of 2^n cells each (16 x 16 cells of 4 bytes, or
// 8 x 8 of 8 bytes: whole 64-byte lines) whose image is 2^n whole
// destination lines. Number a cell of the tile by its position p = (r, o):
// r the register (source line) it is loaded into, o its lane. Within the
// tile the destination position (j, i) = T (r, o) is linear over GF(2)
// (the tile's constant only picks lines and XORs o). Three cheap register
// operations act on positions as block matrices over (r; o):
//
//   renaming registers                (r; o) -> (P r; o)          free
//   one lane permute per register     (r; o) -> (r; B r + L o)    vpermd
//   a butterfly stage on r bit k      (r; o) -> (r + c_k.o e_k; o) 2 blends
//                                                                  per pair
//
// and every invertible T = [[A B][C D]] is a product of them: when A is
// singular, T Q (Q: o += F r, a lane permute, self-inverse) has an
// invertible A' = A + B F for some F, because the rows of [A B] are
// independent; then T Q = [[A' 0][C' S]] [[I A'^-1 B][0 I]] with
// S = D + C' A'^-1 B. So a tile moves as: lane permutes (Q), at most n
// butterfly stages (A'^-1 B), lane permutes with the renaming (the rest),
// and whole-line stores. The network is planned once per remap and checked
// by simulating it on every position and every tile constant.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_NATIVE_AFFINENETWORK_H
#define MAPC_NATIVE_AFFINENETWORK_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mapc::native {

/// The register program of one tile of 2^bits x 2^bits cells. Positions are
/// p = (register << bits) | lane. A tile whose source lines start at lane b
/// (the low source bits of its base cell) loads line r into register r,
/// then: (1) when `hasPre`, register r = permute(register r, pre[r]);
/// (2) for each stage k with mask[k] != 0, the registers r and r | 2^k
/// (r without bit k) swap the lanes in mask[k]; (3) register r =
/// permute(register r, post[r] xor laneXor[b]), stored to destination line
/// to[r] xor regXor[b]. permute(v, idx) lane l is v's lane idx[l]. (The
/// renaming is folded into the stores, so no register is indexed by data.)
struct TileNetwork {
  unsigned bits = 0; ///< n: 4 for 4-byte cells, 3 for 8-byte cells
  bool hasPre = false;
  uint16_t mask[4] = {};
  uint8_t to[16] = {};
  uint8_t regXor[16] = {}, laneXor[16] = {};
  /// The index vectors as the vector code reads them: 32-bit lanes for
  /// bits == 4, 64-bit lanes for bits == 3.
  alignas(64) uint32_t pre32[16][16] = {}, post32[16][16] = {};
  alignas(64) uint64_t pre64[8][8] = {}, post64[8][8] = {};

  uint32_t preIndex(unsigned r, unsigned l) const {
    return bits == 4 ? pre32[r][l] : uint32_t(pre64[r][l]);
  }
  uint32_t postIndex(unsigned r, unsigned l) const {
    return bits == 4 ? post32[r][l] : uint32_t(post64[r][l]);
  }
  void setPre(unsigned r, unsigned l, uint32_t v);
  void setPost(unsigned r, unsigned l, uint32_t v);
  /// Butterfly stages that do something.
  unsigned stages() const;
};

/// Plans the network of the linear map T given by its 2 * bits columns:
/// T(p) is the XOR of cols[q] over the set bits q of p. `translate` gives
/// the tile constants: a tile whose cells sit at lane o xor b instead of o
/// moves them to T(r, o) too (laneXor, regXor). Returns null when bits is
/// not 3 or 4 or T is singular.
std::unique_ptr<TileNetwork> planTileNetwork(unsigned bits,
                                             const uint32_t *cols);

/// Simulates `net` on every position and every tile constant b exactly as
/// runTileNetwork moves data, and checks that the cell loaded into
/// register r, lane o xor b, is stored at destination line j, lane i,
/// where (j, i) = T(r, o).
bool checkTileNetwork(const TileNetwork &net, const uint32_t *cols);

/// True when the host runs the networks (AVX-512F) and neither
/// MAPC_NATIVE_NETWORK=off nor MAPC_NATIVE_TRANSPOSE=avx2 or =off is set
/// (both read at plan time, so that benchmarks and tests can plan either
/// way). The affine kernel uses them for dense maps, and for bit
/// permutations too with MAPC_NATIVE_NETWORK=all.
bool hostRunsTileNetworks();

/// Moves one tile: in[r] is source line r (2^bits cells of 4 or 8 bytes,
/// 64 bytes), out[j] destination line j. With `stream` (every out[j] 64-byte
/// aligned) the lines are written with non-temporal stores; the caller
/// fences. Only call when hostRunsTileNetworks().
void runTileNetwork(const TileNetwork &net, const uint8_t *const *in,
                    uint8_t *const *out, unsigned b, bool stream);

} // namespace mapc::native

#endif
