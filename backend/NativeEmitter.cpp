//===- NativeEmitter.cpp - native remaps as C++ for other programs --------===//
//
// As the simulator's emitter (CppEmitter.cpp): one table row per line, the
// same input gives the same bytes, strings and comments escaped, helpers
// written only when used (-Wall -Werror rejects unused static functions).
//
//===----------------------------------------------------------------------===//
#include "backend/NativeEmitter.h"
#include "backend/CppLiterals.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <set>

using namespace mapc;
using mapc::cpp::hex64;
using mapc::cpp::i64;
using mapc::cpp::list;

namespace {

/// A string literal's body, or (inComment) a `//` comment's text: printable
/// ASCII stays, the rest becomes octal escapes; a `??` never forms a
/// trigraph and a comment never ends in a backslash (-Wcomment).
std::string escaped(const std::string &s, bool inComment) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\' || (c == '"' && !inComment))
      out += std::string("\\") + c;
    else if (c == '?' && !out.empty() && out.back() == '?')
      out += "\\?";
    else if (u >= 0x20 && u < 0x7f)
      out += c;
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", unsigned(u));
      out += buf;
    }
  }
  if (inComment && !out.empty() && out.back() == '\\')
    out += '.';
  return out;
}

std::string literal(const std::string &s) {
  return "\"" + escaped(s, false) + "\"";
}

std::string spaceDim(const rt::SpaceDim &d) {
  return "{" + i64(d.len) + ", " + i64(d.tlen) + ", " + i64(d.off) + ", " +
         i64(d.toff) + "}";
}

/// `tileMap({data dims}, {kdim(...)...}, {groups}, {m}, {device dims})`.
std::string tileMapLiteral(const rt::TileMap &t) {
  auto kdim = [](const rt::KDim &k) {
    return "kdim(" + i64(k.k) + ", " + i64(k.tk) + ", " + i64(k.otk) + ", " +
           i64(k.ok) + ", " + (k.sense == rt::Sense::Minus ? "true" : "false") +
           ", " + (k.enc == rt::Encoding::Gray ? "true" : "false") + ")";
  };
  auto u = [](unsigned v) { return std::to_string(v) + "u"; };
  return "tileMap(" + list(t.data, spaceDim) + ", " + list(t.kdims, kdim) +
         ", " + list(t.groups, u) + ", " +
         list(t.m, [&](const std::vector<unsigned> &g) { return list(g, u); }) +
         ", " + list(t.device, spaceDim) + ")";
}

/// `affineLayout(mBits, pBits, dataBits, {rows}, constant, disabled)`.
std::string affineLiteral(const rt::AffineLayout &l) {
  return "affineLayout(" + std::to_string(l.mBits) + "u, " +
         std::to_string(l.pBits) + "u, " + std::to_string(l.dataBits) + "u, " +
         list(l.row, hex64) + ", " + hex64(l.constant) + ", " +
         hex64(l.disabled) + ")";
}

std::string layoutLiteral(const rt::DeviceLayout &l) {
  if (!l.tile())
    return "mapc::rt::DeviceLayout::fromAffine(" + affineLiteral(*l.affine()) +
           ")";
  return "mapc::rt::DeviceLayout::fromTile(" + tileMapLiteral(*l.tile()) +
         ", " + (l.affine() ? affineLiteral(*l.affine()) : "std::nullopt") +
         ")";
}

/// What the header's `#include` may hold: not a string literal, so the
/// characters that would end or break it are replaced.
std::string includeName(const std::string &name) {
  std::string out;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    out += c == '"' || c == '\\' || u < 0x20 || u >= 0x7f ? '_' : c;
  }
  return out;
}

std::string guardOf(const std::string &header) {
  std::string g = "MAPC_NATIVE_";
  for (char c : header)
    g += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A')
         : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c
                                                            : '_';
  return g;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_') ||
        static_cast<unsigned char>(c) >= 0x80)
      return false;
  return true;
}

const std::set<std::string> &keywords() {
  static const std::set<std::string> k = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq",      "std",
      "mapc"};
  return k;
}

bool anyComplex(const std::vector<NativeEmitted> &remaps) {
  for (const NativeEmitted &r : remaps)
    if (r.elementType == ElemType::C64 || r.elementType == ElemType::C128)
      return true;
  return false;
}

} // namespace

const char *mapc::cppElementType(ElemType t) {
  switch (t) {
  case ElemType::U8:
    return "std::uint8_t";
  case ElemType::I8:
    return "std::int8_t";
  case ElemType::U16:
    return "std::uint16_t";
  case ElemType::I16:
    return "std::int16_t";
  case ElemType::U32:
    return "std::uint32_t";
  case ElemType::I32:
    return "std::int32_t";
  case ElemType::F32:
    return "float";
  case ElemType::U64:
    return "std::uint64_t";
  case ElemType::I64:
    return "std::int64_t";
  case ElemType::F64:
    return "double";
  case ElemType::C64:
    return "std::complex<float>";
  case ElemType::C128:
    return "std::complex<double>";
  }
  return "std::uint8_t";
}

