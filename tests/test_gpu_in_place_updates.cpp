// Results written over the memory of an input that nothing else holds (runtime/in_place_update.h)
// on the GPU: an update whose old value the user let go lands in the old buffer and is right; a
// held old value, or a view of it, keeps its memory and its values; an optimizer's state stays in
// the same buffers step after step, also when the step replays as a CUDA graph.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_input;

class GpuInPlaceUpdates : public lazy_test::GpuTest {
 protected:
  void SetUp() override {
    lazy_test::GpuTest::SetUp();
    lazy::reset_stats();
  }

  static const void* memory_of(const Tensor& t) { return t.node()->data->storage.get(); }

  static std::vector<double> values(const Tensor& t) {
    const std::vector<float> f = t.to(DType::f32).to_vector<float>();
    return {f.begin(), f.end()};
  }
};

TEST_F(GpuInPlaceUpdates, AnUpdateNobodyElseHoldsIsWrittenOverTheOldValue) {
  for (const DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    Tensor p = random_input(dtype, {257, 33});
    const Tensor g = random_input(dtype, {257, 33});
    const std::vector<double> p0 = values(p), g0 = values(g);  // leaves a host copy of p too
    const void* memory = memory_of(p);
    const std::int64_t before = lazy::stats().in_place_updates;
    p = p * 0.5f - g;
    lazy::eval({p});
    EXPECT_EQ(lazy::stats().in_place_updates - before, 1) << lazy::dtype_name(dtype);
    EXPECT_EQ(memory_of(p), memory);
    std::vector<double> want(p0.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = p0[i] * 0.5 - g0[i];
    lazy_test::expect_close(values(p), want, lazy_test::tolerance_for(dtype),
                            std::string(lazy::dtype_name(dtype)), 0);
  }
}

TEST_F(GpuInPlaceUpdates, AHeldOldValueKeepsItsMemoryAndValues) {
  const Tensor p = random_input(DType::f32, {1000});
  const std::vector<double> p0 = values(p);
  const Tensor next = p * 0.5f + 1.0f;
  lazy::eval({next});
  EXPECT_EQ(lazy::stats().in_place_updates, 0);
  EXPECT_NE(memory_of(next), memory_of(p));
  EXPECT_EQ(values(p), p0);
}

TEST_F(GpuInPlaceUpdates, AViewOfTheOldValueKeepsItsValues) {
  Tensor p = random_input(DType::f32, {40, 25});
  const Tensor rows = p.reshape({1000});  // shares p's memory once computed
  lazy::eval({rows});
  const std::vector<double> p0 = values(rows);
  p = p * 2.0f + 1.0f;
  lazy::eval({p});
  EXPECT_EQ(lazy::stats().in_place_updates, 0);
  EXPECT_EQ(values(rows), p0);
}

TEST_F(GpuInPlaceUpdates, SoftmaxOfAnInputNobodyHoldsIsWrittenOverIt) {
  Tensor x = random_input(DType::f32, {64, 300});
  const std::vector<double> x0 = values(x);
  const void* memory = memory_of(x);
  x = lazy::softmax(x, -1);
  lazy::eval({x});
  EXPECT_EQ(lazy::stats().in_place_updates, 1);
  EXPECT_EQ(memory_of(x), memory);
  std::vector<double> want(x0.size());
  for (std::size_t row = 0; row < 64; ++row) {
    double top = -INFINITY, total = 0;
    for (std::size_t i = 0; i < 300; ++i) top = std::max(top, x0[row * 300 + i]);
    for (std::size_t i = 0; i < 300; ++i) total += std::exp(x0[row * 300 + i] - top);
    for (std::size_t i = 0; i < 300; ++i)
      want[row * 300 + i] = std::exp(x0[row * 300 + i] - top) / total;
  }
  lazy_test::expect_close(values(x), want, 1e-5, "softmax", 0);
}

// Another thread's stream is not the memory's home: work queued there since may still read it.
TEST_F(GpuInPlaceUpdates, AnotherThreadsUpdateTakesNewMemory) {
  Tensor p = random_input(DType::f32, {2048});
  const std::vector<double> p0 = values(p);
  const void* memory = memory_of(p);
  Tensor next;
  std::thread([&, moved = std::move(p)]() mutable {
    next = moved * 0.5f;
    moved = Tensor();
    lazy::eval({next});
  }).join();
  EXPECT_EQ(lazy::stats().in_place_updates, 0);
  EXPECT_NE(memory_of(next), memory);
  std::vector<double> want(p0.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = p0[i] * 0.5;
  lazy_test::expect_close(values(next), want, 1e-6, "next", 0);
}

// Found in review: a buffer another thread had read once was then written in place by its home
// thread behind slow work; the other thread's next read waited on the event of its first read,
// long done, and summed the old values.
TEST_F(GpuInPlaceUpdates, AReadOnAnotherThreadWaitsForAnUpdateAfterItsEarlierRead) {
  Tensor p = random_input(DType::f32, {1 << 22});
  lazy::eval({random_input(DType::f32, {1 << 22}) * 2.0f});  // compiled now, not behind the work
  Tensor shared = p;
  std::thread([&] { (void)lazy::sum(shared).item<double>(); }).join();  // read once, released
  shared = Tensor();
  // Slow work on this thread's stream (about 0.2 s), then the update behind it.
  Tensor m = lazy::randn({8192, 8192}, 9) * 1e-4f;
  lazy::eval({m});
  for (int i = 0; i < 10; ++i) m = lazy::matmul(m, m);
  lazy::eval({m});
  p = p * 2.0f;
  lazy::eval({p});
  EXPECT_EQ(lazy::stats().in_place_updates, 1) << "the update was not written in place";
  shared = p;
  double seen = 0;
  std::thread([&] { seen = lazy::sum(shared).item<double>(); }).join();
  const double truth = lazy::sum(p).item<double>();
  EXPECT_NEAR(seen, truth, 1e-4 * std::fabs(truth) + 1e-2)
      << "the other thread read the values from before the update";
}

// Found in review: a sync whose second kernel went past the memory limit, after its first had
// written over its input, kept its recorded work; the retry read the written-over input and
// halved p twice. Now the work is dropped: p is either right or an error to use, never wrong.
TEST_F(GpuInPlaceUpdates, AFailureAfterAnUpdateInPlaceNeverLeavesAWrongValue) {
  constexpr std::int64_t kCount = 1 << 20;
  lazy::set_fusion_enabled(false);  // two kernels: the update, then the cast
  Tensor p = random_input(DType::f32, {kCount});
  const std::vector<double> p0 = values(p);
  lazy::set_memory_limit(lazy::memory_stats().in_use_bytes + 4 * kCount);
  p = p * 0.5f;
  Tensor r = p.to(DType::i64);  // 8 bytes an element: past the limit
  EXPECT_THROW(lazy::eval({p, r}), lazy::RuntimeError);
  const std::int64_t written = lazy::stats().in_place_updates;
  lazy::set_memory_limit(0);
  lazy::set_fusion_enabled(true);
  EXPECT_EQ(written, 1) << "the first kernel did not write over p";
  try {
    const std::vector<double> got = values(p);
    std::vector<double> want(p0.size());
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = p0[i] * 0.5;
    lazy_test::expect_close(got, want, 1e-6, "p after the failed sync", 0);
  } catch (const lazy::RuntimeError&) {
    // Dropped with the sync's work: an error to use, as the sync's error said.
  }
}

// The same sync again and again: after the first repeats, eager syncs replay plans as CUDA
// graphs, whose addresses are fixed; a replay that can update in place must not use one.
TEST_F(GpuInPlaceUpdates, ARepeatedUpdateStaysInItsBuffer) {
  Tensor x = random_input(DType::f32, {4096});
  std::vector<double> want = values(x);
  const void* memory = memory_of(x);
  constexpr int kSteps = 6;
  for (int step = 0; step < kSteps; ++step) {
    x = x * 0.5f + 1.0f;
    lazy::eval({x});
    for (double& v : want) v = v * 0.5 + 1.0;
    EXPECT_EQ(memory_of(x), memory) << "step " << step;
  }
  EXPECT_EQ(lazy::stats().in_place_updates, kSteps);
  lazy_test::expect_close(values(x), want, 1e-6, "x", 0);
}

// Adam over parameters of three shapes, the gradients held by the caller: from the second step
// on (the first reads zeros that need not be dense), each step writes p, m and v over the old
// values' buffers, and every step matches a double-precision Adam.
TEST_F(GpuInPlaceUpdates, AdamStepsKeepTheStateInItsBuffers) {
  constexpr double kLr = 1e-2, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
  constexpr int kSteps = 4;
  const std::vector<Shape> shapes = {{1000}, {33, 17}, {64, 64}};
  std::vector<Tensor> p, m, v, g;
  std::vector<std::vector<double>> want_p, want_m, want_v, grads;
  for (const Shape& shape : shapes) {
    p.push_back(random_input(DType::f32, shape));
    g.push_back(random_input(DType::f32, shape));
    m.push_back(lazy::zeros(shape));
    v.push_back(lazy::zeros(shape));
    want_p.push_back(values(p.back()));
    grads.push_back(values(g.back()));
    want_m.emplace_back(want_p.back().size(), 0.0);
    want_v.emplace_back(want_p.back().size(), 0.0);
  }
  std::multiset<const void*> buffers;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<Tensor> state;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      m[i] = kBeta1 * m[i] + (1 - kBeta1) * g[i];
      v[i] = kBeta2 * v[i] + (1 - kBeta2) * lazy::square(g[i]);
      p[i] = p[i] - kLr * m[i] / (lazy::sqrt(v[i]) + kEps);
      state.insert(state.end(), {p[i], m[i], v[i]});
      for (std::size_t j = 0; j < grads[i].size(); ++j) {
        want_m[i][j] = kBeta1 * want_m[i][j] + (1 - kBeta1) * grads[i][j];
        want_v[i][j] = kBeta2 * want_v[i][j] + (1 - kBeta2) * grads[i][j] * grads[i][j];
        want_p[i][j] -= kLr * want_m[i][j] / (std::sqrt(want_v[i][j]) + kEps);
      }
    }
    const std::int64_t before = lazy::stats().in_place_updates;
    lazy::eval(state);
    std::multiset<const void*> now;
    for (const Tensor& t : state) now.insert(memory_of(t));
    if (step > 0) {
      EXPECT_EQ(lazy::stats().in_place_updates - before, 3 * std::int64_t(shapes.size()))
          << "step " << step;
      EXPECT_EQ(now, buffers) << "step " << step << " took new memory";
    }
    buffers = now;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      lazy_test::expect_close(values(m[i]), want_m[i], 1e-5, "m", 0);
      lazy_test::expect_close(values(v[i]), want_v[i], 1e-5, "v", 0);
      lazy_test::expect_close(values(p[i]), want_p[i], 1e-5, "p", 0);
    }
  }
}

}  // namespace
