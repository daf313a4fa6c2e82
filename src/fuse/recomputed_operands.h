// The recompute pass: a product's operand that is a cheap pointwise function of values kept
// anyway is computed again for its late readers instead of being held until then.
//
// A training step's forward writes each product's operand (gelu(h), a weight cast to bf16, a
// norm's output) and its backward reads it again, for the weight's gradient, after every other
// layer has run: held across them, such values are most of the step's peak. When every value
// the operand is computed from stays in memory over that gap anyway (an input, or a value the
// backward reads itself, as gelu's gradient reads h), and the copy is cheap, its readers after
// the gap get a copy of its chain of ops, recorded just before the first of them; the forward's
// copy is freed after its product. Inductor's min-cut partitioner makes the same trade for
// pointwise ops.
//
// Like fold_matmul_epilogues, it builds new nodes and leaves the recorded ones alone, decides
// from the graph's structure alone, and LAZY_DEBUG=2 lists what it recomputed.
#pragma once

#include "fuse/graph.h"

namespace lazy::fuse {

// Products computed between two reads of a value for the later read to count as late: one
// product is the next layer, or the other half of a product's backward, which frees little.
inline constexpr int kProductsBetweenLateReads = 2;
// A copy is made only when it costs about one pass over the value, a fixed price for the memory
// it frees: it reads no more bytes per element than the value has (a gelu of a product, a norm's
// output; not a bf16 cast of f32 weights, nor silu(gate) * up), computes at most this many ops,
// and at most this many of them are transcendental or long (a softmax's exp and division is
// two: measured on an H100, its copy cost 0.3 ms of a 6.2 ms transformer block's step).
inline constexpr int kMaxOpsRecomputedPerOperand = 8;
inline constexpr int kMaxCostlyOpsRecomputedPerOperand = 1;

Graph recompute_operands_read_late(Graph recorded);

}  // namespace lazy::fuse
