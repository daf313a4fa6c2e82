// The chain from the README, gelu_tanh((x + bias) * 1.2) + residual, for a few iterations.
//
//   quickstart [rows]   (4096 columns; 16384 rows on a GPU, 512 on the host by default)
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <lazy/lazy.h>

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : (lazy::on_gpu() ? 16384 : 512);
  const std::int64_t cols = 4096;
  std::printf("device: %s\n", lazy::device_description().c_str());
  lazy::Tensor x = lazy::randn({rows, cols}, /*seed=*/1);
  lazy::Tensor bias = lazy::randn({cols}, /*seed=*/2);
  lazy::Tensor residual = lazy::randn({rows, cols}, /*seed=*/3);
  lazy::eval({x, bias, residual});
  for (int step = 0; step < 3; ++step) {
    auto start = std::chrono::steady_clock::now();
    lazy::Tensor y = lazy::gelu_tanh((x + bias) * 1.2f) + residual;  // recorded, not run
    std::vector<float> values = y.to_vector<float>();                // sync point
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    double checksum = 0;
    for (float v : values) checksum += v;
    std::printf("step %d: [%lld, %lld] checksum %.6f (%.1f ms, copy to host included)\n", step,
                static_cast<long long>(rows), static_cast<long long>(cols), checksum, ms);
  }
  return 0;
}
