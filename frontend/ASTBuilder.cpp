//===- ASTBuilder.cpp - parse tree to AST ---------------------------------===//
//
// After a syntax error ANTLR recovers by inserting or dropping tokens, so any
// child may be missing: every accessor here is null-checked and a missing
// piece becomes an empty name or an invalid number (already diagnosed).
//
//===----------------------------------------------------------------------===//
#include "frontend/ASTBuilder.h"

#include "llvm/ADT/StringRef.h"

using namespace mapc;
using namespace mapc::ast;
using antlr4::Token;
using antlr4::tree::TerminalNode;

TokenLocator::TokenLocator(llvm::SourceMgr &srcMgr, unsigned bufferId)
    : srcMgr(srcMgr), bufferId(bufferId),
      text(srcMgr.getMemoryBuffer(bufferId)->getBuffer()) {
  bool ascii = true;
  for (char c : text)
    ascii &= static_cast<unsigned char>(c) < 0x80;
  size_t cp = 0;
  lineStarts.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
      continue; // a UTF-8 continuation byte: same code point
    if (!ascii)
      bytes.push_back(i);
    ++cp;
    if (text[i] == '\n')
      lineStarts.push_back(cp);
  }
}

size_t TokenLocator::byteOf(size_t codePoint) const {
  if (bytes.empty())
    return std::min(codePoint, text.size());
  return codePoint < bytes.size() ? bytes[codePoint] : text.size();
}

llvm::SMLoc TokenLocator::loc(size_t line, size_t col) const {
  if (line == 0 || line > lineStarts.size())
    return llvm::SMLoc::getFromPointer(text.end());
  return llvm::SMLoc::getFromPointer(text.begin() +
                                     byteOf(lineStarts[line - 1] + col));
}

llvm::SMLoc TokenLocator::loc(const Token *tok) const {
  if (!tok || tok->getLine() == 0)
    return {};
  return loc(tok->getLine(), tok->getCharPositionInLine());
}

namespace {

/// Numbers above this are refused: no length or offset needs more, and
/// products of a few of them still fit in int64_t before saturation.
constexpr int64_t kMaxLiteral = int64_t(1) << 48;

class Builder {
public:
  Builder(const TokenLocator &locator, Diagnostics &diags,
          const std::vector<TextPos> &errors)
      : locator(locator), diags(diags), errors(errors) {}

  Program program(MapParser::ProgramContext *ctx);

private:
  llvm::SMLoc loc(const Token *tok) const { return locator.loc(tok); }
  llvm::SMLoc loc(antlr4::ParserRuleContext *ctx) const {
    return ctx ? loc(ctx->getStart()) : llvm::SMLoc();
  }
  static bool present(const Token *tok) {
    return tok && tok->getTokenIndex() != static_cast<size_t>(-1) &&
           tok->getType() != Token::EOF;
  }
  Ident ident(const Token *tok) const {
    if (!present(tok))
      return {};
    return {tok->getText(), loc(tok)};
  }
  Ident ident(TerminalNode *node) const {
    return node ? ident(node->getSymbol()) : Ident();
  }
  IntLit intLit(const Token *tok);
  IntLit intLit(TerminalNode *node) {
    return node ? intLit(node->getSymbol()) : IntLit{0, {}, false};
  }
  std::vector<IntLit> ints(const std::vector<TerminalNode *> &nodes) {
    std::vector<IntLit> out;
    for (TerminalNode *n : nodes)
      out.push_back(intLit(n));
    return out;
  }

  void statement(MapParser::StatementContext *ctx, Program &out);
  MachineDecl machine(MapParser::MachineDeclContext *ctx);
  Distribution distribution(MapParser::DistributionContext *ctx);
  Alignment alignment(MapParser::AlignmentContext *ctx);
  AlignSub alignSub(MapParser::AlignSubContext *ctx);
  LinTerm term(MapParser::TermContext *ctx, bool negate);
  LayoutDecl layout(MapParser::LayoutDeclContext *ctx);
  KTileField field(MapParser::KtileFieldContext *ctx);
  MapSection section(MapParser::MapSectionContext *ctx);
  /// The N of a data bit name `aN`, or -1 after reporting a bad name.
  int64_t dataBitNumber(const Token *tok);

  bool hasSyntaxError(antlr4::ParserRuleContext *ctx) const;

