// The kernels compiled at build time (jit/shipped_kernels.h): sound entries, found for a
// program's random inputs on an empty cache instead of compiled, off with LAZY_SHIPPED_KERNELS=0,
// and on a GPU equal to the reference.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <lazy/lazy.h>

#include "gpu_test_support.h"
#include "ir/settings.h"
#include "jit/cache_files.h"
#include "jit/shipped_kernels.h"
#include "runtime/device.h"
#include "runtime/plan_cache.h"

namespace {

using lazy::DType;
using lazy::jit::shipped_kernels;
using lazy::jit::ShippedKernel;

// The arch kernels are compiled for in this process: the GPU's, else LAZY_ARCH's, else sm_90.
int arch_in_use() {
  if (lazy::runtime::Device* device = lazy::runtime::Device::get()) return device->sm_arch();
  std::optional<std::string> text = lazy::ir::text_setting(lazy::ir::Setting::arch);
  if (!text) return 90;
  return std::atoi(text->c_str() + (text->starts_with("sm_") ? 3 : 0));
}

bool ships_for(int arch) {
  for (const ShippedKernel& shipped : shipped_kernels())
    if (shipped.arch == arch) return true;
  return false;
}

// Empty kernel and plan caches, in memory and on disk, and zero counters: a cold start.
void start_cold() {
  lazy::clear_kernel_cache();
  lazy::runtime::clear_plan_cache();
  lazy::reset_stats();
}

class ScopedShippedKernelsOff {
 public:
  ScopedShippedKernelsOff() { ::setenv("LAZY_SHIPPED_KERNELS", "0", 1); }
  ~ScopedShippedKernelsOff() { ::unsetenv("LAZY_SHIPPED_KERNELS"); }
};

TEST(ShippedKernels, EveryEntryHoldsItsKeyAKernelSourceAndACubin) {
  if (shipped_kernels().empty())
    GTEST_SKIP() << "no kernels shipped: built with LAZY_SHIP_KERNELS=OFF, or without NVRTC";
  for (const ShippedKernel& shipped : shipped_kernels()) {
    const std::optional<lazy::ir::Hash128> header_key = lazy::jit::cache_entry_key(shipped.entry);
    ASSERT_TRUE(header_key.has_value()) << shipped.key;
    const lazy::ir::Hash128 key = *header_key;
    EXPECT_EQ(key.to_hex(), shipped.key);
    const lazy::jit::CacheEntryParts parts = lazy::jit::parse_cache_entry(shipped.entry, key);
    ASSERT_EQ(parts.rejected, nullptr) << shipped.key << ": " << parts.rejected;
    EXPECT_NE(parts.text.find("extern \"C\" __global__"), std::string_view::npos) << shipped.key;
    EXPECT_GT(parts.payload.size(), 1000u) << shipped.key;
    EXPECT_GE(shipped.nvrtc.major, 12);
  }
}

// The quickstart's inputs: two random tensors of one shape and one of another, in one sync.
void eval_quickstart_inputs(std::int64_t rows) {
  lazy::Tensor x = lazy::randn({rows, 4096}, 1);
  lazy::Tensor bias = lazy::randn({4096}, 2);
  lazy::Tensor residual = lazy::randn({rows, 4096}, 3);
  lazy::eval({x, bias, residual});
}

TEST(ShippedKernels, AProgramsRandomInputsCompileNothingOnAnEmptyCache) {
  if (!ships_for(arch_in_use())) GTEST_SKIP() << "no kernels shipped for sm_" << arch_in_use();
  start_cold();
  eval_quickstart_inputs(lazy::on_gpu() ? 16384 : 256);
  lazy::Stats stats = lazy::stats();
  EXPECT_EQ(stats.nvrtc_compiles, 0);
  EXPECT_EQ(stats.shipped_kernel_hits, 2);  // [rows, 4096] twice in one kernel, [4096] alone

  // Each float dtype, each width of thread group, one and two outputs, a scaled draw.
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    for (std::int64_t size : {3, 5000, 70000, 140000, 300000, 600000, 3000000}) {
      start_cold();
      lazy::eval({lazy::rand({size}, 4, dtype), lazy::rand({size}, 5, dtype)});
      const lazy::Tensor scaled = lazy::randn({size}, 6, dtype) * 0.5f;
      lazy::eval({scaled});
      lazy::eval({lazy::randn({size / 3 + 1, 3}, 7, dtype)});
      EXPECT_EQ(lazy::stats().nvrtc_compiles, 0) << lazy::dtype_name(dtype) << " " << size;
      EXPECT_EQ(lazy::stats().shipped_kernel_hits, 3) << lazy::dtype_name(dtype) << " " << size;
    }
  }
}

TEST(ShippedKernels, OffTheSameSyncCompilesWithNvrtc) {
  if (!ships_for(arch_in_use())) GTEST_SKIP() << "no kernels shipped for sm_" << arch_in_use();
  ScopedShippedKernelsOff off;
  start_cold();
  eval_quickstart_inputs(lazy::on_gpu() ? 16384 : 256);
  EXPECT_EQ(lazy::stats().nvrtc_compiles, 2);
  EXPECT_EQ(lazy::stats().shipped_kernel_hits, 0);
}

TEST(ShippedKernels, AKernelNotShippedStillCompiles) {
  start_cold();
  lazy::Tensor x = lazy::randn({1000}, 8);
  lazy::eval({lazy::exp(x) + 1.0f});  // not a factory on its own: nothing shipped matches
  EXPECT_EQ(lazy::stats().nvrtc_compiles, 1);
  EXPECT_EQ(lazy::stats().shipped_kernel_hits, 0);
}

class GpuShippedKernels : public lazy_test::GpuTest {};

TEST_F(GpuShippedKernels, ComputeWhatTheReferenceDoes) {
  if (!ships_for(arch_in_use())) GTEST_SKIP() << "no kernels shipped for sm_" << arch_in_use();
  const std::uint64_t seed = lazy_test::fresh_seed();
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    for (std::int64_t size : {3, 70000, 300000, 3000000}) {
      start_cold();
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " + std::to_string(size);
      // Uniform draws are exact in both; normal draws differ by f32 rounding of log/cos.
      lazy_test::expect_matches_reference(
          [&] {
            return std::vector{lazy::rand({size}, seed, dtype),
                               lazy::rand({size}, seed + 1, dtype)};
          },
          "rand " + what, 0.0);
      lazy_test::expect_matches_reference(
          [&] {
            const lazy::Tensor scaled = lazy::randn({size}, seed, dtype) * 0.02f;
            return std::vector{scaled};
          },
          "randn " + what);
      EXPECT_EQ(lazy::stats().nvrtc_compiles, 0) << what;
      EXPECT_EQ(lazy::stats().shipped_kernel_hits, 2) << what;
    }
  }
}

}  // namespace
