// Groups the roots cut_nodes chose into regions, each one kernel: roots over one iteration space
// share a region (up to kMaxOutputsPerKernel); a reduction over trailing axes joins the open
// region over its input as a row region, with the pointwise work around it; other reductions get
// a reduction region of their own. A root read back from memory gets a region nothing joins, and
// the regions before it, or before a reduction, close: work after it must land after it.
// Regions come in execution order. Every refused fusion is recorded with its reason
// (Partition::refusals, Region::closed). Terms are left to build_terms.
#pragma once

#include "fuse/partition.h"

namespace lazy::fuse {

Partition form_regions(Partition partition, PartitionOptions options);

}  // namespace lazy::fuse
