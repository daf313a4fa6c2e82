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

  // A host storage over memory someone else owns (lazy::from_blob, lazy::from_dlpack), kept
  // alive by `owner`.
  struct Borrowed {
    std::shared_ptr<void> owner;
    std::byte* data;
  };
  Storage(DType dtype, std::int64_t numel, Borrowed borrowed)
      : dtype(dtype),
        numel(numel),
        host_owner(std::move(borrowed.owner)),
        host_borrowed(borrowed.data),
        on_host(true) {}

  std::size_t bytes() const { return std::size_t(numel) * std::size_t(itemsize(dtype)); }
  // The host copy's bytes: the borrowed ones, or those it owns.
  std::byte* host_data() const { return host_borrowed != nullptr ? host_borrowed : host.data(); }
  // Forgets the host copy (a kernel wrote the device copy over).
  void drop_host() const {
    host = {};
    host_owner.reset();
    host_borrowed = nullptr;
    on_host = false;
  }

  mutable std::mutex mirror_mutex;  // guards making a copy on the other side
  mutable std::vector<std::byte> host;
  mutable std::shared_ptr<void> host_owner;
  mutable std::byte* host_borrowed = nullptr;
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
