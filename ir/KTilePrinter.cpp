//===- KTilePrinter.cpp ---------------------------------------------------===//
#include "ir/KTilePrinter.h"

#include <functional>

using namespace mapc;

namespace {

/// Prints `name = [..];` with groups split by ';' and items by ','.
void field(llvm::raw_ostream &os, const char *name,
           const std::vector<std::vector<std::string>> &groups) {
  os << "  " << name << " = [";
  for (size_t g = 0; g < groups.size(); ++g) {
    os << (g ? "; " : "");
    for (size_t i = 0; i < groups[g].size(); ++i)
      os << (i ? ", " : "") << groups[g][i];
  }
  os << "];\n";
}

/// Per-k-Tile-dim values grouped as `k` is.
std::vector<std::vector<std::string>>
byKGroups(const KTile &t, const std::function<std::string(const KDim &)> &f) {
  std::vector<std::vector<std::string>> out;
  unsigned l = 0;
  for (unsigned g : t.groups) {
    out.emplace_back();
    for (unsigned i = 0; i < g; ++i, ++l)
      out.back().push_back(f(t.kdims[l]));
  }
  return out;
}

std::vector<std::vector<std::string>>
perSpace(const std::vector<SpaceDim> &dims,
         const std::function<int64_t(const SpaceDim &)> &f) {
  std::vector<std::vector<std::string>> out;
  for (const SpaceDim &d : dims)
    out.push_back({std::to_string(f(d))});
  return out;
}

bool anyDim(const KTile &t, const std::function<bool(const KDim &)> &f) {
  for (const KDim &d : t.kdims)
    if (f(d))
      return true;
  return false;
}

bool anySpace(const std::vector<SpaceDim> &dims,
              const std::function<bool(const SpaceDim &)> &f) {
  for (const SpaceDim &d : dims)
    if (f(d))
      return true;
  return false;
}

std::string num(int64_t v) { return std::to_string(v); }

} // namespace

void mapc::printKTileLayout(const std::string &name, const std::string &array,
                            const KTile &t, llvm::raw_ostream &os) {
  os << "layout " << name << " of " << array << " = ktile {\n";
  field(os, "a", perSpace(t.data, [](const SpaceDim &d) { return d.len; }));
  if (anySpace(t.data, [](const SpaceDim &d) { return d.tlen != d.len; }))
    field(os, "ta", perSpace(t.data, [](const SpaceDim &d) { return d.tlen; }));
  if (anySpace(t.data, [](const SpaceDim &d) { return d.toff != 0; }))
    field(os, "ota",
          perSpace(t.data, [](const SpaceDim &d) { return d.toff; }));
  if (anySpace(t.data, [](const SpaceDim &d) { return d.off != 0; }))
    field(os, "oa", perSpace(t.data, [](const SpaceDim &d) { return d.off; }));
  field(os, "k", byKGroups(t, [](const KDim &d) { return num(d.k); }));
  if (anyDim(t, [](const KDim &d) { return d.tk != d.k; }))
    field(os, "tk", byKGroups(t, [](const KDim &d) { return num(d.tk); }));
  if (anyDim(t, [](const KDim &d) { return d.otk != 0; }))
    field(os, "otk", byKGroups(t, [](const KDim &d) { return num(d.otk); }));
  if (anyDim(t, [](const KDim &d) { return d.ok != 0; }))
    field(os, "ok", byKGroups(t, [](const KDim &d) {
            return d.ok == kReplicated ? std::string("*") : num(d.ok);
          }));
  if (anyDim(t, [](const KDim &d) { return d.sense == Sense::Minus; }))
    field(os, "s", byKGroups(t, [](const KDim &d) {
            return std::string(d.sense == Sense::Minus ? "-" : "+");
          }));
  if (anyDim(t, [](const KDim &d) { return d.enc == Encoding::Gray; }))
    field(os, "e", byKGroups(t, [](const KDim &d) {
            return std::string(d.enc == Encoding::Gray ? "g" : "b");
          }));
  std::vector<std::vector<std::string>> m;
  for (const auto &g : t.m) {
    m.emplace_back();
    for (unsigned l : g)
      m.back().push_back(num(l));
  }
  field(os, "m", m);
  field(os, "d", perSpace(t.device, [](const SpaceDim &d) { return d.len; }));
  if (anySpace(t.device, [](const SpaceDim &d) { return d.tlen != d.len; }))
    field(os, "td",
          perSpace(t.device, [](const SpaceDim &d) { return d.tlen; }));
  if (anySpace(t.device, [](const SpaceDim &d) { return d.toff != 0; }))
    field(os, "otd",
          perSpace(t.device, [](const SpaceDim &d) { return d.toff; }));
  if (anySpace(t.device, [](const SpaceDim &d) { return d.off != 0; }))
    field(os, "od",
          perSpace(t.device, [](const SpaceDim &d) { return d.off; }));
  os << "};\n";
}

std::string mapc::digitMapText(const DigitMap &map) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (map.isBits ? "bits" : "digits") << " [";
  auto section = [&](const char *label,
                     const std::vector<DeviceDigit> &digits) {
    os << label << ":";
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
      os << " " << (it->inverted ? "!" : "");
      if (it->kind == DeviceDigit::Data)
        os << "a" << it->index;
      else if (it->kind == DeviceDigit::Const)
        os << it->index;
      else
        os << "*";
      for (unsigned b = 0; b < 64; ++b) // `bits` XOR items: a2^a1
        if (it->xorMask >> b & 1)
          os << "^a" << b;
      if (!map.isBits)
        os << ":" << it->base;
    }
  };
  section("p", map.pes);
  os << " | ";
  section("m", map.memory);
  os << "]";
  return os.str();
}

void mapc::printDigitMapLayout(const std::string &name,
                               const std::string &array, const DigitMap &map,
                               llvm::raw_ostream &os) {
  os << "layout " << name << " of " << array << " = " << digitMapText(map)
     << ";\n";
}
