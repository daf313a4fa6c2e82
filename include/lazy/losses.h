// Loss functions as PyTorch's torch.nn.functional computes them, recorded from the pointwise ops,
// reductions and gathers they are made of (so they fuse, and gradients flow through them).
#pragma once

#include <cstdint>
#include <source_location>

#include "lazy/tensor.h"

namespace lazy {

// How a loss folds its per-element values: their mean, their sum, or none (one per element).
enum class Reduction : std::uint8_t { mean, sum, none };

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

}  // namespace lazy
