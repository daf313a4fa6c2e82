// Device memory through lazy/memory.h on the GPU: what is in use follows the tensors held, the
// peak of a multi-kernel step is its largest live set rather than the sum of its results, an
// Adam step needs little beyond its state, a memory limit fails the allocation past it at the
// user's line and the program goes on, and empty_cache gives cached memory back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr std::int64_t kMiB = std::int64_t(1) << 20;
constexpr const char* kLimitChildVariable = "LAZY_TEST_MEMORY_LIMIT_CHILD";

class GpuMemory : public lazy_test::GpuTest {
 protected:
  void SetUp() override {
    lazy_test::GpuTest::SetUp();
    lazy::wait();
  }
  void TearDown() override {
    lazy::set_memory_limit(0);
    lazy_test::GpuTest::TearDown();
  }
  static std::int64_t in_use() { return lazy::memory_stats().in_use_bytes; }
};

TEST_F(GpuMemory, InUseFollowsTheTensorsHeldAndThePeakKeepsTheMost) {
  const std::int64_t before = in_use();
  constexpr std::int64_t kElements = 16 * kMiB / 4;
  Tensor a = lazy::ones({kElements}) * 2.0f;
  lazy::eval({a});
  EXPECT_GE(in_use() - before, 16 * kMiB);
  Tensor b = a + 1.0f;
  lazy::eval({b});
  EXPECT_GE(in_use() - before, 32 * kMiB);
  const std::int64_t both = in_use();
  a = Tensor();
  b = Tensor();
  lazy::wait();
  EXPECT_LE(in_use(), both - 32 * kMiB);
  const lazy::MemoryStats stats = lazy::memory_stats();
  EXPECT_GE(stats.peak_bytes, both);
  EXPECT_GE(stats.reserved_bytes, stats.in_use_bytes);
  lazy::reset_peak_memory();
  EXPECT_EQ(lazy::memory_stats().peak_bytes, in_use());
}

// Each cumsum is a kernel of its own: a chain of 12 holds at most the input and two results at
// once, where keeping every result would hold 12.
TEST_F(GpuMemory, AMultiKernelStepsPeakIsItsLargestLiveSetNotTheSumOfItsResults) {
  constexpr std::int64_t kSide = 2048;  // 16 MiB of f32
  constexpr std::int64_t kBytes = kSide * kSide * 4;
  Tensor x = lazy_test::random_input(DType::f32, {kSide, kSide}) * 0.01f;
  lazy::wait();
  const std::int64_t before = in_use();
  lazy::reset_peak_memory();
  const std::int64_t launches = lazy::stats().kernel_launches;
  Tensor y = x;
  for (int k = 0; k < 12; ++k) y = lazy::cumsum(y, k % 2) * 0.5f;
  lazy::eval({y});
  lazy::wait();
  ASSERT_GE(lazy::stats().kernel_launches - launches, 12) << "the step's premise: 12 kernels";
  const std::int64_t extra = lazy::memory_stats().peak_bytes - before;
  EXPECT_LE(extra, 3 * kBytes) << "the peak over the input holds more than 3 results";
  EXPECT_GE(extra, kBytes);
}

// p, m and v are written over their old buffers (runtime/in_place_update.h), so the step needs
// only its temporaries beyond the state: at most a tenth of it here.
TEST_F(GpuMemory, AnAdamStepNeedsAtMostATenthMoreThanItsState) {
  constexpr std::int64_t kParams = std::int64_t(1) << 22;
  constexpr float kLr = 1e-3f, kBeta1 = 0.9f, kBeta2 = 0.999f, kEps = 1e-8f;
  lazy::wait();
  const std::int64_t others = in_use();  // what earlier tests left, such as workspaces
  Tensor p = lazy_test::random_input(DType::f32, {kParams});
  Tensor g = lazy_test::random_input(DType::f32, {kParams});
  Tensor m = lazy::zeros({kParams}) + 0.0f;
  Tensor v = lazy::zeros({kParams}) + 0.0f;
  lazy::eval({p, g, m, v});
  for (int step = 0; step < 3; ++step) {
    lazy::wait();
    const std::int64_t state = in_use();
    lazy::reset_peak_memory();
    m = kBeta1 * m + (1 - kBeta1) * g;
    v = kBeta2 * v + (1 - kBeta2) * lazy::square(g);
    p = p - kLr * m / (lazy::sqrt(v) + kEps);
    lazy::eval({p, m, v});
    lazy::wait();
    const double ratio = double(lazy::memory_stats().peak_bytes - others) / double(4 * kParams * 4);
    EXPECT_LE(ratio, 1.1) << "step " << step << ", with " << state << " bytes in use before";
  }
}

