// The recompute pass: a product's operand that is a cheap pointwise function of values kept
// anyway is computed again for its late readers instead of being held until then.
//
// A training step's forward writes each product's operand (gelu(h), a weight cast to bf16, a
// norm's output) and its backward reads it again, for the weight's gradient, after every other
// layer has run: held across them, such values are most of the step's peak. When every value
// the operand is computed from stays in memory over that gap anyway (an input, or a value the
// backward reads itself, as gelu's gradient reads h), its readers after the gap get a copy of its
// chain of ops, recorded just before the first of them; the forward's copy is freed after its
// product. Inductor's min-cut partitioner makes the same trade for pointwise ops.
//
// Like fold_matmul_epilogues, it builds new nodes and leaves the recorded ones alone, decides
// from the graph's structure alone, and LAZY_DEBUG=2 lists what it recomputed.
#pragma once

#include "fuse/graph.h"

namespace lazy::fuse {

// Products computed between two reads of a value for the later read to count as late: one
// product is the next layer, or the other half of a product's backward, which frees little.
inline constexpr int kProductsBetweenLateReads = 2;
// Pointwise ops one recomputed chain may hold: what a kernel computes in a pass over memory.
inline constexpr int kMaxOpsRecomputedPerOperand = 8;

Graph recompute_operands_read_late(Graph recorded);

}  // namespace lazy::fuse
