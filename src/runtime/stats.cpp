#include "runtime/stats.h"

#include "jit/disk_cache.h"
#include "jit/shipped_kernels.h"
#include "lazy/stats.h"

namespace lazy {

namespace runtime {

std::int64_t ShardedCounter::load() const {
  std::int64_t total = 0;
  for (const Shard& s : shards_) total += s.value.load(std::memory_order_relaxed);
  return total;
}

ShardedCounter& ShardedCounter::operator=(std::int64_t value) {
  for (Shard& s : shards_) s.value.store(0, std::memory_order_relaxed);
  shards_[0].value.store(value, std::memory_order_relaxed);
  return *this;
}

std::atomic<std::int64_t>& ShardedCounter::shard() {
  static std::atomic<unsigned> next_thread{0};
  thread_local const unsigned index = next_thread.fetch_add(1, std::memory_order_relaxed);
  return shards_[index % kShards].value;
}

Counters& counters() {
  static Counters instance;
  return instance;
}
}  // namespace runtime

Stats stats() {
  const runtime::Counters& c = runtime::counters();
  Stats s;
  s.syncs = c.syncs.load();
  s.plan_hits = c.plan_hits.load();
  s.plan_misses = c.plan_misses.load();
  s.kernels_generated = c.kernels_generated.load();
  s.kernel_cache_hits = c.kernel_cache_hits.load();
  s.nvrtc_compiles = c.nvrtc_compiles.load();
  s.kernel_launches = c.kernel_launches.load();
  s.matmul_calls = c.matmul_calls.load();
  s.matmul_kernels = c.matmul_kernels.load();
  s.in_place_updates = c.in_place_updates.load();
  s.function_replays = c.function_replays.load();
  s.graph_launches = c.graph_launches.load();
  s.compile_seconds = double(c.compile_nanoseconds.load()) * 1e-9;
  s.slowest_compile_seconds = double(c.slowest_compile_nanoseconds.load()) * 1e-9;
  jit::DiskCacheCounters& disk = jit::disk_cache().counters();
  s.disk_hits = disk.hits.load();
  s.disk_misses = disk.misses.load();
  s.disk_writes = disk.writes.load();
  s.disk_rejected = disk.rejected.load();
  s.disk_evictions = disk.evictions.load();
  s.shipped_kernel_hits = jit::shipped_kernel_hits().load();
  return s;
}

void reset_stats() {
  runtime::Counters& c = runtime::counters();
  c.syncs = 0;
  c.plan_hits = 0;
  c.plan_misses = 0;
  c.kernels_generated = 0;
  c.kernel_cache_hits = 0;
  c.nvrtc_compiles = 0;
  c.kernel_launches = 0;
  c.matmul_calls = 0;
  c.matmul_kernels = 0;
  c.in_place_updates = 0;
  c.function_replays = 0;
  c.graph_launches = 0;
  c.compile_nanoseconds = 0;
  c.slowest_compile_nanoseconds = 0;
  jit::DiskCacheCounters& disk = jit::disk_cache().counters();
  disk.hits = 0;
  disk.misses = 0;
  disk.writes = 0;
  disk.rejected = 0;
  disk.evictions = 0;
  jit::shipped_kernel_hits() = 0;
}

}  // namespace lazy
