// The counters behind lazy::stats(), bumped from every thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace lazy::runtime {

// A count bumped from many threads at once: each thread adds to a shard of its own cache line,
// so threads syncing at 100 000 times a second do not fight over one line; reading sums the
// shards.
class ShardedCounter {
 public:
  void operator++(int) { shard().fetch_add(1, std::memory_order_relaxed); }
  void operator+=(std::int64_t n) { shard().fetch_add(n, std::memory_order_relaxed); }
  std::int64_t load() const;
  // For lazy::reset_stats: not atomic with increments made meanwhile.
  ShardedCounter& operator=(std::int64_t value);

 private:
  static constexpr int kShards = 16;
  struct alignas(64) Shard {
    std::atomic<std::int64_t> value{0};
  };
  std::atomic<std::int64_t>& shard();
  std::array<Shard, kShards> shards_;
};

struct Counters {
  ShardedCounter syncs;
  ShardedCounter plan_hits;
  ShardedCounter plan_misses;
  ShardedCounter kernels_generated;
  ShardedCounter kernel_cache_hits;
  ShardedCounter nvrtc_compiles;
  ShardedCounter kernel_launches;
  ShardedCounter matmul_calls;
  ShardedCounter matmul_kernels;
  ShardedCounter in_place_updates;
  ShardedCounter function_replays;
  ShardedCounter graph_launches;
  ShardedCounter compile_nanoseconds;
  std::atomic<std::int64_t> slowest_compile_nanoseconds{0};
};

Counters& counters();

}  // namespace lazy::runtime
