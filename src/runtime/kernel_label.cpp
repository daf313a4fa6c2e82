#include "runtime/kernel_label.h"

#include <cstring>
#include <vector>

namespace lazy::runtime {

namespace {

bool same_place(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && std::strcmp(a.file_name(), b.file_name()) == 0;
}

}  // namespace

KernelLabel kernel_label(std::string_view name, const fuse::Region& region,
                         std::span<const ir::NodePtr> pending) {
  std::vector<std::source_location> places;
  auto add = [&](const ir::Node& node) {
    for (const std::source_location& place : places)
      if (same_place(place, node.loc)) return;
    places.push_back(node.loc);
  };
  for (const fuse::Term& term : region.terms) {
    if (term.kind != fuse::Term::Kind::load && term.kind != fuse::Term::Kind::scalar) {
      add(*pending[term.source]);
    }
  }
  for (const fuse::Root& root : region.roots)
    if (!root.external_copy) add(*pending[root.node]);

  KernelLabel label{std::string(name), std::source_location::current()};
  if (places.empty()) return label;  // a dense copy of an input: no op of the user's
  label.where = places.front();
  label.text += " (ops at ";
  for (std::size_t p = 0; p < places.size() && p < kMaxLabelPlaces; ++p) {
    label.text += std::string(p == 0 ? "" : ", ") + places[p].file_name() + ":" +
                  std::to_string(places[p].line());
  }
  if (places.size() > kMaxLabelPlaces) {
    label.text += " and " + std::to_string(places.size() - kMaxLabelPlaces) + " more";
  }
  label.text += ")";
  return label;
}

}  // namespace lazy::runtime
