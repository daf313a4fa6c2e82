// Shared by the tests of generated kernels without a GPU: the partition of what the thread has
// pending with every region's kernel, and a check that NVRTC compiles each to a CUBIN for sm_90.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/kernel_emitter.h"
#include "codegen/templates.h"
#include "fuse/partition.h"
#include "ir/trace.h"
#include "jit/nvrtc.h"

namespace lazy_test {

inline constexpr int kCodegenArch = 90;

struct Generated {
  lazy::fuse::Partition partition;
  std::vector<lazy::codegen::GeneratedKernel> kernels;
};

// Partitions what the thread has pending and generates every region's kernel.
inline Generated generate_pending(bool fusion = true, bool fast_math = false) {
  lazy::ir::Trace& trace = lazy::ir::Trace::current();
  const std::vector<bool> live = trace.live();
  Generated out;
  out.partition = lazy::fuse::partition(trace.pending(), live, trace.externals(), {fusion});
  for (const auto& region : out.partition.regions)
    out.kernels.push_back(lazy::codegen::generate_kernel(
        region, out.partition.graph.nodes, trace.externals(), {.fast_math = fast_math}));
  return out;
}

inline std::vector<char> compile_for_test(const lazy::codegen::GeneratedKernel& kernel) {
  std::vector<lazy::jit::InMemoryHeader> headers;
  for (const auto& t : lazy::codegen::embedded_templates()) headers.push_back({t.name, t.text});
  return lazy::jit::compile_to_cubin(kernel.source, kernel.name, kCodegenArch, kernel.nvrtc_options,
                                     headers);
}

// Every kernel compiles to an ELF CUBIN (its source is printed when one does not).
inline void expect_compiles(const Generated& g) {
  for (const auto& kernel : g.kernels) {
    std::vector<char> cubin = compile_for_test(kernel);
    ASSERT_GE(cubin.size(), 4u);
    EXPECT_EQ(std::string(cubin.data(), 4),
              "\x7f"
              "ELF")
        << kernel.source;
  }
}

}  // namespace lazy_test
