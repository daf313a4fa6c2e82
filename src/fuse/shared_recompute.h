// Values several kernels would each recompute from a long chain of ops are written once instead.
// Inlining a value into every kernel that reads it saves its write and reads, but each kernel
// then computes its whole chain: a loop whose rounds each read the last round's value (x = f(x)
// with a reduction inside f) made kernel k recompute all k rounds, so kernels and their planning
// grew with the square of the rounds. Inductor bounds this the same way
// (realize_opcount_threshold).
#pragma once

#include "fuse/partition.h"

namespace lazy::fuse {

// Ops a kernel recomputes of a value that other kernels recompute too, before it is written once.
// High enough that short shared chains (a norm's scaling read by two kernels) stay inlined: a
// write and a read of the value cost more than a few dozen ops per element.
inline constexpr int kMaxOpsRecomputed = 32;

// Cuts (CutReason::recomputed) each pointwise node that two or more ops read, that two or more
// regions would compute, and whose chain of ops back to values in memory is longer than
// kMaxOpsRecomputed; whether it cut one, in which case form_regions must run again.
bool cut_values_recomputed_by_several_regions(Partition& p);

}  // namespace lazy::fuse
