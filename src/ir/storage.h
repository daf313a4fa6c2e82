// Memory holding computed tensor values. Several tensors (views) may share one storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ir/layout.h"
#include "lazy/dtype.h"

namespace lazy::ir {

// The elements live on the host, on a device, or both: a copy on the other side is made the
// first time it is asked for (by src/runtime/storage_mirror.h) and kept, since the values of a
// storage never change once written.
struct Storage {
  DType dtype;
  std::int64_t numel;

  // A host storage, filled by its creator through `host`.
  Storage(DType dtype, std::int64_t numel)
      : dtype(dtype),
        numel(numel),
        host(std::size_t(numel) * std::size_t(itemsize(dtype))),
        on_host(true) {}
  // A device storage at `address`, kept alive by `owner`.
  Storage(DType dtype, std::int64_t numel, std::shared_ptr<void> owner, std::uint64_t address)
      : dtype(dtype),
        numel(numel),
        device_owner(std::move(owner)),
        device_address(address),
        on_device(true) {}

  std::size_t bytes() const { return std::size_t(numel) * std::size_t(itemsize(dtype)); }

  mutable std::mutex mirror_mutex;  // guards making a copy on the other side
  mutable std::vector<std::byte> host;
  mutable std::shared_ptr<void> device_owner;
  mutable std::uint64_t device_address = 0;
  mutable bool on_host = false;
  mutable bool on_device = false;
};

// A computed tensor: a storage and how the tensor indexes it.
struct TensorData {
  std::shared_ptr<const Storage> storage;
  Layout layout;
};

}  // namespace lazy::ir
