//===- UltimateAlignment.cpp ----------------------------------------------===//
#include "frontend/UltimateAlignment.h"

using namespace mapc;

void UltimateAlignment::align(const std::string &object,
                              const ast::Alignment &align,
                              std::vector<int64_t> shape,
                              const std::string &target) {
  detach(object);
  const int through = linkOf(target);
  const std::string root = through < 0 ? target : links[size_t(through)].root;
  if (root == object)
    return; // aligned with itself: with nothing that can move it
  links.push_back({&align, object, std::move(shape), through, root});
  current[object] = int(links.size() - 1);
  byRoot[root].insert({rank.at(object), object});
}

void UltimateAlignment::leaveRoot(const std::string &object) {
  auto it = current.find(object);
  if (it == current.end())
    return;
  auto group = byRoot.find(links[size_t(it->second)].root);
  group->second.erase({rank.at(object), object});
  if (group->second.empty())
    byRoot.erase(group);
}

void UltimateAlignment::detach(const std::string &object) {
  leaveRoot(object);
  current.erase(object);
}

void UltimateAlignment::orphanAlignees(const std::string &root) {
  auto group = byRoot.find(root);
  if (group == byRoot.end())
    return;
  for (const auto &[r, object] : group->second)
    current.erase(object);
  byRoot.erase(group);
}

std::vector<std::string>
UltimateAlignment::alignees(const std::string &root) const {
  std::vector<std::string> out;
  auto group = byRoot.find(root);
  if (group != byRoot.end())
    for (const auto &[r, object] : group->second)
      out.push_back(object);
  return out;
}

int UltimateAlignment::linkOf(const std::string &object) const {
  auto it = current.find(object);
  return it == current.end() ? -1 : it->second;
}
