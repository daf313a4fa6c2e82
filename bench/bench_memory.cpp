// Memory of an optimizer step (issue 17): Adam over 2^26 f32 parameters with its state carried
// from step to step, `p = p - ...` as a user writes it, so each step's p, m and v may be written
// over the old ones once nothing else holds them (runtime/in_place_update.h). Reports the step's
// median time, GB/s against copy bandwidth (7 arrays moved: p, g, m, v read, p, m, v written), and
// the peak of lazy::memory_stats() over one step as a multiple of the state (p, g, m, v).
// bench/peers_memory.py runs the same step in PyTorch, updating in place.
//   bench_memory [--iters N] [--json PATH]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include <lazy/lazy.h>

#include "bench_options.h"
#include "event_timing.h"

namespace {

constexpr std::int64_t kParams = std::int64_t(1) << 26;
constexpr float kLr = 1e-3f, kBeta1 = 0.9f, kBeta2 = 0.999f, kEps = 1e-8f;

struct AdamState {
  lazy::Tensor p, g, m, v;
  int step = 0;
};

// One step; the bias corrections change every step, as in training.
std::vector<lazy::Tensor> adam_step(AdamState& s) {
  const int t = ++s.step;
  const float correction1 = float(1.0 / (1.0 - std::pow(double(kBeta1), t)));
  const float correction2 = float(1.0 / (1.0 - std::pow(double(kBeta2), t)));
  s.m = kBeta1 * s.m + (1.0f - kBeta1) * s.g;
  s.v = kBeta2 * s.v + (1.0f - kBeta2) * s.g * s.g;
  s.p = s.p - kLr * (s.m * correction1) / (lazy::sqrt(s.v * correction2) + kEps);
  return {s.p, s.m, s.v};
}

}  // namespace

int main(int argc, char** argv) {
  const lazy::bench::BenchUsage usage{"bench_memory", "an Adam step's time and peak memory",
                                      "adam_inplace"};
  const lazy::bench::BenchOptions options = lazy::bench::parse_bench_options(argc, argv, usage);
  const auto [device, copy_gbps] = lazy::bench::open_bench_device("bench_memory");
  if (device == nullptr) return 0;

  auto state = std::make_shared<AdamState>();
  state->p = lazy::randn({kParams}, 1);
  state->g = lazy::randn({kParams}, 2);
  state->m = lazy::zeros({kParams}) + 0.0f;
  state->v = lazy::zeros({kParams}) + 0.0f;
  lazy::eval({state->p, state->g, state->m, state->v});
  const lazy::bench::StepFn step = [state] { return adam_step(*state); };
  const lazy::bench::Measurement timed =
      lazy::bench::measure(step, true, options.iters, *device, "adam_inplace");

  // One more step, its peak over the state.
  device->synchronize();
  const double state_bytes = 4.0 * double(kParams) * 4.0;
  const double before = double(lazy::memory_stats().in_use_bytes);
  lazy::reset_peak_memory();
  const lazy::Stats counts = lazy::stats();
  lazy::eval(step());
  device->synchronize();
  const double peak = double(lazy::memory_stats().peak_bytes);
  const std::int64_t in_place = lazy::stats().in_place_updates - counts.in_place_updates;

  const double moved = 7.0 * double(kParams) * 4.0;
  const double gbps = moved / (double(timed.median_ms) * 1e6);
  std::printf(
      "adam_inplace f32 2^26: %.3f ms, %.0f GB/s (%.0f%% of copy), %.0f kernel(s); peak %.0f MB "
      "= %.3fx the state (%.0f MB; %.0f MB held before the step), %lld of 3 results in place\n",
      timed.median_ms, gbps, 100.0 * gbps / copy_gbps, timed.launches_per_iter, peak / 1e6,
      peak / state_bytes, state_bytes / 1e6, before / 1e6, static_cast<long long>(in_place));
  std::ofstream json(options.json_path);
  json << "{\"device\": " << lazy::bench::json_string(device->name())
       << ", \"copy_gbps\": " << copy_gbps << ", \"rows\": [{\"workload\": \"adam_inplace\""
       << ", \"ms\": " << timed.median_ms << ", \"gbps\": " << gbps << ", \"peak_bytes\": " << peak
       << ", \"state_bytes\": " << state_bytes << "}]}\n";
  std::printf("wrote %s\n", options.json_path.c_str());
  return 0;
}
