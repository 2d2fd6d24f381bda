//===- Parser.cpp - drive the generated ANTLR parser ----------------------===//
#include "frontend/Parser.h"

#include "MapLexer.h"
#include "MapParser.h"
#include "antlr4-runtime.h"
#include "frontend/ASTBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace mapc;

namespace {

/// The user's text quoted in a message, each piece longer than 40 bytes
/// cut to its first 32 and its length: a 300,000-byte token made a message
/// line as long (the caret line is cut to 80 bytes each side already).
std::string shortenQuoted(llvm::StringRef text) {
  constexpr size_t kLongest = 40, kKept = 32;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('\'', i);
    const size_t close = open == llvm::StringRef::npos
                             ? llvm::StringRef::npos
                             : text.find('\'', open + 1);
    if (close == llvm::StringRef::npos) {
      out += text.substr(i);
      break;
    }
    llvm::StringRef inner = text.slice(open + 1, close);
    out += text.slice(i, open + 1);
    if (inner.size() > kLongest) {
      size_t cut = kKept; // not inside a UTF-8 sequence
      while (cut > 0 && (static_cast<unsigned char>(inner[cut]) & 0xC0) == 0x80)
        --cut;
      out += inner.take_front(cut).str() + "... (" +
             std::to_string(inner.size()) + " bytes)";
    } else {
      out += inner;
    }
    out += '\'';
    i = close + 1;
  }
  return out;
}

