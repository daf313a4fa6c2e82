// Reductions over outer axes (column kernels, and the two-stage split of few long columns) on the
// GPU, against the reference evaluator on the same fresh random inputs, outputs poisoned. Skipped
// without a GPU.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::GpuTest;
using lazy_test::kSumTolerance;
using lazy_test::random_input;

double sum_tolerance(DType dtype) {
  return dtype == DType::f32 ? kSumTolerance : lazy_test::tolerance_for(dtype);
}

std::string describe(const char* what, DType dtype, const Shape& shape) {
  return std::string(what) + " " + std::string(lazy::dtype_name(dtype)) + shape.to_string();
}

// sum, max and argmax over `axis` of a fresh input.
void expect_reductions_match(DType dtype, const Shape& shape, int axis) {
  Tensor x = random_input(dtype, shape);
  expect_matches_reference([&] { return std::vector{lazy::sum(x, axis)}; },
                           describe("sum", dtype, shape), sum_tolerance(dtype));
  expect_matches_reference(
      [&] {
        return std::vector{lazy::max(x, axis), lazy::argmax(x, axis)};
      },
      describe("max/argmax", dtype, shape), 0);
}

class GpuColumnReductions : public GpuTest {};

TEST_F(GpuColumnReductions, OverAxis0OfOddShapesMatchTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    for (const Shape& shape : {Shape{1000003, 3}, Shape{3, 1000003}, Shape{777, 4099}}) {
      expect_reductions_match(dtype, shape, 0);
    }
  }
}

TEST_F(GpuColumnReductions, OverAxis0Of16384x4096MatchesTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
    expect_reductions_match(dtype, {16384, 4096}, 0);
  }
}

TEST_F(GpuColumnReductions, OverTheMiddleAxisOf3DMatchesTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    expect_reductions_match(dtype, {6, 1000, 130}, 1);
    expect_reductions_match(dtype, {8, 333, 256}, 1);
    expect_reductions_match(dtype, {3, 40000, 64}, 1);  // split in two stages
  }
}

TEST_F(GpuColumnReductions, AnyAllProdAndMinOfEveryDTypeMatchTheReference) {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    Tensor x = random_input(dtype, {2000, 1100});
    const std::string what = describe("", dtype, {2000, 1100});
    expect_matches_reference(
        [&] {
          return std::vector{lazy::any(x, 0), lazy::all(x, 0), lazy::min(x, 0), lazy::argmin(x, 0)};
        },
        "any/all/min/argmin" + what, 0);
    if (lazy::is_floating(dtype)) {  // integer products of this many factors overflow
      Tensor near_one = 1.0f + x * 0.001f;
      expect_matches_reference([&] { return std::vector{lazy::prod(near_one, 0)}; }, "prod" + what,
                               sum_tolerance(dtype));
    }
  }
}

TEST_F(GpuColumnReductions, OverTransposedAndBroadcastViewsMatchTheReference) {
  Tensor x = random_input(DType::f32, {1000, 300});
  Tensor w = random_input(DType::f32, {300});
  Tensor column = random_input(DType::f32, {1000, 1});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::sum(x.transpose(0, 1), 0), lazy::sum(x.transpose(0, 1), 1)};
      },
      "over a transposed view", kSumTolerance);
  expect_matches_reference(
      [&] {
        return std::vector{lazy::sum(w.broadcast_to({1000, 300}), 0), lazy::sum(x * column + w, 0),
                           lazy::argmax(x * column, 0)};
      },
      "over broadcasts", kSumTolerance);
  expect_matches_reference([&] { return std::vector{lazy::sum(x.slice(1, 1, 300, 2), 0)}; },
                           "over a strided slice", kSumTolerance);
}

TEST_F(GpuColumnReductions, PrologueFusesIn) {
  Tensor x = random_input(DType::bf16, {4096, 512});
  Tensor b = random_input(DType::bf16, {512});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::sum(lazy::exp(x * 0.1f) + b, 0), lazy::mean(x, 0)};
      },
      "prologue", lazy_test::tolerance_for(DType::bf16));
}

TEST_F(GpuColumnReductions, AnEmptyFoldWritesTheIdentity) {
  Tensor x = random_input(DType::f32, {0, 100});
  std::vector<float> sums = lazy::sum(x, 0).to_vector<float>();
  std::vector<float> products = lazy::prod(x, 0).to_vector<float>();
  EXPECT_EQ(sums, std::vector<float>(100, 0.0f));
  EXPECT_EQ(products, std::vector<float>(100, 1.0f));
}

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> bits;
  for (float v : t.to_vector<float>()) bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

TEST_F(GpuColumnReductions, SameInputGivesBitwiseEqualResults) {
  for (const Shape& shape : {Shape{16384, 4096}, Shape{777, 4099}, Shape{1000003, 3}}) {
    Tensor x = random_input(DType::f32, shape);
    EXPECT_EQ(bits_of(lazy::sum(x, 0)), bits_of(lazy::sum(x, 0))) << shape.to_string();
  }
}

}  // namespace
