// How device failures reach the user, without a GPU: fake CUresult codes go through the code that
// turns a failed driver call into an error; a sticky one loses the context once, naming the
// kernels that may have caused it, and every later use gets a short error. Buffers larger than
// the GPU are refused before anything is allocated, naming the op, the bytes and the user's line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <lazy/lazy.h>

#include "fuse/partition.h"
#include "ir/trace.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_failures.h"
#include "runtime/kernel_label.h"
#include "runtime/output_memory.h"

namespace {

using lazy::RuntimeError;
using lazy::runtime::DeviceFailures;
using lazy::runtime::KernelLabel;
using lazy::runtime::LaunchLog;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Stand-ins for loaded kernels: only their addresses are used.
CUfunction fake_function(int n) {
  return reinterpret_cast<CUfunction>(std::uintptr_t(0x1000 + 16 * n));
}

KernelLabel fake_label(int n, std::source_location where = std::source_location::current()) {
  return {"lz_fake" + std::to_string(n) + " (ops at app.cpp:" + std::to_string(10 + n) + ")",
          where};
}

// The error fail() throws, or an empty one if it did not throw a lazy::RuntimeError.
std::string failure_message(DeviceFailures& failures, CUresult result, std::string_view what) {
  try {
    failures.fail(result, what);
  } catch (const RuntimeError& error) {
    return error.what();
  }
  return "";
}

TEST(StickyErrors, KernelFaultsAndGpuFailuresAreSticky) {
  for (CUresult result :
       {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_INSTRUCTION,
        CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_HARDWARE_STACK_ERROR, CUDA_ERROR_ASSERT}) {
    EXPECT_TRUE(lazy::runtime::is_sticky_cuda_error(result)) << result;
  }
}

TEST(StickyErrors, CallErrorsAndOutOfMemoryAreNot) {
  for (CUresult result : {CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE,
                          CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_INVALID_IMAGE}) {
    EXPECT_FALSE(lazy::runtime::is_sticky_cuda_error(result)) << result;
  }
}

TEST(StickyErrors, AreNamedWithOrWithoutADriver) {
  EXPECT_EQ(lazy::runtime::cuda_error_name(CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST(DeviceFailures, AnOrdinaryFailureNamesTheCallAndLeavesTheContextUsable) {
  DeviceFailures failures("GPU 0 (Fake)");
  EXPECT_THAT(failure_message(failures, CUDA_ERROR_INVALID_VALUE, "cuMemsetD8Async"),
              HasSubstr("cuMemsetD8Async failed"));
  EXPECT_FALSE(failures.lost());
  EXPECT_NO_THROW(failures.check_usable());
}

TEST(DeviceFailures, AStickyErrorBlamesTheKernelNotTheCallThatReturnedIt) {
  DeviceFailures failures("GPU 0 (Fake)");
  const auto where = std::source_location::current();
  failures.launches().label(fake_function(1), fake_label(1, where));
  failures.launches().record(fake_function(1));
  try {
    failures.fail(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemAllocAsync of 64 bytes");
    FAIL() << "no error";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("CUDA context of GPU 0 (Fake) is lost"),
                      HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS"),
                      HasSubstr("The kernel that failed: lz_fake1 (ops at app.cpp:11)"),
                      HasSubstr("every later sync"), HasSubstr("LAZY_SYNC_LAUNCHES=1"),
                      HasSubstr("LAZY_DEBUG=1"), HasSubstr("compute-sanitizer")));
    EXPECT_EQ(error.where().line(), where.line());
    EXPECT_STREQ(error.where().file_name(), where.file_name());
  }
  EXPECT_TRUE(failures.lost());
}

TEST(DeviceFailures, KernelsBeforeASuccessfulSynchronizationAreNotSuspects) {
  DeviceFailures failures("GPU 0 (Fake)");
  LaunchLog& launches = failures.launches();
  for (int n : {1, 2}) launches.label(fake_function(n), fake_label(n));
  launches.record(fake_function(1));
  launches.synchronized(launches.mark());
  launches.record(fake_function(2));
  EXPECT_THAT(failure_message(failures, CUDA_ERROR_LAUNCH_FAILED, "cuStreamSynchronize"),
              AllOf(HasSubstr("The kernel that failed: lz_fake2"), Not(HasSubstr("lz_fake1"))));
}

TEST(DeviceFailures, SeveralSuspectsAreNamedUpToTheLastFew) {
  DeviceFailures failures("GPU 0 (Fake)");
  LaunchLog& launches = failures.launches();
  for (int n = 0; n < 10; ++n) {
    launches.label(fake_function(n), fake_label(n));
    launches.record(fake_function(n));
  }
  const std::string message =
      failure_message(failures, CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemAllocAsync of 64 bytes");
  EXPECT_THAT(message, AllOf(HasSubstr("one of the 10 kernels launched since the last successful "
                                       "synchronization (the last 8, oldest first)"),
                             HasSubstr("report a fault at a later call")));
  EXPECT_THAT(message, Not(HasSubstr("lz_fake1 ")));
  for (int n = 2; n < 10; ++n) EXPECT_THAT(message, HasSubstr("lz_fake" + std::to_string(n)));
}

TEST(DeviceFailures, NoKernelSinceTheLastSynchronizationBlamesTheGpu) {
  DeviceFailures failures("GPU 0 (Fake)");
  EXPECT_THAT(failure_message(failures, CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemcpyDtoHAsync"),
              HasSubstr("No kernel was launched since the last successful synchronization"));
}

TEST(DeviceFailures, LaterUsesThrowAShortErrorNamingTheSameCulprit) {
  DeviceFailures failures("GPU 0 (Fake)");
  failures.launches().label(fake_function(1), fake_label(1));
  failures.launches().record(fake_function(1));
  failure_message(failures, CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemAllocAsync of 64 bytes");
  try {
    failures.check_usable();
    FAIL() << "no error";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(),
                AllOf(HasSubstr("GPU 0 (Fake) was lost earlier"),
                      HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS in kernel lz_fake1"),
                      HasSubstr("restart the program"), Not(HasSubstr("cuMemAllocAsync"))));
  }
  // The driver keeps returning the error; it is not reported as new.
  EXPECT_THAT(failure_message(failures, CUDA_ERROR_ILLEGAL_ADDRESS, "cuStreamSynchronize"),
              AllOf(HasSubstr("was lost earlier"), Not(HasSubstr("cuStreamSynchronize"))));
}

class RecordedGraph : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { lazy::ir::Trace::current().clear(); }
};

TEST_F(RecordedGraph, AKernelLabelNamesTheUsersLinesOfItsOps) {
  lazy::Tensor x = lazy::from_data(std::vector<float>{1, 2, 3}, {3});
  const int exp_line = __LINE__ + 1;
  lazy::Tensor y = lazy::exp(x);
  const int mul_line = __LINE__ + 1;
  lazy::Tensor z = y * 2.0f;
  lazy::ir::Trace& trace = lazy::ir::Trace::current();
  const std::vector<bool> live = trace.live();
  lazy::fuse::Partition partition =
      lazy::fuse::partition(trace.pending(), live, trace.externals(), {true});
  ASSERT_EQ(partition.regions.size(), 1u);  // y and z, same shape: one kernel
  const KernelLabel label =
      lazy::runtime::kernel_label("lz_exp_mul", partition.regions[0], partition.graph.nodes);
  const std::string file = __FILE__;
  EXPECT_EQ(label.text, "lz_exp_mul (ops at " + file + ":" + std::to_string(exp_line) + ", " +
                            file + ":" + std::to_string(mul_line) + ")");
  EXPECT_STREQ(label.where.file_name(), __FILE__);
  EXPECT_EQ(int(label.where.line()), exp_line);
}

TEST_F(RecordedGraph, ABufferLargerThanTheGpuIsRefusedNamingTheOpBytesAndLine) {
  const int line = __LINE__ + 1;
  lazy::Tensor big = lazy::zeros({std::int64_t(1) << 36}) * 2.0f;
  lazy::ir::Trace& trace = lazy::ir::Trace::current();
  lazy::runtime::Plan plan;
  plan.kernels.emplace_back();
  plan.kernels.back().outputs.push_back(
      {big.node()->trace_index, false, lazy::f32, std::int64_t(1) << 36});
  const std::size_t gpu_bytes = std::size_t(80) << 30;
  try {
    lazy::runtime::check_plan_fits(plan, trace.pending(), trace.externals(), gpu_bytes,
                                   "GPU 0 (Fake)");
    FAIL() << "no error";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("mul's result, [68719476736] f32"),
                                    HasSubstr("274877906944 bytes (256.0 GiB)"),
                                    HasSubstr("more than GPU 0 (Fake) has in all"),
                                    HasSubstr("nothing was allocated")));
    EXPECT_STREQ(error.where().file_name(), __FILE__);
    EXPECT_EQ(int(error.where().line()), line);
  }
  EXPECT_NO_THROW(lazy::runtime::check_plan_fits(plan, trace.pending(), trace.externals(),
                                                 std::size_t(300) << 30, "GPU 0 (Fake)"));
}

}  // namespace
