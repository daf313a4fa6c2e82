// The terms build_terms already made in the current region, by node, the views above it and
// whether it is under a per-row root: visiting a node again gives the same term.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/node.h"

namespace lazy::fuse {

class TermMemo {
 public:
  using Path = std::vector<const ir::Node*>;

  // Sized once for the graph: growing the table visit by visit was a tenth of a plan miss's
  // partition.
  void reserve(std::size_t nodes) { plain_.reserve(2 * nodes); }
  void clear() {
    plain_.clear();
    viewed_.clear();
  }

  std::optional<std::int32_t> find(const ir::Node* node, const Path& path, bool per_row) const {
    if (path.empty()) {
      if (auto it = plain_.find(std::make_pair(node, per_row)); it != plain_.end())
        return it->second;
    } else if (auto it = viewed_.find(std::make_tuple(node, path, per_row)); it != viewed_.end()) {
      return it->second;
    }
    return std::nullopt;
  }
  void remember(const ir::Node* node, const Path& path, bool per_row, std::int32_t term) {
    if (path.empty())
      plain_.emplace(std::make_pair(node, per_row), term);
    else
      viewed_.emplace(std::make_tuple(node, path, per_row), term);
  }

 private:
  // Most visits are under no view: those are kept by node alone, without copying a path.
  absl::flat_hash_map<std::pair<const ir::Node*, bool>, std::int32_t> plain_;
  absl::flat_hash_map<std::tuple<const ir::Node*, Path, bool>, std::int32_t> viewed_;
};

}  // namespace lazy::fuse
