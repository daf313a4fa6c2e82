// sort, argsort and top-k of more than 1024 on the GPU against the reference evaluator on fresh
// random inputs: every dtype, rows from one tile to many radix-sorted tiles (and more rows than
// the scratch lets blocks run at once), values over every bit, both directions, every axis,
// views, ties (stability across passes), NaN, empty tensors, rows skipping passes, and one
// kernel with the work producing its input.
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <random>

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
  // Radix tiles are 4096 elements for 4-byte keys and 2048 for 8-byte keys: rows of one, two and
  // part of a tile.
  const std::vector<Shape> shapes = {{7},       {5, 1000}, {3, 2048}, {3, 2049},
                                     {2, 4096}, {2, 4097}, {2, 9000}, {1, 300000}};
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

// Values drawn over every bit of their dtype, so every radix pass reorders: integers over their
// whole range, floats from random bits (NaN, infinities, -0 and subnormals among them), and rows
// of a few distinct values (long runs of one digit in every tile).
TEST_F(GpuSort, ValuesOverEveryBitOfTheirDtype) {
  std::mt19937_64 random(lazy_test::fresh_seed());
  const std::int64_t rows = 3, extent = 20000;
  std::vector<std::int64_t> wide(rows * extent);
  std::vector<std::int32_t> narrow(rows * extent);
  std::vector<float> bits(rows * extent);
  for (std::size_t e = 0; e < wide.size(); ++e) {
    wide[e] = std::int64_t(random());
    narrow[e] = std::int32_t(random());
    bits[e] = std::bit_cast<float>(std::uint32_t(random()));
    // Some special values and ties.
    if (e % 97 == 0) bits[e] = -0.0f;
    if (e % 89 == 0) bits[e] = 0.0f;
    if (e % 83 == 0) bits[e] = -std::numeric_limits<float>::infinity();
    if (e % 101 == 0) wide[e] = wide[e / 2];
  }
  Tensor few = lazy::round(random_input(DType::f32, {rows, extent}) * 0.3f);
  Tensor halves = random_input(DType::f32, {rows, extent});
  const std::vector<Tensor> inputs = {lazy::from_data(wide, {rows, extent}),
                                      lazy::from_data(narrow, {rows, extent}),
                                      lazy::from_data(bits, {rows, extent}),
                                      lazy::from_data(bits, {rows, extent}).to(DType::f16),
                                      lazy::from_data(bits, {rows, extent}).to(DType::bf16),
                                      few,
                                      few.to(DType::bf16),
                                      halves.to(DType::f16)};
  lazy::eval(inputs);
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (const Tensor& x : inputs)
          for (const Tensor& s : both_ways(x, 1)) out.push_back(s);
        for (const Tensor& x : {inputs[0], inputs[2], inputs[3]}) {
          for (bool largest : {true, false}) {
            lazy::ValuesAndIndices best = lazy::topk(x, 3000, 1, largest);
            out.push_back(best.values);
            out.push_back(best.indices);
          }
        }
        return out;
      },
      "every bit");
}

// A row skips the passes whose digit is the same for all its keys, each row of a launch its own:
// ids of a small range (the first 2 of 8 passes), one value (the first pass alone, which writes
// the row out), multiples of 256 (the first made pass is the second, reading the input), a byte
// that never differs between two that do (the buffers' turns shift), and rows of many tiles.
TEST_F(GpuSort, RowsSkipThePassesWhoseDigitNeverDiffers) {
  std::mt19937_64 random(lazy_test::fresh_seed());
  const std::int64_t extent = 30000;
  std::vector<std::int64_t> ids(5 * extent);
  for (std::int64_t e = 0; e < extent; ++e) {
    ids[e] = std::int64_t(random() % 65536);
    ids[extent + e] = -7;
    ids[2 * extent + e] = std::int64_t(random() % 300) * 256;
    ids[3 * extent + e] =
        std::int64_t(random() % 256) | std::int64_t(0x5a00) | std::int64_t(random() % 256) << 16;
    ids[4 * extent + e] = std::int64_t(random() % 5) - 2;
  }
  std::vector<std::int64_t> long_rows(2 * 300000);
  for (std::size_t e = 0; e < long_rows.size(); ++e)
    long_rows[e] = e < 300000 ? std::int64_t(random() % 1000) : 12345;
  const Tensor small = lazy::from_data(ids, {5, extent});
  const Tensor many_tiles = lazy::from_data(long_rows, {2, 300000});
  // One exponent, as f32 in [1, 2): the top byte of the keys never differs.
  const Tensor one_exponent = lazy::rand({2, 140000}, lazy_test::fresh_seed()) + 1.0f;
  lazy::eval({small, many_tiles, one_exponent});
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (const Tensor& x :
             {small, small.to(DType::i32), many_tiles, one_exponent, one_exponent.to(DType::bf16)})
          for (const Tensor& s : both_ways(x, 1)) out.push_back(s);
        for (bool largest : {true, false}) {
          lazy::ValuesAndIndices best = lazy::topk(small * 3, 3000, 1, largest);
          out.push_back(best.values);
          out.push_back(best.indices);
        }
        return out;
      },
      "rows of few distinct digits");
}

// Rows of 5 tiles of i64 keys (2048 each), 1000 in all, and 3 of i32 keys (4096 each), 600: the
// blocks counting digits take runs of 2 or 3 tiles (four or three blocks an SM, 132 SMs or 108),
// so runs straddle rows, each row's totals and bits gathered from two blocks; neighbouring rows
// make different passes (ids of a small range, a constant, every bit).
TEST_F(GpuSort, CountingRunsThatStraddleRowsOfDifferentPasses) {
  std::mt19937_64 random(lazy_test::fresh_seed());
  const std::int64_t rows = 200, extent = 8500;
  std::vector<std::int64_t> ids(rows * extent);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t e = 0; e < extent; ++e)
      ids[r * extent + e] = r % 3 == 0   ? std::int64_t(random() % 65536)
                            : r % 3 == 1 ? r - 100
                                         : std::int64_t(random());
  const Tensor x = lazy::from_data(ids, {rows, extent});
  lazy::eval({x});
  expect_matches_reference(
      [&] {
        std::vector<Tensor> out;
        for (const Tensor& t : {x, x.to(DType::i32)})
          for (const Tensor& s : both_ways(t, 1)) out.push_back(s);
        return out;
      },
      "rows straddled by counting runs");
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
  // One kernel: a launch clearing counts, one counting digits (computing exp(x * 0.5) where it
  // reads the row), and one for each radix pass over 8 of the f32 keys' 32 bits, the first
  // computing exp(x * 0.5) again.
  EXPECT_EQ(lazy::stats().kernels_generated, 1);
  EXPECT_EQ(lazy::stats().kernel_launches, 2 + 4);
  expect_matches_reference(sorted, "sort(exp(x * 0.5))");
}

}  // namespace
