// Composites whose gradient has a better form than their primitives' mark their result while a
// gradient is being traced, so the reverse pass (autodiff/composite_rules.h) differentiates it
// by the textbook rule: for softmax, logsumexp and the norms, one row reduction where the
// primitives' chain folds several and routes a zero through the max; for softplus, a finite
// sigmoid where the branch its threshold drops gives 0 * inf; for std, no gradient at a zero
// std (PyTorch's) where sqrt's would be inf * 0; for var, PyTorch's values where the correction
// leaves no degree of freedom; for binary_cross_entropy, PyTorch's clamped denominator; for
// xlogy, PyTorch's rules where x is 0 (log(y) for x, x / y for y, NaN at y = 0 included); for a
// p-norm, PyTorch's sign(x) (|x| / norm)^(p - 1), whose power of a ratio at most 1 keeps the
// exponent's f32 rounding from growing with the norm's logarithm; for
// binary_cross_entropy_with_logits, PyTorch's rules, whose target's keeps an infinite logit's
// two infinite terms apart.
#pragma once

#include "ir/node.h"
#include "lazy/reductions.h"
#include "lazy/tensor.h"

namespace lazy::api {

enum class CompositeKind : std::uint8_t {
  softmax,        // result = softmax(input, axes)
  log_softmax,    // result = log_softmax(input, axes)
  logsumexp,      // result = logsumexp(input, axes), axes kept
  normalize,      // result = (input - mean) * saved, saved = rsqrt(var + eps) over the last axis
  rms_scale,      // result = input * saved, saved = rsqrt(mean(input^2) + eps) over the last axis
  softplus,       // result = softplus(input)
  std_root,       // result = sqrt(input), the input a variance (or cdist's sum of squares)
  two_norm_root,  // result = sqrt(input), the input vector_norm's sum of squares
  variance,       // result = var(input, axes, correction), axes kept; saved = input - its mean,
                  // number = n - correction
  binary_cross_entropy,  // result = binary_cross_entropy(input, second) per element, unweighted
  xlogy,                 // result = xlogy(input, second)
  power_norm,            // result = vector_norm(input, number, axes), axes kept; number > 1, not 2
  logits_cross_entropy,  // result = binary_cross_entropy_with_logits(input, second) per element,
                         // unweighted, with pos_weight third (or undefined)
};

struct CompositeMark {
  CompositeKind kind;
  Tensor input;        // what the rule differentiates with respect to (f32; logsumexp's folds to y)
  Tensor saved;        // a forward value the rule reads (the norms' scale, var's centred input), or
                       // undefined
  Axes axes;           // the folded axes, kept as axes of 1 in the result (the row composites)
  double number = 0;   // a number the rule reads (variance: its divisor, unclamped)
  Tensor second = {};  // a second input the rule differentiates (f32), or undefined
  Tensor third = {};   // a third (logits_cross_entropy's pos_weight), or undefined
};

// Keeps `mark` for `result` while the thread is differentiating (no cost otherwise); dropped when
// the outermost lazy::grad / vjp returns.
void mark_composite(const Tensor& result, CompositeMark mark);
// The mark of `node`, or null.
const CompositeMark* composite_mark(const ir::Node* node);
// Drops the thread's marks (the outermost differentiation's end).
void clear_composite_marks();

}  // namespace lazy::api
