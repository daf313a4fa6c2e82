// What a scan region's kernel (nvrtc_templates/scan_skeleton.cuh) fills in beyond what every
// kernel has: the fold its roots share (cummax's values and indices are one scan), the tile size,
// and each root's store from the scanned value or position.
#pragma once

#include <span>
#include <string>

#include "codegen/templates.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// The scan skeleton's own $-names: `element` computes the input's element i (offsets and terms),
// `value` names it, of dtype `value_dtype`.
Substitutions scan_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                 std::string element, DType value_dtype, const std::string& value);

}  // namespace lazy::codegen
