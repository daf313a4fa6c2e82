// Counters of what the library did, for tests, benchmarks and users who want to know whether
// their loop replays (plan hits, no compiles) or keeps compiling.
#pragma once

#include <cstdint>

namespace lazy {

struct Stats {
  std::int64_t syncs = 0;              // sync points that had work to do
  std::int64_t plan_hits = 0;          // syncs replayed from the plan cache
  std::int64_t plan_misses = 0;        // syncs that partitioned and generated
  std::int64_t kernels_generated = 0;  // kernel sources generated
  std::int64_t kernel_cache_hits = 0;  // generated sources found compiled already
  std::int64_t nvrtc_compiles = 0;     // NVRTC compilations
  std::int64_t kernel_launches = 0;    // generated kernels launched, product kernels aside
  // Matrix products queued, each one launch with its folded epilogue: a cuBLASLt call, or for
  // products of at most 16 rows the library's own product kernel (matmul_kernels counts those).
  std::int64_t matmul_calls = 0;
  std::int64_t matmul_kernels = 0;
  std::int64_t in_place_updates = 0;   // results written over an input no one else held
  std::int64_t function_replays = 0;   // lazy::Function calls that did not run the function
  std::int64_t graph_launches = 0;     // of those, the ones queued as one CUDA graph
  double compile_seconds = 0;          // wall time spent in NVRTC, summed over kernels
  double slowest_compile_seconds = 0;  // the longest single NVRTC compile
  // The kernel cache on disk (lazy/cache.h).
  std::int64_t disk_hits = 0;       // kernels loaded from disk instead of compiled
  std::int64_t disk_misses = 0;     // kernels not on disk
  std::int64_t disk_writes = 0;     // entries written
  std::int64_t disk_rejected = 0;   // entries found damaged, untrusted, or refused by the driver
  std::int64_t disk_evictions = 0;  // entries removed to keep the directory under its bound
  // Kernels found among those the library was built with (LAZY_SHIPPED_KERNELS), not compiled.
  std::int64_t shipped_kernel_hits = 0;
};

// Totals since the start of the process or the last reset_stats(), over all threads.
Stats stats();
void reset_stats();

}  // namespace lazy
