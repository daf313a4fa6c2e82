// A device's allocations and their accounting: bytes in use, their peak, the memory limit, and
// giving cached memory back (lazy/memory.h).
#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/cuda_driver.h"
#include "runtime/device.h"
#include "runtime/device_failures.h"

namespace lazy::runtime {

namespace {

std::string mib_text(std::int64_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) + " MiB)";
}

}  // namespace

std::shared_ptr<DeviceBuffer> Device::allocate(std::size_t bytes) {
  DeviceStream& home = current_stream();
  auto buffer = std::unique_ptr<DeviceBuffer>(new DeviceBuffer(this, bytes, home));
  if (bytes > 0) {
    make_current();
    const std::size_t size = FreeBlocks::allocation_size(bytes);
    const bool limited = limit_.load(std::memory_order_relaxed) != 0;
    if (limited) check_limit(size);
    buffer->ptr_ = home.free_blocks.take(bytes);
    if (buffer->ptr_ == 0) {
      if (limited) keep_reserved_under_limit(size);
      buffer->ptr_ = allocate_from_pool(bytes, home);
    }
    const std::int64_t now =
        in_use_.fetch_add(std::int64_t(size), std::memory_order_relaxed) + std::int64_t(size);
    std::int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  return buffer;
}

std::shared_ptr<DeviceBuffer> Device::adopt(CUdeviceptr ptr, std::size_t bytes,
                                            std::function<void()> give_back) {
  // Ordered after the producer first: if that throws, the memory is still the caller's, and
  // its give_back must not run (the caller's own cleanup gives it back once).
  wait_for_producer();
  auto buffer = std::shared_ptr<DeviceBuffer>(new DeviceBuffer(this, bytes, current_stream()));
  buffer->ptr_ = ptr;
  buffer->give_back_ = std::move(give_back);
  if (!buffer->give_back_) buffer->give_back_ = [] {};
  return buffer;
}

CUdeviceptr Device::allocate_from_pool(std::size_t bytes, DeviceStream& home) {
  const std::size_t size = FreeBlocks::allocation_size(bytes);
  CUdeviceptr ptr = 0;
  CUresult result = driver_.cuMemAllocFromPoolAsync(&ptr, size, pool_, home.stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // Blocks kept for reuse, then memory whose stream-ordered frees have not run yet.
    free_kept_blocks();
    result = driver_.cuMemAllocFromPoolAsync(&ptr, size, pool_, home.stream);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      synchronize_all();
      result = driver_.cuMemAllocFromPoolAsync(&ptr, size, pool_, home.stream);
    }
  }
  if (result != CUDA_SUCCESS) {
    const std::string what =
        "cuMemAllocFromPoolAsync of " + std::to_string(bytes) + " bytes on " + name_;
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      throw OutOfDeviceMemory("lazyfuse: " + describe_cuda_error(result, what),
                              std::source_location::current());
    }
    failures_->fail(result, what);
  }
  return ptr;
}

void Device::release(CUdeviceptr ptr, std::size_t bytes, DeviceStream& home) noexcept {
  if (ptr == 0) return;
  in_use_.fetch_sub(std::int64_t(FreeBlocks::allocation_size(bytes)), std::memory_order_relaxed);
  try {
    if (home.free_blocks.keep(ptr, bytes)) return;
    // Not once the process exits or a lost context took its memory with it (reported already).
    if (current_for_teardown()) {
      failures_->check(driver_.cuMemFreeAsync(ptr, home.stream), "cuMemFreeAsync");
    }
  } catch (const std::exception& error) {
    // A destructor cannot throw; a failed free means the context is already broken.
    std::fprintf(stderr, "%s\n", error.what());
  }
}

void Device::free_kept_blocks() {
  std::lock_guard lock(streams_mutex_);
  for (const std::unique_ptr<DeviceStream>& stream : streams_) {
    for (CUdeviceptr block : stream->free_blocks.drain())
      failures_->check(driver_.cuMemFreeAsync(block, stream->stream), "cuMemFreeAsync");
  }
}

void Device::check_limit(std::size_t size) {
  const std::int64_t limit = limit_.load(std::memory_order_relaxed);
  const auto wanted = std::int64_t(size);
  const std::int64_t in_use = in_use_.load(std::memory_order_relaxed);
  if (in_use + wanted <= limit) return;
  empty_cache();
  throw MemoryLimitExceeded("lazyfuse: an allocation of " + mib_text(wanted) + " on " +
                                description_ + " would pass the memory limit of " +
                                mib_text(limit) + " with " + mib_text(in_use) + " in use",
                            limit, in_use);
}

void Device::keep_reserved_under_limit(std::size_t size) {
  // The cache goes first, so what the pool holds stays near the limit too (give or take the
  // pool's granules).
  if (memory_stats().reserved + std::int64_t(size) > limit_.load(std::memory_order_relaxed))
    empty_cache();
}

DeviceMemoryStats Device::memory_stats() {
  DeviceMemoryStats stats;
  stats.in_use = in_use_.load(std::memory_order_relaxed);
  stats.peak = std::max(peak_.load(std::memory_order_relaxed), stats.in_use);
  stats.limit = limit_.load(std::memory_order_relaxed);
  cuuint64_t reserved = 0;
  make_current();
  failures_->check(
      driver_.cuMemPoolGetAttribute(pool_, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
      "cuMemPoolGetAttribute(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)");
  // Never below what is in use: the pool counts in its own granules, a stub driver not at all.
  stats.reserved = std::max(std::int64_t(reserved), stats.in_use);
  return stats;
}

void Device::reset_peak_memory() {
  peak_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void Device::empty_cache() {
  make_current();
  free_kept_blocks();
  // Trimming releases only memory whose frees have run: wait for them.
  synchronize_all();
  failures_->check(driver_.cuMemPoolTrimTo(pool_, 0), "cuMemPoolTrimTo");
}

void Device::set_memory_limit(std::int64_t bytes) {
  limit_.store(std::max<std::int64_t>(bytes, 0), std::memory_order_relaxed);
}

}  // namespace lazy::runtime
