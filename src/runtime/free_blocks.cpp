#include "runtime/free_blocks.h"

namespace lazy::runtime {

CUdeviceptr FreeBlocks::take(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  if (size > kLargestBlock) return 0;
  std::lock_guard lock(mutex_);
  auto found = by_size_.find(size);
  if (found == by_size_.end() || found->second.empty()) return 0;
  const CUdeviceptr block = found->second.back();
  found->second.pop_back();
  bytes_ -= size;
  return block;
}

bool FreeBlocks::keep(CUdeviceptr block, std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  if (size > kLargestBlock) return false;
  std::lock_guard lock(mutex_);
  if (bytes_ + size > kMostBytes) return false;
  by_size_[size].push_back(block);
  bytes_ += size;
  return true;
}

std::vector<CUdeviceptr> FreeBlocks::drain() {
  std::lock_guard lock(mutex_);
  std::vector<CUdeviceptr> blocks;
  for (auto& [size, list] : by_size_) blocks.insert(blocks.end(), list.begin(), list.end());
  by_size_.clear();
  bytes_ = 0;
  return blocks;
}

}  // namespace lazy::runtime
