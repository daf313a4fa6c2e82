#include "runtime/plan_cache.h"

#include <mutex>
#include <vector>

#include <absl/container/flat_hash_map.h>

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

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache();  // never destroyed: plans hold loaded kernels
  return *cache;
}

}  // namespace

ir::Hash128 plan_key(const ir::Trace& trace, const ir::Hash128& sync_key, bool fusion, bool fast,
                     int arch) {
  std::vector<std::uint64_t> words = {sync_key.lo, sync_key.hi, std::uint64_t(fusion),
                                      std::uint64_t(fast), std::uint64_t(arch)};
  absl::flat_hash_map<const ir::Storage*, std::uint64_t> first_slot;
  std::span<const ir::NodePtr> externals = trace.externals();
  for (std::size_t slot = 0; slot < externals.size(); ++slot) {
    const ir::TensorData& data = *externals[slot]->data;
    words.push_back(std::uint64_t(data.layout.offset));
    for (int d = 0; d < data.layout.shape.rank(); ++d)
      words.push_back(std::uint64_t(data.layout.strides[d]));
    words.push_back(first_slot.try_emplace(data.storage.get(), slot).first->second);
  }
  return ir::hash_words(words);
}

std::shared_ptr<const Plan> find_plan(const ir::Hash128& key) {
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  if (auto* found = cache.plans.find(key)) return *found;
  return nullptr;
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
}

}  // namespace lazy::runtime
