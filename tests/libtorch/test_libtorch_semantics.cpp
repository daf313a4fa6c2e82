// PyTorch as the oracle of lazyfuse's GPU path: each case runs one expression through lazyfuse
// (fused kernels) and through LibTorch on the same CUDA inputs, which hold the values where
// semantics part ways (+-0, +-inf, NaN, halves for rounding, integer extremes), and expects the
// same dtype, shape, errors, NaN and infinity positions, signs of zero, and values within the
// dtype's few ulps. The differences docs/semantics.md calls deliberate are left out of the inputs.
// Built only where LibTorch is found (tests/CMakeLists.txt), or on the GPU machine by
// .ci/libtorch-test against the device bundle.
#include <gtest/gtest.h>

#include "torch_oracle.h"

namespace {

using namespace lazy_torch_oracle;

class LibTorchSemantics : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  }
  void expect_agreement(const std::vector<Case>& cases) {
    const Inputs<at::Tensor> torch_in = torch_inputs();
    const Inputs<lazy::Tensor> lazy_in = lazy_inputs(torch_in);
    for (const Case& c : cases) {
      const std::vector<Outcome> ours = outcomes_of([&] { return c.lazy_side(lazy_in); });
      const std::vector<Outcome> theirs = outcomes_of([&] { return c.torch_side(torch_in); });
      if (ours.size() != theirs.size()) {
        ADD_FAILURE() << c.name << ": " << ours.size() << " results against " << theirs.size();
        continue;
      }
      for (std::size_t k = 0; k < ours.size(); ++k)
        EXPECT_EQ(difference(ours[k], theirs[k], {tolerance(theirs[k].dtype)}), "")
            << c.name << ", result " << k;
    }
  }

  void expect_gradients_agree(const std::vector<GradientCase>& cases) {
    for (const GradientCase& c : cases) {
      const std::vector<Outcome> ours = lazy_gradients(c), theirs = torch_gradients(c);
      // Every case is a valid program: agreeing by both throwing would check nothing.
      EXPECT_FALSE(ours[0].threw) << c.name << ": lazyfuse threw";
      if (ours.size() != theirs.size()) {
        ADD_FAILURE() << c.name << ": " << ours.size() << " gradients against " << theirs.size();
        continue;
      }
      for (std::size_t k = 0; k < ours.size(); ++k)
        EXPECT_EQ(difference(ours[k], theirs[k], {1e-4, true, false}), "")
            << c.name << ", gradient " << k;
    }
  }
};

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
      SAME_GRAD("matmul", matmul(a, b.transpose(0, 1)), p, q),
      GRAD("linear", lazy::linear(a, b, c), at::linear(a, b, c), p, q, b3),
  });
}

