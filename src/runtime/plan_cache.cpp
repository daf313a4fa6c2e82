#include "runtime/plan_cache.h"

#include <array>
#include <atomic>
#include <mutex>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "ir/settings.h"
#include "jit/lru_cache.h"

namespace lazy::runtime {

namespace {

std::size_t plan_capacity() {
  return std::size_t(ir::integer_setting(ir::Setting::plan_cache_entries));
}

struct PlanCache {
  std::mutex mutex;
  jit::LruCache<ir::Hash128, std::shared_ptr<const Plan>> plans{plan_capacity()};
};

// Each thread's last few plan hits, looked up before the shared cache and its lock: a loop
// replays the same few plans, and threads replaying at once would queue on the lock. A plan the
// shared cache drops stays usable here; clear_plan_cache() empties these too (by generation).
constexpr int kRecentPlans = 8;
struct RecentPlans {
  std::uint64_t generation = 0;
  std::array<std::pair<ir::Hash128, std::shared_ptr<const Plan>>, kRecentPlans> plans;
  int next = 0;
};
thread_local RecentPlans recent_plans;
std::atomic<std::uint64_t> plan_generation{0};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache();  // never destroyed: plans hold loaded kernels
  return *cache;
}

}  // namespace

ir::Hash128 plan_key(const ir::Trace& trace, const ir::Hash128& sync_key, bool fusion, bool fast,
                     int arch) {
  absl::InlinedVector<std::uint64_t, 32> words = {sync_key.lo, sync_key.hi, std::uint64_t(fusion),
                                                  std::uint64_t(fast), std::uint64_t(arch)};
  std::span<const ir::NodePtr> externals = trace.externals();
  // Which externals share memory: the first slot with the same storage. Most syncs read a few
  // externals, for which a scan costs less than a map.
  constexpr std::size_t kScannedExternals = 16;
  absl::flat_hash_map<const ir::Storage*, std::uint64_t> first_slot;
  auto first_with_storage = [&](std::size_t slot, const ir::Storage* storage) -> std::uint64_t {
    if (externals.size() > kScannedExternals)
      return first_slot.try_emplace(storage, slot).first->second;
    std::size_t first = 0;
    while (externals[first]->data->storage.get() != storage) ++first;
    return first;
  };
  for (std::size_t slot = 0; slot < externals.size(); ++slot) {
    const ir::TensorData& data = *externals[slot]->data;
    words.push_back(std::uint64_t(data.layout.offset));
    for (int d = 0; d < data.layout.shape.rank(); ++d)
      words.push_back(std::uint64_t(data.layout.strides[d]));
    words.push_back(first_with_storage(slot, data.storage.get()));
  }
  return ir::hash_words(words);
}

std::shared_ptr<const Plan> find_plan(const ir::Hash128& key) {
  RecentPlans& recent = recent_plans;
  if (const std::uint64_t generation = plan_generation.load(std::memory_order_acquire);
      recent.generation != generation) {
    recent = RecentPlans{};
    recent.generation = generation;
  }
  for (const auto& [recent_key, plan] : recent.plans)
    if (plan != nullptr && recent_key == key) return plan;
  std::shared_ptr<const Plan> found;
  {
    PlanCache& cache = plan_cache();
    std::lock_guard lock(cache.mutex);
    if (auto* cached = cache.plans.find(key)) found = *cached;
  }
  if (found != nullptr) {
    recent.plans[recent.next] = {key, found};
    recent.next = (recent.next + 1) % kRecentPlans;
  }
  return found;
}

void remember_plan(const ir::Hash128& key, std::shared_ptr<const Plan> plan) {
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  cache.plans.insert(key, std::move(plan));
}

void clear_plan_cache() {
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  cache.plans.clear();
  plan_generation.fetch_add(1, std::memory_order_release);
}

}  // namespace lazy::runtime
