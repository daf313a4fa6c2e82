// Memory holding computed tensor values. Several tensors (views) may share one storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/layout.h"
#include "lazy/dtype.h"

namespace lazy::ir {

// Host memory for now; device memory joins it with the GPU runtime.
struct Storage {
  DType dtype;
  std::int64_t numel;
  std::vector<std::byte> host;

  Storage(DType dtype, std::int64_t numel)
      : dtype(dtype), numel(numel), host(std::size_t(numel) * std::size_t(itemsize(dtype))) {}
};

// A computed tensor: a storage and how the tensor indexes it.
struct TensorData {
  std::shared_ptr<const Storage> storage;
  Layout layout;
};

}  // namespace lazy::ir
