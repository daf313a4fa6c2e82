#include "pool_memory.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>

namespace lazy::bench {

struct PoolMemory::Driver {
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDeviceGetDefaultMemPool) default_pool;
  decltype(&::cuMemPoolGetAttribute) get_attribute;
  decltype(&::cuMemPoolSetAttribute) set_attribute;
};

namespace {

// The names the library tries (src/runtime/cuda_driver.cpp); RTLD_NOLOAD finds the copy it
// opened instead of loading another.
constexpr const char* kDriverNames[] = {"libcuda.so.1", "libcuda.so"};

std::optional<PoolMemory::Driver> load_driver() {
  for (const char* name : kDriverNames) {
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    PoolMemory::Driver driver{
        reinterpret_cast<decltype(&::cuDeviceGet)>(dlsym(handle, "cuDeviceGet")),
        reinterpret_cast<decltype(&::cuDeviceGetDefaultMemPool)>(
            dlsym(handle, "cuDeviceGetDefaultMemPool")),
        reinterpret_cast<decltype(&::cuMemPoolGetAttribute)>(
            dlsym(handle, "cuMemPoolGetAttribute")),
        reinterpret_cast<decltype(&::cuMemPoolSetAttribute)>(
            dlsym(handle, "cuMemPoolSetAttribute"))};
    if (driver.device_get == nullptr || driver.default_pool == nullptr ||
        driver.get_attribute == nullptr || driver.set_attribute == nullptr) {
      return std::nullopt;
    }
    return driver;
  }
  return std::nullopt;
}

const PoolMemory::Driver* loaded_driver() {
  static const std::optional<PoolMemory::Driver> driver = load_driver();
  return driver ? &*driver : nullptr;
}

}  // namespace

std::optional<PoolMemory> PoolMemory::open(int ordinal) {
  const Driver* driver = loaded_driver();
  if (driver == nullptr) return std::nullopt;
  CUdevice device = 0;
  CUmemoryPool pool = nullptr;
  if (driver->device_get(&device, ordinal) != CUDA_SUCCESS ||
      driver->default_pool(&pool, device) != CUDA_SUCCESS) {
    return std::nullopt;
  }
  PoolMemory memory(driver, pool);
  if (driver->get_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &memory.used_at_reset_) !=
      CUDA_SUCCESS) {
    return std::nullopt;
  }
  return memory;
}

std::uint64_t PoolMemory::attribute(int attr) const {
  cuuint64_t value = 0;
  driver_->get_attribute(static_cast<CUmemoryPool>(pool_), static_cast<CUmemPool_attribute>(attr),
                         &value);
  return value;
}

std::uint64_t PoolMemory::used_now() const {
  return attribute(CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
}

std::uint64_t PoolMemory::peak() const {
  return std::max(attribute(CU_MEMPOOL_ATTR_USED_MEM_HIGH), used_at_reset_);
}

void PoolMemory::reset_peak() {
  // The driver only accepts 0, which restarts the watermark from the next allocation; what was
  // in use at the reset is remembered so the peak never reads below it.
  used_at_reset_ = used_now();
  cuuint64_t zero = 0;
  driver_->set_attribute(static_cast<CUmemoryPool>(pool_), CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero);
}

}  // namespace lazy::bench
