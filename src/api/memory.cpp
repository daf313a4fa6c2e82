#include "lazy/memory.h"

#include <string>

#include "lazy/error.h"
#include "runtime/device.h"

namespace lazy {

MemoryStats memory_stats() {
  runtime::Device* device = runtime::Device::get();
  if (device == nullptr) return {};
  const runtime::DeviceMemoryStats stats = device->memory_stats();
  return {stats.in_use, stats.peak, stats.reserved, stats.limit};
}

void reset_peak_memory() {
  if (runtime::Device* device = runtime::Device::get()) device->reset_peak_memory();
}

void empty_cache() {
  if (runtime::Device* device = runtime::Device::get()) device->empty_cache();
}

void set_memory_limit(std::int64_t bytes, std::source_location loc) {
  if (bytes < 0) {
    throw ValueError("lazy::set_memory_limit: the limit is a number of bytes, 0 for none; got " +
                         std::to_string(bytes),
                     loc);
  }
  if (runtime::Device* device = runtime::Device::get()) device->set_memory_limit(bytes);
}

}  // namespace lazy