TEST_F(LibTorchSemantics, FloatingPointwiseOpsAtSpecialValues) {
  expect_agreement({
      SAME("add", fa + fb),
      SAME("sub", fa - fb),
      SAME("mul", fa * fb),
      SAME("div", fa / fb),
      SAME("pow", pow(fa, fb)),
      SAME("pow by 2", pow(fa, 2)),
      SAME("pow by 0", pow(fa, 0)),
      SAME("pow by 3", pow(fa, 3)),
      SAME("pow by -1", pow(fa, -1)),
      SAME("pow by 1.5", pow(fa, 1.5)),
      TWO("2 to the pow", lazy::pow(2, fa), at::pow(2, fa)),
      SAME("maximum", maximum(fa, fb)),
      SAME("minimum", minimum(fa, fb)),
      SAME("floor_divide", floor_divide(fa, fb)),
      SAME("remainder", remainder(fa, fb)),
      SAME("percent", fa % fb),
      SAME("fmod", fmod(fa, fb)),
      SAME("floor_divide by a number", floor_divide(fc, 0.7)),
      SAME("remainder by a number", remainder(fc, -1.5)),
      SAME("fmod by a number", fmod(fc, 1.5)),
      SAME("trunc", trunc(fa)),
      SAME("atan2", atan2(fa, fb)),
      SAME("hypot", hypot(fa, fb)),
      SAME("logaddexp", logaddexp(fa, fb)),
      SAME("eq", fa == fb),
      SAME("ne", fa != fb),
      SAME("lt", fa < fb),
      SAME("le", fa <= fb),
      SAME("gt", fa > fb),
      SAME("ge", fa >= fb),
      SAME("lt number", fa < 1),
      SAME("eq NaN", fa == kNan),
      SAME("logical_and", logical_and(fa, fb)),
      SAME("logical_or", logical_or(fa, fb)),
      SAME("logical_xor", logical_xor(fa, fb)),
      SAME("isfinite", isfinite(fa)),
      SAME("nan_to_num", nan_to_num(fa)),
      SAME("nan_to_num given values", nan_to_num(fa, 1.5, 2.0, -3.0)),
      SAME("f16 nan_to_num past the range", nan_to_num(ha, 1e6, 7.0, -65519.0)),
      SAME("logical_not", logical_not(fa)),
      SAME("neg", -fa),
      SAME("abs", abs(fa)),
      SAME("sign", sign(fa)),
      SAME("square", square(fa)),
      SAME("floor", floor(fa)),
      SAME("ceil", ceil(fa)),
      SAME("round half to even", round(fa)),
      SAME("exp", exp(fa)),
      SAME("exp2", exp2(fa)),
      SAME("log", log(fa)),
      SAME("log2", log2(fa)),
      SAME("log1p", log1p(fa)),
      SAME("expm1", expm1(fa)),
      SAME("sqrt", sqrt(fa)),
      SAME("rsqrt", rsqrt(fa)),
      SAME("sin", sin(fa)),
      SAME("cos", cos(fa)),
      SAME("tan", tan(fa)),
      SAME("asin", asin(fa)),
      SAME("acos", acos(fa)),
      SAME("atan", atan(fa)),
      SAME("sinh", sinh(fc)),
      SAME("cosh", cosh(fc)),
      SAME("asinh", asinh(fa)),
      SAME("acosh", acosh(fa)),
      SAME("atanh", atanh(fa)),
      SAME("log10", log10(fa)),
      SAME("i32 atan", atan(ia)),
      SAME("f16 tan", tan(hc)),
      SAME("bf16 sinh", sinh(bfc)),
      SAME("tanh", tanh(fa)),
      SAME("erf", erf(fa)),
      SAME("sigmoid", sigmoid(fa)),
      SAME("reciprocal", reciprocal(fa)),
      SAME("silu", silu(fa)),
      TWO("isnan", lazy::isnan(fa), at::isnan(fa)),
      TWO("isinf", lazy::isinf(fa), at::isinf(fa)),
      SAME("relu of finite values", relu(fc)),
      SAME("gelu", gelu(fc)),
      // Below about -2 PyTorch's 1 + tanh cancels (docs/semantics.md): 8e-5 relative at -3.5.
      TWO("gelu_tanh", lazy::gelu_tanh(fc.slice(0, 0, 3)), at::gelu(fc.slice(0, 0, 3), "tanh")),
      TWO("softplus past its threshold", lazy::softplus(fc), at::softplus(fc, 1, 20)),
      SAME("sigmoid of large values", sigmoid(fc)),
      SAME("exp of large values", exp(fc)),
      SAME("tanh of large values", tanh(fc)),
      SAME("erf of large values", erf(fc)),
      SAME("expm1 of large values", expm1(fc)),
      SAME("silu of large values", silu(fc)),
      SAME("round of halves", round(fc * 0.5 + 0.25)),
      SAME("sin of large values", sin(fc * 1000)),
      SAME("clamp", clamp(fa, -1, 1)),
      SAME("clamp with its bounds crossed", clamp(fa, 1, -1)),
      SAME("where", where(ba, fa, fb)),
      SAME("where with a number", where(ba, fa, 0)),
      SAME("lerp", lerp(fc, fb, 0.3)),
      SAME("lerp by a tensor", lerp(fc, fb, fc)),
  });
}

