//===- CppLiterals.cpp - C++ literal text shared by the emitters ----------===//
#include "backend/CppLiterals.h"

using namespace mapc;

/// Octal escapes take at most three digits, so unlike `\x` they never run
/// on into a following hex digit. A `?` after a `?` is escaped: `??/` and
/// friends are trigraphs before C++17 and draw -Wtrigraphs after.
std::string cpp::escaped(const std::string &s, bool inComment) {
  std::string out;
  char prev = 0;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\')
      out += "\\\\";
    else if (c == '"' && !inComment)
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '?' && prev == '?')
      out += "\\?";
    else if (u >= 0x20 && u < 0x7f)
      out += c;
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", unsigned(u));
      out += buf;
    }
    prev = c;
  }
  return out;
}

std::string cpp::quoted(const std::string &s) {
  return "\"" + escaped(s) + "\"";
}

std::string cpp::commentText(const std::string &s) {
  std::string out = escaped(s, /*inComment=*/true);
  if (!out.empty() && out.back() == '\\')
    out += '.';
  return out;
}

std::string cpp::includeGuard(const std::string &prefix,
                              const std::string &header) {
  std::string g = prefix;
  for (char c : header)
    g += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A')
         : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c
                                                            : '_';
  return g;
}

namespace {

std::string spaceDim(const rt::SpaceDim &d) {
  using cpp::i64;
  return "{" + i64(d.len) + ", " + i64(d.tlen) + ", " + i64(d.off) + ", " +
         i64(d.toff) + "}";
}

std::string kdim(const rt::KDim &k) {
  using cpp::i64;
  return "mapc::rt::literal::kdim(" + i64(k.k) + ", " + i64(k.tk) + ", " +
         i64(k.otk) + ", " + i64(k.ok) + ", " +
         (k.sense == rt::Sense::Minus ? "true" : "false") + ", " +
         (k.enc == rt::Encoding::Gray ? "true" : "false") + ")";
}

std::string unsignedLiteral(unsigned v) { return std::to_string(v) + "u"; }

} // namespace

std::string cpp::tileMapLiteral(const rt::TileMap &t) {
  return "mapc::rt::literal::tileMap(" + list(t.data, spaceDim) + ", " +
         list(t.kdims, kdim) + ", " + list(t.groups, unsignedLiteral) + ", " +
         list(t.m,
              [](const std::vector<unsigned> &g) {
                return list(g, unsignedLiteral);
              }) +
         ", " + list(t.device, spaceDim) + ")";
}

std::string cpp::affineLiteral(const rt::AffineLayout &l) {
  return "mapc::rt::literal::affineLayout(" + unsignedLiteral(l.mBits) + ", " +
         unsignedLiteral(l.pBits) + ", " + unsignedLiteral(l.dataBits) + ", " +
         list(l.row, hex64) + ", " + hex64(l.constant) + ", " +
         hex64(l.disabled) + ")";
}

std::string cpp::deviceLayoutLiteral(const rt::DeviceLayout &l) {
  if (!l.tile())
    return "mapc::rt::DeviceLayout::fromAffine(" + affineLiteral(*l.affine()) +
           ")";
  return "mapc::rt::DeviceLayout::fromTile(" + tileMapLiteral(*l.tile()) +
         ", " + (l.affine() ? affineLiteral(*l.affine()) : "std::nullopt") +
         ")";
}
