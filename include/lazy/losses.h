// Loss functions as PyTorch's torch.nn.functional computes them, recorded from the pointwise ops,
// reductions and gathers they are made of (so they fuse, and gradients flow through them).
#pragma once

#include <cstdint>
#include <source_location>

#include "lazy/tensor.h"

namespace lazy {

// How a loss folds its per-element values: their mean, their sum, none (one per element), or
// (kl_div's only) their sum divided by the size of the first axis, as PyTorch's "batchmean".
enum class Reduction : std::uint8_t { mean, sum, none, batchmean };

struct CrossEntropyOptions {
  // One weight per class (1-d, floating), or undefined for none: scales each element's loss by
  // its target's weight (with class indices, in the input's dtype; with probabilities, each
  // class's term), and with class indices and Reduction::mean divides by the sum of the weights
  // taken instead of the count.
  Tensor weight;
  // Class-index targets equal to it add nothing to the loss nor to the mean's divisor.
  std::int64_t ignore_index = -100;
  Reduction reduction = Reduction::mean;
  // In [0, 1]: the target is mixed with the uniform distribution over the classes.
  double label_smoothing = 0.0;
};

// PyTorch's cross_entropy of logits `input` ([C], [N, C] or [N, C, d1, ...]: classes along axis
// 1, or 0 for 1-d) against either class indices (i32 or i64, input's shape without the class
// axis; an index outside [0, C) other than ignore_index is an IndexError, as gather's) or class
// probabilities (floating, input's shape; ignore_index must stay negative). A mean over no
// counted element is NaN, as PyTorch's.
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyOptions& options = {},
                     std::source_location loc = std::source_location::current());

// PyTorch's nll_loss: cross_entropy's class-index form for `log_probs` that are already log
// probabilities (no log_softmax, no label smoothing).
Tensor nll_loss(const Tensor& log_probs, const Tensor& target,
                const CrossEntropyOptions& options = {},
                std::source_location loc = std::source_location::current());

// PyTorch's mse_loss: (input - target)^2, the two broadcast together, then reduced.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean,
                std::source_location loc = std::source_location::current());

// PyTorch's l1_loss: |input - target|, the two broadcast together, then reduced; its gradient at
// a zero difference is 0.
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean,
               std::source_location loc = std::source_location::current());
// PyTorch's smooth_l1_loss: with d = |input - target|, 0.5 d^2 / beta where d < beta, else
// d - 0.5 beta (beta >= 0; 0 is l1_loss). Computed in f32 and rounded once, as PyTorch's kernel.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      Reduction reduction = Reduction::mean, double beta = 1.0,
                      std::source_location loc = std::source_location::current());
// PyTorch's huber_loss: 0.5 d^2 where d < delta, else delta (d - 0.5 delta); delta > 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean,
                  double delta = 1.0, std::source_location loc = std::source_location::current());

// PyTorch's binary_cross_entropy of probabilities `input` against `target` (floating, the same
// shape): -(t log x + (1 - t) log(1 - x)), each log clamped at -100, times `weight` (broadcast
// to the input; undefined for none). Computed in f32 and rounded once. An input outside [0, 1]
// gives NaN and a target outside it a number, where PyTorch stops with an error; the gradient
// is PyTorch's, (x - t) / max(x (1 - x), 1e-12), finite at 0 and 1.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const Tensor& weight = Tensor(), Reduction reduction = Reduction::mean,
                            std::source_location loc = std::source_location::current());
// PyTorch's binary_cross_entropy_with_logits: (1 - t) x - (1 + (pos_weight - 1) t) log_sigmoid(x)
// times `weight`; weight and pos_weight (one per class of the last axis, or any shape that
// broadcasts) may be undefined. Stable for logits of any size.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(),
                                        Reduction reduction = Reduction::mean,
                                        const Tensor& pos_weight = Tensor(),
                                        std::source_location loc = std::source_location::current());
// PyTorch's kl_div of log probabilities `input` against probabilities `target` (log
// probabilities with log_target): target (log target - input), 0 where the target is 0; the two
// broadcast together. Reduction::mean averages over every element, as PyTorch's; batchmean
// divides the sum by the first axis' size, the KL divergence per sample.
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean,
              bool log_target = false, std::source_location loc = std::source_location::current());

}  // namespace lazy
