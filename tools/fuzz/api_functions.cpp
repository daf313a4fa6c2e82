#include "tools/fuzz/api_functions.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tools/fuzz/guard_rules.h"

namespace lazy::fuzz {

namespace {

using Loc = std::source_location;

template <class Fn>
Fn find_fn(const std::vector<std::pair<std::string_view, Fn>>& table, std::string_view name) {
  for (const auto& [n, fn] : table)
    if (n == name) return fn;
  throw std::logic_error("lazyfuse-fuzz: unknown op " + std::string(name));
}

}  // namespace

UnaryFn unary_fn(std::string_view name) {
  static const std::vector<std::pair<std::string_view, UnaryFn>> table = {
      {"neg", lazy::neg},
      {"abs", lazy::abs},
      {"sign", lazy::sign},
      {"square", lazy::square},
      {"relu", lazy::relu},
      {"floor", lazy::floor},
      {"ceil", lazy::ceil},
      {"round", lazy::round},
      {"trunc", lazy::trunc},
      {"exp", lazy::exp},
      {"exp2", lazy::exp2},
      {"log", lazy::log},
      {"log2", lazy::log2},
      {"log1p", lazy::log1p},
      {"expm1", lazy::expm1},
      {"sqrt", lazy::sqrt},
      {"rsqrt", lazy::rsqrt},
      {"sin", lazy::sin},
      {"cos", lazy::cos},
      {"tanh", lazy::tanh},
      {"erf", lazy::erf},
      {"sigmoid", lazy::sigmoid},
      {"reciprocal", lazy::reciprocal},
      {"gelu", lazy::gelu},
      {"gelu_tanh", lazy::gelu_tanh},
      {"silu", lazy::silu},
      {"softplus", lazy::softplus},
      {"logical_not", lazy::logical_not},
      {"isnan", lazy::isnan},
      {"isinf", lazy::isinf},
      {"bitwise_not", lazy::bitwise_not},
      {"tan", lazy::tan},
      {"asin", lazy::asin},
      {"acos", lazy::acos},
      {"atan", lazy::atan},
      {"sinh", lazy::sinh},
      {"cosh", lazy::cosh},
      {"asinh", lazy::asinh},
      {"acosh", lazy::acosh},
      {"atanh", lazy::atanh},
      {"log10", lazy::log10},
      {"isfinite", lazy::isfinite},
      // The activations at their default parameters (PyTorch's defaults).
      {"leaky_relu", [](const Tensor& x, Loc loc) { return lazy::leaky_relu(x, 0.01, loc); }},
      {"elu", [](const Tensor& x, Loc loc) { return lazy::elu(x, 1.0, loc); }},
      {"selu", lazy::selu},
      {"celu", [](const Tensor& x, Loc loc) { return lazy::celu(x, 1.0, loc); }},
      {"hardtanh", [](const Tensor& x, Loc loc) { return lazy::hardtanh(x, -1.0, 1.0, loc); }},
      {"relu6", lazy::relu6},
      {"hardsigmoid", lazy::hardsigmoid},
      {"hardswish", lazy::hardswish},
      {"mish", lazy::mish},
      {"log_sigmoid", lazy::log_sigmoid},
      {"softsign", lazy::softsign},
      {"tanhshrink", lazy::tanhshrink},
      {"softshrink", [](const Tensor& x, Loc loc) { return lazy::softshrink(x, 0.5, loc); }},
      {"hardshrink", [](const Tensor& x, Loc loc) { return lazy::hardshrink(x, 0.5, loc); }},
      // The domain guards (guard_rules.h) at the parameters their rules assume.
      {"logit", [](const Tensor& x, Loc loc) { return lazy::logit(x, kLogitEps, loc); }},
      {"nan_to_num",
       [](const Tensor& x, Loc loc) { return lazy::nan_to_num(x, 0.0, {}, {}, loc); }},
      {"threshold", [](const Tensor& x,
                       Loc loc) { return lazy::threshold(x, kThreshold, kThresholdValue, loc); }},
  };
  return find_fn(table, name);
}

BinaryFn binary_fn(std::string_view name) {
  static const std::vector<std::pair<std::string_view, BinaryFn>> table = {
      {"add", lazy::add},
      {"sub", lazy::sub},
      {"mul", lazy::mul},
      {"div", lazy::div},
      {"pow", lazy::pow},
      {"maximum", lazy::maximum},
      {"minimum", lazy::minimum},
      {"floor_divide", lazy::floor_divide},
      {"remainder", lazy::remainder},
      {"fmod", lazy::fmod},
      {"atan2", lazy::atan2},
      {"hypot", lazy::hypot},
      {"logaddexp", lazy::logaddexp},
      {"eq", lazy::eq},
      {"ne", lazy::ne},
      {"lt", lazy::lt},
      {"le", lazy::le},
      {"gt", lazy::gt},
      {"ge", lazy::ge},
      {"logical_and", lazy::logical_and},
      {"logical_or", lazy::logical_or},
      {"logical_xor", lazy::logical_xor},
      {"bitwise_and", lazy::bitwise_and},
      {"bitwise_or", lazy::bitwise_or},
      {"bitwise_xor", lazy::bitwise_xor},
      {"bitwise_left_shift", lazy::bitwise_left_shift},
      {"bitwise_right_shift", lazy::bitwise_right_shift},
  };
  return find_fn(table, name);
}

ReduceFn reduce_fn(std::string_view name) {
  static const std::vector<std::pair<std::string_view, ReduceFn>> table = {
      {"sum", lazy::sum}, {"mean", lazy::mean},           {"prod", lazy::prod}, {"max", lazy::max},
      {"min", lazy::min}, {"logsumexp", lazy::logsumexp}, {"any", lazy::any},   {"all", lazy::all},
  };
  return find_fn(table, name);
}

bool has_floating_result(std::string_view name) {
  return name == "div" || name == "atan2" || name == "hypot" || name == "logaddexp";
}

}  // namespace lazy::fuzz
