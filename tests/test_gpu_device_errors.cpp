// Device failures on a real GPU: a buffer larger than the GPU and an allocation it has no room for
// throw errors naming the op and the user's line, and the program goes on; a kernel that faults
// loses the context, which is reported once naming the kernel, then shortly at every later sync
// (in a child process, since a lost context cannot be recovered).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "gpu_test_support.h"
#include "jit/kernel_cache.h"
#include "runtime/device.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Set in the child process that loses its context on purpose.
constexpr const char* kChildVariable = "LAZY_TEST_LOSE_CONTEXT";

class GpuDeviceErrors : public lazy_test::GpuTest {};

// First: the child needs room for a context, which the out-of-memory test's pool keeps.
// Run in the child only: launches a kernel that writes through a null pointer, then syncs twice
// and prints each error.
TEST(GpuContextLossChild, LosesTheContext) {
  if (std::getenv(kChildVariable) == nullptr)
    GTEST_SKIP() << "a child of ALostContextIsReportedOnce...";
  lazy::runtime::Device* device = lazy::runtime::Device::get();
  ASSERT_NE(device, nullptr);
  const std::string source =
      "extern \"C\" __global__ void lz_faulty(float* p) { p[threadIdx.x] = 1.0f; }\n";
  auto lookup =
      lazy::jit::KernelCache::instance().get_or_compile("lz_faulty", source, device->sm_arch());
  CUfunction function =
      device->get_function(device->load_module(lookup.kernel->cubin), "lz_faulty");
  device->label_kernel(function,
                       {"lz_faulty (ops at faulty.cpp:7)", std::source_location::current()});
  const std::uint64_t null_pointer = 0;
  device->launch(function, 1, 32, std::as_bytes(std::span(&null_pointer, 1)));
  for (const char* which : {"FIRST", "LATER"}) {
    try {
      (lazy::ones({1024}) + 1.0f).to_vector<float>();
      std::printf("%s: no error\n", which);
    } catch (const lazy::RuntimeError& error) {
      std::printf("%s: %s\n", which, error.what());
    }
  }
}

TEST_F(GpuDeviceErrors, ALostContextIsReportedOnceNamingTheKernelThenShortly) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command = std::string(kChildVariable) + "=1 " + self +
                              " --gtest_filter=GpuContextLossChild.LosesTheContext 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get())) output.append(buffer, n);
  const std::size_t later = output.find("LATER: ");
  ASSERT_NE(later, std::string::npos) << output;
  const std::string first = output.substr(0, later);
  EXPECT_THAT(first, AllOf(HasSubstr("FIRST: lazyfuse: the CUDA context of GPU"),
                           HasSubstr("is lost: CUDA_ERROR_ILLEGAL_ADDRESS"),
                           HasSubstr("The kernel that failed: lz_faulty (ops at faulty.cpp:7)"),
                           HasSubstr("LAZY_DEBUG=1"), HasSubstr("compute-sanitizer")))
      << output;
  EXPECT_THAT(output.substr(later),
              AllOf(HasSubstr("was lost earlier (CUDA_ERROR_ILLEGAL_ADDRESS in kernel lz_faulty"),
                    Not(HasSubstr("cuMemAllocFromPoolAsync"))))
      << output;
}

TEST_F(GpuDeviceErrors, ABufferLargerThanTheGpuThrowsBeforeAllocatingAndTheProgramGoesOn) {
  const std::size_t total = lazy::runtime::Device::get()->total_memory();
  {
    const int line = __LINE__ + 1;
    lazy::Tensor big = lazy::zeros({std::int64_t(total / 4 + 1)}) * 2.0f;
    try {
      lazy::eval({big});
      FAIL() << "no error";
    } catch (const lazy::RuntimeError& error) {
      EXPECT_THAT(error.what(), AllOf(HasSubstr("mul's result"), HasSubstr("bytes"),
                                      HasSubstr("nothing was allocated")));
      EXPECT_STREQ(error.where().file_name(), __FILE__);
      EXPECT_EQ(int(error.where().line()), line);
    }
  }
  EXPECT_EQ((lazy::ones({4}) + 1.0f).to_vector<float>(), std::vector<float>(4, 2.0f));
}

TEST_F(GpuDeviceErrors, AnAllocationTheGpuHasNoRoomForNamesTheOpAndTheProgramGoesOn) {
  // Tensors of a third of the GPU each: the third or fourth cannot fit.
  const auto third = std::int64_t(lazy::runtime::Device::get()->total_memory() / 3 / 4);
  std::vector<lazy::Tensor> held;
  bool thrown = false;
  for (int k = 0; k < 4 && !thrown; ++k) {
    const int line = __LINE__ + 1;
    held.push_back(lazy::zeros({third}) + 1.0f);
    try {
      lazy::eval({held.back()});
    } catch (const lazy::RuntimeError& error) {
      thrown = true;
      EXPECT_THAT(error.what(), AllOf(HasSubstr("add's result"), HasSubstr("has no room left")));
      EXPECT_STREQ(error.where().file_name(), __FILE__);
      EXPECT_EQ(int(error.where().line()), line);
    }
  }
  EXPECT_TRUE(thrown);
  held.clear();
  EXPECT_EQ((lazy::ones({4}) + 1.0f).to_vector<float>(), std::vector<float>(4, 2.0f));
}

}  // namespace
