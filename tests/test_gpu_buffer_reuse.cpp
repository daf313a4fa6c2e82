// Kernels that write their output into the memory of an input they read last (in-place buffer
// reuse, runtime/buffer_reuse.h) compute the same values as the reference: pointwise kernels
// with vectors, tails and strided neighbours, and row kernels whose rows are held, looped,
// shared by a warp or one element long. Outputs that take no memory are poisoned first, so a
// reused one that were poisoned too would show.
#include <gtest/gtest.h>

#include <string>

#include <lazy/lazy.h>

#include "gpu_test_support.h"
#include "ir/trace.h"
#include "runtime/plan_builder.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_input;

constexpr DType kFloatingDTypes[] = {DType::f32, DType::f16, DType::bf16};

// Normalizations sum in f32 in another order than the double reference; low-precision results
// round once where the reference rounds each op.
double tolerance(DType dtype) {
  return dtype == DType::f32 ? 1e-4 : lazy_test::tolerance_for(dtype);
}

// Multiples of `step` of spread about 2 * step, which every dtype here holds exactly: products
// of such tensors over few terms are exact, so the GPU and the reference softmax the same scores
// (a low-precision score a rounding apart would move exp of it by a few percent).
Tensor exact_input(DType dtype, const Shape& shape, float step) {
  Tensor x = (lazy::round(lazy::randn(shape, lazy_test::fresh_seed()) * 2.0f) * step).to(dtype);
  lazy::eval({x});
  return x;
}

// Outputs whose memory the plan of the recorded work takes from a dying input.
int planned_reuses() {
  lazy::ir::Trace& trace = lazy::ir::Trace::current();
  const std::vector<bool> live = trace.live();
  const int arch = lazy::runtime::Device::get()->sm_arch();
  auto plan = lazy::runtime::build_plan(trace, live, lazy::fusion_enabled(), false, nullptr, arch);
  int count = 0;
  for (const auto& kernel : plan->kernels)
    for (const auto& out : kernel.outputs) count += out.reuses.has_value();
  return count;
}

class GpuBufferReuse : public lazy_test::GpuTest {
 protected:
  void TearDown() override {
    lazy::set_fusion_enabled(fusion_);
    lazy_test::GpuTest::TearDown();
  }
  const bool fusion_ = lazy::fusion_enabled();

  // `program`'s plan writes `reuses` outputs into dying inputs, and its values match the
  // reference.
  static void expect_reuses_and_values(const std::function<std::vector<Tensor>()>& program,
                                       int reuses, const std::string& what, DType dtype) {
    {
      std::vector<Tensor> outputs = program();
      EXPECT_EQ(planned_reuses(), reuses) << what;
      lazy::eval(outputs);
    }
    lazy_test::expect_matches_reference(program, what, tolerance(dtype));
  }
};

TEST_F(GpuBufferReuse, SwigluWrittenIntoTheGateProductMatches) {
  for (DType dtype : kFloatingDTypes) {
    Tensor x = random_input(dtype, {256, 64});
    Tensor wg = random_input(dtype, {512, 64}), wu = random_input(dtype, {512, 64});
    expect_reuses_and_values(
        [&] { return std::vector{lazy::silu(lazy::linear(x, wg)) * lazy::linear(x, wu)}; }, 1,
        "swiglu " + std::string(lazy::dtype_name(dtype)), dtype);
  }
}

TEST_F(GpuBufferReuse, ElementsPastTheLastVectorMatch) {
  // 37 * 53 elements: the last ones are done one at a time.
  Tensor x = random_input(DType::f32, {37, 64});
  Tensor wg = random_input(DType::f32, {53, 64}), wu = random_input(DType::f32, {53, 64});
  expect_reuses_and_values(
      [&] { return std::vector{lazy::silu(lazy::linear(x, wg)) * lazy::linear(x, wu)}; }, 1,
      "swiglu [37, 53]", DType::f32);
}

TEST_F(GpuBufferReuse, AKernelWithAStridedNeighbourMatches) {
  // The product is read in place beside an input read transposed: multi-index offsets.
  Tensor x = random_input(DType::f32, {96, 64}), w = random_input(DType::f32, {128, 64});
  Tensor other = random_input(DType::f32, {128, 96});
  expect_reuses_and_values(
      [&] { return std::vector{lazy::silu(lazy::linear(x, w)) * other.transpose(0, 1)}; }, 1,
      "product beside a transposed input", DType::f32);
}

TEST_F(GpuBufferReuse, TwoOutputsTakingTwoInputsMatch) {
  Tensor x = random_input(DType::bf16, {128, 64});
  Tensor wg = random_input(DType::bf16, {256, 64}), wu = random_input(DType::bf16, {256, 64});
  expect_reuses_and_values(
      [&] {
        Tensor g = lazy::linear(x, wg), u = lazy::linear(x, wu);
        return std::vector{lazy::silu(g) * u, g - u};
      },
      2, "two outputs", DType::bf16);
}

TEST_F(GpuBufferReuse, SoftmaxWrittenIntoItsScoresMatches) {
  // Rows a warp shares (24, and 37 rows: idle lanes), rows held by a block, looped rows, and
  // rows of one element (read once per row).
  const Shape scores[] = {{37, 24}, {64, 4096}, {4, 65536}, {64, 1}};
  for (DType dtype : kFloatingDTypes) {
    for (const Shape& shape : scores) {
      Tensor q = exact_input(dtype, {shape[0], 16}, 0.25f);
      Tensor k = exact_input(dtype, {shape[1], 16}, 1.0f);
      expect_reuses_and_values(
          [&] { return std::vector{lazy::softmax(lazy::matmul(q, k.transpose(0, 1)), -1)}; }, 1,
          "softmax " + shape.to_string() + " " + std::string(lazy::dtype_name(dtype)), dtype);
    }
  }
}

TEST_F(GpuBufferReuse, NormWrittenIntoItsInputMatches) {
  // The row is read by the reduction and again by the final phase, by the same threads.
  for (DType dtype : kFloatingDTypes) {
    Tensor x = random_input(dtype, {64, 64});
    Tensor w = random_input(dtype, {2048, 64}), weight = random_input(dtype, {2048});
    expect_reuses_and_values(
        [&] { return std::vector{lazy::rms_norm(lazy::linear(x, w), weight)}; }, 1,
        "rms_norm " + std::string(lazy::dtype_name(dtype)), dtype);
  }
}

TEST_F(GpuBufferReuse, AChainOfReusesMatches) {
  // Without fusion each op is a kernel, and each takes the memory of the one before.
  lazy::set_fusion_enabled(false);
  for (DType dtype : {DType::f32, DType::bf16}) {
    Tensor x = random_input(dtype, {96, 64});
    Tensor wg = random_input(dtype, {128, 64}), wu = random_input(dtype, {128, 64});
    expect_reuses_and_values(
        [&] {
          Tensor h = lazy::silu(lazy::linear(x, wg)) * lazy::linear(x, wu);
          return std::vector{h * 0.5f + 1.0f};
        },
        4, "unfused swiglu " + std::string(lazy::dtype_name(dtype)), dtype);
  }
}

}  // namespace