  const TokenLocator &locator;
  Diagnostics &diags;
  const std::vector<TextPos> &errors;
};

/// Whether ANTLR's recovery left a mark inside `tree`: a rule it left by
/// an exception, a token it dropped (an error node) or one it made up (a
/// missing token has no index). A statement cut short at its end, such as
/// `remap A` before the end of the file, reports its error past its last
/// token, so only these marks show that it is incomplete.
static bool recovered(antlr4::tree::ParseTree *tree) {
  if (auto *rule = dynamic_cast<antlr4::ParserRuleContext *>(tree))
    if (rule->exception)
      return true;
  if (auto *leaf = dynamic_cast<TerminalNode *>(tree)) {
    if (dynamic_cast<antlr4::tree::ErrorNode *>(tree))
      return true;
    const Token *tok = leaf->getSymbol();
    return !tok || tok->getTokenIndex() == static_cast<size_t>(-1);
  }
  for (antlr4::tree::ParseTree *child : tree->children)
    if (recovered(child))
      return true;
  return false;
}

bool Builder::hasSyntaxError(antlr4::ParserRuleContext *ctx) const {
  const Token *start = ctx->getStart(), *stop = ctx->getStop();
  if (!start || !stop || recovered(ctx))
    return true;
  TextPos from{start->getLine(), start->getCharPositionInLine()};
  TextPos to{stop->getLine(),
             stop->getCharPositionInLine() + stop->getText().size()};
  for (const TextPos &e : errors)
    if (from <= e && e <= to)
      return true;
  return false;
}

IntLit Builder::intLit(const Token *tok) {
  IntLit lit{0, loc(tok), false};
  if (!present(tok))
    return lit;
  std::string text = tok->getText(); // getText() returns a temporary
  unsigned long long v;
  if (llvm::StringRef(text).getAsInteger(10, v) || v > uint64_t(kMaxLiteral)) {
    // A number of 100,000 digits is said by its first ones.
    if (text.size() > 40)
      text = text.substr(0, 32) + "... (" + std::to_string(text.size()) +
             " digits)";
    diags.error(lit.loc, "number '" + text + "' is too large",
                "numbers in .map files must be at most 2^48");
    return lit;
  }
  lit.value = int64_t(v);
  lit.valid = true;
  return lit;
}

Program Builder::program(MapParser::ProgramContext *ctx) {
  Program out;
  if (!ctx)
    return out;
  for (auto *s : ctx->statement()) {
    if (!hasSyntaxError(s)) {
      statement(s, out);
      continue;
    }
    // The name a dropped declaration gives, when its token was read (the
    // name token's text is the user's, not a made-up one).
    auto drop = [&](DroppedDecl::Kind kind, TerminalNode *name) {
      Ident id = ident(name);
      if (!id.name.empty() &&
          !(name && dynamic_cast<antlr4::tree::ErrorNode *>(name)))
        out.dropped.push_back({kind, id.name});
    };
    if (auto *c = s->processorsDecl())
      drop(DroppedDecl::Processors, c->IDENT());
    else if (auto *c = s->templateDecl())
      drop(DroppedDecl::Template, c->IDENT());
    else if (auto *c = s->arrayDecl())
      drop(DroppedDecl::Array, c->IDENT(0));
    else if (auto *c = s->layoutDecl())
      drop(DroppedDecl::Layout, c->IDENT(0));
  }
  return out;
}

void Builder::statement(MapParser::StatementContext *ctx, Program &out) {
  if (auto *c = ctx->machineDecl()) {
    out.statements.push_back(machine(c));
  } else if (auto *c = ctx->processorsDecl()) {
    out.statements.push_back(ShapeDecl{ShapeDecl::Processors,
                                       ident(c->IDENT()),
                                       c->intArgs() ? ints(c->intArgs()->INT())
                                                    : std::vector<IntLit>{},
                                       {},
                                       loc(c)});
  } else if (auto *c = ctx->templateDecl()) {
    out.statements.push_back(ShapeDecl{ShapeDecl::Template,
                                       ident(c->IDENT()),
                                       c->intArgs() ? ints(c->intArgs()->INT())
                                                    : std::vector<IntLit>{},
                                       {},
                                       loc(c)});
  } else if (auto *c = ctx->arrayDecl()) {
    out.statements.push_back(ShapeDecl{ShapeDecl::Array, ident(c->IDENT(0)),
                                       c->intArgs() ? ints(c->intArgs()->INT())
                                                    : std::vector<IntLit>{},
                                       ident(c->elemType), loc(c)});
  } else if (auto *c = ctx->distributeDecl()) {
    out.statements.push_back(
        DistributeDecl{distribution(c->distribution()), false});
  } else if (auto *c = ctx->redistributeStmt()) {
    out.statements.push_back(
        DistributeDecl{distribution(c->distribution()), true});
  } else if (auto *c = ctx->alignDecl()) {
    out.statements.push_back(AlignDecl{alignment(c->alignment()), false});
  } else if (auto *c = ctx->realignStmt()) {
    out.statements.push_back(AlignDecl{alignment(c->alignment()), true});
  } else if (auto *c = ctx->layoutDecl()) {
    out.statements.push_back(layout(c));
  } else if (auto *c = ctx->placeStmt()) {
    out.statements.push_back(
        PairStmt{PairStmt::Place, ident(c->array), ident(c->layout), loc(c)});
  } else if (auto *c = ctx->remapStmt()) {
    out.statements.push_back(
        PairStmt{PairStmt::Remap, ident(c->array), ident(c->layout), loc(c)});
  } else if (auto *c = ctx->copyStmt()) {
    out.statements.push_back(
        PairStmt{PairStmt::Copy, ident(c->src), ident(c->dst), loc(c)});
  } else if (auto *c = ctx->reshapeStmt()) {
    out.statements.push_back(ReshapeStmt{
        ident(c->array),
        c->intArgs() ? ints(c->intArgs()->INT()) : std::vector<IntLit>{},
        loc(c)});
  }
}

MachineDecl Builder::machine(MapParser::MachineDeclContext *ctx) {
  MachineDecl decl{ident(ctx->kind), {}, loc(ctx)};
  for (auto *a : ctx->machineArg()) {
    MachineArg arg{ident(a->IDENT()), {}, false};
    if (a->intList()) {
      arg.isList = true;
      arg.values = ints(a->intList()->INT());
    } else if (a->INT()) {
      arg.values.push_back(intLit(a->INT()));
    }
    decl.args.push_back(std::move(arg));
  }
  return decl;
}

Distribution Builder::distribution(MapParser::DistributionContext *ctx) {
  Distribution dist;
  if (!ctx)
    return dist;
  dist.target = ident(ctx->target);
  dist.procs = ident(ctx->procs);
  dist.loc = loc(ctx);
  for (auto *f : ctx->distFormat()) {
    DistFormat format;
    format.loc = loc(f);
    if (f->IDENT()) {
      format.name = ident(f->IDENT());
    } else {
      format.name = {"*", format.loc};
    }
    if (f->INT()) {
      format.hasArg = true;
      format.arg = intLit(f->INT());
    }
    dist.formats.push_back(format);
  }
  return dist;
}

Alignment Builder::alignment(MapParser::AlignmentContext *ctx) {
  Alignment align;
  if (!ctx)
    return align;
  align.alignee = ident(ctx->alignee);
  align.target = ident(ctx->target);
  align.loc = loc(ctx);
  for (auto *d : ctx->alignDummy())
    align.dummies.push_back(d->IDENT() ? ident(d->IDENT())
                                       : Ident{":", loc(d)});
  for (auto *s : ctx->alignSub())
    align.subs.push_back(alignSub(s));
  return align;
}

AlignSub Builder::alignSub(MapParser::AlignSubContext *ctx) {
  AlignSub sub;
  sub.loc = loc(ctx);
  if (auto *e = ctx->linExpr()) {
    sub.kind = AlignSub::Expr;
    bool negate = e->lead && e->lead->getText() == "-";
    if (e->term())
      sub.terms.push_back(term(e->term(), negate));
    for (auto *a : e->addTerm())
      if (a->term())
        sub.terms.push_back(
            term(a->term(), (a->op && a->op->getText() == "-") !=
                                (a->sign && a->sign->getText() == "-")));
    return sub;
  }
  sub.kind = ctx->getText() == "*" ? AlignSub::Star : AlignSub::Colon;
  return sub;
}

LinTerm Builder::term(MapParser::TermContext *ctx, bool negate) {
  LinTerm t;
  t.loc = loc(ctx);
  IntLit n = ctx->INT() ? intLit(ctx->INT()) : IntLit{1, t.loc, true};
  t.valid = n.valid;
  t.coeff = negate ? -n.value : n.value;
  if (ctx->IDENT())
    t.var = ident(ctx->IDENT());
  return t;
}

LayoutDecl Builder::layout(MapParser::LayoutDeclContext *ctx) {
  LayoutDecl decl{ident(ctx->name), ident(ctx->array), {}, loc(ctx)};
  LayoutExpr &e = decl.expr;
  auto *expr = ctx->layoutExpr();
  e.loc = expr ? loc(expr) : decl.loc;
  if (auto *k = dynamic_cast<MapParser::KtileLayoutContext *>(expr)) {
    e.kind = LayoutExpr::KTile;
    for (auto *f : k->ktileField())
      e.fields.push_back(field(f));
  } else if (auto *b = dynamic_cast<MapParser::BitsLayoutContext *>(expr)) {
    e.kind = LayoutExpr::Bits;
    for (auto *s : b->mapSection())
      e.sections.push_back(section(s));
  } else if (auto *d = dynamic_cast<MapParser::DigitsLayoutContext *>(expr)) {
    e.kind = LayoutExpr::Digits;
    for (auto *s : d->mapSection())
      e.sections.push_back(section(s));
  } else if (auto *t =
                 dynamic_cast<MapParser::TransformLayoutContext *>(expr)) {
    e.kind = LayoutExpr::Transform;
    e.callee = ident(t->IDENT());
    for (auto *a : t->layoutArg())
      e.args.push_back({a->getText(), loc(a)});
  } else if (auto *n = dynamic_cast<MapParser::NamedLayoutContext *>(expr)) {
    e.kind = LayoutExpr::Named;
    e.callee = ident(n->IDENT());
  }
  return decl;
}

KTileField Builder::field(MapParser::KtileFieldContext *ctx) {
  KTileField f{ident(ctx->IDENT()), {}, loc(ctx)};
  for (auto *g : ctx->fieldGroup()) {
    std::vector<FieldItem> group;
    for (auto *item : g->fieldItem()) {
      FieldItem fi;
      fi.loc = loc(item);
      std::string text = item->getText();
      if (item->INT()) {
        fi.kind = FieldItem::Int;
        fi.intValue = intLit(item->INT());
      } else if (text == "*") {
        fi.kind = FieldItem::Star;
      } else if (text == "+") {
        fi.kind = FieldItem::Plus;
      } else if (text == "-") {
        fi.kind = FieldItem::Minus;
      } else {
        fi.kind = FieldItem::Word;
        fi.word = text;
      }
      group.push_back(fi);
    }
    f.groups.push_back(std::move(group));
  }
  return f;
}

MapSection Builder::section(MapParser::MapSectionContext *ctx) {
  MapSection s{ident(ctx->IDENT()), {}};
  for (auto *item : ctx->mapItem()) {
    MapItem mi;
    mi.loc = loc(item);
    mi.inverted = item->bang != nullptr;
    mi.text = item->getText();
    if (item->base) {
      mi.hasBase = true;
      mi.base = intLit(item->base);
    }
    if (present(item->name)) {
      mi.kind = MapItem::DataBit;
      mi.index = dataBitNumber(item->name);
    } else if (present(item->star)) {
      mi.kind = MapItem::Star;
    } else {
      mi.kind = MapItem::Const;
      IntLit v = intLit(item->value);
      mi.index = v.valid ? v.value : -1;
    }
    for (const Token *x : item->xors) {
      mi.xors.push_back(ident(x));
      mi.xorIndex.push_back(dataBitNumber(x));
    }
    s.items.push_back(mi);
  }
  return s;
}

int64_t Builder::dataBitNumber(const Token *tok) {
  std::string text = tok->getText();
  llvm::StringRef name = text;
  unsigned long long n;
  if ((!name.consume_front("a") && !name.consume_front("A")) ||
      name.getAsInteger(10, n) || n > 4096) {
    diags.error(loc(tok), "'" + text + "' is not a data bit or digit",
                "write data index digits as a0, a1, ..., constants as "
                "numbers, and replicated digits as '*'");
    return -1;
  }
  return int64_t(n);
}

} // namespace

ast::Program mapc::buildAST(MapParser::ProgramContext *tree,
                            const TokenLocator &locator, Diagnostics &diags,
                            const std::vector<TextPos> &errors) {
  return Builder(locator, diags, errors).program(tree);
}
