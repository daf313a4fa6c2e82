// Kernels compiled in worker processes: the same CUBINs as in-process, errors with NVRTC's log,
// and a graceful "no workers" when the program is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "jit/compile_workers.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc.h"
#include "runtime/compile_scheduler.h"
#include "runtime/device.h"

namespace {

using lazy::jit::CompileRequest;

std::string kernel_source(int k) {
  return "extern \"C\" __global__ void k" + std::to_string(k) +
         "(float* p) { p[threadIdx.x] = " + std::to_string(k) + ".0f * p[threadIdx.x]; }";
}

// Compiles `count` kernels on two of `pool`'s workers, each of which must fail; returns how many
// failures say `reason`.
int failures_saying(lazy::jit::WorkerPool& pool, int count, std::string_view reason) {
  std::vector<CompileRequest> requests;
  for (int k = 0; k < count; ++k)
    requests.push_back({"k" + std::to_string(k), kernel_source(k), 90, {}});
  auto results = pool.compile(requests, 2);
  EXPECT_TRUE(results.has_value());
  if (!results) return -1;
  EXPECT_EQ(results->size(), requests.size());
  int saying = 0;
  for (const auto& result : *results) {
    EXPECT_FALSE(result.ok);
    if (result.log.find(reason) != std::string::npos) ++saying;
  }
  return saying;
}

class CompileWorkers : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    if (lazy::jit::find_worker_program().empty()) GTEST_SKIP() << "lazyfuse-nvrtc-worker not built";
  }
};

