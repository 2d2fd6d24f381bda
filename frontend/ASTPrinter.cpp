//===- ASTPrinter.cpp - `--emit=ast`: the AST with file:line:col ----------===//
#include "frontend/Parser.h"

#include "llvm/Support/raw_ostream.h"

using namespace mapc;
using namespace mapc::ast;

namespace {

class Printer {
public:
  Printer(llvm::SourceMgr &srcMgr, llvm::raw_ostream &os)
      : srcMgr(srcMgr), os(os) {}

  void print(const Program &p) {
    for (const Statement &s : p.statements)
      std::visit([&](const auto &node) { print(node); }, s);
  }

private:
  std::string at(llvm::SMLoc loc) {
    if (!loc.isValid())
      return "<unknown>";
    // SourceMgr finds a column by scanning back to the line's start, which
    // is quadratic over many nodes on one long line: ask it once per line
    // and count columns from the line's start after that.
    const char *p = loc.getPointer();
    if (!(p >= lineStart && p < lineEnd)) {
      auto [line, col] = srcMgr.getLineAndColumn(loc);
      llvm::StringRef buf =
          srcMgr.getMemoryBuffer(srcMgr.FindBufferContainingLoc(loc))
              ->getBuffer();
      size_t end = buf.find_first_of("\n\r", size_t(p - buf.begin()));
      cachedLine = line;
      lineStart = p - (col - 1);
      lineEnd = end == llvm::StringRef::npos ? buf.end() : buf.begin() + end;
    }
    return std::to_string(cachedLine) + ":" + std::to_string(p - lineStart + 1);
  }
  unsigned cachedLine = 0;
  const char *lineStart = nullptr, *lineEnd = nullptr;
  void ints(const std::vector<IntLit> &v) {
    os << "(";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i].value;
    os << ")";
  }
  void print(const MachineDecl &m) {
    os << "Machine " << m.kind.name << " @" << at(m.loc) << "\n";
    for (const MachineArg &a : m.args) {
      os << "  " << a.key.name << " = ";
      ints(a.values);
      os << "\n";
    }
  }
  void print(const ShapeDecl &d) {
    static const char *kinds[] = {"Processors", "Template", "Array"};
    os << kinds[d.kind] << " " << d.name.name;
    ints(d.shape);
    if (!d.elemType.name.empty())
      os << " : " << d.elemType.name;
    os << " @" << at(d.loc) << "\n";
  }
  void print(const DistributeDecl &d) {
    os << (d.dynamic ? "Redistribute " : "Distribute ") << d.dist.target.name
       << "(";
    for (size_t i = 0; i < d.dist.formats.size(); ++i) {
      const DistFormat &f = d.dist.formats[i];
      os << (i ? ", " : "") << f.name.name;
      if (f.hasArg)
        os << "(" << f.arg.value << ")";
    }
    os << ") onto " << d.dist.procs.name << " @" << at(d.dist.loc) << "\n";
  }
  void print(const AlignDecl &d) {
    const Alignment &a = d.align;
    os << (d.dynamic ? "Realign " : "Align ") << a.alignee.name << "(";
    for (size_t i = 0; i < a.dummies.size(); ++i)
      os << (i ? ", " : "") << a.dummies[i].name;
    os << ") with " << a.target.name << "(";
    for (size_t i = 0; i < a.subs.size(); ++i) {
      const AlignSub &s = a.subs[i];
      os << (i ? ", " : "");
      if (s.kind == AlignSub::Star)
        os << "*";
      else if (s.kind == AlignSub::Colon)
        os << ":";
      else
        for (size_t t = 0; t < s.terms.size(); ++t) {
          const LinTerm &term = s.terms[t];
          os << (t ? (term.coeff < 0 ? " - " : " + ")
                   : (term.coeff < 0 ? "-" : ""));
          int64_t c = term.coeff < 0 ? -term.coeff : term.coeff;
          if (term.var.name.empty())
            os << c;
          else if (c == 1)
            os << term.var.name;
          else
            os << c << "*" << term.var.name;
        }
    }
    os << ") @" << at(a.loc) << "\n";
  }
  void print(const LayoutDecl &l) {
    static const char *kinds[] = {"ktile", "bits", "digits", "transform",
                                  "named"};
    os << "Layout " << l.name.name << " of " << l.array.name << " = "
       << kinds[l.expr.kind];
    if (!l.expr.callee.name.empty())
      os << " " << l.expr.callee.name;
    for (const Ident &a : l.expr.args)
      os << " " << a.name;
    os << " @" << at(l.loc) << "\n";
    for (const KTileField &f : l.expr.fields) {
      os << "  " << f.name.name << " = [";
      for (size_t g = 0; g < f.groups.size(); ++g) {
        os << (g ? "; " : "");
        for (size_t i = 0; i < f.groups[g].size(); ++i) {
          const FieldItem &it = f.groups[g][i];
          os << (i ? ", " : "");
          switch (it.kind) {
          case FieldItem::Int:
            os << it.intValue.value;
            break;
          case FieldItem::Star:
            os << "*";
            break;
          case FieldItem::Plus:
            os << "+";
            break;
          case FieldItem::Minus:
            os << "-";
            break;
          case FieldItem::Word:
            os << it.word;
            break;
          }
        }
      }
      os << "] @" << at(f.loc) << "\n";
    }
    for (const MapSection &s : l.expr.sections) {
      os << "  " << s.label.name << ":";
      for (const MapItem &i : s.items)
        os << " " << i.text;
      os << "\n";
    }
  }
  void print(const PairStmt &p) {
    static const char *kinds[] = {"Place", "Remap", "Copy"};
    static const char *joins[] = {" in ", " to ", " to "};
    os << kinds[p.kind] << " " << p.first.name << joins[p.kind] << p.second.name
       << " @" << at(p.loc) << "\n";
  }
  void print(const ReshapeStmt &r) {
    os << "Reshape " << r.array.name << " to ";
    ints(r.shape);
    os << " @" << at(r.loc) << "\n";
  }

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
};

} // namespace

void mapc::printAST(const ast::Program &program, llvm::SourceMgr &srcMgr,
                    llvm::raw_ostream &os) {
  Printer(srcMgr, os).print(program);
}
