// Threads on a GPU: each queues on its own stream, so independent loops give the results one
// thread gives; a tensor computed by one thread and read by another is read only once written,
// and memory one thread reads stays untouched however soon its owner drops it.
#include <cmath>
#include <thread>
#include <vector>

#include "gpu_test_support.h"

namespace {

using lazy::Tensor;
using lazy_test::GpuTest;

class ThreadsTest : public GpuTest {};

// The loop of bench_host's threads workload, on values made from `seed`.
std::vector<float> run_loop(int seed, int steps, double* total) {
  std::vector<float> start(2048);
  for (std::size_t i = 0; i < start.size(); ++i)
    start[i] = std::sin(float(seed * 7919 + int(i)) * 0.001f);
  Tensor x = lazy::from_data(start, {2048});
  *total = 0;
  for (int step = 0; step < steps; ++step) {
    x = lazy::tanh(x * 1.01f + 0.1f) * 0.5f + x * 0.5f;
    *total += lazy::sum(x).item<float>();
  }
  return x.to_vector<float>();
}

TEST_F(ThreadsTest, IndependentLoopsGiveWhatOneThreadGives) {
  constexpr int kThreads = 8, kSteps = 40;
  std::vector<std::vector<float>> want(kThreads), got(kThreads);
  std::vector<double> want_total(kThreads), got_total(kThreads);
  for (int t = 0; t < kThreads; ++t) want[t] = run_loop(t, kSteps, &want_total[t]);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { got[t] = run_loop(t, kSteps, &got_total[t]); });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(got[t], want[t]) << "thread " << t;  // the same kernels on the same values
    EXPECT_EQ(got_total[t], want_total[t]) << "thread " << t;
  }
}

// A long kernel on the main thread's stream writes what other threads read at once.
TEST_F(ThreadsTest, OtherThreadsReadATensorOnlyOnceItIsWritten) {
  Tensor w = lazy::randn({1 << 24}, lazy_test::fresh_seed());
  for (int round = 0; round < 6; ++round) w = lazy::sin(w * 1.5f) + lazy::cos(w);
  lazy::eval({w});  // queued, not waited for; outputs are poisoned first
  constexpr int kThreads = 4;
  std::vector<double> got(kThreads);
  std::vector<std::thread> threads;
  // Powers of two scale exactly, so each sum is the main thread's times the factor.
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { got[t] = lazy::sum(w * float(1 << t)).item<double>(); });
  for (std::thread& thread : threads) thread.join();
  const double base = lazy::sum(w).item<double>();
  const double magnitude = lazy::sum(lazy::abs(w)).item<double>();
  ASSERT_TRUE(std::isfinite(base));
  for (int t = 0; t < kThreads; ++t)
    EXPECT_NEAR(got[t], base * (1 << t), 1e-6 * magnitude * (1 << t)) << "thread " << t;
}

// The reader's kernel is still running when the writer drops the tensor and fills fresh
// memory of the same size: the reader's stream holds the memory, so its result is intact.
TEST_F(ThreadsTest, MemoryAnotherThreadReadsIsNotReusedUnderIt) {
  for (int round = 0; round < 3; ++round) {
    Tensor shared = lazy::rand({1 << 22}, lazy_test::fresh_seed()) + 1.0f;
    const double want = lazy::sum(shared).item<double>();
    double got = 0;
    std::thread reader([&got, copy = shared]() mutable {
      Tensor heavy = copy;
      for (int k = 0; k < 12; ++k) heavy = lazy::sqrt(lazy::exp(lazy::log(heavy)) * heavy);
      Tensor total = lazy::sum(heavy / heavy * copy);
      lazy::eval({total});  // queued; the handles go before it runs
      copy = Tensor();
      heavy = Tensor();
      got = total.item<double>();
    });
    shared = Tensor();
    std::vector<Tensor> overwrite;  // the freed size again, written at once
    for (int k = 0; k < 4; ++k) overwrite.push_back(lazy::full({1 << 22}, -1000.0f) * 2.0f);
    lazy::eval(overwrite);
    reader.join();
    EXPECT_NEAR(got, want, 1e-4 * std::abs(want)) << "round " << round;
  }
}

// One compiled step replayed from several threads at once: its graph keeps intermediates that
// every thread's launch writes, and each call's results must still be its own.
TEST_F(ThreadsTest, AFunctionReplayedFromSeveralThreadsGivesEachItsOwnResults) {
  lazy::Function step([](std::span<const Tensor> in) {
    Tensor h = lazy::exp(in[0] * 0.5f) + 1.0f;
    Tensor p = lazy::softmax(h, -1);
    return std::vector<Tensor>{p * lazy::sum(h, -1, true), lazy::mean(p, 0)};
  });
  constexpr int kThreads = 4, kCalls = 25;
  std::vector<std::vector<Tensor>> inputs(kThreads);
  for (auto& mine : inputs)
    for (int call = 0; call < kCalls; ++call)
      mine.push_back(lazy_test::random_input(lazy::DType::f32, {32, 48}));
  (void)step({inputs[0][0]});  // the capture
  std::vector<std::vector<std::vector<Tensor>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int call = 0; call < kCalls; ++call) got[t].push_back(step({inputs[t][call]}));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int call = 0; call < kCalls; ++call) {
      const Tensor& x = inputs[t][call];
      Tensor h = lazy::exp(x * 0.5f) + 1.0f;
      Tensor p = lazy::softmax(h, -1);
      const std::vector<Tensor> want = {p * lazy::sum(h, -1, true), lazy::mean(p, 0)};
      for (std::size_t k = 0; k < want.size(); ++k) {
        lazy_test::expect_close(got[t][call][k].to_vector<double>(), want[k].to_vector<double>(),
                                1e-5,
                                "thread " + std::to_string(t) + " call " + std::to_string(call) +
                                    " output " + std::to_string(k));
      }
    }
  }
}

}  // namespace
