//===- Program.h - a checked .map program: machine, arrays, layouts -------===//
//
// What Sema produces from the AST: every name resolved, every mapping lowered
// to a k-Tile format (or kept as a digit map where no k-Tile can say it), and
// the remap statements in program order. Later stages (passes, back ends,
// the --run engine) read only this.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_IR_PROGRAM_H
#define MAPC_IR_PROGRAM_H

#include "ir/DigitMap.h"
#include "ir/KTile.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SMLoc.h"
#include <optional>
#include <string>
#include <vector>

namespace mapc {

enum class ElemType {
  U8,
  I8,
  U16,
  I16,
  U32,
  I32,
  F32,
  U64,
  I64,
  F64,
  C64,
  C128
};
const char *elemTypeName(ElemType t);
unsigned elemTypeBytes(ElemType t);
std::optional<ElemType> parseElemType(llvm::StringRef name);

struct Machine {
  enum Kind { MasPar, Hypercube, Mesh } kind = MasPar;
  std::vector<int64_t> pes{32, 32}; ///< PE grid shape, dim 1 first
  int64_t memory = 65536;           ///< elements per PE
  int64_t cluster = 16;             ///< PEs per router cluster (MasPar)
  llvm::SMLoc loc; ///< the `machine` declaration; invalid for the default
  int64_t peCount() const;
  const char *kindName() const;
  /// The PE grid as it is said in messages: "4 x 2".
  std::string gridText() const;
};

struct ArrayInfo {
  std::string name;
  std::vector<int64_t> shape;
  ElemType type = ElemType::F32;
  llvm::SMLoc loc;
  int64_t size() const;
};

/// A mapping of one array onto the device: a k-Tile format, or a digit map
/// whose factorisation crosses data dims (then `tile` is empty).
struct Layout {
  std::string name;  ///< the layout's name, or the array's for its mapping
  std::string array; ///< the array it maps
  std::optional<KTile> tile;
  std::optional<DigitMap> digits;
  /// Neither of the above: the index map of a layout reshaped from a
  /// k-Tile format that is not radix 2. It keeps every element where it
  /// was, so it maps the linear data index as before, through data dims of
  /// the old shape (003 ch. 6's general remaps take it as it is).
  std::optional<rt::TileMap> linear;
  llvm::SMLoc loc;

  int64_t dataAt(int64_t addr) const;
  int64_t deviceSize() const;
  /// The layout's index map as the runtime evaluates it (general plans,
  /// 003 ch. 6). A digit map with XORs has none: it is GF(2)-affine (001).
  std::optional<rt::TileMap> tileMap() const;
  /// Device shape: [memory, PE dims...] of the device template.
  std::vector<int64_t> deviceShape() const;
};

/// A dynamic statement, executed in order (language.md "Statements").
struct Statement {
  enum Kind { Remap, Copy, Redistribute, Realign, Reshape } kind;
  std::string array;  ///< the array being moved (Copy: the source)
  std::string target; ///< Copy: the destination array
  int from = -1;      ///< index into Program::layouts of the source layout
  int to = -1;        ///< index into Program::layouts of the destination
  std::vector<int64_t> newShape; ///< Reshape
  llvm::SMLoc loc;
};

struct Program {
  Machine machine;
  std::vector<ArrayInfo> arrays;
  /// Named layouts and arrays' initial mappings, in source order, then the
  /// layouts made by statements (not printed by --emit=layout).
  std::vector<Layout> layouts;
  unsigned numStaticLayouts = 0;
  std::vector<Statement> statements;

  /// The array named `name`, or null: by the index when indexArrays() has
  /// seen every array (a program of 120,000 arrays asked once per layout
  /// was quadratic), else by a scan.
  const ArrayInfo *findArray(llvm::StringRef name) const;
  /// Indexes `arrays` by name for findArray (Sema calls it when the arrays
  /// are final).
  void indexArrays();

private:
  llvm::StringMap<unsigned> arrayIndex;
};

} // namespace mapc

#endif
