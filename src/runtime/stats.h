// The counters behind lazy::stats(), bumped from every thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace lazy::runtime {

struct Counters {
  std::atomic<std::int64_t> syncs{0};
  std::atomic<std::int64_t> plan_hits{0};
  std::atomic<std::int64_t> plan_misses{0};
  std::atomic<std::int64_t> kernels_generated{0};
  std::atomic<std::int64_t> kernel_cache_hits{0};
  std::atomic<std::int64_t> nvrtc_compiles{0};
  std::atomic<std::int64_t> kernel_launches{0};
  std::atomic<std::int64_t> matmul_calls{0};
  std::atomic<std::int64_t> function_replays{0};
  std::atomic<std::int64_t> graph_launches{0};
  std::atomic<std::int64_t> compile_nanoseconds{0};
  std::atomic<std::int64_t> slowest_compile_nanoseconds{0};
};

Counters& counters();

}  // namespace lazy::runtime
