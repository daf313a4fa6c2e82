// PyTorch as the oracle of the order statistics read off a sort (median, nanmedian, kthvalue,
// quantile, nanquantile) and of cdist: values, positions, errors and gradients on the same CUDA
// inputs, as test_libtorch_semantics and test_libtorch_gradients check the other ops. Inputs
// hold no ties where PyTorch leaves the pick unspecified (its CPU and CUDA kernels differ).
#include <gtest/gtest.h>

#include "torch_oracle.h"

namespace {

using namespace lazy_torch_oracle;
using Interpolation = lazy::QuantileInterpolation;

at::Tensor f32(std::vector<float> values, std::vector<std::int64_t> shape) {
  return cuda_tensor(std::move(values), kF32, std::move(shape));
}

TEST_F(LibTorchSemantics, MediansAndKthValues) {
  expect_agreement({
      TWO("median of rows", lazy::median(s, 1), at::median(s, 1, false)),
      TWO("median of rows with NaN", lazy::median(r, 1), at::median(r, 1, false)),
      TWO("median of columns, kept", lazy::median(s, 0, true), at::median(s, 0, true)),
      TWO("median of all", lazy::median(fc), at::median(fc)),
      TWO("median of all with NaN", lazy::median(fa), at::median(fa)),
      TWO("i32 median", lazy::median(si, 1), at::median(si, 1, false)),
      TWO("f16 median", lazy::median(hc), at::median(hc)),
      TWO("bool median", lazy::median(sb, 1), at::median(sb, 1, false)),
      TWO("median of an empty tensor", lazy::median(e, 1), at::median(e, 1, false)),
      TWO("median of an empty axis", lazy::median(e, 0), at::median(e, 0, false)),
      TWO("nanmedian of rows with NaN", lazy::nanmedian(r, 1), at::nanmedian(r, 1, false)),
      TWO("nanmedian of all", lazy::nanmedian(fc), at::nanmedian(fc)),
      TWO("kthvalue", lazy::kthvalue(s, 2, 1), at::kthvalue(s, 2, 1, false)),
      TWO("kthvalue with NaN", lazy::kthvalue(r, 4, 1), at::kthvalue(r, 4, 1, false)),
      TWO("kthvalue of columns, kept", lazy::kthvalue(s, 3, 0, true), at::kthvalue(s, 3, 0, true)),
      TWO("kthvalue past the axis", lazy::kthvalue(s, 5, 1), at::kthvalue(s, 5, 1, false)),
  });
}

TEST_F(LibTorchSemantics, QuantilesAndDistances) {
  expect_agreement({
      TWO("quantile of rows", lazy::quantile(s, 0.3, 1), at::quantile(s, 0.3, 1, false, "linear")),
      TWO("quantile of rows with NaN", lazy::quantile(r, 0.7, 1),
          at::quantile(r, 0.7, 1, false, "linear")),
      TWO("quantile of all", lazy::quantile(fc, 0.37), at::quantile(fc, 0.37)),
      TWO("quantiles of columns, kept",
          lazy::quantile(s, std::vector<double>{0.1, 0.5, 0.9}, 0, true),
          at::quantile(s, f32({0.1f, 0.5f, 0.9f}, {3}), 0, true, "linear")),
      TWO("quantile lower", lazy::quantile(fc, 0.37, {}, false, Interpolation::lower),
          at::quantile(fc, 0.37, std::nullopt, false, "lower")),
      TWO("quantile higher", lazy::quantile(fc, 0.37, {}, false, Interpolation::higher),
          at::quantile(fc, 0.37, std::nullopt, false, "higher")),
      TWO("quantile midpoint", lazy::quantile(fc, 0.37, {}, false, Interpolation::midpoint),
          at::quantile(fc, 0.37, std::nullopt, false, "midpoint")),
      TWO("quantile nearest", lazy::quantile(fc, 0.37, {}, false, Interpolation::nearest),
          at::quantile(fc, 0.37, std::nullopt, false, "nearest")),
      TWO("quantile with infinities", lazy::quantile(fb, std::vector<double>{0, 0.05, 0.5, 1}),
          at::quantile(fb, f32({0, 0.05f, 0.5f, 1}, {4}))),
      TWO("nanquantile of rows with NaN", lazy::nanquantile(r, 0.4, 1),
          at::nanquantile(r, 0.4, 1, false, "linear")),
      TWO("f16 quantile", lazy::quantile(hc, 0.5), at::quantile(hc, 0.5)),
      TWO("quantile past 1", lazy::quantile(fc, 1.5), at::quantile(fc, 1.5)),
      TWO("cdist", lazy::cdist(s, s), at::cdist(s, s)),
      TWO("cdist p = 1", lazy::cdist(s, fc.reshape({3, 4}), 1),
          at::cdist(s, fc.reshape({3, 4}), 1)),
      TWO("cdist p = 0", lazy::cdist(s, fc.reshape({3, 4}), 0),
          at::cdist(s, fc.reshape({3, 4}), 0)),
      TWO("cdist p = 1.5", lazy::cdist(s, fc.reshape({3, 4}), 1.5),
          at::cdist(s, fc.reshape({3, 4}), 1.5)),
      TWO("cdist p = inf", lazy::cdist(s, fc.reshape({3, 4}), kInf),
          at::cdist(s, fc.reshape({3, 4}), kInf)),
      TWO("cdist with NaN", lazy::cdist(r, s), at::cdist(r, s)),
      TWO("cdist of batches", lazy::cdist(s.reshape({1, 3, 4}), fc.reshape({3, 1, 4})),
          at::cdist(s.reshape({1, 3, 4}), fc.reshape({3, 1, 4}))),
      TWO("cdist of rows of different lengths", lazy::cdist(s, fc.reshape({4, 3})),
          at::cdist(s, fc.reshape({4, 3}))),
  });
}

TEST_F(LibTorchSemantics, OrderStatisticGradients) {
  const at::Tensor p = f32({1, 5, -2, 3, 4, 4.5f, 0, -1, 0.5f, 2, 1.5f, -0.25f}, {3, 4});
  const at::Tensor q = f32({0.5f, -1, 2, 0.25f, 1, 1, -3, 2, 0, 0.5f, -0.5f, 1}, {3, 4});
  const at::Tensor ties = f32({2, 2, 1, 3, 2, 0, 2, 5}, {8});
  const at::Tensor with_nan = f32({kNan, 1, -2, 0, kNan, 3, 0.5f, 2}, {2, 4});
  expect_gradients_agree({
      GRAD("median of rows", lazy::median(a, 1).values, std::get<0>(at::median(a, 1, false)), p),
      GRAD("median of all, tied", lazy::median(a), at::median(a), ties),
      GRAD("median of all with NaN", lazy::median(a), at::median(a), with_nan),
      GRAD("nanmedian of all", lazy::nanmedian(a), at::nanmedian(a), with_nan),
      GRAD("kthvalue", lazy::kthvalue(a, 3, 1).values, std::get<0>(at::kthvalue(a, 3, 1, false)),
           p),
      GRAD("quantile of rows", lazy::quantile(a, 0.3, 1), at::quantile(a, 0.3, 1, false, "linear"),
           p),
      GRAD("quantile midpoint", lazy::quantile(a, 0.3, 0, false, Interpolation::midpoint),
           at::quantile(a, 0.3, 0, false, "midpoint"), p),
      GRAD("nanquantile", lazy::nanquantile(a, 0.6, 1), at::nanquantile(a, 0.6, 1, false, "linear"),
           with_nan),
      GRAD("cdist", lazy::cdist(a, b), at::cdist(a, b), p, q),
      GRAD("cdist p = 1", lazy::cdist(a, b, 1), at::cdist(a, b, 1), p, q),
      GRAD("cdist p = 3", lazy::cdist(a, b, 3), at::cdist(a, b, 3), p, q),
      GRAD("cdist at zero distances", lazy::cdist(a, a), at::cdist(a, a), p),
  });
}

}  // namespace
