// Optimizers as torch.optim's: SGD (momentum, dampening, Nesterov), Adam (AMSGrad) and AdamW.
// A step records the update of every parameter from its gradient; nothing runs until the next
// sync, where the updates fuse with the rest of the step (the loss, its gradients), so a
// training step is one sync. The optimizer keeps the new parameters and its state (held, so a
// sync computes them too).
#pragma once

#include <cstdint>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/tensor.h"

namespace lazy::optim {

struct SgdOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;  // added to the gradient as weight_decay * p (L2)
  bool nesterov = false;    // needs momentum > 0 and dampening 0, as PyTorch's
  bool maximize = false;
};

// p -= lr * d, d the gradient (plus weight_decay * p), or with momentum the running buffer
// b = momentum * b + (1 - dampening) * d (b = d at a parameter's first step), or with Nesterov
// d + momentum * b: torch.optim.SGD.
class Sgd {
 public:
  // Parameters: floating tensors of any shape. Bad options are a ValueError here.
  explicit Sgd(std::vector<Tensor> params, SgdOptions options = {},
               std::source_location loc = std::source_location::current());
  // One step from one gradient per parameter, in order, each of its parameter's shape; an
  // undefined Tensor() leaves its parameter (and that parameter's state) as it is, as a
  // gradient of None does in PyTorch. Returns the new parameters, which params() holds.
  const std::vector<Tensor>& step(std::span<const Tensor> grads,
                                  std::source_location loc = std::source_location::current());
  const std::vector<Tensor>& params() const { return params_; }
  const SgdOptions& options() const { return options_; }

 private:
  SgdOptions options_;
  std::vector<Tensor> params_;
  std::vector<Tensor> momentum_;  // undefined before a parameter's first step
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;  // divide by the largest second moment seen
  bool maximize = false;
  // AdamW: p *= 1 - lr * weight_decay before the update, instead of adding weight_decay * p to
  // the gradient.
  bool decoupled_weight_decay = false;
};

// torch.optim.Adam: m = lerp(m, d, 1 - beta1), v = beta2 v + (1 - beta2) d^2 (d the gradient,
// plus weight_decay * p unless decoupled), and p -= lr / (1 - beta1^t) * m /
// (sqrt(v) / sqrt(1 - beta2^t) + eps), t counting each parameter's steps.
class Adam {
 public:
  explicit Adam(std::vector<Tensor> params, AdamOptions options = {},
                std::source_location loc = std::source_location::current());
  // As Sgd::step.
  const std::vector<Tensor>& step(std::span<const Tensor> grads,
                                  std::source_location loc = std::source_location::current());
  const std::vector<Tensor>& params() const { return params_; }
  const AdamOptions& options() const { return options_; }

 private:
  struct State {
    std::int64_t steps = 0;
    Tensor m, v, v_max;  // undefined before the first step (v_max without amsgrad)
  };
  AdamOptions options_;
  std::vector<Tensor> params_;
  std::vector<State> state_;
};

// torch.optim.AdamW's defaults: Adam with decoupled weight decay of 0.01.
inline AdamOptions adamw_options(double lr = 1e-3, double weight_decay = 1e-2) {
  AdamOptions options;
  options.lr = lr;
  options.weight_decay = weight_decay;
  options.decoupled_weight_decay = true;
  return options;
}

}  // namespace lazy::optim