TEST_F(LibTorchSemantics, HalfPrecisionAndPromotion) {
  expect_agreement({
      SAME("f16 add", ha + hb),
      SAME("f16 times a number", ha * 1.5),
      SAME("f16 plus f32", ha + fb),
      SAME("f16 plus bf16", hc + bfc),
      SAME("f16 plus i32", ha + ia),
      SAME("f16 divide", ha / hb),
      SAME("f16 exp", exp(hc)),
      SAME("f16 gelu", gelu(hc)),
      SAME("bf16 sigmoid", sigmoid(bfc)),
      SAME("bf16 times a number", bfc * 3.3),
      SAME("f16 round", round(ha)),
      SAME("f16 floor_divide", floor_divide(hc, hb)),
      SAME("f16 remainder", remainder(ha, hb)),
      SAME("bf16 fmod", fmod(bfc, 0.75)),
      // A number f16 does not hold: PyTorch rounds it to f16 for remainder and fmod (2.11, CUDA
      // and CPU), not for floor_divide.
      SAME("f16 remainder by 0.1", remainder(hc, 0.1)),
      SAME("f16 fmod by 0.1", fmod(hc, 0.1)),
      SAME("f16 floor_divide by 0.1", floor_divide(hc, 0.1)),
      // Converted checked: past f16's largest finite value is an error, though it rounds to it.
      SAME("f16 to the power 65519", pow(hc, 65519.0)),
      SAME("f16 to the power 65504", pow(hc, 65504.0)),
      SAME("where of f16 and 65519", where(hc > 0, hc, 65519.0)),
      SAME("where of f16 and 65504", where(hc > 0, hc, -65504.0)),
      SAME("bf16 tanh", tanh(bfc)),
      TWO("f16 softplus", lazy::softplus(hc), at::softplus(hc, 1, 20)),
      TWO("f16 sum", lazy::sum(hc), at::sum(hc)),
      TWO("bf16 mean", lazy::mean(bfc), at::mean(bfc)),
      TWO("f32 to f16 past its largest", lazy::cast(fc * 4000, lazy::f16), (fc * 4000).to(kF16)),
      TWO("f32 to bf16", lazy::cast(fc * 1.001, lazy::bf16), (fc * 1.001).to(kBF16)),
      TWO("f32 to i32", lazy::cast(fc, lazy::i32), fc.to(kI32)),
      TWO("f32 to i64", lazy::cast(fc * 1e9, lazy::i64), (fc * 1e9).to(kI64)),
      TWO("f32 to bool", lazy::cast(fa, lazy::bool_), fa.to(kBool)),
      TWO("i64 to f32", lazy::cast(la, lazy::f32), la.to(kF32)),
      TWO("i32 to f16", lazy::cast(ia, lazy::f16), ia.to(kF16)),
      TWO("i64 to i32", lazy::cast(la, lazy::i32), la.to(kI32)),
      TWO("f16 to i32", lazy::cast(hc, lazy::i32), hc.to(kI32)),
      TWO("i32 to bool", lazy::cast(ia, lazy::bool_), ia.to(kBool)),
      SAME("where of i32 and a float", where(ba, ia, 2.5)),
      SAME("where of i32 and an int", where(ba, ia, 2)),
      SAME("where of f16 and f32", where(ba, ha, fb)),
      SAME("where of i32 and f16", where(ba, ia, ha)),
      SAME("where of bools", where(ba, bb, ba)),
      SAME("clamp of i32 to a float", clamp(ia, -2, 2.5)),
      SAME("clamp of f16", clamp(ha, -1, 1)),
      SAME("lerp of f16", lerp(hc, hb, 0.75)),
  });
}

