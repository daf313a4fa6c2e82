// The chain from the README, gelu_tanh((x + bias) * 1.2) + residual, for a few iterations.
//
//   quickstart [rows]   (4096 columns; 16384 rows on a GPU, 512 on the host by default)
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <lazy/lazy.h>

namespace {
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}
}  // namespace

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
    lazy::eval({y});  // sync point: the first one generates and compiles the kernel
    double compute_ms = ms_since(start);
    std::vector<float> values = y.to_vector<float>();  // waits for the kernel, copies to the host
    double total_ms = ms_since(start);
    double checksum = 0;
    for (float v : values) checksum += v;
    std::printf(
        "step %d: [%lld, %lld] checksum %.6f (sync %.2f ms, with the copy to host %.1f ms)\n", step,
        static_cast<long long>(rows), static_cast<long long>(cols), checksum, compute_ms, total_ms);
  }
  lazy::Stats stats = lazy::stats();
  std::printf("%lld kernel launches, %lld NVRTC compiles (%.1f ms), %lld plan hits\n",
              static_cast<long long>(stats.kernel_launches),
              static_cast<long long>(stats.nvrtc_compiles), stats.compile_seconds * 1e3,
              static_cast<long long>(stats.plan_hits));
  return 0;
}
