// The terms build_terms already made in the current region, by node, the views above it and
// whether it is under a per-row root: visiting a node again gives the same term.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <absl/hash/hash.h>
#include <absl/types/span.h>

#include "ir/node.h"

namespace lazy::fuse {

class TermMemo {
 public:
  using Path = std::vector<const ir::Node*>;

  // Sized once for the graph: growing the table visit by visit was a tenth of a plan miss's
  // partition.
  void reserve(std::size_t nodes) {
    plain_.reserve(2 * nodes);
    viewed_.reserve(nodes);
  }
  // Forgets the terms made so far (a new region's start). By numbering the regions in the keys
  // rather than emptying the tables: abseil frees a large table's memory when it is cleared.
  void clear() { ++region_; }

  // Out of line: build_terms's walk recurses through its callers, whose frames stay small.
  [[gnu::noinline]] std::optional<std::int32_t> find(const ir::Node* node, const Path& path,
                                                     bool per_row) const {
    if (path.empty()) {
      if (auto it = plain_.find(std::make_tuple(node, per_row, region_)); it != plain_.end())
        return it->second;
      return std::nullopt;
    }
    const auto id = path_ids_.find(absl::MakeConstSpan(path));
    if (id == path_ids_.end()) return std::nullopt;
    if (auto it = viewed_.find(std::make_tuple(node, id->second, per_row, region_));
        it != viewed_.end())
      return it->second;
    return std::nullopt;
  }
  [[gnu::noinline]] void remember(const ir::Node* node, const Path& path, bool per_row,
                                  std::int32_t term) {
    if (path.empty()) {
      plain_.emplace(std::make_tuple(node, per_row, region_), term);
      return;
    }
    auto id = path_ids_.find(absl::MakeConstSpan(path));
    if (id == path_ids_.end())
      id = path_ids_.emplace(KeptPath(path.begin(), path.end()), std::int32_t(path_ids_.size()))
               .first;
    viewed_.emplace(std::make_tuple(node, id->second, per_row, region_), term);
  }

 private:
  using PathView = absl::Span<const ir::Node* const>;
  // Paths are a few views long: kept inline, numbering one allocates nothing.
  using KeptPath = absl::InlinedVector<const ir::Node*, 4>;
  // Looks paths up by view: a lookup copies no path (that was most of a plan miss's allocations).
  struct PathHash {
    using is_transparent = void;
    std::size_t operator()(PathView path) const { return absl::Hash<PathView>{}(path); }
    std::size_t operator()(const KeptPath& path) const {
      return (*this)(absl::MakeConstSpan(path));
    }
  };
  struct PathEq {
    using is_transparent = void;
    bool operator()(PathView a, PathView b) const {
      return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
  };

  // Most visits are under no view: those are kept by node alone (and region, as all keys).
  absl::flat_hash_map<std::tuple<const ir::Node*, bool, std::int32_t>, std::int32_t> plain_;
  // The others by node and the number of their path of views; paths are numbered once per
  // build (they are the same in every region).
  absl::flat_hash_map<KeptPath, std::int32_t, PathHash, PathEq> path_ids_;
  absl::flat_hash_map<std::tuple<const ir::Node*, std::int32_t, bool, std::int32_t>, std::int32_t>
      viewed_;
  std::int32_t region_ = 0;
};

}  // namespace lazy::fuse