TEST_F(LibTorchSemantics, IntegerAndBoolOps) {
  expect_agreement({
      SAME("i32 add wraps", ia + ib),
      SAME("i32 sub", ia - ib),
      SAME("i32 mul wraps", ia * ib),
      SAME("i32 true division", ia / ib),
      SAME("i32 divided by a number", ia / 2),
      SAME("i32 pow", pow(ic, 3)),
      SAME("i32 pow by i32", pow(ib, ic)),
      SAME("i32 pow by a float", pow(ia, 0.5)),
      SAME("i32 maximum", maximum(ia, ib)),
      SAME("i32 minimum", minimum(ia, ib)),
      // PyTorch's CUDA kernels leave an integer divisor of 0 undefined: ib's last is left out.
      SAME("i32 floor_divide", floor_divide(ia.slice(0, 0, 11), ib.slice(0, 0, 11))),
      SAME("i32 remainder", remainder(ia.slice(0, 0, 11), ib.slice(0, 0, 11))),
      SAME("i32 fmod", fmod(ia.slice(0, 0, 11), ib.slice(0, 0, 11))),
      SAME("i32 percent a number", ia % -3),
      SAME("i32 floor_divide by a float", floor_divide(ia, 2.5)),
      SAME("i64 remainder", remainder(la, 7)),
      SAME("i32 trunc", trunc(ia)),
      SAME("i32 abs of the least", abs(ia)),
      SAME("i32 neg", -ia),
      SAME("i32 sign", sign(ia)),
      SAME("i32 square", square(ib)),
      SAME("i32 relu", relu(ia)),
      SAME("i32 floor", floor(ia)),
      SAME("i32 round", round(ia)),
      SAME("i32 exp", exp(ib)),
      SAME("i32 sqrt", sqrt(ic)),
      SAME("i32 sigmoid", sigmoid(ib)),
      SAME("i32 reciprocal", reciprocal(ib)),
      SAME("i32 plus a float", ia + 1.5),
      SAME("i32 plus f32", ia + fb),
      SAME("i32 plus i64", ia + la),
      SAME("i64 times i32", la * ib),
      SAME("i64 times a number", la * 3),
      SAME("i32 below a float", ia < 2.5),
      SAME("i64 equals i32", la == ia),
      SAME("i32 atan2", atan2(ia, ib)),
      TWO("i32 isnan", lazy::isnan(ia), at::isnan(ia)),
      SAME("bool add", ba + bb),
      SAME("bool mul", ba * bb),
      SAME("bool plus an int", ba + 2),
      SAME("bool plus a float", ba + 1.5),
      SAME("bool plus i32", ba + ia),
      SAME("bool exp", exp(ba)),
      SAME("bool division", ba / bb),
      SAME("bool maximum", maximum(ba, bb)),
      SAME("bool and i32", logical_and(ba, ia)),
      SAME("bool sign", sign(ba)),
      TWO("bool sum", lazy::sum(ba), at::sum(ba)),
      SAME("bool neg refused", -ba),
      SAME("bool pow refused", pow(ba, bb)),
      SAME("bool remainder refused", remainder(ba, bb)),
      SAME("bool square", square(ba)),
      SAME("i32 and", ia & ib),
      SAME("i32 or", ia | ib),
      SAME("i32 xor", ia ^ ib),
      SAME("i32 not", ~ia),
      SAME("i32 xor a number", ia ^ -3),
      SAME("i32 and i64", ib & la),
      SAME("i32 left shift", bitwise_left_shift(ia, ic)),
      SAME("i32 left shift out of range", bitwise_left_shift(ib, ia)),
      SAME("i32 right shift by negative counts", bitwise_right_shift(ia, ib)),
      SAME("i32 right shift past the width", bitwise_right_shift(ib, ia)),
      SAME("i64 right shift by i32", bitwise_right_shift(la, ib)),
      SAME("i64 left shift by a number", bitwise_left_shift(la, 3)),
      SAME("bool and", ba & bb),
      SAME("bool xor", ba ^ bb),
      SAME("bool not", ~ba),
      SAME("bool or i32", ba | ia),
      SAME("bool and a number", ba & 3),
      SAME("f32 and refused", fa & fb),
      SAME("f32 not refused", ~fa),
      SAME("bool shift refused", bitwise_left_shift(ba, bb)),
  });
}

