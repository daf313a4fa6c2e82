// lazy::optim's SGD and Adam, written from tensor ops as torch.optim's single-tensor steps are
// (torch/optim/sgd.py, adam.py), so a step's updates fuse with the rest of its sync.
#include "lazy/optim.h"

#include <cmath>
#include <set>
#include <string_view>
#include <utility>

#include "api/composites.h"
#include "lazy/factories.h"

namespace lazy::optim {

namespace {

// A list of parameters given without groups, refused when empty (as PyTorch's).
std::vector<Tensor> some_params(std::vector<Tensor> params, std::string_view name,
                                std::source_location loc) {
  if (params.empty()) {
    api::fail<ValueError>(loc, name, "got an empty parameter list, as PyTorch refuses");
  }
  return params;
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

std::string_view name_of(const SgdOptions&) {
  return "Sgd";
}
std::string_view name_of(const AdamOptions&) {
  return "Adam";
}

void check_options(const SgdOptions& o, std::source_location loc) {
  check_option(o.lr >= 0, "Sgd", "lr must be at least 0", o.lr, loc);
  check_option(o.momentum >= 0, "Sgd", "momentum must be at least 0", o.momentum, loc);
  check_option(o.weight_decay >= 0, "Sgd", "weight_decay must be at least 0", o.weight_decay, loc);
  check_option(std::isfinite(o.dampening), "Sgd", "dampening must be finite", o.dampening, loc);
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
    api::fail<ValueError>(loc, "Sgd", "Nesterov momentum needs a momentum above 0 and no ",
                          "dampening, as PyTorch's");
  }
}

void check_options(const AdamOptions& o, std::source_location loc) {
  check_option(o.lr >= 0, "Adam", "lr must be at least 0", o.lr, loc);
  check_option(o.eps >= 0, "Adam", "eps must be at least 0", o.eps, loc);
  check_option(o.beta1 >= 0 && o.beta1 < 1, "Adam", "beta1 must be in [0, 1)", o.beta1, loc);
  check_option(o.beta2 >= 0 && o.beta2 < 1, "Adam", "beta2 must be in [0, 1)", o.beta2, loc);
  check_option(o.weight_decay >= 0, "Adam", "weight_decay must be at least 0", o.weight_decay, loc);
}

// A state tensor of a checkpoint for `param`: undefined, or floating of its shape, converted to
// its dtype (torch.optim's load_state_dict casts so).
Tensor loaded(const Tensor& t, const Tensor& param, std::string_view what, std::size_t i,
              std::string_view name, std::source_location loc) {
  if (!t.defined()) return t;
  api::require_floating(t, name, loc);
  if (api::node_of(t, name, loc)->shape != param.shape()) {
    api::fail<ShapeError>(loc, name, what, " of parameter ", i, " has shape ",
                          t.shape().to_string(), ", the parameter ", param.shape().to_string());
  }
  return t.to(param.dtype(), loc);
}

template <class State>
void check_state_count(const std::vector<State>& state, std::size_t params, std::string_view name,
                       std::source_location loc) {
  if (state.size() != params) {
    api::fail<ValueError>(loc, name, "takes one state per parameter: ", params, " parameters, ",
                          state.size(), " states");
  }
}

}  // namespace

template <class Options>
ParamGroups<Options>::ParamGroups(std::vector<ParamGroup<Options>> groups,
                                  std::source_location loc) {
  const std::string_view name = name_of(Options{});
  // As PyTorch's: no group is refused, a group without parameters is not.
  if (groups.empty()) {
    api::fail<ValueError>(loc, name, "got an empty list of parameter groups, as PyTorch refuses");
  }
  std::set<const ir::Node*> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    check_options(groups[g].options, loc);
    options_.push_back(groups[g].options);
    for (Tensor& p : groups[g].params) {
      api::require_floating(p, name, loc);
      if (!seen.insert(api::node_of(p, name, loc)).second) {
        api::fail<ValueError>(loc, name, "some parameters appear in more than one parameter ",
                              "group (or twice in one), as PyTorch refuses");
      }
      params_.push_back(std::move(p));
      group_of_.push_back(g);
    }
  }
}

template <class Options>
const Options& ParamGroups<Options>::options(std::size_t group, std::source_location loc) const {
  if (group >= options_.size()) {
    api::fail<IndexError>(loc, name_of(Options{}), "has ", options_.size(),
                          " parameter groups, got group ", group);
  }
  return options_[group];
}

template <class Options>
void ParamGroups<Options>::set_options(std::size_t group, Options options,
                                       std::source_location loc) {
  (void)this->options(group, loc);
  check_options(options, loc);
  options_[group] = options;
}

template <class Options>
void ParamGroups<Options>::set_lr(double lr, std::source_location loc) {
  for (std::size_t g = 0; g < options_.size(); ++g) {
    Options o = options_[g];
    o.lr = lr;
    set_options(g, o, loc);
  }
}

template class ParamGroups<SgdOptions>;
template class ParamGroups<AdamOptions>;

