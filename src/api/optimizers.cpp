// lazy::optim's SGD and Adam, written from tensor ops as torch.optim's single-tensor steps are
// (torch/optim/sgd.py, adam.py), so a step's updates fuse with the rest of its sync.
#include "lazy/optim.h"

#include <cmath>
#include <string_view>
#include <utility>

#include "api/composites.h"
#include "lazy/factories.h"

namespace lazy::optim {

namespace {

void check_params(const std::vector<Tensor>& params, std::string_view name,
                  std::source_location loc) {
  if (params.empty()) {
    api::fail<ValueError>(loc, name, "got an empty parameter list, as PyTorch refuses");
  }
  for (const Tensor& p : params) api::require_floating(p, name, loc);
}

void check_option(bool valid, std::string_view name, std::string_view what, double value,
                  std::source_location loc) {
  if (!valid) api::fail<ValueError>(loc, name, what, ", got ", api::number_text(value));
}

// The gradients in their parameters' dtypes (undefined where the step leaves a parameter), all
// checked before any parameter moves: a refused step changes nothing.
std::vector<Tensor> checked_gradients(const std::vector<Tensor>& params,
                                      std::span<const Tensor> grads, std::string_view name,
                                      std::source_location loc) {
  if (grads.size() != params.size()) {
    api::fail<ValueError>(loc, name, "takes one gradient per parameter: ", params.size(),
                          " parameters, ", grads.size(), " gradients");
  }
  std::vector<Tensor> checked(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined()) continue;
    api::require_floating(g, name, loc);
    const Shape& want = params[i].shape();
    if (api::node_of(g, name, loc)->shape != want) {
      api::fail<ShapeError>(loc, name, "gradient ", i, " has shape ", g.shape().to_string(),
                            ", its parameter ", want.to_string());
    }
    checked[i] = g.to(params[i].dtype(), loc);
  }
  return checked;
}

// PyTorch's in-place updates with a scale (add_ with alpha, addcmul_, addcdiv_) compute in f32
// and round once to the parameter's dtype: `a + b * scale` so.
Tensor add_scaled(const Tensor& a, const Tensor& b, double scale, std::source_location loc) {
  const Tensor sum = add(a.to(DType::f32, loc), mul(b.to(DType::f32, loc), scale, loc), loc);
  return sum.to(a.dtype(), loc);
}

}  // namespace

Sgd::Sgd(std::vector<Tensor> params, SgdOptions options, std::source_location loc)
    : options_(options), params_(std::move(params)), momentum_(params_.size()) {
  check_params(params_, "Sgd", loc);
  const SgdOptions& o = options_;
  check_option(o.lr >= 0, "Sgd", "lr must be at least 0", o.lr, loc);
  check_option(o.momentum >= 0, "Sgd", "momentum must be at least 0", o.momentum, loc);
  check_option(o.weight_decay >= 0, "Sgd", "weight_decay must be at least 0", o.weight_decay, loc);
  check_option(std::isfinite(o.dampening), "Sgd", "dampening must be finite", o.dampening, loc);
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
    api::fail<ValueError>(loc, "Sgd", "Nesterov momentum needs a momentum above 0 and no ",
                          "dampening, as PyTorch's");
  }
}

const std::vector<Tensor>& Sgd::step(std::span<const Tensor> grads, std::source_location loc) {
  const SgdOptions& o = options_;
  std::vector<Tensor> checked = checked_gradients(params_, grads, "Sgd", loc);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor d = std::move(checked[i]);
    if (!d.defined()) continue;
    Tensor& p = params_[i];
    if (o.maximize) d = neg(d, loc);
    if (o.weight_decay != 0) d = add_scaled(d, p, o.weight_decay, loc);
    if (o.momentum != 0) {
      Tensor& buffer = momentum_[i];
      buffer =
          !buffer.defined() ? d : add_scaled(mul(buffer, o.momentum, loc), d, 1 - o.dampening, loc);
      d = o.nesterov ? add_scaled(d, buffer, o.momentum, loc) : buffer;
    }
    p = add_scaled(p, d, -o.lr, loc);
  }
  return params_;
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, std::source_location loc)
    : options_(options), params_(std::move(params)), state_(params_.size()) {
  check_params(params_, "Adam", loc);
  const AdamOptions& o = options_;
  check_option(o.lr >= 0, "Adam", "lr must be at least 0", o.lr, loc);
  check_option(o.eps >= 0, "Adam", "eps must be at least 0", o.eps, loc);
  check_option(o.beta1 >= 0 && o.beta1 < 1, "Adam", "beta1 must be in [0, 1)", o.beta1, loc);
  check_option(o.beta2 >= 0 && o.beta2 < 1, "Adam", "beta2 must be in [0, 1)", o.beta2, loc);
  check_option(o.weight_decay >= 0, "Adam", "weight_decay must be at least 0", o.weight_decay, loc);
}

const std::vector<Tensor>& Adam::step(std::span<const Tensor> grads, std::source_location loc) {
  const AdamOptions& o = options_;
  std::vector<Tensor> checked = checked_gradients(params_, grads, "Adam", loc);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor d = std::move(checked[i]);
    if (!d.defined()) continue;
    Tensor& p = params_[i];
    State& s = state_[i];
    if (o.maximize) d = neg(d, loc);
    if (o.weight_decay != 0 && !o.decoupled_weight_decay) {
      d = add_scaled(d, p, o.weight_decay, loc);
    }
    if (o.weight_decay != 0 && o.decoupled_weight_decay) {
      p = mul(p, 1 - o.lr * o.weight_decay, loc);
    }
    if (s.steps++ == 0) s.m = s.v = zeros_like(p, {}, loc);
    s.m = lerp(s.m, d, 1 - o.beta1, loc);
    s.v = add_scaled(mul(s.v, o.beta2, loc), square(d.to(DType::f32, loc), loc), 1 - o.beta2, loc);
    // The bias corrections in double, as PyTorch's Python floats.
    const double t = double(s.steps);
    const double step_size = o.lr / (1 - std::pow(o.beta1, t));
    const double correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
    Tensor second = s.v;
    if (o.amsgrad) second = s.v_max = s.v_max.defined() ? maximum(s.v_max, s.v, loc) : s.v;
    const Tensor denominator = add(div(sqrt(second, loc), correction2_sqrt, loc), o.eps, loc);
    const Tensor ratio = div(s.m.to(DType::f32, loc), denominator.to(DType::f32, loc), loc);
    p = add_scaled(p, ratio, -step_size, loc);
  }
  return params_;
}

}  // namespace lazy::optim
