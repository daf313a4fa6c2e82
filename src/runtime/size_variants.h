// Which kernels compile their sizes in and which take them at run time. A kernel with its sizes
// compiled in is faster, but every new size is a new compile: a stream of varying sequence
// lengths would compile without end. So each kernel structure is compiled for its first few
// distinct sizes, and one kernel that takes them as arguments serves every other (as Inductor's
// automatic dynamic shapes do). Three kinds of kernel have sizes to compile in: a row kernel its
// row length (LAZY_SPECIALIZED_ROW_LENGTHS of them), a skinny product its weight's shape
// (LAZY_SPECIALIZED_PRODUCT_SHAPES), a kernel of several concatenations every size and offset it
// reads (LAZY_SPECIALIZED_CONCAT_SHAPES). A row kernel that takes its length at run time still
// has compiled in the vector width the length allows and whether it holds the row in registers:
// one such kernel a width and way of reading the row.
#pragma once

#include <span>

#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"

namespace lazy::runtime {

// The kernel of region `region` (not a library call): for a row kernel, a skinny product or a
// kernel of several concatenations, the one compiled for its sizes when its structure already has
// those sizes or has fewer than the setting's, else the one that takes them at run time. A row
// structure is its key (codegen::row_text_keys, which leaves out the sizes and vector width);
// another structure is the name of its run-time-size kernel, which no size changes.
codegen::GeneratedKernel kernel_variant(const fuse::Region& region,
                                        std::span<const ir::NodePtr> nodes,
                                        std::span<const ir::NodePtr> externals, bool fast);

// Every kernel takes its sizes at run time from now on (the fuzzer and tests check those kernels
// on every program); plans already cached keep their kernels.
void set_all_sizes_at_run_time(bool enabled);

}  // namespace lazy::runtime
