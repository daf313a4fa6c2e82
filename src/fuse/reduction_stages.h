// The stages of a split reduction (fuse/reduction_splits.h decides the split), built into a graph
// as the API would record them written out with reshape, slice and smaller reductions. A stage
// that is itself a reduction splits again where the rules say so, so the stages of very large
// reductions are split in turn.
#pragma once

#include "fuse/graph_builder.h"
#include "fuse/reduction_splits.h"

namespace lazy::fuse {

// Reduction `op` of x over the axes in `mask`, split where choose_split says so; the result has
// `dtype` and the reduction's shape.
ir::Node* reduce_in_stages(GraphBuilder& builder, ir::Op op, ir::Node* x, std::uint64_t mask,
                           bool keepdim, DType dtype, DType compute_dtype);

// The same with the split already chosen (kind other than none).
ir::Node* reduce_split(GraphBuilder& builder, const ReductionSplit& split, ir::Op op, ir::Node* x,
                       std::uint64_t mask, bool keepdim, DType dtype, DType compute_dtype);

}  // namespace lazy::fuse
