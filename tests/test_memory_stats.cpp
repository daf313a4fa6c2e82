// lazy/memory.h where no GPU computes: every figure is 0 and the calls are harmless, and a
// negative limit is refused. tests/test_gpu_memory.cpp checks the figures on a GPU.
#include <gtest/gtest.h>

#include <string>

#include <lazy/lazy.h>

#include "runtime/device.h"

namespace {

TEST(MemoryStats, OnTheHostEveryFigureIsZero) {
  if (lazy::runtime::Device::get() != nullptr) GTEST_SKIP() << "a GPU computes here";
  lazy::Tensor x = lazy::ones({1 << 16}) + 1.0f;
  lazy::eval({x});
  lazy::set_memory_limit(1);
  lazy::reset_peak_memory();
  lazy::empty_cache();
  const lazy::MemoryStats stats = lazy::memory_stats();
  EXPECT_EQ(stats.in_use_bytes, 0);
  EXPECT_EQ(stats.peak_bytes, 0);
  EXPECT_EQ(stats.reserved_bytes, 0);
  EXPECT_EQ(stats.limit_bytes, 0);
  EXPECT_EQ((x * 2.0f).to_vector<float>().front(), 4.0f) << "a limit bounds only GPU memory";
}

TEST(MemoryStats, ANegativeLimitIsAValueErrorAtTheCallersLine) {
  const int line = __LINE__ + 2;
  try {
    lazy::set_memory_limit(-5);
    FAIL() << "expected lazy::ValueError";
  } catch (const lazy::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("got -5"), std::string::npos) << error.what();
    EXPECT_EQ(int(error.where().line()), line);
  }
}

}  // namespace
