// lazy::optim's Sgd and Adam against torch.optim's update rules written out here in double, over
// several steps of changing gradients, for each option; their checks; and a model trained with
// them. Computed by whatever backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::Tensor;
using lazy::optim::Adam;
using lazy::optim::AdamOptions;
using lazy::optim::Sgd;
using lazy::optim::SgdOptions;

constexpr int kSteps = 4;
const std::vector<double> kStart = {0.5, -1.25, 2, 0, -0.75, 3};

// The gradient at step t (from 1): values of both signs that change every step, one of them 0.
std::vector<double> gradient_at(int t) {
  std::vector<double> g;
  for (std::size_t i = 0; i < kStart.size(); ++i)
    g.push_back(i == 3 ? 0.0 : std::sin(double(t) * 1.7 + double(i)) * (1 + double(i)));
  return g;
}

// The learning rate of step t (from 1): the options' when none is given.
using Schedule = std::function<double(int)>;

// torch.optim.SGD's step, in double.
std::vector<double> sgd_reference(SgdOptions o, const Schedule& lr_at = {}) {
  std::vector<double> p = kStart, buffer(p.size());
  for (int t = 1; t <= kSteps; ++t) {
    const std::vector<double> g = gradient_at(t);
    if (lr_at) o.lr = lr_at(t);
    for (std::size_t i = 0; i < p.size(); ++i) {
      double d = o.maximize ? -g[i] : g[i];
      d += o.weight_decay * p[i];
      if (o.momentum != 0) {
        buffer[i] = t == 1 ? d : o.momentum * buffer[i] + (1 - o.dampening) * d;
        d = o.nesterov ? d + o.momentum * buffer[i] : buffer[i];
      }
      p[i] -= o.lr * d;
    }
  }
  return p;
}

// torch.optim.Adam's (AdamW's, decoupled) step, in double.
std::vector<double> adam_reference(AdamOptions o, const Schedule& lr_at = {}) {
  std::vector<double> p = kStart, m(p.size()), v(p.size()), v_max(p.size());
  for (int t = 1; t <= kSteps; ++t) {
    const std::vector<double> g = gradient_at(t);
    if (lr_at) o.lr = lr_at(t);
    for (std::size_t i = 0; i < p.size(); ++i) {
      double d = o.maximize ? -g[i] : g[i];
      if (o.decoupled_weight_decay) {
        p[i] *= 1 - o.lr * o.weight_decay;
      } else {
        d += o.weight_decay * p[i];
      }
      m[i] += (1 - o.beta1) * (d - m[i]);
      v[i] = o.beta2 * v[i] + (1 - o.beta2) * d * d;
      v_max[i] = std::max(v_max[i], v[i]);
      const double second = o.amsgrad ? v_max[i] : v[i];
      const double denominator = std::sqrt(second) / std::sqrt(1 - std::pow(o.beta2, t)) + o.eps;
      p[i] -= o.lr / (1 - std::pow(o.beta1, t)) * m[i] / denominator;
    }
  }
  return p;
}

// The optimizer's parameters after kSteps steps of gradient_at, as a [2, 3] tensor.
template <class Optimizer, class Options>
std::vector<double> run(const Options& options) {
  Optimizer optimizer({lazy::from_data(kStart, {2, 3})}, options);
  for (int t = 1; t <= kSteps; ++t) {
    optimizer.step(std::vector<Tensor>{lazy::from_data(gradient_at(t), {2, 3})});
    lazy::sync();
  }
  return optimizer.params()[0].template to_vector<double>();
}

TEST(Sgd, FollowsTorchOptimSgdForEachOption) {
  std::vector<SgdOptions> cases(6);
  cases[0].lr = 0.1;
  cases[1] = {.lr = 0.05, .momentum = 0.9};
  cases[2] = {.lr = 0.05, .momentum = 0.8, .dampening = 0.3, .weight_decay = 0.01};
  cases[3] = {.lr = 0.02, .momentum = 0.9, .nesterov = true};
  cases[4] = {.lr = 0.1, .weight_decay = 0.5, .maximize = true};
  cases[5] = {.lr = 0.1, .momentum = 0.5, .nesterov = true, .maximize = true};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    lazy_test::expect_near_values(run<Sgd>(cases[c]), sgd_reference(cases[c]), 2e-6, 1e-6);
  }
}

