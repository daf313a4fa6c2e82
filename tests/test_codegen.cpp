// Generated kernels, without a GPU: partitions of varied graphs turn into CUDA sources that NVRTC
// compiles for sm_90, and the sources read like the user's code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "codegen/pointwise_kernel.h"
#include "codegen/templates.h"
#include "fuse/partition.h"
#include "ir/trace.h"
#include "jit/nvrtc.h"

namespace {

using lazy::ir::Trace;
using ::testing::HasSubstr;

constexpr int kArch = 90;

struct Generated {
  lazy::fuse::Partition partition;
  std::vector<lazy::codegen::GeneratedKernel> kernels;
};

// Partitions what the thread has pending and generates every region's kernel, then forgets it.
Generated generate_pending(bool fusion = true) {
  Trace& trace = Trace::current();
  std::vector<bool> live;
  for (const auto& node : trace.pending()) live.push_back(node->handles.load() > 0);
  Generated out;
  out.partition = lazy::fuse::partition(trace.pending(), live, trace.externals(), {fusion});
  for (const auto& region : out.partition.regions)
    out.kernels.push_back(
        lazy::codegen::generate_pointwise(region, trace.pending(), trace.externals()));
  return out;
}

std::vector<char> compile(const lazy::codegen::GeneratedKernel& kernel) {
  std::vector<lazy::jit::InMemoryHeader> headers;
  for (const auto& t : lazy::codegen::embedded_templates()) headers.push_back({t.name, t.text});
  return lazy::jit::compile_to_cubin(kernel.source, kernel.name, kArch, {}, headers);
}

class Codegen : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    lazy::sync();
  }
  void TearDown() override { Trace::current().clear(); }

  void expect_compiles(const Generated& g) {
    for (const auto& kernel : g.kernels) {
      std::vector<char> cubin = compile(kernel);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(std::string(cubin.data(), 4),
                "\x7f"
                "ELF")
          << kernel.source;
    }
  }
};

TEST_F(Codegen, QuickstartChainIsOneKernelThatCompiles) {
  lazy::Tensor x = lazy::randn({64, 4096}, 1);
  lazy::Tensor bias = lazy::randn({4096}, 2);
  lazy::Tensor residual = lazy::randn({64, 4096}, 3);
  lazy::eval({x, bias, residual});
  lazy::Tensor y = lazy::gelu_tanh((x + bias) * 1.2f) + residual;
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_THAT(source, HasSubstr("test_codegen.cpp:"));
  EXPECT_THAT(source, HasSubstr("lz_tanh("));
  EXPECT_THAT(g.kernels[0].name, HasSubstr("lz_add_mul"));
  EXPECT_EQ(g.kernels[0].vector_width, 4);
  expect_compiles(g);
  std::printf("%s\n", source.c_str());
}

}  // namespace
