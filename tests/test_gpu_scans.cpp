// cumsum, cumprod, cummax and cummin on the GPU against the reference evaluator on fresh random
// inputs: every dtype, ranks 1 to 5, every axis, rows longer than a tile, ties and NaN, views,
// empty tensors, and one kernel for a scan with the work producing its input.
#include <gtest/gtest.h>

#include <limits>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::random_input;

class GpuScans : public lazy_test::GpuTest {};

// Values near 1 (floats) or in [-1, 2] (integers), computed, whose products neither overflow
// nor vanish. (Computed first: an f16 product of values a kernel computes unrounded would drift
// from the reference's, which rounds each op.)
Tensor near_one(const Tensor& x) {
  Tensor out = lazy::is_floating(x.dtype()) ? x * 0.01f + 1.0f : lazy::clamp(x, -1, 2);
  out = out.to(x.dtype());
  lazy::eval({out});
  return out;
}

// Every scan of x along `axis`, and the running product of `factors`.
std::vector<Tensor> every_scan(const Tensor& x, const Tensor& factors, int axis) {
  lazy::ValuesAndIndices most = lazy::cummax(x, axis), least = lazy::cummin(x, axis);
  std::vector<Tensor> out = {lazy::cumsum(x, axis), most.values, most.indices, least.values,
                             least.indices};
  if (x.dtype() != DType::bool_) out.push_back(lazy::cumprod(factors, axis));
  return out;
}
std::vector<Tensor> every_scan(const Tensor& x, int axis) {
  return every_scan(x, x, axis);
}

TEST_F(GpuScans, EveryScanMatchesTheReferenceForEveryDtypeRankAndAxis) {
  // 3000 and 2100 elements span several tiles (2048 4-byte or 1024 8-byte values per tile).
  const std::vector<Shape> shapes = {{3000}, {5, 2100}, {4, 6, 7}, {3, 2, 4, 5}, {2, 3, 2, 3, 4}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (const Shape& shape : shapes) {
      Tensor x = random_input(dtype, shape);
      Tensor factors = near_one(x);
      for (int axis = 0; axis < shape.rank(); ++axis) {
        const std::string what = std::string(lazy::dtype_name(dtype)) + " " + shape.to_string() +
                                 " axis " + std::to_string(axis);
        // A float sum over thousands of elements rounds as it grows.
        expect_matches_reference([&] { return every_scan(x, factors, axis); }, what,
                                 dtype == DType::f32 ? lazy_test::kSumTolerance : -1);
      }
    }
  }
}

TEST_F(GpuScans, TheProducingWorkRunsInsideOneScanKernel) {
  Tensor x = random_input(DType::f32, {64, 5000});
  auto running = [&] {
    Tensor m = lazy::max(x, -1, true);
    return lazy::cumsum(lazy::exp(x - m), -1);
  };
  lazy::reset_stats();
  Tensor out = running();
  lazy::eval({out});
  EXPECT_EQ(lazy::stats().kernel_launches, 2);  // the max's kernel, then the scan's
  expect_matches_reference([&] { return std::vector<Tensor>{running()}; }, "cumsum(exp(x - m))",
                           lazy_test::kSumTolerance);
}

TEST_F(GpuScans, ViewsTiesNaNAndEmptyTensorsStayRight) {
  Tensor x = random_input(DType::f32, {40, 70});
  Tensor ties = lazy::round(random_input(DType::f32, {9, 300}));  // few distinct values
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor with_nan = lazy::where(random_input(DType::f32, {6, 500}) > 3.0f, lazy::full({}, nan),
                                random_input(DType::f32, {6, 500}));
  lazy::eval({ties, with_nan});
  Tensor empty_rows = random_input(DType::f16, {0, 5}),
         empty_axis = random_input(DType::i32, {4, 0});
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out = every_scan(x.transpose(0, 1).slice(0, 3, 60, 2), 0);
        for (const Tensor& t : every_scan(ties, 1)) out.push_back(t);
        for (const Tensor& t : every_scan(with_nan, 1)) out.push_back(t);
        for (const Tensor& t : every_scan(empty_rows, 1)) out.push_back(t);
        for (const Tensor& t : every_scan(empty_axis, 1)) out.push_back(t);
        return out;
      },
      "views, ties, NaN, empty", lazy_test::kSumTolerance);
}

}  // namespace