TEST_F(LibTorchSemantics, ReductionsAndNormalizations) {
  expect_agreement({
      TWO("sum", lazy::sum(r), at::sum(r)),
      TWO("sum axis 0", lazy::sum(r, 0), at::sum(r, {0})),
      TWO("sum keepdim", lazy::sum(r, 1, true), at::sum(r, {1}, true)),
      TWO("sum of axes", lazy::sum(s, {0, 1}), at::sum(s, at::IntArrayRef{0, 1})),
      TWO("sum of a negative axis", lazy::sum(s, -1), at::sum(s, {-1})),
      TWO("mean", lazy::mean(r, 1), at::mean(r, {1})),
      TWO("prod", lazy::prod(s, 1), at::prod(s, 1)),
      TWO("max propagates NaN", lazy::max(r, 1), at::amax(r, {1})),
      TWO("min", lazy::min(r, 0), at::amin(r, {0})),
      TWO("max of all", lazy::max(r), at::max(r)),
      TWO("logsumexp", lazy::logsumexp(r, 1), at::logsumexp(r, {1})),
      TWO("logsumexp of -inf rows", lazy::logsumexp(ni, 1), at::logsumexp(ni, {1})),
      TWO("any", lazy::any(s, 1), at::any(s, 1)),
      TWO("all", lazy::all(s, 0), at::all(s, 0)),
      TWO("argmax with NaN", lazy::argmax(r, 1), at::argmax(r, 1)),
      TWO("argmin with NaN", lazy::argmin(r, 1), at::argmin(r, 1)),
      TWO("argmax of all", lazy::argmax(s), at::argmax(s)),
      TWO("argmin keepdim", lazy::argmin(s, 1, true), at::argmin(s, 1, true)),
      TWO("var", lazy::var(s, 1), at::var(s, at::IntArrayRef{1}, 1)),
      TWO("std", lazy::std(s, 0), at::std(s, at::IntArrayRef{0}, 1)),
      TWO("var without correction", lazy::var(s, {}, 0), at::var(s, std::nullopt, 0)),
      TWO("var of one element", lazy::var(s.slice(1, 0, 1), 1),
          at::var(s.slice(1, 0, 1), at::IntArrayRef{1}, 1)),
      TWO("i32 sum", lazy::sum(si, 1), at::sum(si, {1})),
      TWO("i32 prod", lazy::prod(si, 0), at::prod(si, 0)),
      TWO("i32 max", lazy::max(si, 1), at::amax(si, {1})),
      TWO("i32 any", lazy::any(si, 1), at::any(si, 1)),
      TWO("bool sum", lazy::sum(sb, 1), at::sum(sb, {1})),
      TWO("bool prod", lazy::prod(sb, 1), at::prod(sb, 1)),
      TWO("i32 mean refused", lazy::mean(si), at::mean(si)),
      TWO("sum over an empty axis", lazy::sum(e, 0), at::sum(e, {0})),
      TWO("prod over an empty axis", lazy::prod(e, 0), at::prod(e, 0)),
      TWO("mean over an empty axis", lazy::mean(e, 0), at::mean(e, {0})),
      TWO("any over an empty axis", lazy::any(e, 0), at::any(e, 0)),
      TWO("all over an empty axis", lazy::all(e, 0), at::all(e, 0)),
      TWO("max over an empty axis refused", lazy::max(e, 0), at::amax(e, {0})),
      TWO("max of a row of an empty batch", lazy::max(e, 1), at::amax(e, {1})),
      TWO("softmax with NaN", lazy::softmax(r, 1), at::softmax(r, 1)),
      TWO("softmax of -inf rows", lazy::softmax(ni, 1), at::softmax(ni, 1)),
      TWO("log_softmax of -inf rows", lazy::log_softmax(ni, 1), at::log_softmax(ni, 1)),
      TWO("softmax over axis 0", lazy::softmax(s, 0), at::softmax(s, 0)),
      TWO("f16 softmax", lazy::softmax(lazy::cast(s, lazy::f16), 1), at::softmax(s.to(kF16), 1)),
      TWO("layer_norm", lazy::layer_norm(s, w4, b4), at::layer_norm(s, {4}, w4, b4, 1e-5)),
      TWO("layer_norm with a large eps", lazy::layer_norm(s, w4, b4, 0.5),
          at::layer_norm(s, {4}, w4, b4, 0.5)),
      TWO("rms_norm", lazy::rms_norm(s, w4), at::rms_norm(s, {4}, w4, 1e-6)),
      TWO("f16 layer_norm",
          lazy::layer_norm(lazy::cast(s, lazy::f16), lazy::cast(w4, lazy::f16),
                           lazy::cast(b4, lazy::f16)),
          at::layer_norm(s.to(kF16), {4}, w4.to(kF16), b4.to(kF16), 1e-5)),
  });
}

