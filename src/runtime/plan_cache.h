// Plans by key, least recently used first out (LAZY_PLAN_CACHE_ENTRIES): a sync whose key was
// seen before replays its plan without partitioning, generating or compiling.
#pragma once

#include <memory>

#include "ir/hash.h"
#include "ir/trace.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// The plan key: the sync key plus what else decides the kernels and their arguments: each
// input's layout, which inputs share memory, and the settings.
ir::Hash128 plan_key(const ir::Trace& trace, const ir::Hash128& sync_key, bool fusion, bool fast,
                     int arch);

// The plan cached under `key`, or null.
std::shared_ptr<const Plan> find_plan(const ir::Hash128& key);
void remember_plan(const ir::Hash128& key, std::shared_ptr<const Plan> plan);

// Forgets every cached plan (tests use it to start cold).
void clear_plan_cache();

}  // namespace lazy::runtime
