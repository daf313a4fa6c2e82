// The partitioner's first cut: which nodes of the graph must be written to memory, and why.
// Held nodes are written (a held view through its base's memory instead, a held scalar from the
// host); reductions are written for their consumers to read back, unless they fold in a row
// region (form_regions decides); LAZY_FUSION=0 writes every op; chains longer than
// kMaxFusedDepth are cut.
#pragma once

#include "fuse/partition.h"

namespace lazy::fuse {

Partition cut_nodes(Graph graph, PartitionOptions options);

}  // namespace lazy::fuse
