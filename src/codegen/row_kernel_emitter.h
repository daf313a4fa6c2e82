// A row region (fuse::RowInfo) as one CUDA kernel: reduce-then-broadcast in one pass over
// memory. Each row (the kept axes) is folded by a group of threads: the row's loads are held in
// registers when they fit (read from memory once, however many reductions fold them), else each
// reduction loops over the row again. Reductions combine with warp shuffles (and shared memory
// across warps) in a fixed order, so results are the same bits on every run.
#pragma once

#include <span>

#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// How a row kernel lays threads on rows; chosen from the row's length, so kernels are shared by
// shapes whose rows fall in the same power-of-two bucket.
struct RowLaunch {
  int row_threads;  // threads folding one row: 1 to 32 (a warp holds several rows) or a block
  int block;        // threads per block
  int items;        // vector groups each thread holds in registers; 0: loops over the row
  int vector_width;
};

// `groups`: the row's length in vector groups; `held_words`: 32-bit registers a thread needs per
// group it holds; `math_heavy`: elements need transcendental math or division.
RowLaunch choose_row_launch(std::int64_t groups, int vector_width, int held_words, bool math_heavy);

GeneratedKernel generate_row_kernel(const fuse::Region& region,
                                    std::span<const ir::NodePtr> pending,
                                    std::span<const ir::NodePtr> externals,
                                    const CodegenOptions& options);

}  // namespace lazy::codegen