TEST_F(LibTorchSemantics, ScansSortingAndTopK) {
  expect_agreement({
      TWO("cumsum", lazy::cumsum(s, 1), at::cumsum(s, 1)),
      TWO("cumsum with NaN", lazy::cumsum(r, 1), at::cumsum(r, 1)),
      TWO("i32 cumsum is i64", lazy::cumsum(si, 1), at::cumsum(si, 1)),
      TWO("bool cumsum", lazy::cumsum(sb, 1), at::cumsum(sb, 1)),
      TWO("cumprod", lazy::cumprod(s, 0), at::cumprod(s, 0)),
      TWO("i32 cumprod", lazy::cumprod(si, 1), at::cumprod(si, 1)),
      TWO("cummax", lazy::cummax(s, 1), at::cummax(s, 1)),
      TWO("cummin", lazy::cummin(s, 0), at::cummin(s, 0)),
      TWO("i32 cummax", lazy::cummax(si, 1), at::cummax(si, 1)),
      TWO("f16 cumsum", lazy::cumsum(lazy::cast(s, lazy::f16), 1), at::cumsum(s.to(kF16), 1)),
      TWO("sort with NaN", lazy::sort(r, 1), at::sort(r, true, 1, false)),
      TWO("sort descending with NaN", lazy::sort(r, 1, true), at::sort(r, true, 1, true)),
      TWO("i32 sort", lazy::sort(si, 0), at::sort(si, true, 0, false)),
      TWO("bool sort", lazy::sort(sb, 1), at::sort(sb, true, 1, false)),
      TWO("argsort", lazy::argsort(s, 1), at::argsort(s, true, 1, false)),
      TWO("argsort descending", lazy::argsort(s, 1, true), at::argsort(s, true, 1, true)),
      TWO("topk", lazy::topk(s, 2, 1), at::topk(s, 2, 1)),
      TWO("topk with NaN", lazy::topk(r.slice(0, 2, 3), 2, 1), at::topk(r.slice(0, 2, 3), 2, 1)),
      TWO("topk smallest", lazy::topk(fc, 4, 0, false), at::topk(fc, 4, 0, false)),
      TWO("i32 topk smallest", lazy::topk(si, 3, 1, false), at::topk(si, 3, 1, false)),
  });
}

