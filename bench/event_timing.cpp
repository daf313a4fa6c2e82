#include "event_timing.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace lazy::bench {

namespace {

using runtime::Device;
using runtime::DeviceTimer;

// Copy bandwidth: a buffer far larger than L2 (50 MB on H100), so the copy streams from HBM.
constexpr std::size_t kCopyBytes = std::size_t(1) << 30;
constexpr int kCopyWarmupIters = 3;
constexpr int kCopyTimedIters = 20;

constexpr std::size_t kFlushBytes = std::size_t(256) << 20;  // more than L2 (50 MB on H100)

}  // namespace

float median(std::vector<float> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[mid] : 0.5f * (samples[mid - 1] + samples[mid]);
}

double copy_bandwidth_gbps(Device& device) {
  std::shared_ptr<runtime::DeviceBuffer> src = device.allocate(kCopyBytes);
  std::shared_ptr<runtime::DeviceBuffer> dst = device.allocate(kCopyBytes);
  for (int i = 0; i < kCopyWarmupIters; ++i)
    device.copy_device_to_device(dst->ptr(), src->ptr(), kCopyBytes);
  DeviceTimer timer(device);
  std::vector<float> samples;
  for (int i = 0; i < kCopyTimedIters; ++i) {
    timer.start();
    device.copy_device_to_device(dst->ptr(), src->ptr(), kCopyBytes);
    timer.stop();
    samples.push_back(timer.elapsed_ms());
  }
  return 2.0 * double(kCopyBytes) / (double(median(samples)) * 1e6);
}

BenchDevice open_bench_device(std::string_view program) {
  Device* device = Device::get();
  if (device == nullptr) {
    std::printf("%s: no GPU (%s); nothing to time\n", std::string(program).c_str(),
                Device::why_host().c_str());
    return {};
  }
  std::printf("device: %s (sm_%d)\n", device->name().c_str(), device->sm_arch());
  const double copy_gbps = copy_bandwidth_gbps(*device);
  std::printf("copy bandwidth: %.0f GB/s\n", copy_gbps);
  return {device, copy_gbps};
}

Measurement measure(const StepFn& step, bool fusion, int iters, Device& device,
                    const std::string& label) {
  lazy::set_fusion_enabled(fusion);
  for (int i = 0; i < kWarmupIters; ++i) lazy::eval(step());
  device.synchronize();

  const lazy::Stats before = lazy::stats();
  DeviceTimer timer(device);
  std::vector<float> samples;
  // As triton.testing.do_bench: a memset larger than L2 before each timed step flushes the cache
  // and keeps the GPU busy while the host records and launches, so the time is the GPU's.
  std::shared_ptr<runtime::DeviceBuffer> flush = device.allocate(kFlushBytes);
  for (int i = 0; i < iters; ++i) {
    device.fill_bytes(flush->ptr(), 0, kFlushBytes);
    timer.start();
    {
      // The outputs live until stop() is queued, so their kernels precede it on the stream.
      std::vector<lazy::Tensor> outputs = step();
      lazy::eval(outputs);
      timer.stop();
    }
    samples.push_back(timer.elapsed_ms());
  }
  const lazy::Stats after = lazy::stats();
  if (after.nvrtc_compiles != before.nvrtc_compiles || after.plan_misses != before.plan_misses) {
    std::cerr << "warning: " << label << " compiled "
              << after.nvrtc_compiles - before.nvrtc_compiles
              << " kernel(s) and missed the plan cache " << after.plan_misses - before.plan_misses
              << " time(s) while timed: the loop does not replay\n";
  }
  return {median(samples), double(after.kernel_launches - before.kernel_launches) / iters,
          double(after.matmul_calls - before.matmul_calls) / iters};
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace lazy::bench
