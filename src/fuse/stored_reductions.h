// Row regions' reductions that a later region reads, found before any terms are built. A later
// kernel recomputing a row region's values (a column mean over a softmax) needs the region's
// reductions in memory; build_terms finds that too, but only by giving up a whole build and
// starting again, which doubled the cost of planning such a step.
#pragma once

#include "fuse/partition.h"

namespace lazy::fuse {

// Marks cuts.stored for each reduction of a row region that a later region's walk reaches (as
// build_terms walks: down every input until a value another region writes); whether it marked
// one, in which case form_regions must run again to give the reduction its root.
bool store_row_reductions_read_later(Partition& p);

}  // namespace lazy::fuse
