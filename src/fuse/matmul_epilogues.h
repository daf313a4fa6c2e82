// The epilogue pass: folds the pointwise work right after a matrix product that cuBLASLt can run
// inside the call into the MatMul node, so it costs no kernel and no trip through memory:
//   a bias (an Add of an [N] vector broadcast over the rows),
//   a residual (an Add of a tensor of the product's shape: C with beta = 1),
//   then a gelu_tanh of f16 or bf16 (cuBLASLt's is 30 ulps from the exact form in f32; its relu
//   makes NaN 0, where torch.relu keeps NaN, so relu runs in a generated kernel),
// in cuBLASLt's order, activation(a @ b + residual + bias). Each folded node must be the only
// consumer of the one before it, hold no handle and have the product's dtype. Whatever else
// follows the product is left to the regions that read its result, which fuse it into one
// generated kernel. LAZY_DEBUG=2 shows each fold, and why a product's consumer was not folded.
//
// Like split_reductions, it builds new nodes and leaves the recorded ones alone, decides from the
// graph's structure alone, and the folded node stands for the last recorded node it replaces.
#pragma once

#include "fuse/graph.h"

namespace lazy::fuse {

Graph fold_matmul_epilogues(Graph recorded);

}  // namespace lazy::fuse
