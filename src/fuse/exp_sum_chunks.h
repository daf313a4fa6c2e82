// The softmax family's fold over long rows, in chunks with the online-softmax rescaling.
//
// softmax, log_softmax and logsumexp (api/reduction_ops.cpp) record, over the last axis of v:
//   shift = max(v, -1, keepdim)            (logsumexp: where(isinf(max), 0, max))
//   total = sum(exp(v - shift), -1, keepdim)
// A row too long to hold on chip is then better folded in chunks: one pass over v gives each
// chunk's max m_c and s_c = sum(exp(x - m_c)); the row's sum is sum_c s_c * exp(m_c - shift),
// from the chunks' values alone. A chunk of -inf shifts by 0 (its s_c is 0) rather than making
// NaN of -inf - -inf. v is read twice instead of three times by a kernel looping over the row: on
// H100, softmax over [1024, 65536] f32 0.277 ms against 0.369, over [64, 2^20] 0.279 against
// 0.412 (max and sum each in chunks).
#pragma once

#include <optional>

#include "fuse/graph_builder.h"

namespace lazy::fuse {

// The recorded fold, found from its sum.
struct ExpSumMatch {
  ir::Node* v = nullptr;      // the folded tensor (f32)
  ir::Node* shift = nullptr;  // the max, or the where over it
  ir::Node* total = nullptr;  // the sum
  // logsumexp: the number the shift is where the max is infinite (0); null for a max shift. Its
  // value is not part of the graph's key, so the rewrite holds for any value: the chunked shift
  // takes the same number.
  ir::Node* infinite_max_shift = nullptr;
};

// The fold whose sum is `sum`, if it is one and its rows are long enough to fold in chunks.
std::optional<ExpSumMatch> match_exp_sum_in_chunks(ir::Node* sum);

struct ExpSumNodes {
  ir::Node* shift = nullptr;  // v's shape with the last axis 1
  ir::Node* total = nullptr;
};

// The chunked fold of v (the graph's version of match.v), built with `builder`;
// infinite_max_shift likewise (null for a max shift).
ExpSumNodes build_exp_sum_in_chunks(GraphBuilder& builder, ir::Node* v,
                                    ir::Node* infinite_max_shift);

}  // namespace lazy::fuse
