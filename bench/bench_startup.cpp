// Time to the first result in a fresh process, with a cold or a warm kernel cache (issue 4):
//   bench_startup quickstart   the quickstart: its inputs, then its first iteration (the chain)
//   bench_startup kernels50    a program whose first sync needs 50 distinct kernels
//   bench_startup sin20        x = sin(x) 20 times on 2^22 f32: one kernel long in math (issue 15)
// Prints CUDA initialisation apart from the first result, and where kernels came from (the
// library ships the random inputs' kernels compiled: LAZY_SHIPPED_KERNELS=0 compiles them too).
// bench/startup.sh runs both cold and warm.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <lazy/lazy.h>

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

constexpr int kDistinctKernels = 50;
constexpr int kOpsPerKernel = 4;  // base-3 digits of the kernel's index pick its ops

// One small output per kernel; a result is read back so the work is done.
float first_result_many_kernels() {
  std::vector<lazy::Tensor> outputs;
  lazy::Tensor x = lazy::from_data(std::vector<float>(256, 0.5f), {256});
  for (int k = 0; k < kDistinctKernels; ++k) {
    lazy::Tensor y = x * float(k + 1);
    for (int digit = 0, rest = k; digit < kOpsPerKernel; ++digit, rest /= 3) {
      switch (rest % 3) {
        case 0:
          y = lazy::sin(y);
          break;
        case 1:
          y = lazy::tanh(y) * 2.0f;
          break;
        default:
          y = y * y + 1.0f;
          break;
      }
    }
    // A distinct shape per output keeps each in its own kernel (regions are per shape).
    outputs.push_back(y.slice(0, 0, k + 1));
  }
  for (lazy::Tensor& y : outputs) y = y.contiguous();
  lazy::eval(outputs);
  float sum = 0;
  for (const lazy::Tensor& y : outputs) sum += y.to_vector<float>()[0];
  return sum;
}

// One kernel of 20 chained sins, whose compile time is the point.
float first_result_sin20() {
  lazy::Tensor x = lazy::randn({std::int64_t(1) << 22}, 7);
  lazy::eval({x});
  for (int i = 0; i < 20; ++i) x = lazy::sin(x);
  lazy::eval({x});
  return x.slice(0, 0, 1).to_vector<float>()[0];
}

// As samples/quickstart.cpp: the inputs are made and computed, then the first iteration runs.
// Returns the time of that first iteration alone; *inputs_ms gets the time of the inputs.
float first_result_quickstart(double* inputs_ms, double* iteration_ms) {
  const Clock::time_point start = Clock::now();
  const std::int64_t rows = lazy::on_gpu() ? 16384 : 256, cols = 4096;
  lazy::Tensor x = lazy::randn({rows, cols}, 1);
  lazy::Tensor bias = lazy::randn({cols}, 2);
  lazy::Tensor residual = lazy::randn({rows, cols}, 3);
  lazy::eval({x, bias, residual});
  (void)x.slice(0, 0, 1).to_vector<float>();  // the inputs are computed
  const Clock::time_point inputs_done = Clock::now();
  lazy::Tensor y = lazy::gelu_tanh((x + bias) * 1.2f) + residual;
  lazy::eval({y});
  float first = y.slice(0, 0, 1).to_vector<float>()[0];  // one row back: the kernel has finished
  *inputs_ms = ms_between(start, inputs_done);
  *iteration_ms = ms_between(inputs_done, Clock::now());
  return first;
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point start = Clock::now();
  const std::string program = argc > 1 ? argv[1] : "quickstart";
  if (program != "quickstart" && program != "kernels50" && program != "sin20") {
    std::fprintf(stderr, "usage: bench_startup [quickstart|kernels50|sin20]\n");
    return 2;
  }
  const bool gpu = lazy::on_gpu();  // CUDA initialisation happens here
  const Clock::time_point initialised = Clock::now();
  double inputs_ms = 0, iteration_ms = 0;
  const float result = program == "kernels50" ? first_result_many_kernels()
                       : program == "sin20"   ? first_result_sin20()
                                              : first_result_quickstart(&inputs_ms, &iteration_ms);
  const Clock::time_point done = Clock::now();
  lazy::Stats s = lazy::stats();
  std::printf(
      "%s %s: init %.1f ms, first result %.1f ms after init (%g); kernels: %lld compiled "
      "(slowest %.1f ms), %lld from disk, %lld shipped",
      program.c_str(), gpu ? "gpu" : "host", ms_between(start, initialised),
      ms_between(initialised, done), double(result), static_cast<long long>(s.nvrtc_compiles),
      s.slowest_compile_seconds * 1e3, static_cast<long long>(s.disk_hits),
      static_cast<long long>(s.shipped_kernel_hits));
  if (program == "quickstart")
    std::printf("; inputs %.1f ms, first iteration %.1f ms", inputs_ms, iteration_ms);
  std::printf("\n");
  return 0;
}