TEST_F(CompileWorkers, CompileManyKernelsAcrossProcesses) {
  std::vector<CompileRequest> requests;
  for (int k = 0; k < 6; ++k)
    requests.push_back({"k" + std::to_string(k), kernel_source(k), 90, {}});
  auto results = lazy::jit::compile_in_workers(requests, 3);
  ASSERT_TRUE(results.has_value());
  ASSERT_EQ(results->size(), requests.size());
  for (std::size_t i = 0; i < results->size(); ++i) {
    const auto& result = (*results)[i];
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_EQ(std::string(result.cubin.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_GT(result.seconds, 0.0);
  }
}

TEST_F(CompileWorkers, ACompileErrorComesBackWithTheLog) {
  std::vector<CompileRequest> requests = {{"good", kernel_source(1), 90, {}},
                                          {"bad", "this is not CUDA", 90, {}}};
  auto results = lazy::jit::compile_in_workers(requests, 2);
  ASSERT_TRUE(results.has_value());
  EXPECT_TRUE((*results)[0].ok);
  EXPECT_FALSE((*results)[1].ok);
  EXPECT_THAT((*results)[1].log, ::testing::HasSubstr("error"));
}

// /bin/true starts, reads nothing and exits: each worker fails the one request it took and takes
// no more, so every request comes back not ok (the caller then compiles it itself).
TEST_F(CompileWorkers, WorkersThatStopAnsweringLeaveRequestsNotOk) {
  lazy::jit::WorkerPool pool("/bin/true");
  pool.start(2);
  EXPECT_EQ(pool.running(), 2u);
  // One per worker; the other requests were never sent.
  EXPECT_EQ(failures_saying(pool, 5, "stopped answering"), 2);
  EXPECT_EQ(pool.running(), 0u);
}

// Found in review: a worker alive but stuck (here a script that sleeps) held the program forever;
// past LAZY_NVRTC_WORKER_TIMEOUT it is stopped and its request comes back not ok.
TEST_F(CompileWorkers, AWorkerThatHangsIsStoppedAfterItsTimeout) {
  const std::string script = testing::TempDir() + "/lazyfuse-hung-worker.sh";
  {
    std::FILE* file = std::fopen(script.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs("#!/bin/sh\nexec sleep 1000\n", file);
    std::fclose(file);
  }
  ASSERT_EQ(::chmod(script.c_str(), 0700), 0);
  ::setenv("LAZY_NVRTC_WORKER_TIMEOUT", "1", 1);
  lazy::jit::WorkerPool pool(script);
  pool.start(1);
  const std::vector<CompileRequest> requests = {{"k1", kernel_source(1), 90, {}}};
  const auto start = std::chrono::steady_clock::now();
  auto results = pool.compile(requests, 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::unsetenv("LAZY_NVRTC_WORKER_TIMEOUT");
  ASSERT_TRUE(results.has_value());
  EXPECT_FALSE((*results)[0].ok);
  EXPECT_THAT((*results)[0].log, ::testing::HasSubstr("stopped answering"));
  EXPECT_LT(seconds, 30.0);
  EXPECT_EQ(pool.running(), 0u);
}

// Found in review: a worker of another lazyfuse (an older install in ../bin, LAZY_NVRTC_WORKER
// pointing elsewhere) compiled its own templates into our kernels. A pool that names another
// build stands in for it: each worker refuses, exits and is not used again.
TEST_F(CompileWorkers, AWorkerOfAnotherBuildCompilesNothing) {
  lazy::jit::WorkerPool pool(lazy::jit::find_worker_program(),
                             {~lazy::jit::WorkerPool::this_build().lo, 7});
  pool.start(2);
  // One per worker; the caller compiles every request itself.
  EXPECT_EQ(failures_saying(pool, 4, "another lazyfuse"), 2);
  EXPECT_EQ(pool.running(), 0u);
}

// The device starts two workers while CUDA initialises, so a cold start's first sync (typically
// two or three new kernels) compiles them in parallel processes, not in one NVRTC.
TEST(CompileScheduling, ASyncOfAFewKernelsUsesWorkersOnlyWhenEnoughAreWarm) {
  using lazy::runtime::compiles_in_workers;
  EXPECT_FALSE(compiles_in_workers(1, 8, 16));  // one kernel: no process hop
  EXPECT_FALSE(compiles_in_workers(2, 0, 16));  // starting workers would cost more than it saves
  EXPECT_TRUE(compiles_in_workers(2, lazy::runtime::kWorkersStartedAhead, 16));
  EXPECT_FALSE(compiles_in_workers(3, 2, 16));
  EXPECT_TRUE(compiles_in_workers(lazy::jit::kMinKernelsForWorkers, 0, 16));
  EXPECT_FALSE(compiles_in_workers(8, 2, 1));  // LAZY_COMPILE_THREADS=1: all in-process
}

// Found in review: each layer of a model made the same kernel, and a cold sync compiled it once
// per layer (a 32-layer step: 33 compiles of 2 sources).
TEST(CompileScheduling, AKernelRepeatedInASyncCompilesOnce) {
  std::string why;
  if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  // Sources no cache holds: their constants are this run's clock.
  const int nonce = int(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
  auto kernel = [&](int k) {
    lazy::codegen::GeneratedKernel generated;
    generated.name = "k" + std::to_string(nonce + k);
    generated.source = kernel_source(nonce + k);
    return generated;
  };
  const std::vector<lazy::codegen::GeneratedKernel> kernels = {kernel(0), kernel(0), kernel(1),
                                                               kernel(0)};
  const auto lookups = lazy::runtime::compile_all(kernels, 90);
  ASSERT_EQ(lookups.size(), kernels.size());
  int compiled = 0;
  for (const auto& lookup : lookups) compiled += lookup.compiled();
  EXPECT_EQ(compiled, 2);
  EXPECT_TRUE(lookups[0].compiled());
  EXPECT_TRUE(lookups[2].compiled());
  for (const std::size_t repeat : {1, 3}) {
    EXPECT_EQ(lookups[repeat].origin, lazy::jit::KernelCache::Origin::memory);
    EXPECT_EQ(lookups[repeat].kernel, lookups[0].kernel);
  }
  EXPECT_NE(lookups[2].kernel, lookups[0].kernel);
}

TEST(CompileScheduling, TheDeviceStartsWorkersWhileCudaInitialises) {
  if (lazy::runtime::Device::get() == nullptr) GTEST_SKIP() << "no GPU: the device starts none";
  if (lazy::jit::find_worker_program().empty()) GTEST_SKIP() << "lazyfuse-nvrtc-worker not built";
  EXPECT_GE(lazy::jit::WorkerPool::instance().running(), lazy::runtime::kWorkersStartedAhead);
}

TEST_F(CompileWorkers, AMissingWorkerProgramIsNotFound) {
  ::setenv("LAZY_NVRTC_WORKER", "/nonexistent/lazyfuse-nvrtc-worker", 1);
  EXPECT_EQ(lazy::jit::find_worker_program(), "");
  ::unsetenv("LAZY_NVRTC_WORKER");
}

}  // namespace
