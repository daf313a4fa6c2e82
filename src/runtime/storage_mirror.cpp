#include "runtime/storage_mirror.h"

#include <cstring>

#include "lazy/error.h"

namespace lazy::runtime {

const std::byte* host_bytes(const ir::Storage& storage) {
  std::lock_guard lock(storage.mirror_mutex);
  if (!storage.on_host) {
    Device* device = Device::get();
    if (device == nullptr) {
      throw RuntimeError("lazyfuse: a tensor lives on a GPU that is no longer usable",
                         std::source_location::current());
    }
    storage.host.resize(storage.bytes());
    device->read_on_this_stream(storage.device_owner);
    device->copy_to_host(storage.host.data(), storage.device_address, storage.bytes());
    storage.on_host = true;
  }
  return storage.host_data();
}

void copy_storage_to_host(const ir::Storage& storage, std::size_t offset, std::size_t bytes,
                          void* dst) {
  if (bytes == 0) return;
  {
    std::lock_guard lock(storage.mirror_mutex);
    Device* device = Device::get();
    if (!storage.on_host && device != nullptr) {
      device->read_on_this_stream(storage.device_owner);
      device->copy_to_host(dst, storage.device_address + offset, bytes);
      return;
    }
  }
  std::memcpy(dst, host_bytes(storage) + offset, bytes);
}

CUdeviceptr device_address(const ir::Storage& storage, Device& device) {
  std::lock_guard lock(storage.mirror_mutex);
  if (!storage.on_device) {
    std::shared_ptr<DeviceBuffer> buffer = device.allocate(storage.bytes());
    device.copy_to_device(buffer->ptr(), storage.host_data(), storage.bytes());
    storage.device_address = buffer->ptr();
    storage.device_owner = std::move(buffer);
    storage.on_device = true;
  } else {
    device.read_on_this_stream(storage.device_owner);  // written by another thread's stream?
  }
  return storage.device_address;
}

std::shared_ptr<ir::Storage> allocate_device_storage(Device& device, DType dtype,
                                                     std::int64_t numel) {
  std::shared_ptr<DeviceBuffer> buffer =
      device.allocate(std::size_t(numel) * std::size_t(itemsize(dtype)));
  CUdeviceptr address = buffer->ptr();
  return std::make_shared<ir::Storage>(dtype, numel, std::move(buffer), address);
}

}  // namespace lazy::runtime