bool mapc::isEmittableNamespace(const std::string &name) {
  size_t start = 0;
  while (true) {
    size_t end = name.find("::", start);
    std::string part = name.substr(start, end - start);
    if (!isIdentifier(part) || keywords().count(part))
      return false;
    if (end == std::string::npos)
      return true;
    start = end + 2;
  }
}

void mapc::emitNativeHeader(const std::vector<NativeEmitted> &remaps,
                            const NativeEmitOptions &opts,
                            llvm::raw_ostream &os) {
  std::string guard = guardOf(opts.headerName);
  os << "// Generated by mapc --emit=header --target=native. Do not edit.\n"
     << "//\n"
     << "// One function per data-moving statement, in program order. A "
        "layout's\n"
     << "// buffer holds its device in address order, memory fastest "
        "(docs/native.md);\n"
     << "// cells the layout leaves empty are padding, left as they were. "
        "Link\n"
     << "// MapcNative and MapcRuntime (CMake: mapc::native).\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  if (anyComplex(remaps))
    os << "#include <complex>\n";
  os << "#include <cstddef>\n#include <cstdint>\n\n"
     << "namespace mapc::rt {\nstruct RemapSpec;\n} // namespace mapc::rt\n\n"
     << "namespace " << opts.nameSpace << " {\n\n"
     << "/// The number of functions below.\n"
     << "constexpr std::size_t kRemapCount = " << remaps.size() << ";\n\n"
     << "/// Worker threads of the remaps (0, the default: every core). A "
        "statement\n"
     << "/// plans at its first call, with the number set then.\n"
     << "void setThreads(unsigned threads);\n";
  for (const NativeEmitted &r : remaps) {
    const char *type = cppElementType(r.elementType);
    int64_t src = r.spec.source.size(), dst = r.spec.dest.size();
    const std::string &f = r.function;
    os << "\n/// " << escaped(r.description, true) << "\n"
       << "/// Buffer sizes in elements: the source layout's, the "
          "destination's, and\n"
       << "/// what the in-place form needs for each of its two buffers.\n"
       << "constexpr std::size_t " << f << "_source_cells = " << src << ";\n"
       << "constexpr std::size_t " << f << "_dest_cells = " << dst << ";\n"
       << "constexpr std::size_t " << f
       << "_inplace_cells = " << std::max(src, dst) << ";\n"
       << "/// Moves the array from `src` (source layout) to `dst` "
          "(destination\n"
       << "/// layout); the buffers must not overlap.\n"
       << "void " << f << "(const " << type << " *src, " << type << " *dst);\n"
       << "/// In place: `buf` holds the source layout on entry and the "
          "destination\n"
       << "/// layout on return; `scratch` is a second buffer of as many "
          "cells.\n"
       << "void " << f << "_inplace(" << type << " *buf, " << type
       << " *scratch);\n"
       << "/// The two layouts and the element size (mapc/runtime/"
          "RemapSpec.h).\n"
       << "const mapc::rt::RemapSpec &" << f << "_spec();\n";
  }
  os << "\n} // namespace " << opts.nameSpace << "\n\n#endif // " << guard
     << "\n";
}