TEST(Adam, FollowsTorchOptimAdamAndAdamWForEachOption) {
  std::vector<AdamOptions> cases(6);
  cases[0].lr = 0.1;
  cases[1] = {.lr = 0.05, .beta1 = 0.5, .beta2 = 0.9, .eps = 1e-3};
  cases[2] = {.lr = 0.05, .weight_decay = 0.1, .amsgrad = true};
  cases[3] = {.lr = 0.1, .maximize = true};
  cases[4] = lazy::optim::adamw_options(0.1);
  cases[5] = lazy::optim::adamw_options(0.05, 0.3);
  cases[5].amsgrad = true;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    lazy_test::expect_near_values(run<Adam>(cases[c]), adam_reference(cases[c]), 2e-6, 1e-6);
  }
}

TEST(Adam, AnUndefinedGradientLeavesItsParameterAndStateAlone) {
  Adam adam({lazy::full({2}, 1.0), lazy::full({2}, 1.0)}, {.lr = 0.1});
  const Tensor g = lazy::full({2}, 0.5);
  adam.step(std::vector<Tensor>{g, Tensor()});
  EXPECT_EQ(adam.params()[1].to_vector<double>(), (std::vector<double>{1, 1}));
  // The second parameter's first step is its own first: bias-corrected, it moves by lr.
  adam.step(std::vector<Tensor>{g, g});
  EXPECT_NEAR(adam.params()[1].to_vector<double>()[0], 0.9, 1e-6);
  EXPECT_LT(adam.params()[0].to_vector<double>()[0], 0.85);  // two steps of about lr each
}

// PyTorch's in-place updates round once to a bf16 parameter: 1.0234375 - 0.3 * 1.8671875 is
// 0.46328125, whose bf16 is 0.462890625 (rounding the product first gave 0.46484375).
TEST(Optimizers, UpdateBf16ParametersWithOneRounding) {
  Sgd sgd({lazy::full({1}, 1.0234375, lazy::bf16)}, {.lr = 0.3});
  sgd.step(std::vector<Tensor>{lazy::full({1}, 1.8671875, lazy::bf16)});
  EXPECT_EQ(sgd.params()[0].dtype(), lazy::bf16);
  EXPECT_EQ(sgd.params()[0].item<double>(), 0.462890625);
}

TEST(Optimizers, ARefusedStepChangesNothing) {
  Sgd sgd({lazy::full({2}, 1.0), lazy::full({1}, 3.0)}, {.lr = 0.1});
  EXPECT_THROW(sgd.step(std::vector<Tensor>{lazy::ones({2}), lazy::ones({2})}), lazy::ShapeError);
  EXPECT_EQ(sgd.params()[0].to_vector<double>(), (std::vector<double>{1, 1}));
  Adam adam({lazy::full({2}, 1.0), lazy::full({1}, 3.0)}, {.lr = 0.1});
  EXPECT_THROW(adam.step(std::vector<Tensor>{lazy::ones({2}), lazy::ones({1}, lazy::i64)}),
               lazy::DTypeError);
  adam.step(std::vector<Tensor>{lazy::ones({2}), lazy::ones({1})});
  EXPECT_NEAR(adam.params()[0].to_vector<double>()[0], 0.9, 1e-6);  // a first step, not a second
}

