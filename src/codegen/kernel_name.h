// Names of generated kernels, shared by both emitters: readable in LAZY_DEBUG output and
// profilers, unique through a hash of the source.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuse/partition.h"

namespace lazy::codegen {

// prefix + the leading words (a reduction's op, say) + the region's first ops ("and<N>" for the
// rest; "copy" when there are none) + the output dtype + 8 hex digits of a hash of `source`.
std::string kernel_name(std::string_view prefix, std::vector<std::string> leading,
                        const fuse::Region& region, std::span<const ir::NodePtr> pending,
                        DType output, std::string_view source);

}  // namespace lazy::codegen
