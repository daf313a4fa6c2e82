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

// The storage's address on `device` (uploaded once).
CUdeviceptr device_address(const ir::Storage& storage, Device& device);

// A new storage of `numel` elements in device memory.
std::shared_ptr<ir::Storage> allocate_device_storage(Device& device, DType dtype,
                                                     std::int64_t numel);

}  // namespace lazy::runtime
