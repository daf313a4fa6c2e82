// How the GPU benchmarks time lazyfuse, shared so that every bench measures the same way: each
// iteration is timed with device events from before recording to after the sync's work, so
// recording, planning and launch overhead count as a user would see them; the median of the timed
// iterations after warm-up is reported. bench/peers.py times PyTorch the same way.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <lazy/lazy.h>

#include "runtime/device.h"

namespace lazy::bench {

// Iterations before timing: the first compiles, the rest settle the memory pool and clocks.
constexpr int kWarmupIters = 5;

// Records one iteration of a workload and returns its outputs (not yet computed).
using StepFn = std::function<std::vector<lazy::Tensor>()>;

float median(std::vector<float> samples);

// GB/s of a device-to-device copy far larger than L2, counting bytes read and bytes written.
double copy_bandwidth_gbps(runtime::Device& device);

// The GPU a bench times on and its copy bandwidth, both printed; without a GPU, says so for
// `program` and gives no device.
struct BenchDevice {
  runtime::Device* device = nullptr;
  double copy_gbps = 0;
};
BenchDevice open_bench_device(std::string_view program);

struct Measurement {
  float median_ms;
  double launches_per_iter;      // generated kernels launched, product kernels aside
  double matmul_calls_per_iter;  // products queued (cuBLASLt or product kernels)
};

// Warms `step` up, then times `iters` iterations with fusion on or off, flushing L2 before each.
// Warns on stderr, naming `label`, when a timed iteration compiled or missed the plan cache.
Measurement measure(const StepFn& step, bool fusion, int iters, runtime::Device& device,
                    const std::string& label);

// `text` as a JSON string literal, control characters dropped.
std::string json_string(std::string_view text);

}  // namespace lazy::bench