TEST_F(LibTorchSemantics, IndexingJoiningAndViews) {
  expect_agreement({
      TWO("index_select", lazy::index_select(s, 1, idx), at::index_select(s, 1, idx)),
      TWO("gather", lazy::gather(s, 1, idx2), at::gather(s, 1, idx2)),
      TWO("take_along_axis", lazy::take_along_axis(s, idx2, 1), at::take_along_dim(s, idx2, 1)),
      TWO("embedding", lazy::embedding(s, idx.slice(0, 0, 3)),
          at::embedding(s, idx.slice(0, 0, 3))),
      TWO("scatter_add", lazy::scatter_add(s, 1, idx2, s * 10),
          at::scatter_add(s, 1, idx2, s * 10)),
      TWO("index_add", lazy::index_add(s, 1, idx, s.slice(1, 0, 1).expand({3, 5}) + 0),
          at::index_add(s, 1, idx, s.slice(1, 0, 1).expand({3, 5}) + 0)),
      TWO("scatter a number", lazy::scatter(s, 1, idx2.slice(1, 0, 1), 9.5),
          at::scatter(s, 1, idx2.slice(1, 0, 1), 9.5)),
      TWO("gather by a 0-d index", lazy::gather(fc, 0, idx.slice(0, 1, 2).reshape({})),
          at::gather(fc, 0, idx.slice(0, 1, 2).reshape({}))),
      TWO("scatter_add of 0-d index and src",
          lazy::scatter_add(fc, 0, idx.slice(0, 0, 1).reshape({}), fb.slice(0, 0, 1).reshape({})),
          at::scatter_add(fc, 0, idx.slice(0, 0, 1).reshape({}), fb.slice(0, 0, 1).reshape({}))),
      TWO("scatter a number by an empty index of another rank",
          lazy::scatter(s, 1, idx.slice(0, 0, 0), 9.5), at::scatter(s, 1, idx.slice(0, 0, 0), 9.5)),
      TWO("one_hot", lazy::one_hot(idx, 4), at::one_hot(idx, 4)),
      TWO("narrow from the end", lazy::narrow(s, 1, -3, 2) + 0, s.narrow(1, -3, 2) + 0),
      TWO("narrow past the end", lazy::narrow(s, 1, 3, 2) + 0, s.narrow(1, 3, 2) + 0),
      TWO("unbind", lazy::unbind(s, -1), at::unbind(s, -1)),
      TWO("flip", lazy::flip(s, {0, 1}) * 2, at::flip(s, {0, 1}) * 2),
      TWO("masked_fill", lazy::masked_fill(s, sb, -7), s.masked_fill(sb, -7)),
      TWO("masked_fill of i32 with a float", lazy::masked_fill(si, sb, 2.7),
          si.masked_fill(sb, 2.7)),
      TWO("masked_fill broadcast", lazy::masked_fill(s, sb.slice(0, 0, 1), kInf),
          s.masked_fill(sb.slice(0, 0, 1), kInf)),
      TWO("tril", lazy::tril(s, 1), at::tril(s, 1)),
      TWO("triu", lazy::triu(s, -1), at::triu(s, -1)),
      TWO("i32 tril", lazy::tril(si, -2), at::tril(si, -2)),
      TWO("cat", lazy::cat({s, r}, 0), at::cat({s, r}, 0)),
      TWO("cat promotes", lazy::cat({s, si}, 1), at::cat({s, si}, 1)),
      TWO("cat of f16 and f32", lazy::cat({ha, fa}, 0), at::cat({ha, fa}, 0)),
      TWO("stack", lazy::stack({fa, fb}, -1), at::stack({fa, fb}, -1)),
      TWO("split", lazy::split(fa, 5), at::split(fa, 5)),
      TWO("split by sizes", lazy::split(s, std::vector<std::int64_t>{1, 3}, 1),
          at::split_with_sizes(s, {1, 3}, 1)),
      TWO("chunk", lazy::chunk(fa, 5), at::chunk(fa, 5)),
      TWO("chunk past the size", lazy::chunk(s, 7, 1), at::chunk(s, 7, 1)),
      SAME("transpose", s.transpose(0, 1) * 1),
      SAME("permute", s.permute({1, 0}) + idx2.transpose(0, 1)),
      SAME("expand", w4.expand({3, 4}) + s),
      SAME("reshape", s.reshape({-1, 3}) + 0),
      SAME("broadcast of three", s.reshape({3, 1, 4}) + s),
      TWO("slice from the end", s.slice(1, -2, std::nullopt) + 0, s.slice(1, -2) + 0),
      SAME("slice past the end", s.slice(1, 2, 100) + 0),
      SAME("shapes that do not broadcast", s + fa),
      TWO("arange of floats", lazy::arange(0, 1, 0.1), at::arange(0, 1, 0.1, kCuda)),
      TWO("arange down", lazy::arange(10, 0, -3), at::arange(10, 0, -3, kCuda)),
      TWO("arange from a half", lazy::arange(0.5, 3), at::arange(0.5, 3, kCuda)),
  });
}

TEST_F(LibTorchSemantics, MatrixProducts) {
  expect_agreement({
      SAME("matmul", matmul(s, s.transpose(0, 1))),
      SAME("dot", matmul(w4, b4)),
      SAME("vector times matrix", matmul(w4, s.transpose(0, 1))),
      SAME("matrix times vector", matmul(s, w4)),
      SAME("broadcast batch", matmul(s.reshape({3, 1, 4}), s.transpose(0, 1))),
      SAME("inner sizes that differ", matmul(s, s)),
      SAME("i32 refused", matmul(si, si.transpose(0, 1))),
      TWO("linear", lazy::linear(s, s.slice(0, 0, 2), b4.slice(0, 0, 2)),
          at::linear(s, s.slice(0, 0, 2), b4.slice(0, 0, 2))),
      TWO("addmm", lazy::addmm(b4.slice(0, 0, 3), s, s.transpose(0, 1), 0.5, 2),
          at::addmm(b4.slice(0, 0, 3), s, s.transpose(0, 1), 0.5, 2)),
      TWO("einsum", lazy::einsum("ij,kj->ik", s, s), at::einsum("ij,kj->ik", {s, s})),
      TWO("f16 matmul",
          lazy::matmul(lazy::cast(s, lazy::f16), lazy::cast(s.transpose(0, 1), lazy::f16)),
          at::matmul(s.to(kF16), s.transpose(0, 1).to(kF16))),
      SAME("bmm", bmm(s.reshape({3, 1, 4}), s.reshape({3, 4, 1}))),
  });
}

}  // namespace