TEST(Optimizers, RefuseBadOptionsAndGradients) {
  const std::vector<Tensor> params = {lazy::ones({2, 3})};
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Adam(std::vector<Tensor>{}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Sgd(std::vector<Tensor>{}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Sgd(params, {.lr = -1}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Sgd(params, {.momentum = 0, .nesterov = true}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError,
                            Sgd(params, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Adam(params, {.beta1 = 1}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Adam(params, {.beta2 = -0.1}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Adam(params, {.eps = -1}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Adam(params, {.weight_decay = -1}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, Adam({lazy::ones({2}, lazy::i64)}));
  Adam adam(params);
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.step(std::vector<Tensor>{}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, adam.step(std::vector<Tensor>{lazy::ones({3, 2})}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError,
                            adam.step(std::vector<Tensor>{lazy::ones({2, 3}, lazy::i32)}));
}

Tensor start() {
  return lazy::from_data(kStart, {2, 3});
}
std::vector<Tensor> gradients_at(int t, std::size_t params) {
  return std::vector<Tensor>(params, lazy::from_data(gradient_at(t), {2, 3}));
}

// Steps first to last (from 1) of gradient_at for every parameter, with `before(t)` run before
// step t.
template <class Optimizer>
void steps(
    Optimizer& optimizer, int first, int last,
    const std::function<void(int)>& before = [](int) {}) {
  for (int t = first; t <= last; ++t) {
    before(t);
    optimizer.step(gradients_at(t, optimizer.params().size()));
    lazy::sync();
  }
}

TEST(Optimizers, EachParameterGroupFollowsItsOwnOptions) {
  const SgdOptions plain{.lr = 0.1}, heavy{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.01};
  Sgd sgd(std::vector<lazy::optim::SgdGroup>{{{start(), start()}, plain}, {{start()}, heavy}});
  EXPECT_EQ(sgd.groups(), 2u);
  EXPECT_EQ(sgd.options(1).momentum, 0.9);
  steps(sgd, 1, kSteps);
  for (int i : {0, 1})
    lazy_test::expect_near_values(sgd.params()[std::size_t(i)].to_vector<double>(),
                                  sgd_reference(plain), 2e-6, 1e-6);
  lazy_test::expect_near_values(sgd.params()[2].to_vector<double>(), sgd_reference(heavy), 2e-6,
                                1e-6);
  const AdamOptions decayed = lazy::optim::adamw_options(0.05, 0.3), bare{.lr = 0.1};
  Adam adam(std::vector<lazy::optim::AdamGroup>{{{start()}, decayed}, {{start()}, bare}});
  steps(adam, 1, kSteps);
  lazy_test::expect_near_values(adam.params()[0].to_vector<double>(), adam_reference(decayed), 2e-6,
                                1e-6);
  lazy_test::expect_near_values(adam.params()[1].to_vector<double>(), adam_reference(bare), 2e-6,
                                1e-6);
}

// As torch.optim's: a group may start empty (its options kept for later), even the only one.
TEST(Optimizers, AGroupWithoutParametersIsKept) {
  Adam adam(std::vector<lazy::optim::AdamGroup>{{{}, {.lr = 0.5}}, {{start()}, {.lr = 0.1}}});
  EXPECT_EQ(adam.groups(), 2u);
  EXPECT_EQ(adam.options(0).lr, 0.5);
  steps(adam, 1, kSteps);
  lazy_test::expect_near_values(adam.params()[0].to_vector<double>(),
                                adam_reference({.lr = 0.1}), 2e-6, 1e-6);
  Sgd empty(std::vector<lazy::optim::SgdGroup>{{{}, {.lr = 0.1}}});
  EXPECT_EQ(empty.params().size(), 0u);
  empty.step(std::vector<Tensor>{});
  EXPECT_EQ(empty.state().size(), 0u);
}

// A schedule sets the rate before each step; the new rate is a kernel argument, not a recompile.
TEST(Optimizers, ALearningRateScheduleTakesEffectAtTheNextStep) {
  const Schedule halving = [](int t) { return 0.2 / double(1 << (t - 1)); };
  Adam adam({start()}, {.lr = 1, .amsgrad = true});
  const auto scheduled = [&](int t) { adam.set_lr(halving(t)); };
  // From the third step on each step records the same work (at the second, AMSGrad's running
  // maximum is still the second moment itself), whatever the rate.
  steps(adam, 1, kSteps - 1, scheduled);
  lazy::reset_stats();
  steps(adam, kSteps, kSteps, scheduled);
  EXPECT_EQ(lazy::stats().kernels_generated, 0);
  EXPECT_EQ(adam.options().lr, halving(kSteps));
  lazy_test::expect_near_values(adam.params()[0].to_vector<double>(),
                                adam_reference({.amsgrad = true}, halving), 2e-6, 1e-6);
  Sgd sgd({start()}, {.momentum = 0.5});
  steps(sgd, 1, kSteps, [&](int t) { sgd.set_options(0, {.lr = halving(t), .momentum = 0.5}); });
  lazy_test::expect_near_values(sgd.params()[0].to_vector<double>(),
                                sgd_reference({.momentum = 0.5}, halving), 2e-6, 1e-6);
}

// Two steps, then a new optimizer over the same parameters loads the first's state and takes
// the last two: the result is the uninterrupted run's (step counts and moments carried over).
TEST(Optimizers, StateRestoredFromACheckpointResumesTheRun) {
  const AdamOptions options{.lr = 0.05, .weight_decay = 0.1, .amsgrad = true};
  Adam first({start()}, options);
  steps(first, 1, 2);
  EXPECT_EQ(first.state()[0].step, 2);
  Adam resumed({first.params()[0]}, options);
  resumed.load_state(first.state());
  steps(resumed, 3, kSteps);
  lazy_test::expect_near_values(resumed.params()[0].to_vector<double>(), adam_reference(options),
                                2e-6, 1e-6);
  const SgdOptions momentum{.lr = 0.05, .momentum = 0.8, .dampening = 0.3};
  Sgd sgd_first({start()}, momentum);
  steps(sgd_first, 1, 2);
  Sgd sgd_resumed({sgd_first.params()[0]}, momentum);
  sgd_resumed.load_state(sgd_first.state());
  steps(sgd_resumed, 3, kSteps);
  lazy_test::expect_near_values(sgd_resumed.params()[0].to_vector<double>(),
                                sgd_reference(momentum), 2e-6, 1e-6);
}

TEST(Optimizers, RefuseBadGroupsOptionsAndStates) {
  const Tensor p = start();
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError,
                            Adam(std::vector<lazy::optim::AdamGroup>{{{p}, {}}, {{p}, {}}}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Sgd(std::vector<Tensor>{p, p}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, Sgd(std::vector<lazy::optim::SgdGroup>{}));
  Adam adam({p}, {.lr = 0.1});
  EXPECT_ERROR_AT_THIS_LINE(lazy::IndexError, adam.set_options(1, {}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::IndexError, (void)adam.options(1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.set_lr(-1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.set_options(0, {.beta2 = 1}));
  EXPECT_EQ(adam.options().lr, 0.1);  // a refused change changes nothing
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.load_state({}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.load_state({{.step = 1}}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError,
                            adam.load_state({{.step = 0, .exp_avg = p, .exp_avg_sq = p}}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, adam.load_state({{.step = 0, .exp_avg = p}}));
  EXPECT_ERROR_AT_THIS_LINE(
      lazy::ShapeError,
      adam.load_state({{.step = 1, .exp_avg = p, .exp_avg_sq = lazy::ones({3, 2})}}));
  EXPECT_EQ(adam.state()[0].step, 0);  // a refused load changes nothing
  Sgd sgd({p}, {.momentum = 0.9});
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError,
                            sgd.load_state({{.momentum_buffer = lazy::ones({2, 3}, lazy::i32)}}));
  // A state of another floating dtype is converted to the parameter's, as PyTorch's load does.
  sgd.load_state({{.momentum_buffer = lazy::ones({2, 3}, lazy::bf16)}});
  EXPECT_EQ(sgd.state()[0].momentum_buffer.dtype(), lazy::f32);
}

// A least-squares fit y = x w trained with lazy::grad and each optimizer: every step (loss,
// gradients, update) is one sync, and the fit gets close.
TEST(Optimizers, TrainALeastSquaresFit) {
  const Tensor x = lazy::from_data(lazy_test::random_floats(64 * 4, 3), {64, 4});
  const Tensor w_true = lazy::from_data(std::vector<double>{1.5, -2, 0.5, 3}, {4, 1});
  const Tensor y = lazy::matmul(x, w_true);
  lazy::eval({x, y});
  const lazy::ValueAndGrad loss_and_gradient(
      [&](std::span<const Tensor> w) { return lazy::mse_loss(lazy::matmul(x, w[0]), y); });
  const auto fit = [&](auto& optimizer, int steps) {
    double loss = 0;
    for (int step = 0; step < steps; ++step) {
      lazy::ValueAndGradients r = loss_and_gradient(optimizer.params());
      optimizer.step(r.gradients);
      lazy::sync();
      loss = r.value.template item<double>();
    }
    return loss;
  };
  Sgd sgd({lazy::zeros({4, 1})}, {.lr = 0.1, .momentum = 0.9});
  Adam adam({lazy::zeros({4, 1})}, {.lr = 0.1});
  EXPECT_LT(fit(sgd, 150), 1e-4);
  EXPECT_LT(fit(adam, 300), 1e-3);
}

}  // namespace
