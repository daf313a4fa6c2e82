// Support for tests that compare GPU results with the reference evaluator: skipping without a
// GPU, poisoned outputs, fresh random inputs, and dtype-fit tolerances.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include <lazy/lazy.h>

#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/replay.h"

namespace lazy_test {

// A fixture for tests that need a GPU: skipped with the reason when there is none; every kernel
// output is poisoned (NaN bytes) before the kernel runs.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (lazy::runtime::Device::get() == nullptr) {
      GTEST_SKIP() << "no CUDA device: " << lazy::runtime::Device::why_host();
    }
    lazy::runtime::set_poison_outputs(true);
    lazy::sync();
  }
  void TearDown() override { lazy::runtime::set_poison_outputs(false); }
};

// A seed that differs from run to run, printed so a failure can be replayed.
inline std::uint64_t fresh_seed() {
  auto seed = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// A fresh random tensor of `dtype`, computed: normals scaled by 2 for floats, by 20 for integers,
// and true where a normal exceeds 0.5 for bool.
inline lazy::Tensor random_input(lazy::DType dtype, const lazy::Shape& shape) {
  lazy::Tensor normal = lazy::randn(shape, fresh_seed());
  lazy::Tensor x = lazy::is_floating(dtype)      ? (normal * 2.0f).to(dtype)
                   : dtype == lazy::DType::bool_ ? normal > 0.5f
                                                 : (normal * 20.0f).to(dtype);
  lazy::eval({x});
  return x;
}

// A float sum over many elements in f32 differs from the double reference by rounding that
// grows with the count.
inline constexpr double kSumTolerance = 1e-4;

// Relative tolerance for results stored in `dtype`: f16 and bf16 kernels compute in f32 and
// round once, while the reference rounds every op, so their difference is a few ulps.
inline double tolerance_for(lazy::DType dtype) {
  switch (dtype) {
    case lazy::DType::f32:
      return 1e-5;
    case lazy::DType::f16:
      return 4e-3;
    case lazy::DType::bf16:
      return 3e-2;
    default:
      return 0;  // integers and bool: exact
  }
}

// Checks `got` against `want` elementwise: NaN where the reference has NaN, infinities equal,
// otherwise |got - want| <= tol * (|want| + rms(want)).
// `floor`: an absolute slack on top, for values whose reference is exactly 0 where a kernel's
// rounding leaves a residue (the standard deviation of one element).
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                         double tol, const std::string& what, double floor = 0) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double sum_squares = 0;
  std::size_t finite = 0;
  for (double w : want)
    if (std::isfinite(w)) sum_squares += w * w, ++finite;
  double scale = finite ? std::sqrt(sum_squares / double(finite)) : 0;
  int reported = 0;
  for (std::size_t i = 0; i < got.size() && reported < 5; ++i) {
    double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= tol * (std::fabs(w) + scale) + floor;
    }
    if (!ok) {
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", the reference says " << w;
      ++reported;
    }
  }
}

// Runs `program` on the GPU and with the reference evaluator over the same inputs and compares
// every output it returns.
inline void expect_matches_reference(const std::function<std::vector<lazy::Tensor>()>& program,
                                     const std::string& what, double tol_override = -1) {
  std::vector<lazy::Tensor> gpu = program();
  lazy::eval(gpu);
  lazy::runtime::set_reference_execution(true);
  std::vector<lazy::Tensor> ref = program();
  lazy::eval(ref);
  lazy::runtime::set_reference_execution(false);
  ASSERT_EQ(gpu.size(), ref.size());
  for (std::size_t k = 0; k < gpu.size(); ++k) {
    ASSERT_EQ(gpu[k].dtype(), ref[k].dtype()) << what;
    ASSERT_EQ(gpu[k].shape(), ref[k].shape()) << what;
    double tol = tol_override >= 0 ? tol_override : tolerance_for(gpu[k].dtype());
    expect_close(gpu[k].to_vector<double>(), ref[k].to_vector<double>(), tol,
                 what + " output " + std::to_string(k));
  }
}

}  // namespace lazy_test
