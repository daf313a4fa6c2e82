// The chain from the README: gelu_tanh((x + bias) * 1.2) + residual, a few iterations.
//
//   quickstart [rows]   (4096 columns; default 512 rows while execution is on the host)
#include <cstdio>
#include <cstdlib>

#include <lazy/lazy.h>

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 512;
  const std::int64_t cols = 4096;
  lazy::Tensor x = lazy::randn({rows, cols}, /*seed=*/1);
  lazy::Tensor bias = lazy::randn({cols}, /*seed=*/2);
  lazy::Tensor residual = lazy::randn({rows, cols}, /*seed=*/3);
  for (int step = 0; step < 3; ++step) {
    lazy::Tensor y = lazy::gelu_tanh((x + bias) * 1.2f) + residual;  // recorded, not run
    std::vector<float> values = y.to_vector<float>();                // sync point
    double checksum = 0;
    for (float v : values) checksum += v;
    std::printf("step %d: [%lld, %lld] checksum %.6f\n", step, static_cast<long long>(rows),
                static_cast<long long>(cols), checksum);
  }
  return 0;
}
