// A separate process for the disk cache tests: computes a program that needs `kernels` distinct
// kernels, checks every value, and prints what the caches did, as key=value words. Exit code 1
// when a value is wrong.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <lazy/lazy.h>

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 3;
  std::vector<lazy::Tensor> outputs;
  std::vector<std::vector<float>> inputs;
  for (int k = 0; k < kernels; ++k) {
    // Each output has its own shape and chain length: its own region, its own kernel source.
    std::vector<float> x(std::size_t(k + 1) * 8);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.01f * float(i % 97) - 0.3f;
    lazy::Tensor y = lazy::from_data(x, {k + 1, 8});
    for (int step = 0; step <= k % 7; ++step) y = lazy::sin(y) * 1.5f;
    y = y + float(k);
    outputs.push_back(y);
    inputs.push_back(std::move(x));
  }
  lazy::eval(outputs);
  int wrong = 0;
  for (int k = 0; k < kernels; ++k) {
    std::vector<float> got = outputs[std::size_t(k)].to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i) {
      double want = inputs[std::size_t(k)][i];
      for (int step = 0; step <= k % 7; ++step) want = double(float(std::sin(want) * 1.5));
      want += k;
      if (std::fabs(got[i] - want) > 1e-5 * (1 + std::fabs(want))) ++wrong;
    }
  }
  lazy::Stats s = lazy::stats();
  std::printf("compiles=%lld disk_hits=%lld disk_misses=%lld writes=%lld rejected=%lld wrong=%d\n",
              static_cast<long long>(s.nvrtc_compiles), static_cast<long long>(s.disk_hits),
              static_cast<long long>(s.disk_misses), static_cast<long long>(s.disk_writes),
              static_cast<long long>(s.disk_rejected), wrong);
  return wrong == 0 ? 0 : 1;
}
