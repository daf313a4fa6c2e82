// Each region's terms: the loads, scalars, generators and ops its kernel computes its roots from,
// found by walking from the roots down to values in memory, carrying the views met on the way
// into each load's layout (a transpose or slice becomes strides, never a copy). A value reached
// twice by the same path is one term.
//
// Where a region cannot be built as formed, the walk adds the cut that makes it buildable (a
// reshape no strides express reads its input from memory, or a dense copy of an input; a row
// region's reduction that a later kernel reads is written; a row region whose accesses do not
// walk rows is refused row fusion) and stops: terms_built stays false, and form_regions must run
// again. Each such stop adds something new, so the partitioner's loop ends.
#pragma once

#include "fuse/partition.h"

namespace lazy::fuse {

Partition build_terms(Partition partition);

}  // namespace lazy::fuse
