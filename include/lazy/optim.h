// Optimizers as torch.optim's: SGD (momentum, dampening, Nesterov), Adam (AMSGrad) and AdamW.
// A step records the update of every parameter from its gradient; nothing runs until the next
// sync, where the updates fuse with the rest of the step (the loss, its gradients), so a
// training step is one sync. The optimizer keeps the new parameters and its state (held, so a
// sync computes them too). Parameters come in groups with options of their own (param_groups),
// whose options can change between steps (a learning-rate schedule); state() and load_state()
// read and restore the per-parameter state, the "state" half of state_dict() and
// load_state_dict() (the groups' options are the caller's, through set_options).
#pragma once

#include <cstddef>
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

// Parameters that share options: one of torch.optim's param_groups.
template <class Options>
struct ParamGroup {
  std::vector<Tensor> params;
  Options options;
};

// What the optimizers share: their parameters in groups, each group's options.
template <class Options>
class ParamGroups {
 public:
  // Every group's parameters, the groups in order.
  const std::vector<Tensor>& params() const { return params_; }
  std::size_t groups() const { return options_.size(); }
  const Options& options(std::size_t group = 0,
                         std::source_location loc = std::source_location::current()) const;
  // New options for a group from the next step on, checked as the constructor checks them.
  void set_options(std::size_t group, Options options,
                   std::source_location loc = std::source_location::current());
  // Every group's learning rate.
  void set_lr(double lr, std::source_location loc = std::source_location::current());

 protected:
  // Groups in order, each with its options: floating parameters, at least one, none twice (a
  // ValueError, as PyTorch's); bad options are a ValueError too.
  ParamGroups(std::vector<ParamGroup<Options>> groups, std::source_location loc);
  const Options& options_of_param(std::size_t i) const { return options_[group_of_[i]]; }

  std::vector<Tensor> params_;

 private:
  std::vector<Options> options_;       // by group
  std::vector<std::size_t> group_of_;  // by parameter
};

using SgdGroup = ParamGroup<SgdOptions>;

// A parameter's SGD state: its momentum buffer, undefined before its first step with momentum.
struct SgdState {
  Tensor momentum_buffer;
};

// p -= lr * d, d the gradient (plus weight_decay * p), or with momentum the running buffer
// b = momentum * b + (1 - dampening) * d (b = d at a parameter's first step), or with Nesterov
// d + momentum * b: torch.optim.SGD.
class Sgd : public ParamGroups<SgdOptions> {
 public:
  // Parameters: floating tensors of any shape.
  explicit Sgd(std::vector<Tensor> params, SgdOptions options = {},
               std::source_location loc = std::source_location::current());
  explicit Sgd(std::vector<SgdGroup> groups,
               std::source_location loc = std::source_location::current());
  // One step from one gradient per parameter, in params() order, each of its parameter's shape;
  // an undefined Tensor() leaves its parameter (and that parameter's state) as it is, as a
  // gradient of None does in PyTorch. Returns the new parameters, which params() holds.
  const std::vector<Tensor>& step(std::span<const Tensor> grads,
                                  std::source_location loc = std::source_location::current());
  // Each parameter's state, in params() order.
  const std::vector<SgdState>& state() const { return state_; }
  // Restores state() (of a checkpoint): one per parameter, each buffer undefined or of its
  // parameter's shape (converted to its floating dtype); checked whole before anything changes.
  void load_state(std::vector<SgdState> state,
                  std::source_location loc = std::source_location::current());

 private:
  std::vector<SgdState> state_;
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

using AdamGroup = ParamGroup<AdamOptions>;

// A parameter's Adam state under PyTorch's names: the steps it took, the first and second
// moments (undefined before its first step) and AMSGrad's largest second moment (undefined
// without amsgrad).
struct AdamState {
  std::int64_t step = 0;
  Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
};

// torch.optim.Adam: m = lerp(m, d, 1 - beta1), v = beta2 v + (1 - beta2) d^2 (d the gradient,
// plus weight_decay * p unless decoupled), and p -= lr / (1 - beta1^t) * m /
// (sqrt(v) / sqrt(1 - beta2^t) + eps), t counting each parameter's steps.
class Adam : public ParamGroups<AdamOptions> {
 public:
  explicit Adam(std::vector<Tensor> params, AdamOptions options = {},
                std::source_location loc = std::source_location::current());
  explicit Adam(std::vector<AdamGroup> groups,
                std::source_location loc = std::source_location::current());
  // As Sgd's.
  const std::vector<Tensor>& step(std::span<const Tensor> grads,
                                  std::source_location loc = std::source_location::current());
  const std::vector<AdamState>& state() const { return state_; }
  // As Sgd's: moments defined exactly when step > 0 (max_exp_avg_sq may stay undefined, and is
  // then the second moment at the next step).
  void load_state(std::vector<AdamState> state,
                  std::source_location loc = std::source_location::current());

 private:
  std::vector<AdamState> state_;
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
