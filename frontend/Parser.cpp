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

private:
  /// Whether the lexer skipped a character before `offending`, on its line
  /// and after the last ';' before it.
  bool skippedInStatement(antlr4::TokenStream &tokens,
                          antlr4::Token *offending) const {
    if (skippedAt.empty())
      return false;
    const auto [at, line] = skippedAt.back(); // the latest, in reading order
    if (offending->getTokenIndex() == static_cast<size_t>(-1) ||
        offending->getType() == antlr4::Token::EOF ||
        offending->getStartIndex() < at || offending->getLine() != line)
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
    return buildAST(tree, locator, diags, listener.errors);
  } catch (const std::exception &e) {
    // The runtime should not throw on any input; if it does, say so plainly
    // rather than crash.
    diags.error(start, llvm::Twine("internal parser failure: ") + e.what(),
                "please report this input as a bug");
    return {};
  }
}
