// PyTorch as the oracle of lazyfuse's gradients: each case differentiates one expression through
// lazy::grad and through LibTorch's autograd on the same CUDA inputs, at the points where rules
// part ways (kinks, ties, zeros, NaN and infinities, ignored targets), and expects the same
// gradients. Built as test_libtorch_semantics is (tests/CMakeLists.txt, .ci/libtorch-test).
#include <gtest/gtest.h>

#include "torch_oracle.h"

namespace {

using namespace lazy_torch_oracle;

at::Tensor f32(std::vector<float> values, std::vector<std::int64_t> shape) {
  return cuda_tensor(std::move(values), kF32, std::move(shape));
}
// Index tensors a gradient case reads: into the axis of 4 of a [3, 4] argument, and rows of it.
lazy::Tensor lazy_index() {
  return lazy::from_data(std::vector<std::int64_t>{3, 0, 1, 1, 2, 0, 0, 0, 1, 3, 3, 2}, {3, 4});
}
at::Tensor torch_index() {
  return cuda_tensor(std::vector<std::int64_t>{3, 0, 1, 1, 2, 0, 0, 0, 1, 3, 3, 2}, kI64, {3, 4});
}
lazy::Tensor lazy_rows() {
  return lazy::from_data(std::vector<std::int64_t>{2, 0, 2, 1, 2}, {5});
}
at::Tensor torch_rows() {
  return cuda_tensor(std::vector<std::int64_t>{2, 0, 2, 1, 2}, kI64, {5});
}

// Class targets of a [3, 4] argument's rows, the classes' weights, and cross_entropy's options
// with both, row 0's class ignored and label smoothing.
lazy::Tensor lazy_classes() {
  return lazy::from_data(std::vector<std::int64_t>{2, 0, 3}, {3});
}
at::Tensor torch_classes() {
  return cuda_tensor(std::vector<std::int64_t>{2, 0, 3}, kI64, {3});
}
at::Tensor torch_class_weights() {
  return f32({0.5f, 2, 1, 3}, {4});
}
lazy::CrossEntropyOptions lazy_smoothed_options() {
  lazy::CrossEntropyOptions options;
  options.weight = lazy::from_data(std::vector<float>{0.5f, 2, 1, 3}, {4});
  options.ignore_index = 2;
  options.label_smoothing = 0.1;
  return options;
}
lazy::CrossEntropyOptions lazy_weighted_probability_options() {
  lazy::CrossEntropyOptions options = lazy_smoothed_options();
  options.ignore_index = -100;
  return options;
}
lazy::CrossEntropyOptions lazy_summed_options() {
  lazy::CrossEntropyOptions options;
  options.reduction = lazy::Reduction::sum;
  return options;
}

TEST_F(LibTorchSemantics, GradientsAtKinksTiesAndZeros) {
  const at::Tensor kinks = f32({-1, 0, 0.5f, 2, 1, -2, 1e-3f, -0.25f}, {8});
  const at::Tensor ties =
      f32({1, 0, 0.5f, -2, 1, 3, 1e-3f, 0.75f}, {8});  // kinks' equals at 1, 2, 4
  const at::Tensor positive = f32({0.5f, 2, 1.5f, 3, 0.25f, 1, 4, 0.75f}, {8});
  const at::Tensor at_bounds = f32({-1, 1, 0, 2, -2, 1, -1, 0.3f}, {8});
  const at::Tensor large = f32({-30, -1, 0, 5, 19.9f, 20, 20.1f, 40}, {8});
  const at::Tensor tied_rows = f32({3, 1, 3, 2, 5, 5, 5, 0}, {2, 4});
  const at::Tensor zeros_rows = f32({2, 0, 3, 1, 0, 4, 0, 2}, {2, 4});
  const at::Tensor equal_row = f32({2, 2, 2, 1, 3, 5}, {2, 3});
  const at::Tensor bases = f32({0, 2, 0.5f, 0, 3}, {5}), exponents = f32({2, 1.5f, 0, 3, 1}, {5});
  const at::Tensor p = f32({1, 5, -2, 3, 4, 4.5f, 0, -1, 0.5f, 2, 1.5f, -0.25f}, {3, 4});
  const at::Tensor q = f32({0.5f, -1, 2, 0.25f, 1, 1, -3, 2, 0, 0.5f, -0.5f, 1}, {3, 4});
  const at::Tensor w4 = f32({0.5f, -1, 2, 0.25f}, {4}), b4 = f32({0.1f, 0.2f, -0.3f, 0.4f}, {4});
  const at::Tensor b3 = f32({0.1f, -0.2f, 0.3f}, {3});
  const at::Tensor with_nan = f32({kNan, 1, -2, 0, kNan, 3, -0.0f, 2}, {8});
  const at::Tensor with_inf = f32({kInf, 1, -kInf, 0, 2, kInf, -1, 0.5f}, {8});
  const at::Tensor counts = f32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  const at::Tensor big_weights = f32({1e8f, 3, 3, 1, 1e7f, -5, 2, 1}, {2, 4});
  expect_gradients_agree({
      SAME_GRAD("relu at 0", relu(a), kinks),
      SAME_GRAD("abs at 0", abs(a), kinks),
      SAME_GRAD("maximum of ties", maximum(a, b), kinks, ties),
      SAME_GRAD("minimum of ties", minimum(a, b), kinks, ties),
      SAME_GRAD("clamp at its bounds", clamp(a, -1, 1), at_bounds),
      GRAD("clamp by a tensor bound", lazy::clamp(a, b, 1.5),
           at::clamp(a, b, at::full_like(a, 1.5)), at_bounds, kinks),
      GRAD("max of tied rows", lazy::max(a, 1), at::amax(a, {1}), tied_rows),
      GRAD("min of tied rows", lazy::min(a, 1), at::amin(a, {1}), tied_rows),
      GRAD("max of all", lazy::max(a), at::amax(a), tied_rows),
      GRAD("prod through zeros", lazy::prod(a, 1), at::prod(a, 1), zeros_rows),
      GRAD("cumprod through zeros", lazy::cumprod(a, 1), at::cumprod(a, 1), zeros_rows),
      SAME_GRAD("pow at a zero base", pow(a, b), bases, exponents),
      GRAD("std of an equal row", lazy::std(a, 1), at::std(a, at::IntArrayRef{1}, true), equal_row),
      SAME_GRAD("sqrt", sqrt(a), positive),
      GRAD("softplus past its threshold", lazy::softplus(a), at::softplus(a, 1, 20), large),
      SAME_GRAD("sigmoid", sigmoid(a), large),
      SAME_GRAD("tanh", tanh(a), kinks),
      SAME_GRAD("silu", silu(a), kinks),
      SAME_GRAD("gelu", gelu(a), kinks),
      GRAD("gelu_tanh", lazy::gelu_tanh(a), at::gelu(a, "tanh"), kinks),
      SAME_GRAD("where", where(a > 0, a * 2, b * 3), kinks, ties),
      GRAD("leaky_relu at 0", lazy::leaky_relu(a), at::leaky_relu(a), kinks),
      GRAD("elu at 0 and large", lazy::elu(a, 0.7), at::elu(a, 0.7), large),
      GRAD("selu", lazy::selu(a), at::selu(a), kinks),
      GRAD("celu", lazy::celu(a, 2), at::celu(a, 2), kinks),
      GRAD("hardtanh at its corners", lazy::hardtanh(a), at::hardtanh(a), at_bounds),
      GRAD("relu6 at 0", lazy::relu6(a), at::relu6(a), kinks),
      GRAD("hardsigmoid", lazy::hardsigmoid(a * 3), at::hardsigmoid(a * 3), at_bounds),
      GRAD("hardswish at its corners", lazy::hardswish(a * 3), at::hardswish(a * 3), at_bounds),
      GRAD("mish", lazy::mish(a), at::mish(a), large),
      GRAD("log_sigmoid", lazy::log_sigmoid(a), at::log_sigmoid(a), large),
      GRAD("softshrink at its corners", lazy::softshrink(a, 1), at::softshrink(a, 1), at_bounds),
      GRAD("hardshrink at its corners", lazy::hardshrink(a, 1), at::hardshrink(a, 1), at_bounds),
      GRAD("threshold", lazy::threshold(a, 1, 5), at::threshold(a, 1, 5), at_bounds),
      GRAD("glu", lazy::glu(a, 1), at::glu(a, 1), p),
      GRAD("xlogy", lazy::xlogy(a, b), at::xlogy(a, b), kinks, positive),
      GRAD("logit", lazy::logit(a), at::logit(a), at_bounds),
      GRAD("logit with eps", lazy::logit(a, 0.25), at::logit(a, 0.25), at_bounds),
      GRAD("cosine_similarity", lazy::cosine_similarity(a, b), at::cosine_similarity(a, b), p, q),
      GRAD("pairwise_distance", lazy::pairwise_distance(a, b), at::pairwise_distance(a, b), p, q),
      GRAD("nansum", lazy::nansum(a), at::nansum(a), with_nan),
      SAME_GRAD("lerp", lerp(a, b, 0.3), kinks, ties),
      SAME_GRAD("div", a / b, kinks, positive),
      SAME_GRAD("maximum with NaN", maximum(a, b), with_nan, kinks),
      SAME_GRAD("minimum with NaN", minimum(a, b), kinks, with_nan),
      SAME_GRAD("relu of NaN", relu(a), with_nan),
      SAME_GRAD("logaddexp with infinities", logaddexp(a, b), with_inf, kinks),
      GRAD("cumsum under large cotangents", lazy::cumsum(a, 1) * b, at::cumsum(a, 1) * b, counts,
           big_weights),
      SAME_GRAD("remainder", remainder(a, b), kinks, positive),
      SAME_GRAD("fmod", fmod(a, b), kinks, positive),
      SAME_GRAD("trunc passes nothing back", trunc(a) + a, kinks),
      SAME_GRAD("hypot", hypot(a, b), kinks, positive),
      SAME_GRAD("atan2", atan2(a, b), kinks, positive),
      SAME_GRAD("tan", tan(a), kinks),
      SAME_GRAD("asin at its ends", asin(a), at_bounds),
      SAME_GRAD("acos at its ends", acos(a), at_bounds),
      SAME_GRAD("atan", atan(a), large),
      SAME_GRAD("sinh", sinh(a), kinks),
      SAME_GRAD("cosh", cosh(a), kinks),
      SAME_GRAD("asinh", asinh(a), large),
      SAME_GRAD("acosh", acosh(a), positive),
      SAME_GRAD("atanh at and past its ends", atanh(a), at_bounds),
      SAME_GRAD("log10", log10(a), positive),
      GRAD("cross_entropy", lazy::cross_entropy(a, lazy_classes()),
           at::cross_entropy_loss(a, torch_classes()), p),
      GRAD("cross_entropy weighted, smoothed, ignoring",
           lazy::cross_entropy(a, lazy_classes(), lazy_smoothed_options()),
           at::cross_entropy_loss(a, torch_classes(), torch_class_weights(), at::Reduction::Mean, 2,
                                  0.1),
           p),
      GRAD("cross_entropy of probabilities", lazy::cross_entropy(a, lazy::softmax(b, 1)),
           at::cross_entropy_loss(a, at::softmax(b, 1)), p, q),
      GRAD("cross_entropy of probabilities, weighted and smoothed",
           lazy::cross_entropy(a, lazy::softmax(b, 1), lazy_weighted_probability_options()),
           at::cross_entropy_loss(a, at::softmax(b, 1), torch_class_weights(), at::Reduction::Mean,
                                  -100, 0.1),
           p, q),
      GRAD("nll_loss summed", lazy::nll_loss(a, lazy_classes(), lazy_summed_options()),
           at::nll_loss(a, torch_classes(), {}, at::Reduction::Sum), p),
      GRAD("mse_loss", lazy::mse_loss(a, b), at::mse_loss(a, b), p, q),
      GRAD("softmax", lazy::softmax(a, 1), at::softmax(a, 1), p),
      GRAD("log_softmax", lazy::log_softmax(a, 1), at::log_softmax(a, 1), p),
      GRAD("logsumexp", lazy::logsumexp(a, 1), at::logsumexp(a, {1}), p),
      GRAD("layer_norm", lazy::layer_norm(a, b, c), at::layer_norm(a, {4}, b, c, 1e-5), p, w4, b4),
      GRAD("rms_norm", lazy::rms_norm(a, b), at::rms_norm(a, {4}, b, 1e-6), p, w4),
      GRAD("var", lazy::var(a, 1), at::var(a, at::IntArrayRef{1}, true), p),
      GRAD("mean", lazy::mean(a, 0), at::mean(a, {0}), p),
      GRAD("cumsum", lazy::cumsum(a, 1), at::cumsum(a, 1), p),
      GRAD("cummax of ties", lazy::cummax(a, 1).values, std::get<0>(at::cummax(a, 1)), tied_rows),
      GRAD("sort", lazy::sort(a, 1).values, std::get<0>(at::sort(a, true, 1, false)), p),
      GRAD("topk", lazy::topk(a, 2, 1).values, std::get<0>(at::topk(a, 2, 1)), p),
      GRAD("gather", lazy::gather(a, 1, lazy_index()), at::gather(a, 1, torch_index()), p),
      GRAD("index_select with repeats", lazy::index_select(a, 0, lazy_rows()),
           at::index_select(a, 0, torch_rows()), p),
      GRAD("embedding", lazy::embedding(a, lazy_rows()), at::embedding(a, torch_rows()), p),
      GRAD("scatter_add", lazy::scatter_add(a, 1, lazy_index(), b),
           at::scatter_add(a, 1, torch_index(), b), p, q),
      GRAD("repeat", lazy::repeat(a, {2, 1, 2}), a.repeat({2, 1, 2}), p),
      GRAD("roll", lazy::roll(a, {1, -3}, {0, 1}), at::roll(a, {1, -3}, {0, 1}), p),
      GRAD("pad reflect", lazy::pad(a, {2, 3}, lazy::PadMode::reflect),
           at::pad(a, {2, 3}, "reflect"), p),
      GRAD("pad replicate", lazy::pad(a, {2, 3}, lazy::PadMode::replicate),
           at::pad(a, {2, 3}, "replicate"), p),
      GRAD("pad circular", lazy::pad(a, {2, 3}, lazy::PadMode::circular),
           at::pad(a, {2, 3}, "circular"), p),
      GRAD("pad constant, cropping", lazy::pad(a, {-1, 2}), at::constant_pad_nd(a, {-1, 2}), p),
      GRAD("vector_norm", lazy::vector_norm(a, 2, 1),
           at::linalg_vector_norm(a, 2, at::IntArrayRef{1}), p),
      GRAD("vector_norm 3", lazy::vector_norm(a, 3), at::linalg_vector_norm(a, 3), p),
      GRAD("normalize", lazy::normalize(a),
           torch::nn::functional::normalize(a, torch::nn::functional::NormalizeFuncOptions()), p),
      GRAD("diagonal", lazy::diagonal(a, 1), at::diagonal(a, 1), p),
      SAME_GRAD("matmul", matmul(a, b.transpose(0, 1)), p, q),
      GRAD("linear", lazy::linear(a, b, c), at::linear(a, b, c), p, q, b3),
  });
}

}  // namespace