/// Rewrites ANTLR's token names into words a user knows.
std::string friendlyTokens(std::string text) {
  static const std::pair<const char *, const char *> names[] = {
      {"IDENT", "a name"}, {"INT", "a number"}, {"<EOF>", "end of file"}};
  for (auto [from, to] : names) {
    size_t pos;
    while ((pos = text.find(from)) != std::string::npos)
      text.replace(pos, strlen(from), to);
  }
  // Keyword tokens appear by their symbolic names (OF, ONTO): show them as
  // the user writes them. Only whole upper-case words are rewritten.
  std::string out;
  for (size_t i = 0; i < text.size();) {
    size_t j = i;
    while (j < text.size() && text[j] >= 'A' && text[j] <= 'Z')
      ++j;
    // A word in quotes is the user's own text ('DISTRIBUTE' as written),
    // not a symbolic token name: it keeps its case and its one pair of
    // quotes.
    bool quoted =
        i > 0 && text[i - 1] == '\'' && j < text.size() && text[j] == '\'';
    bool word = j > i && !quoted &&
                (i == 0 || !isalnum((unsigned char)text[i - 1])) &&
                (j == text.size() || !isalnum((unsigned char)text[j]));
    if (word) {
      std::string w = text.substr(i, j - i);
      static const char *const keywords[] = {
          "MACHINE",      "PROCESSORS", "TEMPLATE", "ARRAY",   "DISTRIBUTE",
          "REDISTRIBUTE", "ONTO",       "ALIGN",    "REALIGN", "WITH",
          "LAYOUT",       "OF",         "KTILE",    "BITS",    "DIGITS",
          "PLACE",        "IN",         "REMAP",    "TO",      "COPY",
          "RESHAPE"};
      bool keyword = false;
      for (const char *k : keywords)
        keyword |= w == k;
      out += keyword ? "'" + llvm::StringRef(w).lower() + "'" : w;
      i = j;
    } else if (j > i) {
      out += text.substr(i, j - i);
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

/// Whether `type` starts a statement, and so ends the one before it.
bool startsStatement(size_t type) {
  switch (type) {
  case MapLexer::MACHINE:
  case MapLexer::PROCESSORS:
  case MapLexer::TEMPLATE:
  case MapLexer::ARRAY:
  case MapLexer::DISTRIBUTE:
  case MapLexer::REDISTRIBUTE:
  case MapLexer::ALIGN:
  case MapLexer::REALIGN:
  case MapLexer::LAYOUT:
  case MapLexer::PLACE:
  case MapLexer::REMAP:
  case MapLexer::COPY:
  case MapLexer::RESHAPE:
    return true;
  default:
    return false;
  }
}

bool isOpenList(const antlr4::Token *t) {
  return t->getText() == "(" || t->getText() == "[";
}
bool isOpening(const antlr4::Token *t) {
  return isOpenList(t) || t->getText() == "{";
}
bool isClosing(const antlr4::Token *t) {
  const std::string &s = t->getText();
  return s == ")" || s == "]" || s == "}";
}

/// Token `i` of the stream (the end of file past it), reading ahead as far
/// as needed: in doubling steps, as LT(k) walks k tokens.
antlr4::Token *tokenAt(antlr4::TokenStream &tokens, size_t i) {
  if (i >= tokens.size())
    tokens.LT(ssize_t(std::max(i + 1, 2 * tokens.size()) - tokens.index()));
  return tokens.get(std::min(i, tokens.size() - 1));
}

/// The rule context `ctx` or an ancestor of rule `rule`, if any.
antlr4::ParserRuleContext *enclosing(antlr4::ParserRuleContext *ctx,
                                     size_t rule) {
  for (; ctx; ctx = dynamic_cast<antlr4::ParserRuleContext *>(ctx->parent))
    if (ctx->getRuleIndex() == rule)
      return ctx;
  return nullptr;
}

/// The start of the statement that `ctx` is inside, if it is in one.
antlr4::Token *statementStart(antlr4::ParserRuleContext *ctx) {
  antlr4::ParserRuleContext *st = enclosing(ctx, MapParser::RuleStatement);
  return st ? st->getStart() : nullptr;
}

/// The last token of the statement that holds token `from`, `depth`
/// brackets being open there: its ';', the token before the next
/// statement's keyword, or the end of the file.
size_t statementEnd(antlr4::TokenStream &tokens, size_t from, int depth) {
  for (size_t i = from;; ++i) {
    antlr4::Token *t = tokenAt(tokens, i);
    if (t->getType() == antlr4::Token::EOF)
      return i;
    if (i > from && startsStatement(t->getType()))
      return i - 1;
    depth += isOpening(t) ? 1 : isClosing(t) ? -1 : 0;
    if (t->getText() == ";" && depth <= 0)
      return i;
  }
}

/// Tokens `first`..`last` as the user wrote them, each gap one space, less
/// those `drop` says (a gap next to a dropped token stays one space, none
/// just inside a bracket).
template <typename Drop>
std::string tokenText(antlr4::TokenStream &tokens, size_t first, size_t last,
                      Drop drop) {
  std::string out;
  bool gap = false;
  for (size_t i = first; i <= last; ++i) {
    antlr4::Token *t = tokenAt(tokens, i);
    if (t->getType() == antlr4::Token::EOF)
      break;
    if (i > first &&
        t->getStartIndex() > tokenAt(tokens, i - 1)->getStopIndex() + 1)
      gap = true;
    if (drop(i, t))
      continue;
    if (gap && !out.empty() && out.back() != '(' && out.back() != '[' &&
        !isClosing(t))
      out += ' ';
    gap = false;
    out += t->getText();
  }
  return out;
}

/// Turns ANTLR syntax errors into diagnostics with a location and a hint.
class ErrorListener : public antlr4::BaseErrorListener {
public:
  ErrorListener(const TokenLocator &locator, Diagnostics &diags)
      : locator(locator), diags(diags) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t line, size_t col, const std::string &msg,
                   std::exception_ptr) override {
    TextPos where{line, col};
    llvm::SMLoc loc = locator.loc(line, col);
    // The parser's errors (null for the lexer's).
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    // A missing token is reported just after the token before it, where
    // the user has to type it (as clang does). So is a ';' the parser
    // wanted when the next token is on a later line (`array M(6, 4)` then
    // `distribute ...`): the statement before ends without it.
    const bool semicolonAtEnd =
        parser && offending &&
        llvm::StringRef(msg).starts_with("mismatched input ") &&
        llvm::StringRef(msg).contains("';'") && [&] {
          antlr4::Token *prev = parser->getTokenStream()->LT(-1);
          return prev && prev->getType() != antlr4::Token::EOF &&
                 prev->getLine() > 0 && offending->getLine() > prev->getLine();
        }();
    if (parser &&
        (llvm::StringRef(msg).starts_with("missing ") || semicolonAtEnd))
      if (antlr4::Token *prev = parser->getTokenStream()->LT(-1))
        if (prev->getType() != antlr4::Token::EOF && prev->getLine() > 0) {
          size_t endCol =
              prev->getCharPositionInLine() + prev->getText().size();
          loc = locator.loc(prev->getLine(), endCol);
          where = {prev->getLine(), endCol};
        }
    errors.push_back(where);
    // The rest of a statement whose first error explains it (nested
    // brackets, HPF's '*' dummy, a missing 'onto') would only cascade.
    if (parser && offending && quietUntil &&
        offending->getTokenIndex() >= quietFrom &&
        offending->getTokenIndex() <= *quietUntil)
      return;
    llvm::StringRef m(msg);
    if (m.consume_front("token recognition error at: ")) {
      // A '/' that does not start '//' is reported with the character the
      // lexer read after it, looking for the second '/': say the '/' alone.
      std::string one;
      if (m.size() > 3 && m.starts_with("'/") && m[2] != '/') {
        one = "'/'";
        m = one;
      }
      if (auto *lexer = dynamic_cast<antlr4::Lexer *>(recognizer))
        skippedAt.push_back(
            {lexer->tokenStartCharIndex, lexer->tokenStartLine});
      // A letter past ASCII is most likely meant as part of a name.
      const bool ascii = llvm::all_of(
          m, [](char c) { return static_cast<unsigned char>(c) < 0x80; });
      // The language has no fractions: a '.' is most likely in a number.
      const bool point = m == "'.'";
      diags.error(loc, "unexpected character " + m.str(),
                  point   ? "numbers are whole: lengths, offsets, strides and "
                            "sizes are integers; write one without the '.'"
                  : ascii ? "remove it; comments start with '//'"
                          : "names are ASCII letters, digits and '_': replace "
                            "it, or remove it; comments start with '//'");
      return;
    }
    // A character the lexer skipped earlier in this statement is the
    // cause: its error stands, and the parser's would only say what the
    // skipped character was meant to be (`array Ä(8)`: "expected a name
    // before '('" before "unexpected character 'Ä'"). The statement is
    // dropped all the same.
    if (parser && offending &&
        skippedInStatement(*parser->getTokenStream(), offending))
      return;
    std::string text = friendlyTokens(msg);
    std::string hint = "see docs/language.md for the statement forms";
    llvm::StringRef t(text);
    if (t.starts_with("missing ';'") || t.contains("expecting ';'") ||
        semicolonAtEnd)
      hint = "every statement ends with ';'";
    // `bits [a0 a1]`: the device bits come in labelled sections.
    if (parser &&
        dynamic_cast<MapParser::MapSectionContext *>(parser->getContext()))
      hint = "a bits or digits layout lists the device's bits in "
             "sections, PE bits after 'p:' and memory bits after 'm:' "
             "(most significant first): bits [p: a3 a2 | m: a1 a0]";
    // `T(i*j)`: a subscript is linear in one dummy, its stride a number.
    if (parser && offending && offending->getType() == MapLexer::IDENT &&
        dynamic_cast<MapParser::TermContext *>(parser->getContext()))
      hint = "a subscript is linear in one dummy: s*i + c, with the stride s "
             "and the offset c numbers (HPF align)";
    // Keyword tokens are numbered first, up to RESHAPE (see Map.g4).
    if (offending && offending->getType() >= MapLexer::MACHINE &&
        offending->getType() <= MapLexer::RESHAPE && t.contains("a name"))
      hint = "'" + offending->getText() +
             "' is a keyword of the language (in any case); choose another "
             "name";
    if (parser && offending) {
      if (deferMissingOnto(*parser, offending, msg))
        return;
      if (auto h = nestingHint(*parser, offending))
        hint = *h;
      else if (auto h = starDummyHint(*parser, offending))
        hint = *h;
    }
    if (semicolonAtEnd && t.consume_front("mismatched input ")) {
      auto [got, expected] = t.split(" expecting ");
      text = "expected " + expected.str() + " before " + got.str();
    } else if (t.consume_front("mismatched input ") ||
               t.consume_front("extraneous input ")) {
      auto [got, expected] = t.split(" expecting ");
      text = "unexpected " + got.str() +
             (expected.empty() ? "" : "; expected " + expected.str());
    } else if (t.consume_front("missing ")) {
      auto [what, at] = t.split(" at ");
      text = "expected " + what.str() + " before " + at.str();
    } else if (t.consume_front("no viable alternative at input ")) {
      text = "cannot parse " + t.str();
    }
    diags.error(loc, "syntax error: " + shortenQuoted(text), hint);
  }

  /// Where each syntax error was found, to drop the statements holding them.
  std::vector<TextPos> errors;

  /// Reports the errors that wait for the whole file: a missing 'onto'
  /// names the first processors declared, wherever they are.
  void finish(antlr4::TokenStream &tokens) {
    for (const MissingOnto &p : missingOnto)
      reportMissingOnto(tokens, p);
    missingOnto.clear();
  }

private:
  struct MissingOnto {
    llvm::SMLoc loc;
    size_t start;     ///< the statement's first token
    size_t offending; ///< the token where 'onto' was wanted
  };

  /// Keeps the parser quiet for the rest of the statement holding `t`.
  void quietRest(antlr4::TokenStream &tokens, antlr4::Token *t, int depth) {
    quietFrom = t->getTokenIndex();
    quietUntil = statementEnd(tokens, quietFrom, depth);
  }

  /// `array A((4))`: a hint that lists do not nest, with the list written
  /// without the extra brackets. The grammar has no recursive rule, so
  /// ANTLR's recovery reported every level; the rest of the statement is
  /// quiet.
  std::optional<std::string> nestingHint(antlr4::Parser &parser,
                                         antlr4::Token *offending) {
    antlr4::Token *start = statementStart(parser.getContext());
    const size_t o = offending->getTokenIndex();
    if (!start || !isOpenList(offending) || o == size_t(-1) ||
        start->getTokenIndex() >= o)
      return std::nullopt;
    antlr4::TokenStream &tokens = *parser.getTokenStream();
    // The innermost '(' or '[' open at the offending token, and how many
    // brackets of any kind were open outside it.
    std::vector<std::pair<size_t, int>> open;
    int depth = 0;
    for (size_t i = start->getTokenIndex(); i < o; ++i) {
      antlr4::Token *t = tokens.get(i);
      if (isOpenList(t))
        open.push_back({i, depth});
      if (isOpening(t))
        ++depth;
      else if (isClosing(t)) {
        --depth;
        if (!open.empty() && open.back().second >= depth)
          open.pop_back();
      }
    }
    if (open.empty())
      return std::nullopt;
    const auto [b, outside] = open.back();
    quietRest(tokens, offending, depth);
    std::string hint =
        "lists do not nest in a .map file: remove the extra brackets";
    // The bracket's match, if the statement has it.
    int d = depth;
    for (size_t i = o; i <= *quietUntil; ++i) {
      antlr4::Token *t = tokenAt(tokens, i);
      d += isOpening(t) ? 1 : isClosing(t) ? -1 : 0;
      if (d != outside)
        continue;
      if (i - b > 64) // too long to quote
        break;
      antlr4::Token *before = b > 0 ? tokens.get(b - 1) : nullptr;
      std::string fixed =
          (before && before->getType() == MapLexer::IDENT ? before->getText()
                                                          : "") +
          tokens.get(b)->getText() +
          tokenText(tokens, b + 1, i - 1,
                    [](size_t, antlr4::Token *t) {
                      return isOpenList(t) || t->getText() == ")" ||
                             t->getText() == "]";
                    }) +
          (tokens.get(b)->getText() == "(" ? ")" : "]");
      if (fixed.size() <= 60)
        hint += ", as in '" + fixed + "'";
      break;
    }
    return hint;
  }

  /// `align E(*, j) with A(j)`: HPF collapses a dim with '*' among the
  /// dummies; mapc with a dummy that no subscript uses.
  std::optional<std::string> starDummyHint(antlr4::Parser &parser,
                                           antlr4::Token *offending) {
    auto *alignment = enclosing(parser.getContext(), MapParser::RuleAlignment);
    const size_t o = offending->getTokenIndex();
    if (!alignment || offending->getText() != "*" || o == size_t(-1))
      return std::nullopt;
    antlr4::TokenStream &tokens = *parser.getTokenStream();
    // Only inside the dummies: right after `E(`, at bracket depth 1.
    const size_t open = alignment->getStart()->getTokenIndex() + 1;
    if (open >= o || tokens.get(open)->getText() != "(")
      return std::nullopt;
    for (size_t i = open + 1; i < o; ++i)
      if (isOpening(tokens.get(i)) || isClosing(tokens.get(i)))
        return std::nullopt;
    antlr4::Token *keyword = statementStart(parser.getContext());
    if (!keyword)
      return std::nullopt;
    quietRest(tokens, offending, 1);
    // The statement with a fresh dummy for every '*' among the dummies.
    std::set<std::string> taken;
    size_t close = *quietUntil;
    for (size_t i = keyword->getTokenIndex(); i <= *quietUntil; ++i) {
      antlr4::Token *t = tokenAt(tokens, i);
      if (t->getType() == MapLexer::IDENT)
        taken.insert(t->getText());
      if (i > open && close == *quietUntil && t->getText() == ")")
        close = i;
    }
    std::map<size_t, std::string> fresh;
    const char *const names[] = {"i", "j", "k", "l", "m", "n"};
    for (size_t i = o, next = 0; i < close; ++i) {
      if (tokenAt(tokens, i)->getText() != "*")
        continue;
      std::string name;
      for (; name.empty() || taken.count(name); ++next)
        name = next < 6 ? names[next] : "i" + std::to_string(next - 5);
      taken.insert(name);
      fresh[i] = name;
    }
    std::string fixed;
    size_t i = keyword->getTokenIndex();
    for (size_t last : {close, *quietUntil}) {
      for (; i <= last; ++i) {
        antlr4::Token *t = tokenAt(tokens, i);
        if (t->getType() == antlr4::Token::EOF)
          break;
        if (i > keyword->getTokenIndex() &&
            t->getStartIndex() > tokenAt(tokens, i - 1)->getStopIndex() + 1 &&
            t->getText() != ")")
          fixed += ' ';
        auto f = fresh.find(i);
        fixed += f == fresh.end() ? t->getText() : f->second;
      }
      // A statement too long to quote, or cut short: its dummies only.
      if (last == close && (tokenAt(tokens, *quietUntil)->getText() != ";" ||
                            *quietUntil - close > 40)) {
        fixed += " with ...";
        break;
      }
    }
    return "mapc collapses an alignee dim with a dummy that no subscript "
           "uses, where HPF writes '*': '" +
           fixed + "'";
  }

  /// `distribute A(block);`: held back to the end of the parse, which
  /// knows the processors declared after the statement too.
  bool deferMissingOnto(antlr4::Parser &parser, antlr4::Token *offending,
                        const std::string &msg) {
    auto *dist = enclosing(parser.getContext(), MapParser::RuleDistribution);
    antlr4::Token *start = statementStart(parser.getContext());
    const size_t o = offending->getTokenIndex();
    if (!dist || !start || o == size_t(-1) ||
        offending->getType() == MapLexer::ONTO ||
        !llvm::StringRef(msg).contains("ONTO"))
      return false;
    antlr4::TokenStream &tokens = *parser.getTokenStream();
    // 'onto' goes right after the formats.
    antlr4::Token *prev = o > 0 ? tokens.get(o - 1) : offending;
    llvm::SMLoc loc =
        locator.loc(prev->getLine(),
                    prev->getCharPositionInLine() + prev->getText().size());
    missingOnto.push_back({loc, start->getTokenIndex(), o});
    quietRest(tokens, offending, 0);
    return true;
  }

  void reportMissingOnto(antlr4::TokenStream &tokens, const MissingOnto &p) {
    antlr4::Token *offending = tokens.get(p.offending);
    // The distributed dims: formats other than '*' inside the first '('.
    unsigned rank = 0;
    int depth = 0;
    for (size_t i = p.start; i < p.offending; ++i) {
      antlr4::Token *t = tokens.get(i);
      depth += isOpening(t) ? 1 : isClosing(t) ? -1 : 0;
      rank += depth == 1 && t->getType() == MapLexer::IDENT;
    }
    // The first processors declared, of that rank if there are such.
    std::string procs;
    bool procsOfRank = false;
    for (size_t i = 0; i + 2 < tokens.size() && !procsOfRank; ++i) {
      if (tokens.get(i)->getType() != MapLexer::PROCESSORS ||
          tokens.get(i + 1)->getType() != MapLexer::IDENT)
        continue;
      unsigned dims = 0;
      for (size_t j = i + 2; j < tokens.size() && j < i + 80; ++j) {
        antlr4::Token *t = tokens.get(j);
        if (t->getType() == MapLexer::INT)
          ++dims;
        else if (t->getText() != "(" && t->getText() != ",")
          break;
      }
      procsOfRank = dims == rank;
      if (procs.empty() || procsOfRank)
        procs = tokens.get(i + 1)->getText();
    }
    // `distribute A(block) P;`: the name is there, without 'onto'.
    const bool named = offending->getType() == MapLexer::IDENT;
    if (named)
      procs = offending->getText();
    std::string fix = tokenText(tokens, p.start, p.offending - 1,
                                [](size_t, antlr4::Token *) { return false; });
    std::string got = offending->getType() == antlr4::Token::EOF
                          ? "end of file"
                          : "'" + offending->getText() + "'";
    if (procs.empty()) {
      std::string shape = "4";
      if (rank > 1) {
        shape = "2";
        for (unsigned d = 1; d < std::min(rank, 8u); ++d)
          shape += ", 2";
      }
      diags.error(p.loc,
                  "syntax error: expected 'onto' and a processors "
                  "arrangement before " +
                      shortenQuoted(got),
                  "declare the processors and name them after 'onto': "
                  "'processors P(" +
                      shape + ");' then '" + fix + " onto P;'");
      return;
    }
    diags.error(p.loc,
                "syntax error: expected 'onto' " +
                    std::string(named ? "" : "and a processors arrangement ") +
                    "before " + shortenQuoted(got),
                "name the processors after 'onto': '" + fix + " onto " + procs +
                    ";'");
  }

  std::vector<MissingOnto> missingOnto;
  size_t quietFrom = 0;
  std::optional<size_t> quietUntil;
  /// Whether the lexer skipped a character before `offending`, on its line
  /// and after the last ';' before it.
  bool skippedInStatement(antlr4::TokenStream &tokens,
                          antlr4::Token *offending) const {
    if (skippedAt.empty())
      return false;
    if (offending->getTokenIndex() == static_cast<size_t>(-1) ||
        offending->getType() == antlr4::Token::EOF)
      return false;
    // The latest skipped before `offending` (a hint may have read ahead).
    auto after = std::upper_bound(
        skippedAt.begin(), skippedAt.end(), offending->getStartIndex(),
        [](size_t index, const std::pair<size_t, size_t> &s) {
          return index < s.first;
        });
    if (after == skippedAt.begin())
      return false;
    const auto [at, line] = *std::prev(after);
    if (offending->getLine() != line)
      return false;
    for (size_t i = offending->getTokenIndex(); i-- > 0;) {
      antlr4::Token *t = tokens.get(i);
      if (t->getStartIndex() < at)
        return true;
      if (t->getText() == ";")
        return false;
    }
    return true;
  }

  /// The input index and line of each character the lexer skipped.
  std::vector<std::pair<size_t, size_t>> skippedAt; ///< index, line
  const TokenLocator &locator;
  Diagnostics &diags;
};

/// Rejects input that is not UTF-8 text before ANTLR sees it; returns false
/// and reports the first bad byte.
bool checkText(llvm::StringRef text, Diagnostics &diags) {
  // The first byte that is not UTF-8 text, or a NUL, whichever comes first.
  const char *bad = nullptr;
  const llvm::UTF8 *src = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  const llvm::UTF8 *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
  if (!llvm::isLegalUTF8String(&src, end))
    bad = reinterpret_cast<const char *>(src);
  size_t nul = text.find('\0');
  if (nul != llvm::StringRef::npos && (!bad || text.begin() + nul < bad))
    bad = text.begin() + nul;
  if (!bad)
    return true;
  // A NUL is UTF-8, but no text file holds one.
  diags.error(llvm::SMLoc::getFromPointer(bad),
              *bad == '\0'
                  ? std::string("the file holds a NUL byte, which "
                                "text does not")
                  : "the file is not UTF-8 text (found byte 0x" +
                        llvm::utohexstr(static_cast<unsigned char>(*bad)) + ")",
              "mapc reads .map source files; check the file name");
  return false;
}

} // namespace

ast::Program mapc::parseMap(unsigned bufferId, Diagnostics &diags) {
  llvm::SourceMgr &srcMgr = diags.sourceMgr();
  const llvm::MemoryBuffer *buffer = srcMgr.getMemoryBuffer(bufferId);
  llvm::StringRef text = buffer->getBuffer();
  llvm::SMLoc start = llvm::SMLoc::getFromPointer(text.begin());
  if (text.size() > kMaxSourceBytes) {
    diags.error(start,
                llvm::formatv("the file is {0} bytes; mapc reads at most {1}",
                              text.size(), kMaxSourceBytes),
                "split the program into smaller files");
    return {};
  }
  if (!checkText(text, diags))
    return {};

  TokenLocator locator(srcMgr, bufferId);
  ErrorListener listener(locator, diags);
  try {
    antlr4::ANTLRInputStream input(text.str());
    MapLexer lexer(&input);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&listener);
    antlr4::CommonTokenStream tokens(&lexer);
    MapParser parser(&tokens);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    MapParser::ProgramContext *tree = parser.program();
    listener.finish(tokens);
    return buildAST(tree, locator, diags, listener.errors);
  } catch (const std::exception &e) {
    // The runtime should not throw on any input; if it does, say so plainly
    // rather than crash.
    diags.error(start, llvm::Twine("internal parser failure: ") + e.what(),
                "please report this input as a bug");
    return {};
  }
}
