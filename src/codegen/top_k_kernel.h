// What a top-k region's kernel (nvrtc_templates/topk_skeleton.cuh) fills in beyond what every
// kernel has: the order key of each element, and each root's store (the values or positions).
#pragma once

#include <span>
#include <string>

#include "codegen/templates.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// The top-k skeleton's own $-names: `element` computes the input's element i (offsets and
// terms), `value` names it, of dtype `value_dtype`.
Substitutions top_k_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                  std::string element, DType value_dtype, const std::string& value);

}  // namespace lazy::codegen
