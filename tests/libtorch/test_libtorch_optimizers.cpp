// LibTorch's torch::optim as the oracle of lazy::optim: the same parameters and the same changing
// gradients through a few steps of SGD (momentum, dampening, Nesterov, weight decay), Adam
// (AMSGrad) and AdamW in both libraries, on the GPU, and the parameters compared.
#include <gtest/gtest.h>

#include <cmath>

#include "torch_oracle.h"

namespace {

using namespace lazy_torch_oracle;

constexpr int kSteps = 5;

at::Tensor gradient_at(int t) {
  return (at::sin(at::arange(12, kCuda.dtype(kF32)) * 0.7 + t * 1.3) * (t % 2 ? 2.0 : 0.5))
      .reshape({3, 4});
}

at::Tensor start() {
  return at::cos(at::arange(12, kCuda.dtype(kF32))).reshape({3, 4});
}

// Runs both optimizers kSteps steps and expects the parameters to agree within f32's rounding.
template <class LazyOptimizer, class LazyOptions, class TorchOptimizer, class TorchOptions>
void expect_same_steps(const char* name, const LazyOptions& ours, const TorchOptions& theirs) {
  at::Tensor p = start().clone().requires_grad_(true);
  TorchOptimizer reference({p}, theirs);
  LazyOptimizer optimizer({to_lazy(start().clone())}, ours);
  for (int t = 1; t <= kSteps; ++t) {
    const at::Tensor g = gradient_at(t);
    p.mutable_grad() = g.clone();
    reference.step();
    optimizer.step(std::vector<lazy::Tensor>{to_lazy(g.clone())});
    lazy::sync();
  }
  const Outcome a = outcome_of(optimizer.params()[0]), b = outcome_of(p.detach());
  EXPECT_EQ(difference(a, b, {1e-5, true}), "") << name;
}

TEST_F(LibTorchSemantics, OptimizersFollowTorchOptim) {
  using lazy::optim::Adam;
  using lazy::optim::Sgd;
  using torch::optim::AdamOptions;
  using torch::optim::SGDOptions;
  expect_same_steps<Sgd, lazy::optim::SgdOptions, torch::optim::SGD>("sgd", {.lr = 0.1},
                                                                     SGDOptions(0.1));
  expect_same_steps<Sgd, lazy::optim::SgdOptions, torch::optim::SGD>(
      "sgd with momentum", {.lr = 0.05, .momentum = 0.8, .dampening = 0.3, .weight_decay = 0.01},
      SGDOptions(0.05).momentum(0.8).dampening(0.3).weight_decay(0.01));
  expect_same_steps<Sgd, lazy::optim::SgdOptions, torch::optim::SGD>(
      "sgd nesterov", {.lr = 0.05, .momentum = 0.9, .nesterov = true},
      SGDOptions(0.05).momentum(0.9).nesterov(true));
  expect_same_steps<Adam, lazy::optim::AdamOptions, torch::optim::Adam>(
      "adam", {.lr = 0.05, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6},
      AdamOptions(0.05).betas({0.8, 0.99}).eps(1e-6));
  expect_same_steps<Adam, lazy::optim::AdamOptions, torch::optim::Adam>(
      "adam amsgrad with weight decay", {.lr = 0.05, .weight_decay = 0.1, .amsgrad = true},
      AdamOptions(0.05).weight_decay(0.1).amsgrad(true));
  expect_same_steps<Adam, lazy::optim::AdamOptions, torch::optim::AdamW>(
      "adamw", lazy::optim::adamw_options(0.05, 0.2),
      torch::optim::AdamWOptions(0.05).weight_decay(0.2));
}

}  // namespace
