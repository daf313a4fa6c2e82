// lazy/cache.h over the process's disk cache.
#include <chrono>
#include <string>

#include "jit/disk_cache.h"
#include "jit/kernel_cache.h"
#include "lazy/cache.h"
#include "lazy/error.h"

namespace lazy {

KernelCacheInfo kernel_cache_info() {
  jit::DiskCache& cache = jit::disk_cache();
  KernelCacheInfo info;
  info.enabled = cache.usable();
  info.directory = cache.config().root.string();
  info.max_bytes = std::int64_t(cache.config().max_bytes);
  for (const jit::DiskCacheEntry& entry : cache.entries()) {
    ++info.entries;
    info.bytes += std::int64_t(entry.bytes);
  }
  return info;
}

std::vector<KernelCacheEntry> kernel_cache_entries() {
  std::vector<KernelCacheEntry> out;
  auto now = std::filesystem::file_time_type::clock::now();
  for (const jit::DiskCacheEntry& entry : jit::disk_cache().entries()) {
    double age = std::chrono::duration<double>(now - entry.last_used).count();
    out.push_back({entry.path.string(), std::int64_t(entry.bytes), age});
  }
  return out;
}

std::int64_t prune_kernel_cache(std::int64_t max_bytes, std::source_location loc) {
  if (max_bytes < 0) {  // clamped to 0 it would delete every entry
    throw ValueError("lazy::prune_kernel_cache: needs a bound of 0 bytes or more, got " +
                         std::to_string(max_bytes),
                     loc);
  }
  return std::int64_t(jit::disk_cache().prune(std::uint64_t(max_bytes)));
}

std::int64_t clear_kernel_cache() {
  jit::KernelCache::instance().clear();
  return std::int64_t(jit::disk_cache().clear());
}

}  // namespace lazy
