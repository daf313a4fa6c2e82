#include "runtime/launch_log.h"

#include <algorithm>

namespace lazy::runtime {

void LaunchLog::label(CUfunction function, KernelLabel label) {
  std::lock_guard lock(labels_mutex_);
  labels_.try_emplace(function, std::move(label));
}

bool LaunchLog::labelled(CUfunction function) const {
  std::lock_guard lock(labels_mutex_);
  return labels_.contains(function);
}

KernelLabel LaunchLog::label_of(CUfunction function) const {
  std::lock_guard lock(labels_mutex_);
  auto it = labels_.find(function);
  if (it != labels_.end()) return it->second;
  return {"a kernel lazyfuse did not label", std::source_location::current()};
}

void LaunchLog::synchronized(std::uint64_t mark) noexcept {
  std::uint64_t seen = synchronized_.load(std::memory_order_relaxed);
  while (mark > seen && !synchronized_.compare_exchange_weak(seen, mark)) {
  }
}

LaunchLog::Suspects LaunchLog::suspects() const {
  Suspects suspects;
  const std::uint64_t launched = launched_.load();
  const std::uint64_t synchronized = std::min(synchronized_.load(), launched);
  suspects.count = launched - synchronized;
  const std::uint64_t first = launched - std::min<std::uint64_t>(suspects.count, kRemembered);
  for (std::uint64_t n = first; n < launched; ++n)
    suspects.latest.push_back(label_of(recent_[n % kRemembered].load(std::memory_order_relaxed)));
  return suspects;
}

}  // namespace lazy::runtime
