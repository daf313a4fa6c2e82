// Eager syncs that hit one plan again and again replay it as a CUDA graph from the third hit on:
// each sync's numbers and inputs reach the graph, earlier results are left alone, and a plan
// whose intermediates are large keeps the plain replay.
#include <barrier>
#include <cmath>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "runtime/eager_graphs.h"

namespace {

using lazy::Tensor;
using lazy_test::GpuTest;
using lazy_test::random_input;

class EagerGraphTest : public GpuTest {};

TEST_F(EagerGraphTest, ALoopReplaysAsAGraphWithEachStepsNumbers) {
  const Tensor x = random_input(lazy::DType::f32, {1000});
  std::vector<Tensor> results;
  std::vector<std::int64_t> graph_launches;
  constexpr int kSteps = 8;
  for (int step = 0; step < kSteps; ++step) {
    const float s = 0.5f + float(step);
    const std::int64_t before = lazy::stats().graph_launches;
    results.push_back(lazy::tanh(x * s) + s);
    lazy::eval({results.back()});
    graph_launches.push_back(lazy::stats().graph_launches - before);
  }
  // A miss, then kEagerHitsBeforeGraph plain hits, then graphs.
  for (int step = 0; step < kSteps; ++step) {
    EXPECT_EQ(graph_launches[std::size_t(step)],
              step > lazy::runtime::kEagerHitsBeforeGraph ? 1 : 0)
        << "step " << step;
  }
  // Read only now: a later step writing into an earlier step's result would show.
  const std::vector<double> xs = x.to_vector<double>();
  for (int step = 0; step < kSteps; ++step) {
    const double s = 0.5 + step;
    std::vector<double> want(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) want[i] = std::tanh(xs[i] * s) + s;
    lazy_test::expect_close(results[std::size_t(step)].to_vector<double>(), want,
                            lazy_test::tolerance_for(lazy::DType::f32),
                            "step " + std::to_string(step));
  }
}

TEST_F(EagerGraphTest, NewInputsHeldIntermediatesAndViewsMatchTheReference) {
  const std::int64_t before = lazy::stats().graph_launches;
  for (int step = 0; step < 7; ++step) {
    // exp(a * scale) below about 30: a softmax of values near 1e4 turns the last ulp of each
    // into a relative error of 1e-3, far above f32's tolerance.
    const Tensor a = random_input(lazy::DType::f32, {24, 40}) * 0.2f;
    const Tensor b = random_input(lazy::DType::f32, {24, 40});
    lazy::eval({a});
    const float scale = 0.25f * float(step + 1);
    lazy_test::expect_matches_reference(
        [&] {
          Tensor h = lazy::exp(a * scale) + b;
          Tensor p = lazy::softmax(h, -1);
          return std::vector<Tensor>{p * lazy::sum(h, -1, true), lazy::mean(p, 0),
                                     h.transpose(0, 1).slice(0, 1, 30, 3)};
        },
        "step " + std::to_string(step));
  }
  EXPECT_GE(lazy::stats().graph_launches - before, 1);
}

TEST_F(EagerGraphTest, APlanWithLargeIntermediatesKeepsThePlainReplay) {
  const Tensor x = random_input(lazy::DType::f32, {1024, 1024});
  const std::int64_t before = lazy::stats().graph_launches;
  for (int step = 0; step < 6; ++step) {
    // The transpose cannot be reshaped as strides: 4 MiB written and read back, held by nobody.
    Tensor y =
        lazy::sum((x * float(step)).transpose(0, 1).reshape({1 << 20}) * x.reshape({1 << 20}));
    lazy::eval({y});
  }
  EXPECT_EQ(lazy::stats().graph_launches - before, 0);
}

// Each thread replays its own graph of the plan: CUDA orders every launch of one graph exec after
// the previous, so with one shared graph the threads would wait for each other's kernels (or fall
// back to the plain replay while another thread holds it).
TEST_F(EagerGraphTest, ThreadsReplayingOnePlanAtOnceEachLaunchTheirOwnGraph) {
  const Tensor x = random_input(lazy::DType::f32, {2048});
  const auto step = [&](float s) { return lazy::tanh(x * s) * 0.5f + s; };
  for (int warm = 0; warm <= lazy::runtime::kEagerHitsBeforeGraph; ++warm) lazy::eval({step(1.0f)});

  constexpr int kThreads = 4;
  constexpr int kSteps = 50;
  std::barrier start(kThreads);
  std::vector<std::vector<Tensor>> results(kThreads);
  const std::int64_t before = lazy::stats().graph_launches;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kSteps; ++i) {
        results[std::size_t(t)].push_back(step(0.25f + float(t * kSteps + i) / 64));
        lazy::eval({results[std::size_t(t)].back()});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(lazy::stats().graph_launches - before, kThreads * kSteps);

  const std::vector<double> xs = x.to_vector<double>();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kSteps; ++i) {
      const double s = double(0.25f + float(t * kSteps + i) / 64);
      std::vector<double> want(xs.size());
      for (std::size_t e = 0; e < xs.size(); ++e) want[e] = std::tanh(xs[e] * s) * 0.5 + s;
      lazy_test::expect_close(results[std::size_t(t)][std::size_t(i)].to_vector<double>(), want,
                              lazy_test::tolerance_for(lazy::DType::f32),
                              "thread " + std::to_string(t) + " step " + std::to_string(i));
    }
  }
}

}  // namespace
