// The quickstart sample prints the right numbers: its checksum is compared with the chain
// computed here by hand, in double, from the same random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <lazy/lazy.h>

#include "helper_programs.h"

namespace {

// gelu with PyTorch's tanh approximation.
double gelu_tanh(double v) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
}

double hand_checksum(std::int64_t rows, std::int64_t cols) {
  // The sample's inputs: randn with seeds 1, 2, 3 (the generator is tested on its own).
  std::vector<float> x = lazy::randn({rows, cols}, 1).to_vector<float>();
  std::vector<float> bias = lazy::randn({cols}, 2).to_vector<float>();
  std::vector<float> residual = lazy::randn({rows, cols}, 3).to_vector<float>();
  double sum = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      std::size_t i = std::size_t(r * cols + c);
      double scaled = (double(x[i]) + double(bias[c])) * double(1.2f);
      sum += double(float(gelu_tanh(scaled) + double(residual[i])));
    }
  }
  return sum;
}

TEST(Quickstart, PrintsTheHandComputedChecksum) {
  const std::int64_t rows = 8;
  std::string command = lazy_test::helper_program(LAZY_QUICKSTART) + " " + std::to_string(rows);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  double expected = hand_checksum(rows, 4096);
  char line[256];
  int steps = 0;
  while (fgets(line, sizeof line, pipe.get()) != nullptr) {
    int step;
    double checksum;
    if (std::sscanf(line, "step %d: [%*lld, %*lld] checksum %lf", &step, &checksum) != 2) continue;
    // 32768 f32 values summed: each rounded once to f32, the sum printed to 6 decimals.
    EXPECT_NEAR(checksum, expected, 1e-6 * 32768) << line;
    ++steps;
  }
  EXPECT_EQ(steps, 3);
}

TEST(Quickstart, ChainMatchesHandComputationElementwise) {
  std::vector<float> xs = {-3.0f, -1.5f, -0.25f, 0.0f, 0.5f, 1.0f, 2.5f, 4.0f};
  std::vector<float> bs = {0.5f, -0.5f};
  std::vector<float> rs = {1, 2, 3, 4, 5, 6, 7, 8};
  lazy::Tensor x = lazy::from_data(xs, {4, 2});
  lazy::Tensor b = lazy::from_data(bs, {2});
  lazy::Tensor r = lazy::from_data(rs, {4, 2});
  std::vector<float> y = (lazy::gelu_tanh((x + b) * 1.2f) + r).to_vector<float>();
  ASSERT_EQ(y.size(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double expected = gelu_tanh((double(xs[i]) + double(bs[i % 2])) * double(1.2f)) + rs[i];
    EXPECT_NEAR(y[i], expected, 1e-6 * std::fabs(expected) + 1e-7) << "element " << i;
  }
}

}  // namespace
