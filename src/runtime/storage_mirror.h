// Copies of a storage on the other side, made on first use: a tensor made from host data is
// uploaded the first time a kernel reads it, a kernel's result is downloaded the first time the
// host reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/storage.h"
#include "runtime/device.h"

namespace lazy::runtime {

// The host bytes of a storage (downloaded from the device once).
const std::byte* host_bytes(const ir::Storage& storage);

// Copies `bytes` bytes from `offset` bytes into the storage to `dst`: from the host copy if there
// is one, else straight from the device, without keeping a host copy (a one-off read of a large
// result should not cost its size twice in host memory).
void copy_storage_to_host(const ir::Storage& storage, std::size_t offset, std::size_t bytes,
                          void* dst);

// The storage's address on `device` (uploaded once).
CUdeviceptr device_address(const ir::Storage& storage, Device& device);

// A new storage of `numel` elements in device memory.
std::shared_ptr<ir::Storage> allocate_device_storage(Device& device, DType dtype,
                                                     std::int64_t numel);

}  // namespace lazy::runtime
