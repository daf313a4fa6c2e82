// A matrix product of few rows (a decode step's x [M <= 16, K] times a linear layer's weight) as a
// generated kernel instead of a cuBLASLt call: it reads the weight once, coalesced, at about 85% of
// a plain read's speed (H100), where the library's tiled kernels reach far less, and runs the
// epilogue the partitioner folded into the product (bias, residual, gelu_tanh) before its one
// rounding. The product itself is nvrtc_templates/lz_skinny_matmul.cuh. The source written here
// compiles in K, N and the leading dimensions (a weight's shape, which a model has few of), so the
// index arithmetic folds away; with `sizes_at_run_time` it takes them as arguments and depends only
// on the dtype and the epilogue, so one compile serves every shape. The number of rows (a decode
// step's batch, which changes with traffic) is always an argument.
#pragma once

#include <span>

#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// Rows a skinny kernel computes at most: one m16n8k16 tile.
inline constexpr std::int64_t kSkinnyRows = 16;

// Whether a product's region (region.matmul) runs as a skinny kernel on compute capability `arch`
// (tensor-core mma needs 8.0): f16 or bf16, one batch of at most kSkinnyRows rows, both operands
// with K contiguous (x @ w^T, w as nn.Linear stores it), and K, leading dimensions and offsets in
// whole 16-byte groups.
bool skinny_product(const fuse::Region& region, std::span<const ir::NodePtr> pending, int arch);

// The kernel of a region skinny_product accepts.
GeneratedKernel generate_skinny_matmul(const fuse::Region& region,
                                       std::span<const ir::NodePtr> pending,
                                       std::span<const ir::NodePtr> externals,
                                       const CodegenOptions& options = {});

}  // namespace lazy::codegen