void mapc::emitNativeSource(const std::vector<NativeEmitted> &remaps,
                            const NativeEmitOptions &opts,
                            llvm::raw_ostream &os) {
  bool anyTile = false, anyAffine = false;
  for (const NativeEmitted &r : remaps)
    for (const rt::DeviceLayout *l : {&r.spec.source, &r.spec.dest}) {
      anyTile |= l->tile().has_value();
      anyAffine |= l->affine().has_value();
    }
  os << "// Generated by mapc --emit=cpp --target=native. Do not edit.\n"
     << "#include \"" << includeName(opts.headerName) << "\"\n\n"
     << "#include \"mapc/native/Remap.h\"\n\n"
     << "#include <atomic>\n#include <cstdint>\n#include <cstdio>\n"
     << "#include <cstdlib>\n"
     << "#include <optional>\n#include <string>\n#include <utility>\n"
     << "#include <variant>\n#include <vector>\n\n";
  os << "namespace {\n\n"
     << "/// setThreads()'s number, read when a statement plans.\n"
     << "std::atomic<unsigned> threadsWanted{0};\n";
  if (!remaps.empty()) {
    if (anyTile)
      os << "\n"
         << "/// A k-Tile dim (003 3.2.6): length, template length, template "
            "offset,\n"
         << "/// offset (-1: `*`, replicated), reversed sense, Gray "
            "encoding.\n"
         << "mapc::rt::KDim kdim(int64_t k, int64_t tk, int64_t otk, int64_t "
            "ok, bool minus,\n"
         << "                    bool gray) {\n"
         << "  mapc::rt::KDim d;\n"
         << "  d.k = k;\n  d.tk = tk;\n  d.otk = otk;\n  d.ok = ok;\n"
         << "  d.sense = minus ? mapc::rt::Sense::Minus : "
            "mapc::rt::Sense::Plus;\n"
         << "  d.enc = gray ? mapc::rt::Encoding::Gray : "
            "mapc::rt::Encoding::Binary;\n"
         << "  return d;\n}\n\n"
         << "/// A k-Tile format's index map: data dims {len, tlen, off, "
            "toff}, k-Tile\n"
         << "/// dims, dims per data dim (then empty dims), k-Tile dims per "
            "device dim\n"
         << "/// (least significant first), device dims.\n"
         << "mapc::rt::TileMap tileMap(std::vector<mapc::rt::SpaceDim> data,\n"
         << "                          std::vector<mapc::rt::KDim> kdims,\n"
         << "                          std::vector<unsigned> groups,\n"
         << "                          std::vector<std::vector<unsigned>> m,\n"
         << "                          std::vector<mapc::rt::SpaceDim> "
            "device) {\n"
         << "  mapc::rt::TileMap t;\n"
         << "  t.data = std::move(data);\n  t.kdims = std::move(kdims);\n"
         << "  t.groups = std::move(groups);\n  t.m = std::move(m);\n"
         << "  t.device = std::move(device);\n  return t;\n}\n";
    if (anyAffine)
      os << "\n"
         << "/// A GF(2)-affine layout (003 4.1.3, 001): per device bit "
            "(m-bits, then\n"
         << "/// p-bits) the data bits XORed into it, the XOR constant, the "
            "disabled bits.\n"
         << "mapc::rt::AffineLayout affineLayout(unsigned mBits, unsigned "
            "pBits,\n"
         << "                                    unsigned dataBits,\n"
         << "                                    std::vector<uint64_t> row,\n"
         << "                                    uint64_t constant, uint64_t "
            "disabled) {\n"
         << "  mapc::rt::AffineLayout l;\n"
         << "  l.mBits = mBits;\n  l.pBits = pBits;\n  l.dataBits = "
            "dataBits;\n"
         << "  l.row = std::move(row);\n  l.constant = constant;\n"
         << "  l.disabled = disabled;\n  return l;\n}\n";
    os << "\n"
       << "mapc::rt::RemapSpec remapSpec(const char *label, "
          "mapc::rt::DeviceLayout source,\n"
       << "                              mapc::rt::DeviceLayout dest, "
          "unsigned elementBytes,\n"
       << "                              bool copy) {\n"
       << "  mapc::rt::RemapSpec s;\n"
       << "  s.label = label;\n  s.source = std::move(source);\n"
       << "  s.dest = std::move(dest);\n  s.elementBytes = elementBytes;\n"
       << "  s.copy = copy;\n  return s;\n}\n\n"
       << "/// Plans once. mapc checked both layouts when it wrote this "
          "file, so a\n"
       << "/// failure here (the host's address space, say) stops the "
          "program with the\n"
       << "/// reason.\n"
       << "mapc::native::NativeRemap planned(const mapc::rt::RemapSpec "
          "&spec) {\n"
       << "  mapc::native::NativeOptions options;\n"
       << "  options.threads = threadsWanted.load();\n"
       << "  auto plan = mapc::native::NativeRemap::plan(spec, options);\n"
       << "  if (auto *why = std::get_if<std::string>(&plan)) {\n"
       << "    std::fprintf(stderr, \"mapc: cannot plan %s: %s\\n\", "
          "spec.label.c_str(),\n"
       << "                 why->c_str());\n"
       << "    std::abort();\n  }\n"
       << "  return std::move(std::get<mapc::native::NativeRemap>(plan));\n"
       << "}\n";
  }
  os << "\n} // namespace\n\nnamespace " << opts.nameSpace << " {\n\n"
     << "void setThreads(unsigned threads) { threadsWanted = threads; }\n";
  for (const NativeEmitted &r : remaps) {
    const char *type = cppElementType(r.elementType);
    const std::string &f = r.function;
    os << "\n// " << escaped(r.description, true) << "\n"
       << "const mapc::rt::RemapSpec &" << f << "_spec() {\n"
       << "  static const mapc::rt::RemapSpec spec = remapSpec(\n"
       << "      " << literal(r.spec.label) << ",\n"
       << "      " << layoutLiteral(r.spec.source) << ",\n"
       << "      " << layoutLiteral(r.spec.dest) << ",\n"
       << "      " << r.spec.elementBytes << "u, "
       << (r.spec.copy ? "true" : "false") << ");\n"
       << "  return spec;\n}\n\n"
       << "static const mapc::native::NativeRemap &" << f << "_plan() {\n"
       << "  static const mapc::native::NativeRemap plan = planned(" << f
       << "_spec());\n"
       << "  return plan;\n}\n\n"
       << "void " << f << "(const " << type << " *src, " << type << " *dst) {\n"
       << "  " << f << "_plan().execute(src, dst);\n}\n\n"
       << "void " << f << "_inplace(" << type << " *buf, " << type
       << " *scratch) {\n"
       << "  " << f << "_plan().executeInPlace(buf, scratch);\n}\n";
  }
  os << "\n} // namespace " << opts.nameSpace << "\n";
}
