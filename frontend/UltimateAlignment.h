//===- UltimateAlignment.h - which objects follow a redistribute ----------===//
//
// HPF 2.0 sec. 8.5: "any other objects currently ultimately aligned with an
// array (or template) when it is redistributed are also remapped to reflect
// the new distribution, in such a way as to preserve alignment
// relationships", while a realign remaps only its alignee. An alignment
// made through an object that is itself aligned is with that object's
// ultimate align target (HPF 2.0 sec. 3.4), composed: B aligned with A,
// A with T, is B aligned with T by both directives, and stays so if A is
// later realigned.
//
// This class keeps those relations as the statements run. Each alignment
// is a link: the directive, the alignee's shape when it was made, and the
// link of the object it was made with (the composition). Links are never
// changed, only replaced, so an object's alignment with its root is its
// chain of links, and a redistribute lowers each link once for all the
// objects whose chains share it (a chain may be 50,000 links long).
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_FRONTEND_ULTIMATEALIGNMENT_H
#define MAPC_FRONTEND_ULTIMATEALIGNMENT_H

#include "frontend/AST.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mapc {

class UltimateAlignment {
public:
  /// One alignment as it was made: `align` of `alignee` (then of `shape`)
  /// with the object whose own link is `through` (-1: with the root). A
  /// link's `through` is always an earlier link, so ascending indices
  /// list every chain from its root down.
  struct Link {
    const ast::Alignment *align;
    std::string alignee;
    std::vector<int64_t> shape;
    int through;
    std::string root;
  };

  /// `rank` orders the objects (declaration order): alignees() lists them so.
  explicit UltimateAlignment(std::map<std::string, size_t> rank)
      : rank(std::move(rank)) {}

  /// `object` moved to a layout of its own (remap, reshape): it is aligned
  /// with nothing, and the objects aligned with it stay where they are.
  void movedAlone(const std::string &object) {
    detach(object);
    orphanAlignees(object);
  }
  /// `object` (of `shape`) is now aligned by `align` with `target`, and so
  /// with target's ultimate align target. Its earlier alignment ends.
  void align(const std::string &object, const ast::Alignment &align,
             std::vector<int64_t> shape, const std::string &target);
  /// `object` moved on its own: it is aligned with nothing now.
  void detach(const std::string &object);
  /// `root` moved without a new distribution (remap, reshape, realign):
  /// the objects aligned with it keep their layouts and are no longer
  /// aligned with it.
  void orphanAlignees(const std::string &root);

  /// The objects ultimately aligned with `root`, in rank order.
  std::vector<std::string> alignees(const std::string &root) const;
  /// `object`'s link: its chain to the root goes link by link through
  /// `through`. -1 when it is aligned with nothing.
  int linkOf(const std::string &object) const;
  const Link &link(int index) const { return links[size_t(index)]; }

private:
  void leaveRoot(const std::string &object);

  std::map<std::string, size_t> rank;
  std::vector<Link> links; ///< every link made, never changed
  std::map<std::string, int> current;
  std::map<std::string, std::set<std::pair<size_t, std::string>>> byRoot;
};

} // namespace mapc

#endif
