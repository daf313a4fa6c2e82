// The generator's loss steps (generation 8): mse_loss, l1_loss, smooth_l1_loss, huber_loss,
// binary_cross_entropy_with_logits and kl_div (log_target or not) of x against a target of x's
// shape and dtype (or i64, which the regression losses promote), each with reduction none, mean
// or sum (kl_div also batchmean); from generation 9, cross_entropy against class indices or
// probabilities and nll_loss, with ignore_index and label smoothing; from generation 11,
// binary_cross_entropy of sigmoid(x) against sigmoid of a new leaf of x's shape and dtype; from
// generation 12, weights (at least 0.25): the class losses' class weights, binary_cross_entropy's
// and binary_cross_entropy_with_logits' weight and the latter's pos_weight, broadcast to x.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_loss(GrowingProgram& g, int x);

}  // namespace lazy::fuzz
