// topk on the GPU against the reference evaluator on fresh random inputs: every dtype, k from 1
// to 1024, rows from a few elements to 100k+, both directions, every axis, ties, NaN, rows
// that rise (every element a candidate), and one kernel with the work producing its input.
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

class GpuTopK : public lazy_test::GpuTest {};

std::vector<Tensor> both_ways(const Tensor& x, std::int64_t k, int axis) {
  std::vector<Tensor> out;
  for (bool largest : {true, false}) {
    lazy::ValuesAndIndices best = lazy::topk(x, k, axis, largest);
    out.push_back(best.values);
    out.push_back(best.indices);
  }
  return out;
}

TEST_F(GpuTopK, MatchesTheReferenceForEveryDtypeKAndRowLength) {
  struct Case {
    Shape shape;
    std::int64_t k;
  };
  const std::vector<Case> cases = {{{7}, 7},          {{5, 300}, 1},     {{3, 5000}, 50},
                                   {{2, 131072}, 50}, {{2, 3000}, 1024}, {{4, 2500}, 700}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (const Case& c : cases) {
      Tensor x = random_input(dtype, c.shape);
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " +
                               c.shape.to_string() + " k " + std::to_string(c.k);
      expect_matches_reference([&] { return both_ways(x, c.k, -1); }, what);
    }
  }
}

TEST_F(GpuTopK, AxesViewsTiesNaNRisingRowsAndEmptyTensors) {
  Tensor x = random_input(DType::f32, {30, 4, 50});
  Tensor ties = lazy::round(random_input(DType::f32, {6, 4000}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor with_nan = lazy::where(random_input(DType::f32, {3, 3000}) > 2.5f, lazy::full({}, nan),
                                random_input(DType::f32, {3, 3000}));
  Tensor rising = lazy::arange(0, 3 * 9000, 1, DType::i32).reshape({3, 9000});
  lazy::eval({ties, with_nan, rising});
  Tensor empty_rows = random_input(DType::f32, {0, 5});
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (int axis = 0; axis < 3; ++axis)
          for (const Tensor& t : both_ways(x.transpose(0, 2), 3, axis)) out.push_back(t);
        for (const Tensor& t : both_ways(ties, 100, 1)) out.push_back(t);
        for (const Tensor& t : both_ways(with_nan, 40, 1)) out.push_back(t);
        for (const Tensor& t : both_ways(rising, 1000, 1)) out.push_back(t);
        for (const Tensor& t : both_ways(empty_rows, 2, 1)) out.push_back(t);
        for (const Tensor& t : both_ways(x, 0, 2)) out.push_back(t);
        return out;
      },
      "axes, views, ties, NaN, rising, empty");
}

TEST_F(GpuTopK, TheProducingWorkRunsInsideOneTopKKernel) {
  Tensor logits = random_input(DType::bf16, {16, 40000});
  auto sampled = [&] {
    lazy::ValuesAndIndices best = lazy::topk(logits.to(DType::f32) / 0.8f, 50);
    return std::vector<Tensor>{best.values, best.indices};
  };
  lazy::reset_stats();
  std::vector<Tensor> out = sampled();
  lazy::eval(out);
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  expect_matches_reference(sampled, "topk(logits / temperature)");
}

}  // namespace
