// sort, argsort and top-k of more than 1024 on the GPU against the reference evaluator on fresh
// random inputs: every dtype, rows from one tile to many merged runs (and more rows than the
// scratch lets blocks run at once), both directions, every axis, views, ties (stability across
// merges), NaN, empty tensors, and one kernel with the work producing its input.
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

class GpuSort : public lazy_test::GpuTest {};

std::vector<Tensor> both_ways(const Tensor& x, int axis) {
  std::vector<Tensor> out;
  for (bool descending : {false, true}) {
    lazy::ValuesAndIndices sorted = lazy::sort(x, axis, descending);
    out.push_back(sorted.values);
    out.push_back(sorted.indices);
  }
  return out;
}

TEST_F(GpuSort, MatchesTheReferenceForEveryDtypeAndRowLength) {
  const std::vector<Shape> shapes = {{7}, {5, 1000}, {3, 2048}, {3, 2049}, {2, 9000}, {1, 300000}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (const Shape& shape : shapes) {
      Tensor x = random_input(dtype, shape);
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " + shape.to_string();
      expect_matches_reference([&] { return both_ways(x, -1); }, what);
    }
  }
}

TEST_F(GpuSort, TopKOfMoreThanTheSelectionKernelKeeps) {
  Tensor x = random_input(DType::f32, {3, 70000});
  Tensor ties = lazy::round(random_input(DType::f32, {2, 5000}));
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (bool largest : {true, false}) {
          for (const lazy::ValuesAndIndices& best :
               {lazy::topk(x, 5000, 1, largest), lazy::topk(ties, 1025, 1, largest),
                lazy::topk(ties, 5000, 1, largest)}) {
            out.push_back(best.values);
            out.push_back(best.indices);
          }
        }
        return out;
      },
      "topk, k > 1024");
}

TEST_F(GpuSort, AxesViewsTiesNaNManyRowsAndEmptyTensors) {
  Tensor x = random_input(DType::f32, {30, 4, 2500});
  Tensor ties = lazy::round(random_input(DType::f32, {6, 40000}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor with_nan = lazy::where(random_input(DType::f32, {3, 7000}) > 2.0f, lazy::full({}, nan),
                                random_input(DType::f32, {3, 7000}));
  Tensor falling = lazy::arange(3 * 9000, 0, -1, DType::i32).reshape({3, 9000});
  // 24 MB of scratch a row: blocks loop over the rows.
  Tensor many_rows = random_input(DType::f32, {40, 600000});
  lazy::eval({ties, with_nan, falling});
  Tensor empty_rows = random_input(DType::f32, {0, 5000});
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (int axis = 0; axis < 3; ++axis)
          for (const Tensor& t : both_ways(x.transpose(0, 2), axis)) out.push_back(t);
        for (const Tensor* t : {&ties, &with_nan, &falling, &empty_rows})
          for (const Tensor& s : both_ways(*t, 1)) out.push_back(s);
        out.push_back(lazy::argsort(many_rows, 1, true));
        return out;
      },
      "axes, views, ties, NaN, falling, many rows, empty");
}

TEST_F(GpuSort, TheProducingWorkRunsInsideOneSortKernel) {
  Tensor x = random_input(DType::bf16, {16, 40000});
  auto sorted = [&] {
    lazy::ValuesAndIndices s = lazy::sort(lazy::exp(x.to(DType::f32) * 0.5f), -1, true);
    return std::vector<Tensor>{s.values, s.indices};
  };
  lazy::reset_stats();
  std::vector<Tensor> out = sorted();
  lazy::eval(out);
  // One kernel: its first launch computes exp(x * 0.5) as it sorts the tiles, then a launch per
  // merge pass (runs of 2048 to 32768).
  EXPECT_EQ(lazy::stats().kernels_generated, 1);
  EXPECT_EQ(lazy::stats().kernel_launches, 1 + 5);
  expect_matches_reference(sorted, "sort(exp(x * 0.5))");
}

}  // namespace
