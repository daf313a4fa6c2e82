// The reduction-splitting pass, the partitioner's first: the API records one node per reduction
// the user wrote, and this pass rewrites those that one kernel would run badly into stages
// (fuse/reduction_splits.h decides which, fuse/reduction_stages.h builds them), and the softmax
// family's fold over long rows into chunks (fuse/exp_sum_chunks.h). Every other node is kept.
//
// The recorded nodes are left as they are (the reference evaluator and later syncs read them):
// a rewritten reduction is new nodes, and so is every node after the first change, since a
// graph node's trace_index is its place in the graph. Each replacement stands for its recorded
// node (Graph::recorded), so a held reduction's value is its replacement's. Nodes no longer
// needed once rewritten (the parts of a fold that is now chunked) are left out.
//
// Deterministic, and decided from the graph's structure alone (ops, dtypes, shapes, wiring, never
// a scalar's value), which is what the plan cache keys on.
#pragma once

#include "fuse/graph.h"

namespace lazy::fuse {

Graph split_reductions(Graph recorded);

}  // namespace lazy::fuse