TEST_F(GpuMemory, AnAllocationPastTheLimitNamesTheOpTheLimitAndTheLineAndTheProgramGoesOn) {
  Tensor small = lazy::ones({1024}) + 1.0f;
  lazy::eval({small});
  lazy::set_memory_limit(in_use() + 4 * kMiB);
  EXPECT_EQ(lazy::memory_stats().limit_bytes, in_use() + 4 * kMiB);
  const int line = __LINE__ + 1;
  Tensor big = lazy::ones({16 * kMiB}) * 3.0f;
  try {
    lazy::eval({big});
    FAIL() << "a 64 MiB result fit under a limit 4 MiB above what was in use";
  } catch (const lazy::RuntimeError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("mul's result"), HasSubstr("memory limit"),
                                    HasSubstr("LAZY_MEMORY_LIMIT"), HasSubstr("67108864 bytes")));
    EXPECT_STREQ(error.where().file_name(), __FILE__);
    EXPECT_EQ(int(error.where().line()), line);
  }
  // Its handle dropped, the failed work is not retried, and work within the limit goes on.
  big = Tensor();
  EXPECT_EQ((small * 2.0f).to_vector<float>(), std::vector<float>(1024, 4.0f));
  // Failed work that is still held runs as recorded once the limit allows it.
  Tensor again = lazy::ones({16 * kMiB}) * 3.0f;
  EXPECT_THROW(lazy::eval({again}), lazy::RuntimeError);
  lazy::set_memory_limit(0);
  EXPECT_EQ(lazy::sum(again).item<float>(), 3.0f * float(16 * kMiB));
}

TEST_F(GpuMemory, ANegativeLimitIsAValueError) {
  EXPECT_THROW(lazy::set_memory_limit(-1), lazy::ValueError);
}

TEST_F(GpuMemory, EmptyCacheGivesTheCachedMemoryBack) {
  {
    Tensor big = lazy::ones({64 * kMiB}) + 1.0f;  // 256 MiB
    lazy::eval({big});
  }
  lazy::wait();
  const lazy::MemoryStats cached = lazy::memory_stats();
  ASSERT_GE(cached.reserved_bytes - cached.in_use_bytes, 256 * kMiB) << "the pool keeps it";
  lazy::empty_cache();
  const lazy::MemoryStats emptied = lazy::memory_stats();
  EXPECT_LT(emptied.reserved_bytes - emptied.in_use_bytes, 256 * kMiB);
  EXPECT_EQ(emptied.in_use_bytes, cached.in_use_bytes);
}

// LAZY_MEMORY_LIMIT is read when the device opens: in a child process.
TEST(GpuMemoryLimitChild, ReportsTheLimitFromTheEnvironment) {
  if (std::getenv(kLimitChildVariable) == nullptr)
    GTEST_SKIP() << "a child of TheLimitComesFromLazyMemoryLimit";
  if (lazy::runtime::Device::get() == nullptr) GTEST_SKIP() << "no CUDA device";
  std::printf("LIMIT %lld\n", static_cast<long long>(lazy::memory_stats().limit_bytes));
}

TEST_F(GpuMemory, TheLimitComesFromLazyMemoryLimit) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command = std::string(kLimitChildVariable) + "=1 LAZY_MEMORY_LIMIT=123456789 " +
                              self + " --gtest_filter=GpuMemoryLimitChild.* 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get())) output.append(buffer, n);
  EXPECT_THAT(output, HasSubstr("LIMIT 123456789")) << output;
}

}  // namespace
