// Values inside the reference evaluator: elements widened to double (floating dtypes) or int64
// (integer and bool dtypes), indexed through a layout so that views never copy.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ir/layout.h"
#include "ir/storage.h"

namespace lazy::ref {

struct Buffer {
  DType dtype;
  std::vector<double> floats;      // used when dtype is floating
  std::vector<std::int64_t> ints;  // used otherwise
  // The storage these elements were read from or written to, so views of it share it, and the
  // element of it the first one is (a read of part of it).
  std::shared_ptr<const ir::Storage> storage;
  std::int64_t storage_offset = 0;

  Buffer(DType dtype, std::int64_t numel);
  std::int64_t numel() const;
};

struct Value {
  std::shared_ptr<Buffer> buffer;
  ir::Layout layout;
};

// Reads a computed tensor's storage, or its elements [first, first + count), which must hold
// every element the tensor's layout reaches.
Value value_of_data(const ir::TensorData& data);
Value value_of_data(const ir::TensorData& data, std::int64_t first, std::int64_t count);
// The elements [first, end) of its storage a layout reaches (none for an empty one).
std::pair<std::int64_t, std::int64_t> reached_elements(const ir::Layout& layout);
// Writes the buffer into a storage of its dtype (once) and returns the tensor's view of it.
ir::TensorData materialize(const Value& value);

// The elements of `value` in row-major order of `shape` (which it equals, or it is 0-d and
// repeats), converted to `as`: rounded to that dtype's precision, or wrapped for integers.
std::vector<double> gather_floats(const Value& value, const Shape& shape, DType as);
std::vector<std::int64_t> gather_ints(const Value& value, const Shape& shape, DType as);
// A dense copy in the value's own dtype.
Value dense_copy(const Value& value);

}  // namespace lazy::ref
