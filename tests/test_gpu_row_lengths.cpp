// Kernels that take their sizes at run time (runtime/size_variants.h): row kernels with every
// shape of row the launch distinguishes, skinny products of every weight shape and kernels of
// several concatenations match the reference, a stream of new row lengths compiles each kernel
// structure once for its first length and once a vector width, and new weight shapes past
// LAZY_SPECIALIZED_PRODUCT_SHAPES, or stencil shapes past LAZY_SPECIALIZED_CONCAT_SHAPES, compile
// nothing. Skipped without a GPU.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "runtime/plan_cache.h"
#include "runtime/size_variants.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::GpuTest;
using lazy_test::kSumTolerance;
using lazy_test::random_input;

// Kernels this process did not have: compiled or loaded from disk.
std::int64_t new_kernels() {
  const lazy::Stats stats = lazy::stats();
  return stats.nvrtc_compiles + stats.disk_hits;
}

class SizesAtRunTime : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    lazy::runtime::set_all_sizes_at_run_time(true);
    lazy::runtime::clear_plan_cache();
  }
  void TearDown() override {
    lazy::runtime::set_all_sizes_at_run_time(false);
    lazy::runtime::clear_plan_cache();
    GpuTest::TearDown();
  }
};

// Lengths of one element, of a slice of a warp, a warp, several warps, a whole block of threads
// and more than a block's four groups a thread (several trips of the loop that loads groups
// ahead, single elements and vectors); odd ones leave the last threads idle.
TEST_F(SizesAtRunTime, EveryRowLengthMatchesTheReference) {
  for (std::int64_t extent : {1, 2, 5, 33, 100, 1000, 1025, 4096, 5000, 40000, 40001}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const Tensor x = random_input(dtype, {67, extent});
      const Tensor w = random_input(dtype, {extent});
      const Tensor b = random_input(dtype, {extent});
      const std::string what =
          std::string(lazy::dtype_name(dtype)) + " rows of " + std::to_string(extent);
      const double tol = dtype == DType::f32 ? kSumTolerance : lazy_test::tolerance_for(dtype);
      expect_matches_reference(
          [&] {
            return std::vector{lazy::softmax(x), lazy::log_softmax(x), lazy::sum(x, -1),
                               lazy::var(x, -1)};
          },
          what, tol);
      expect_matches_reference(
          [&] {
            return std::vector{lazy::layer_norm(x, w, b), lazy::rms_norm(x + b, w)};
          },
          what + " norms", tol);
      expect_matches_reference([&] { return std::vector{lazy::argmax(x, -1)}; }, what, 0);
    }
  }
}

// One row of the whole tensor, bool rows, and a mask broadcast over heads (rows that walk two
// strided groups of kept axes).
TEST_F(SizesAtRunTime, OneRowBoolRowsAndBroadcastMasks) {
  const Tensor x = random_input(DType::f32, {3000});
  const Tensor flags = random_input(DType::bool_, {64, 37});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::softmax(x), lazy::sum(x), lazy::any(flags, -1),
                           lazy::all(flags, -1)};
      },
      "one row and bool rows", kSumTolerance);
  const Tensor scores = random_input(DType::f32, {2, 4, 9, 70});
  const Tensor mask = random_input(DType::bool_, {2, 1, 9, 70});
  expect_matches_reference(
      [&] { return std::vector{lazy::softmax(lazy::where(mask, scores, -1e4f))}; },
      "masked softmax", kSumTolerance);
}

// Rows that allow no vectors though their length would (a strided view, a view one element
// off), single elements loaded ahead several trips, and bool rows in vectors of 16.
TEST_F(SizesAtRunTime, StridedAndOffsetRowsAndBoolVectorsMatchTheReference) {
  const Tensor x = random_input(DType::f32, {9, 40002});
  const Tensor flags = random_input(DType::bool_, {33, 4096});
  const Tensor w = random_input(DType::f32, {40000});
  const Tensor b = random_input(DType::f32, {40000});
  expect_matches_reference(
      [&] {
        const Tensor every_other = x.slice(1, 0, std::nullopt, 2);
        const Tensor one_off = x.slice(1, 1, 40001);
        return std::vector{
            lazy::softmax(every_other), lazy::sum(every_other, -1), lazy::layer_norm(one_off, w, b),
            lazy::argmax(one_off, -1),  lazy::sum(flags, -1),       lazy::any(flags, -1)};
      },
      "strided, offset and bool rows", kSumTolerance);
}

// Several concatenations in one kernel (rolls, a replicate pad's slices, a cat of computed
// parts) with every size and offset an argument; a tail past the warps' tiles, bf16 and i32.
TEST_F(SizesAtRunTime, SeveralConcatenationsMatchTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    for (const lazy::Shape& shape : {lazy::Shape{37, 1001}, lazy::Shape{3, 5}}) {
      const Tensor u = random_input(dtype, shape);
      expect_matches_reference(
          [&] {
            const Tensor padded = lazy::pad(u, {1, 2, 2, 1}, lazy::PadMode::replicate);
            return std::vector{lazy::roll(u, 1, 0) + lazy::roll(u, -2, 1) * u,
                               padded.slice(0, 3, shape[0] + 3).slice(1, 0, shape[1]) +
                                   lazy::cat({u * 2, u + 1}, 1).slice(1, 1, shape[1] + 1)};
          },
          std::string(lazy::dtype_name(dtype)) + " " + shape.to_string());
    }
  }
}

