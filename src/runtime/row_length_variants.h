// Which row kernels compile their row length in and which take it at run time. A kernel with the
// length compiled in is faster, but every new length is a new compile: a stream of varying
// sequence lengths would compile without end. So each row kernel structure is compiled for its
// first LAZY_SPECIALIZED_ROW_LENGTHS distinct lengths, and one kernel that takes the length as
// an argument serves every other (as Inductor's automatic dynamic shapes do).
#pragma once

#include <span>

#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"

namespace lazy::runtime {

// The kernel of row region `region`: compiled for its length when its structure (the name of
// its run-time-length kernel, which no length changes) already has that length or has fewer
// than the setting's lengths, else the kernel that takes the length at run time.
codegen::GeneratedKernel row_kernel_variant(const fuse::Region& region,
                                            std::span<const ir::NodePtr> nodes,
                                            std::span<const ir::NodePtr> externals, bool fast);

// Every row kernel takes its length at run time from now on (the fuzzer and tests check those
// kernels on every program); plans already cached keep their kernels.
void set_all_row_lengths_at_run_time(bool enabled);

}  // namespace lazy::runtime
