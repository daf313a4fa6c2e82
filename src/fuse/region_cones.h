// What a region's kernel reaches, found as build_terms will walk it but without building terms:
// from the region's roots (the folded input of a reduction, scan or top-k; the operands of a
// product or scatter) down every input, until a value an earlier region writes, a computed
// tensor, or one of the region's own reductions. For passes between form_regions and build_terms
// that must see what each kernel will compute or read.
#pragma once

#include <cstdint>
#include <vector>

#include <absl/functional/function_ref.h>

#include "fuse/partition.h"

namespace lazy::fuse {

class RegionCones {
 public:
  explicit RegionCones(const Partition& p);

  // Calls `reached(index, inlined)` once for each pending node region `region` reaches: inlined
  // when its kernel computes the node, else the node is read from memory (an earlier region's).
  void walk(std::size_t region, absl::FunctionRef<void(std::uint32_t index, bool inlined)> reached);

 private:
  void walk_node(const ir::Node& node);

  const Partition& p_;
  std::vector<std::uint8_t> seen_;  // bytes: read and set once per node a walk reaches
  std::vector<std::uint32_t> seen_list_;
  std::int32_t current_ = 0;
  absl::FunctionRef<void(std::uint32_t, bool)>* reached_ = nullptr;
};

}  // namespace lazy::fuse