// Products of at most 16 rows (a decode step's linear) with the weight's shape an argument: every
// epilogue, rows from 1 to 16, K from one chunk to long, N off the 16-column tiles.
TEST_F(SizesAtRunTime, SkinnyProductsOfEveryShapeMatchTheReference) {
  struct Size {
    std::int64_t rows, n, k;
  };
  for (const Size size : {Size{1, 8, 8}, Size{5, 40, 72}, Size{16, 1000, 256}, Size{3, 64, 8192}}) {
    const Tensor x = random_input(DType::bf16, {size.rows, size.k});
    const Tensor w = random_input(DType::bf16, {size.n, size.k});
    const Tensor b = random_input(DType::bf16, {size.n});
    const Tensor r = random_input(DType::bf16, {size.rows, size.n});
    const std::string what =
        std::to_string(size.rows) + "x" + std::to_string(size.n) + "x" + std::to_string(size.k);
    const double tol = lazy_test::tolerance_for(DType::bf16) + 2e-7 * std::sqrt(double(size.k));
    expect_matches_reference(
        [&] {
          return std::vector{lazy::linear(x, w), lazy::gelu_tanh(r + lazy::linear(x, w, b))};
        },
        what, tol);
  }
}

using RowLengthVariants = GpuTest;

// A softmax and layer_norm step over a new row length each time: the first length, then one
// kernel for every other length of each vector width (odd lengths take single elements, even
// ones pairs, multiples of 4 vectors of 4) and of each way of reading the row (held in registers
// up to 2048 groups, looped over past that), and the first length's kernel again when it comes
// back. (Rows of one element are a structure of their own: the weight is the same for every
// element.)
TEST_F(RowLengthVariants, NewLengthsCompileEachStructureOnceAVectorWidthPastTheFirst) {
  const std::vector<std::int64_t> lengths = {77, 301, 4000, 1234, 4097, 9,
                                             77, 2,   1002, 301,  64,   2049};
  // Inputs first: their own kernels are not the ones counted.
  std::vector<std::vector<Tensor>> inputs;
  for (std::int64_t extent : lengths) {
    inputs.push_back({random_input(DType::f32, {13, extent}), random_input(DType::f32, {extent}),
                      random_input(DType::f32, {extent})});
  }
  std::int64_t after_widths = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const Tensor &x = inputs[i][0], &w = inputs[i][1], &b = inputs[i][2];
    expect_matches_reference(
        [&] {
          // A structure no other test compiles.
          return std::vector{lazy::layer_norm(lazy::softmax(x * 0.37f) + x, w, b, 1e-3)};
        },
        "rows of " + std::to_string(lengths[i]), kSumTolerance);
    if (i == 4) after_widths = new_kernels();
  }
  EXPECT_EQ(new_kernels(), after_widths)
      << "a row length of a vector width already seen compiled a kernel";
}

// Past LAZY_SPECIALIZED_PRODUCT_SHAPES (8) weight shapes of one structure, a new shape compiles no
// kernel: the one taking its sizes at run time serves it.
TEST_F(RowLengthVariants, NewWeightShapesPastTheLimitCompileNothing) {
  std::vector<std::vector<Tensor>> inputs;  // first: their own kernels are not the ones counted
  for (std::int64_t n = 24; n < 24 + 8 * 12; n += 8) {
    inputs.push_back({random_input(DType::f16, {4, 48}), random_input(DType::f16, {n, 48}),
                      random_input(DType::f16, {n})});
  }
  std::int64_t after_limit = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &x = inputs[i][0], &w = inputs[i][1], &b = inputs[i][2];
    // A structure no other test compiles: f16 with bias and gelu_tanh, K = 48.
    expect_matches_reference([&] { return std::vector{lazy::gelu_tanh(lazy::linear(x, w, b))}; },
                             "weight of " + std::to_string(w.shape()[0]) + " rows",
                             lazy_test::tolerance_for(DType::f16) + 2e-6);
    if (i == 8) after_limit = new_kernels();
  }
  EXPECT_EQ(new_kernels(), after_limit) << "a weight shape past the limit compiled a kernel";
}

// Past LAZY_SPECIALIZED_CONCAT_SHAPES (8) shapes of one stencil, a new shape compiles no kernel.
TEST_F(RowLengthVariants, NewStencilShapesPastTheLimitCompileNothing) {
  // Widths that keep groups of 4 elements a thread: one structure (iteration_space.h).
  std::vector<Tensor> grids;  // first: their own kernels are not the ones counted
  for (std::int64_t width = 64; width < 64 + 12 * 4; width += 4)
    grids.push_back(random_input(DType::f32, {4096, width}));
  std::int64_t after_limit = 0;
  for (std::size_t i = 0; i < grids.size(); ++i) {
    const Tensor& u = grids[i];
    // A structure no other test compiles.
    expect_matches_reference(
        [&] { return std::vector{lazy::roll(u, 3, 0) * 0.25f - lazy::roll(u, -5, 1) + u * 0.5f}; },
        "grid " + u.shape().to_string());
    if (i == 8) after_limit = new_kernels();
  }
  EXPECT_EQ(new_kernels(), after_limit) << "a stencil shape past the limit compiled a kernel";
}

}  // namespace
