// Row kernels that take their row length at run time (runtime/row_length_variants.h): every
// shape of row the launch distinguishes matches the reference, and a stream of new lengths
// compiles each kernel structure at most twice. Skipped without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "runtime/plan_cache.h"
#include "runtime/row_length_variants.h"

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

class RowLengthsAtRunTime : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    lazy::runtime::set_all_row_lengths_at_run_time(true);
    lazy::runtime::clear_plan_cache();
  }
  void TearDown() override {
    lazy::runtime::set_all_row_lengths_at_run_time(false);
    lazy::runtime::clear_plan_cache();
    GpuTest::TearDown();
  }
};

// Lengths of one element, of a slice of a warp, a warp, several warps, a whole block of threads
// and more than a block's four elements a thread; odd ones leave the last threads idle.
TEST_F(RowLengthsAtRunTime, EveryRowLengthMatchesTheReference) {
  for (std::int64_t extent : {1, 2, 5, 33, 100, 1000, 1025, 4096, 5000}) {
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
TEST_F(RowLengthsAtRunTime, OneRowBoolRowsAndBroadcastMasks) {
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

using RowLengthVariants = GpuTest;

// A softmax and layer_norm step over a new row length each time: the first length and one
// kernel for every other one, and the first length's kernel again when it comes back. (Rows of
// one element are a structure of their own: the weight is the same for every element.)
TEST_F(RowLengthVariants, NewLengthsCompileEachStructureAtMostTwice) {
  const std::vector<std::int64_t> lengths = {77, 301, 9, 4000, 77, 2, 1234, 301, 64, 2049};
  // Inputs first: their own kernels are not the ones counted.
  std::vector<std::vector<Tensor>> inputs;
  for (std::int64_t extent : lengths) {
    inputs.push_back({random_input(DType::f32, {13, extent}), random_input(DType::f32, {extent}),
                      random_input(DType::f32, {extent})});
  }
  std::int64_t after_two = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const Tensor &x = inputs[i][0], &w = inputs[i][1], &b = inputs[i][2];
    expect_matches_reference(
        [&] {
          // A structure no other test compiles.
          return std::vector{lazy::layer_norm(lazy::softmax(x * 0.37f) + x, w, b, 1e-3)};
        },
        "rows of " + std::to_string(lengths[i]), kSumTolerance);
    if (i == 1) after_two = new_kernels();
  }
  EXPECT_EQ(new_kernels(), after_two) << "a row length past the second compiled a kernel";
}

}  // namespace
