//===- AST.h - the .map abstract syntax tree ------------------------------===//
//
// Plain data built by ASTBuilder from the ANTLR parse tree. Every node keeps
// the SMLoc of its first token so that Sema can point diagnostics at it and
// `--emit=ast` can print file:line:col. Nothing here knows about ANTLR.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_FRONTEND_AST_H
#define MAPC_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace mapc::ast {

/// A name with where it was written.
struct Ident {
  std::string name;
  llvm::SMLoc loc;
};

/// A non-negative integer literal. `valid` is false when it overflowed.
struct IntLit {
  int64_t value = 0;
  llvm::SMLoc loc;
  bool valid = true;
};

struct MachineArg {
  Ident key;
  std::vector<IntLit> values; // one value, or a bracketed list
  bool isList = false;
};

struct MachineDecl {
  Ident kind; // maspar | hypercube | mesh
  std::vector<MachineArg> args;
  llvm::SMLoc loc;
};

/// `processors P(..)`, `template T(..)`, `array A(..) : type`.
struct ShapeDecl {
  enum Kind { Processors, Template, Array } kind;
  Ident name;
  std::vector<IntLit> shape;
  Ident elemType; // arrays only; empty name means the default (f32)
  llvm::SMLoc loc;
};

/// One entry of a DISTRIBUTE format list: `*`, `block`, `block(n)`, ...
struct DistFormat {
  Ident name; // "*" for the star
  bool hasArg = false;
  IntLit arg;
  llvm::SMLoc loc;
};

struct Distribution {
  Ident target;
  std::vector<DistFormat> formats;
  Ident procs;
  llvm::SMLoc loc;
};

/// One term of an align subscript: coeff * var, or a constant (var empty).
struct LinTerm {
  int64_t coeff = 0;
  Ident var;
  llvm::SMLoc loc;
  bool valid = true;
};

/// An align subscript: `*`, `:`, or a linear expression in the dummies.
struct AlignSub {
  enum Kind { Star, Colon, Expr } kind = Expr;
  std::vector<LinTerm> terms;
  llvm::SMLoc loc;
};

struct Alignment {
  Ident alignee;
  std::vector<Ident> dummies; // name ":" for an anonymous dummy
  Ident target;
  std::vector<AlignSub> subs;
  llvm::SMLoc loc;
};

/// One item in a ktile field group: a number, `*`, `+`, `-`, or a word.
struct FieldItem {
  enum Kind { Int, Star, Plus, Minus, Word } kind = Int;
  IntLit intValue;
  std::string word;
  llvm::SMLoc loc;
};

struct KTileField {
  Ident name;
  std::vector<std::vector<FieldItem>> groups; // split at ';'
  llvm::SMLoc loc;
};

/// One item in a bits/digits map section, e.g. `!a3`, `1`, `a2:3`, `*:4`,
/// or `!a3^a1` (the XOR of data bits, bits layouts only).
struct MapItem {
  bool inverted = false;
  enum Kind { DataBit, Const, Star } kind = DataBit;
  int64_t index = 0;             // data bit/digit number, or the constant value
  std::vector<Ident> xors;       // names after '^', as written
  std::vector<int64_t> xorIndex; // their data bit numbers (-1: bad name)
  bool hasBase = false;
  IntLit base;
  std::string text;
  llvm::SMLoc loc;
};

struct MapSection {
  Ident label;                // p | m
  std::vector<MapItem> items; // most significant first, as written
};

struct LayoutExpr {
  enum Kind { KTile, Bits, Digits, Transform, Named } kind = Named;
  std::vector<KTileField> fields;   // KTile
  std::vector<MapSection> sections; // Bits, Digits
  Ident callee;                     // Transform, Named
  std::vector<Ident> args;          // Transform: names and numbers as text
  llvm::SMLoc loc;
};

struct LayoutDecl {
  Ident name;
  Ident array;
  LayoutExpr expr;
  llvm::SMLoc loc;
};

/// place / remap / copy: two names.
struct PairStmt {
  enum Kind { Place, Remap, Copy } kind;
  Ident first, second;
  llvm::SMLoc loc;
};

struct ReshapeStmt {
  Ident array;
  std::vector<IntLit> shape;
  llvm::SMLoc loc;
};

struct DistributeDecl {
  Distribution dist;
  bool dynamic = false; // redistribute
};

struct AlignDecl {
  Alignment align;
  bool dynamic = false; // realign
};

using Statement = std::variant<MachineDecl, ShapeDecl, DistributeDecl,
                               AlignDecl, LayoutDecl, PairStmt, ReshapeStmt>;

/// A declaration dropped for a syntax error in it: its name is known, so
/// uses of it stay silent (one mistake, one error) instead of each saying
/// the name is unknown.
struct DroppedDecl {
  enum Kind { Processors, Template, Array, Layout } kind;
  std::string name;
};

struct Program {
  std::vector<Statement> statements;
  std::vector<DroppedDecl> dropped;
};

} // namespace mapc::ast

#endif
