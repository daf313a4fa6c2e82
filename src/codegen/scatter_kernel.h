// The kernel of a scatter region (fuse::ScatterRegion, ir/scatter.h): a thread per output element
// finds its run of the sorted index by binary search and folds in the src elements the run
// names, in order of position, so the same input gives the same bits on every run. The thread
// writing a line's first (last) element checks the sorted index's first (last): every bad index
// sorts to one of the two ends.
#pragma once

#include <span>

#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"

namespace lazy::codegen {

GeneratedKernel generate_scatter_kernel(const fuse::Region& region,
                                        std::span<const ir::NodePtr> pending,
                                        std::span<const ir::NodePtr> externals);

}  // namespace lazy::codegen
