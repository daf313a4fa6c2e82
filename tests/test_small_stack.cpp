// Syncs on a thread with a small stack (thread pools, musl's 128 KB default): the library's walks
// over a graph recurse once per fused op, so each level must stay small. A 128-op chain took
// 3.5 KB a level and overflowed 384 KB.
#include <pthread.h>

#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "fuse/partition.h"
#include "lazy/lazy.h"

namespace {

constexpr std::size_t kSmallStack = 128 * 1024;

// Runs `body` on a new thread with a stack of `bytes`.
void run_on_small_stack(std::function<void()> body, std::size_t bytes = kSmallStack) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &body), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

const std::vector<float> kInputs = {-1.5f, -0.25f, 0.5f, 2.0f};

TEST(SmallStack, APointwiseChainLongerThanAKernelSyncs) {
  const int ops = 2 * lazy::fuse::kMaxFusedDepth;
  std::vector<float> got;
  run_on_small_stack([&] {
    lazy::Tensor y = lazy::from_data(kInputs, {4});
    for (int i = 0; i < ops / 2; ++i) y = lazy::sin(y) * 1.5f;
    got = y.to_vector<float>();
  });
  ASSERT_EQ(got.size(), kInputs.size());
  for (std::size_t i = 0; i < kInputs.size(); ++i) {
    double want = kInputs[i];
    for (int k = 0; k < ops / 2; ++k) want = float(float(std::sin(float(want))) * 1.5f);
    EXPECT_NEAR(got[i], want, 1e-4) << "element " << i;
  }
}

TEST(SmallStack, TheGradientOfAChainAsDeepAsAKernelSyncs) {
  const int ops = lazy::fuse::kMaxFusedDepth;
  std::vector<float> got;
  run_on_small_stack([&] {
    auto chain = [&](std::span<const lazy::Tensor> args) {
      lazy::Tensor y = args[0];
      for (int i = 0; i < ops / 2; ++i) y = y * 0.98f + 0.125f;
      return lazy::sum(y);
    };
    const std::vector<lazy::Tensor> x = {lazy::from_data(kInputs, {4})};
    got = lazy::grad(chain)(x)[0].to_vector<float>();
  });
  ASSERT_EQ(got.size(), kInputs.size());
  for (float g : got) EXPECT_NEAR(g, std::pow(0.98, ops / 2), 1e-5);
}

TEST(SmallStack, AChainOfRowReductionsSyncs) {
  std::vector<float> got;
  run_on_small_stack([&] {
    lazy::Tensor y = lazy::from_data(kInputs, {2, 2});
    for (int i = 0; i < lazy::fuse::kMaxFusedDepth; ++i)
      y = (y - lazy::mean(y, {1}, true)) * 1.01f + 0.5f;
    got = y.to_vector<float>();
  });
  // Each step centres the rows, scales them by 1.01 and adds 0.5.
  std::vector<double> want(kInputs.begin(), kInputs.end());
  for (int i = 0; i < lazy::fuse::kMaxFusedDepth; ++i) {
    for (int r = 0; r < 2; ++r) {
      const double mean = (want[2 * r] + want[2 * r + 1]) / 2;
      for (int c = 0; c < 2; ++c) want[2 * r + c] = (want[2 * r + c] - mean) * double(1.01f) + 0.5;
    }
  }
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * std::abs(want[i]) + 1e-5) << "element " << i;
}

}  // namespace
