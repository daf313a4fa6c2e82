// scatter_add, index_add and scatter on the GPU against the reference evaluator on fresh random
// inputs: every dtype and index dtype, ranks 1 to 5, every axis, repeated and empty indices,
// views, indices longer and shorter than the axis; the same bits on every run; a bad index as an
// IndexError at the next sync with the rest kept; and the kernels they take.
#include <gtest/gtest.h>

#include <cstring>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::fresh_seed;
using lazy_test::random_input;

class GpuScatter : public lazy_test::GpuTest {};

// Fresh random positions in [0, n) of `dtype`, computed.
Tensor random_positions(const Shape& shape, std::int64_t n, DType dtype = DType::i64) {
  Tensor u = lazy::rand(shape, fresh_seed());
  Tensor positions =
      lazy::minimum(lazy::floor(u * float(n)), float(n - 1)).to(DType::i64).to(dtype);
  lazy::eval({positions});
  return positions;
}

TEST_F(GpuScatter, MatchesTheReferenceForEveryDtypeAndIndexDtype) {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (DType index_dtype : {DType::i64, DType::i32}) {
      Tensor x = random_input(dtype, {33, 50});
      Tensor src = random_input(dtype, {40, 50});
      Tensor index = random_positions({40, 45}, 33, index_dtype);  // repeats, rows past it kept
      Tensor rows = random_positions({70}, 50, index_dtype);
      Tensor row_src = random_input(dtype, {33, 70});
      Tensor lines = random_positions({90}, 33, index_dtype);  // a warp per row of x
      Tensor line_src = random_input(dtype, {90, 50});
      const std::string what = std::string(lazy::dtype_name(dtype)) + " index " +
                               std::string(lazy::dtype_name(index_dtype));
      expect_matches_reference(
          [&] {
            return std::vector<Tensor>{
                lazy::scatter_add(x, 0, index, src), lazy::scatter(x, 0, index.slice(0, 0, 1), src),
                lazy::index_add(x, 1, rows, row_src), lazy::index_add(x, 0, lines, line_src)};
          },
          what);
    }
  }
}

TEST_F(GpuScatter, RanksOneToFiveEveryAxisViewsAndLongIndices) {
  const std::vector<Shape> shapes = {{9}, {6, 7}, {3, 4, 5}, {2, 3, 4, 5}, {2, 2, 3, 2, 4}};
  for (const Shape& shape : shapes) {
    Tensor x = random_input(DType::f32, shape);
    for (int axis = 0; axis < shape.rank(); ++axis) {
      Shape index_shape = shape;
      index_shape[axis] = 2 * shape[axis] + 1;
      Tensor index = random_positions(index_shape, shape[axis]);
      Tensor src = random_input(DType::f32, index_shape);
      Tensor slice_src = random_input(DType::f32, index_shape);
      Tensor picks = random_positions({index_shape[axis]}, shape[axis]);
      expect_matches_reference(
          [&] {
            return std::vector<Tensor>{lazy::scatter_add(x, axis, index, src * 2.0f),
                                       lazy::index_add(x, axis, picks, slice_src, -1.5f)};
          },
          "rank " + std::to_string(shape.rank()) + " axis " + std::to_string(axis));
    }
  }
  // Views: a transposed x, index and src; a long index into a short axis and the reverse.
  Tensor x = random_input(DType::f32, {64, 48});
  Tensor index = random_positions({64, 60}, 48);
  Tensor src = random_input(DType::f32, {64, 60});
  Tensor many = random_positions({300000}, 1000);
  Tensor many_src = random_input(DType::f32, {300000, 3});
  Tensor table = random_input(DType::f32, {100000, 3});
  Tensor blocks = random_input(DType::f32, {4, 9, 8, 6});
  Tensor block_ids = random_positions({20}, 9, DType::i32);
  Tensor block_src = random_input(DType::f32, {6, 8, 20, 4});
  expect_matches_reference(
      [&] {
        return std::vector<Tensor>{
            lazy::scatter_add(x.transpose(0, 1), 0, index.transpose(0, 1), src.transpose(0, 1)),
            lazy::index_add(table.slice(0, 0, 1000), 0, many, many_src),
            lazy::index_add(table, 0, many.slice(0, 0, 50), many_src.slice(0, 0, 50)),
            lazy::index_add(blocks, 1, block_ids, block_src.permute({3, 2, 1, 0}), 2),
            lazy::scatter_add(x, 1, index.slice(1, 0, 0), src.slice(1, 0, 0))};
      },
      "views, long and short indices", 1e-4);
}

TEST_F(GpuScatter, TheSameInputGivesTheSameBitsOnEveryRun) {
  Tensor index = random_positions({1 << 20}, 64);
  Tensor src = random_input(DType::f32, {1 << 20});
  Tensor x = random_input(DType::f32, {64});
  std::vector<float> first = lazy::scatter_add(x, 0, index, src).to_vector<float>();
  for (int run = 0; run < 3; ++run) {
    std::vector<float> again = lazy::scatter_add(x, 0, index, src).to_vector<float>();
    EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << run;
  }
}

TEST_F(GpuScatter, ABadIndexIsThrownAtTheNextSyncAndTheProgramGoesOn) {
  for (std::int64_t bad : {-3, 8}) {
    Tensor x = random_input(DType::f32, {8, 4});
    Tensor good = x * 3.0f;
    Tensor ids = lazy::from_data<std::int64_t>({1, bad, 7}, {3});
    Tensor added = lazy::index_add(x, 0, ids, lazy::ones({3, 4}));
    const int line = __LINE__ - 1;
    bool thrown = false;
    try {
      lazy::eval({good, added});
      (void)added.to_vector<float>();
    } catch (const lazy::IndexError& e) {
      thrown = true;
      const std::string what = e.what();
      EXPECT_NE(what.find("index_add"), std::string::npos) << what;
      EXPECT_NE(what.find("[0, 8)"), std::string::npos) << what;
      EXPECT_NE(what.find("index " + std::to_string(bad)), std::string::npos) << what;
      EXPECT_NE(what.find("not scattered"), std::string::npos) << what;
      EXPECT_EQ(e.where().line(), std::uint_least32_t(line)) << what;
    }
    EXPECT_TRUE(thrown) << bad;
    const std::vector<float> tripled = good.to_vector<float>();
    const std::vector<float> source = x.to_vector<float>();
    for (std::size_t i = 0; i < source.size(); ++i) EXPECT_EQ(tripled[i], source[i] * 3.0f);
    Tensor fine =
        lazy::index_add(x, 0, lazy::from_data<std::int64_t>({2}, {1}), lazy::ones({1, 4}));
    EXPECT_EQ(fine.to_vector<float>()[8], source[8] + 1.0f);
  }
}

TEST_F(GpuScatter, AScatterIsTheIndexSortAndOneKernel) {
  Tensor x = random_input(DType::f32, {1000, 64});
  Tensor ids = random_positions({1000}, 1000);  // sorted by one top-k kernel
  Tensor grads = random_input(DType::f32, {1000, 64});
  lazy::reset_stats();
  lazy::eval({lazy::index_add(x, 0, ids, grads)});
  EXPECT_EQ(lazy::stats().kernel_launches, 2);
}

}  // namespace