Sgd::Sgd(std::vector<SgdGroup> groups, std::source_location loc)
    : ParamGroups(std::move(groups), loc), state_(params_.size()) {}

Sgd::Sgd(std::vector<Tensor> params, SgdOptions options, std::source_location loc)
    : Sgd(std::vector<SgdGroup>{{some_params(std::move(params), "Sgd", loc), options}}, loc) {}

void Sgd::load_state(std::vector<SgdState> state, std::source_location loc) {
  check_state_count(state, params_.size(), "Sgd::load_state", loc);
  for (std::size_t i = 0; i < state.size(); ++i) {
    state[i].momentum_buffer = loaded(state[i].momentum_buffer, params_[i], "the momentum buffer",
                                      i, "Sgd::load_state", loc);
  }
  state_ = std::move(state);
}

const std::vector<Tensor>& Sgd::step(std::span<const Tensor> grads, std::source_location loc) {
  std::vector<Tensor> checked = checked_gradients(params_, grads, "Sgd", loc);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor d = std::move(checked[i]);
    if (!d.defined()) continue;
    const SgdOptions& o = options_of_param(i);
    Tensor& p = params_[i];
    if (o.maximize) d = neg(d, loc);
    if (o.weight_decay != 0) d = add_scaled(d, p, o.weight_decay, loc);
    if (o.momentum != 0) {
      Tensor& buffer = state_[i].momentum_buffer;
      buffer =
          !buffer.defined() ? d : add_scaled(mul(buffer, o.momentum, loc), d, 1 - o.dampening, loc);
      d = o.nesterov ? add_scaled(d, buffer, o.momentum, loc) : buffer;
    }
    p = add_scaled(p, d, -o.lr, loc);
  }
  return params_;
}

Adam::Adam(std::vector<AdamGroup> groups, std::source_location loc)
    : ParamGroups(std::move(groups), loc), state_(params_.size()) {}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, std::source_location loc)
    : Adam(std::vector<AdamGroup>{{some_params(std::move(params), "Adam", loc), options}}, loc) {}

void Adam::load_state(std::vector<AdamState> state, std::source_location loc) {
  constexpr std::string_view name = "Adam::load_state";
  check_state_count(state, params_.size(), name, loc);
  for (std::size_t i = 0; i < state.size(); ++i) {
    AdamState& s = state[i];
    const bool moments = s.exp_avg.defined() && s.exp_avg_sq.defined();
    const bool none =
        !s.exp_avg.defined() && !s.exp_avg_sq.defined() && !s.max_exp_avg_sq.defined();
    if (s.step < 0 || (s.step > 0 ? !moments : !none)) {
      api::fail<ValueError>(loc, name, "state ", i, " has step ", s.step,
                            ": the moments are defined exactly after a first step");
    }
    s.exp_avg = loaded(s.exp_avg, params_[i], "exp_avg", i, name, loc);
    s.exp_avg_sq = loaded(s.exp_avg_sq, params_[i], "exp_avg_sq", i, name, loc);
    s.max_exp_avg_sq = loaded(s.max_exp_avg_sq, params_[i], "max_exp_avg_sq", i, name, loc);
  }
  state_ = std::move(state);
}

const std::vector<Tensor>& Adam::step(std::span<const Tensor> grads, std::source_location loc) {
  std::vector<Tensor> checked = checked_gradients(params_, grads, "Adam", loc);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor d = std::move(checked[i]);
    if (!d.defined()) continue;
    const AdamOptions& o = options_of_param(i);
    Tensor& p = params_[i];
    AdamState& s = state_[i];
    if (o.maximize) d = neg(d, loc);
    if (o.weight_decay != 0 && !o.decoupled_weight_decay) {
      d = add_scaled(d, p, o.weight_decay, loc);
    }
    if (o.weight_decay != 0 && o.decoupled_weight_decay) {
      p = mul(p, 1 - o.lr * o.weight_decay, loc);
    }
    if (s.step++ == 0) s.exp_avg = s.exp_avg_sq = zeros_like(p, {}, loc);
    s.exp_avg = lerp(s.exp_avg, d, 1 - o.beta1, loc);
    s.exp_avg_sq = add_scaled(mul(s.exp_avg_sq, o.beta2, loc), square(d.to(DType::f32, loc), loc),
                              1 - o.beta2, loc);
    // The bias corrections in double, as PyTorch's Python floats.
    const double t = double(s.step);
    const double step_size = o.lr / (1 - std::pow(o.beta1, t));
    const double correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
    Tensor second = s.exp_avg_sq;
    if (o.amsgrad) {
      second = s.max_exp_avg_sq =
          s.max_exp_avg_sq.defined() ? maximum(s.max_exp_avg_sq, s.exp_avg_sq, loc) : s.exp_avg_sq;
    }
    const Tensor denominator = add(div(sqrt(second, loc), correction2_sqrt, loc), o.eps, loc);
    const Tensor ratio = div(s.exp_avg.to(DType::f32, loc), denominator.to(DType::f32, loc), loc);
    p = add_scaled(p, ratio, -step_size, loc);
  }
  return params_;
}

}  // namespace lazy::optim
