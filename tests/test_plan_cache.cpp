// The caches, through the stats API: a repeated step replays its plan and compiles nothing; a
// new batch size makes a new plan from the same kernels; a new scalar changes nothing. These run
// with or without a GPU (without one, kernels are still generated and compiled).
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "ir/trace.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc.h"
#include "runtime/device.h"
#include "runtime/plan_cache.h"

namespace {

class PlanCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    lazy::sync();
    lazy::runtime::clear_plan_cache();
    lazy::jit::KernelCache::instance().clear();
  }
  static bool on_gpu() { return lazy::runtime::Device::get() != nullptr; }

  // One quickstart step over [rows, 256] with the given scale.
  static float step(std::int64_t rows, float scale) {
    lazy::Tensor x = lazy::randn({rows, 256}, 1);
    lazy::Tensor bias = lazy::randn({256}, 2);
    lazy::eval({x, bias});
    lazy::reset_stats();
    lazy::Tensor y = lazy::gelu_tanh((x + bias) * scale) + x;
    return y.to_vector<float>()[0];
  }
};

TEST_F(PlanCache, FirstStepGeneratesAndCompilesOneKernel) {
  step(64, 1.2f);
  lazy::Stats s = lazy::stats();
  EXPECT_EQ(s.plan_misses, 1);
  EXPECT_EQ(s.kernels_generated, 1);
  EXPECT_EQ(s.nvrtc_compiles + s.disk_hits, 1);  // compiled, or loaded from an earlier run
  if (on_gpu()) EXPECT_EQ(s.kernel_launches, 1);
}

TEST_F(PlanCache, SecondStepGeneratesAndCompilesNothing) {
  step(64, 1.2f);
  step(64, 1.2f);
  lazy::Stats s = lazy::stats();
  EXPECT_EQ(s.plan_hits, 1);
  EXPECT_EQ(s.plan_misses, 0);
  EXPECT_EQ(s.kernels_generated, 0);
  EXPECT_EQ(s.nvrtc_compiles, 0);
  if (on_gpu()) EXPECT_EQ(s.kernel_launches, 1);
}

TEST_F(PlanCache, NewScalarValueChangesNothing) {
  float first = step(64, 1.2f);
  float second = step(64, 0.5f);
  lazy::Stats s = lazy::stats();
  EXPECT_EQ(s.plan_hits, 1);
  EXPECT_EQ(s.nvrtc_compiles, 0);
  EXPECT_NE(first, second);  // the new value was used
}

TEST_F(PlanCache, NewBatchSizeMakesANewPlanFromTheSameKernels) {
  step(64, 1.2f);
  step(128, 1.2f);
  lazy::Stats s = lazy::stats();
  EXPECT_EQ(s.plan_misses, 1);
  EXPECT_EQ(s.kernels_generated, 1);
  EXPECT_EQ(s.kernel_cache_hits, 1);
  EXPECT_EQ(s.nvrtc_compiles, 0);
  EXPECT_EQ(s.disk_hits, 0);  // from memory
}

TEST_F(PlanCache, UnfusedRunsEveryOpAsItsOwnKernel) {
  lazy::set_fusion_enabled(false);
  step(64, 1.2f);
  lazy::set_fusion_enabled(true);
  lazy::Stats s = lazy::stats();
  // add, mul, gelu_tanh, then the residual add.
  EXPECT_EQ(s.kernels_generated, 4);
  if (on_gpu()) EXPECT_EQ(s.kernel_launches, s.kernels_generated);
}

TEST_F(PlanCache, KernelCacheComparesTheSourceOnAHit) {
  auto& cache = lazy::jit::KernelCache::instance();
  const std::string source = "extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }";
  auto first = cache.get_or_compile("k", source, 90);
  auto again = cache.get_or_compile("k", source, 90);
  using Origin = lazy::jit::KernelCache::Origin;
  EXPECT_NE(first.origin, Origin::memory);
  EXPECT_EQ(again.origin, Origin::memory);
  EXPECT_EQ(first.kernel, again.kernel);
  auto other = cache.get_or_compile("k", source + " ", 90);
  EXPECT_NE(other.origin, Origin::memory);
  EXPECT_NE(other.kernel, first.kernel);
}

// Which inputs share memory is part of a plan's key (a kernel must not write over memory another
// input reads), for a few inputs (found by a scan) and for many (by a map).
TEST_F(PlanCache, KeySaysWhichInputsShareMemory) {
  for (const int count : {3, 20}) {
    // `count` inputs of [1, 4] at offset 0: views of one tensor, or each of its own tensor.
    auto key_of_sum = [count](bool shared) {
      const lazy::Tensor base = lazy::randn({4}, 1);
      std::vector<lazy::Tensor> inputs;
      for (int i = 0; i < count; ++i)
        inputs.push_back((shared ? base : lazy::randn({4}, std::uint64_t(i + 2))).unsqueeze(0));
      lazy::eval(inputs);
      lazy::Tensor total = inputs[0];
      for (int i = 1; i < count; ++i) total = total + inputs[std::size_t(i)];
      lazy::ir::Trace& trace = lazy::ir::Trace::current();
      EXPECT_EQ(trace.externals().size(), std::size_t(count));
      const lazy::ir::Hash128 key =
          lazy::runtime::plan_key(trace, trace.sync_key(), true, false, 90);
      trace.clear();
      return key;
    };
    EXPECT_NE(key_of_sum(true), key_of_sum(false)) << count << " inputs";
    EXPECT_EQ(key_of_sum(true), key_of_sum(true)) << count << " inputs";
    EXPECT_EQ(key_of_sum(false), key_of_sum(false)) << count << " inputs";
  }
}

}  // namespace
