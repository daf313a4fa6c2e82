#include "ref/value.h"

#include "ir/dtype_codec.h"

namespace lazy::ref {

namespace {

// Calls fn(i, storage_index) for each element i of `shape` in row-major order; a 0-d layout
// repeats its one element.
template <class Fn>
void for_each_index(const ir::Layout& layout, const Shape& shape, Fn fn) {
  std::int64_t n = shape.numel();
  if (layout.shape.rank() == 0) {
    for (std::int64_t i = 0; i < n; ++i) fn(i, layout.offset);
    return;
  }
  int rank = shape.rank();
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t offset = layout.offset;
  for (std::int64_t i = 0; i < n; ++i) {
    fn(i, offset);
    for (int axis = rank - 1; axis >= 0; --axis) {
      if (++index[axis] < shape[axis]) {
        offset += layout.strides[axis];
        break;
      }
      offset -= layout.strides[axis] * (shape[axis] - 1);
      index[axis] = 0;
    }
  }
}

}  // namespace

Buffer::Buffer(DType dtype, std::int64_t numel) : dtype(dtype) {
  if (is_floating(dtype)) {
    floats.resize(std::size_t(numel));
  } else {
    ints.resize(std::size_t(numel));
  }
}

std::int64_t Buffer::numel() const {
  return std::int64_t(is_floating(dtype) ? floats.size() : ints.size());
}

Value value_of_data(const ir::TensorData& data) {
  return value_of_data(data, 0, data.storage->numel);
}

Value value_of_data(const ir::TensorData& data, std::int64_t first, std::int64_t count) {
  const ir::Storage& storage = *data.storage;
  auto buffer = std::make_shared<Buffer>(storage.dtype, count);
  for (std::int64_t i = 0; i < count; ++i) {
    if (is_floating(storage.dtype)) {
      buffer->floats[i] = ir::load_as_double(storage.host_data(), storage.dtype, first + i);
    } else {
      buffer->ints[i] = ir::load_as_int(storage.host_data(), storage.dtype, first + i);
    }
  }
  buffer->storage = data.storage;
  buffer->storage_offset = first;
  ir::Layout layout = data.layout;
  layout.offset -= first;
  return {buffer, layout};
}

std::pair<std::int64_t, std::int64_t> reached_elements(const ir::Layout& layout) {
  if (layout.shape.numel() == 0) return {layout.offset, layout.offset};
  std::int64_t first = layout.offset, last = layout.offset;
  for (int a = 0; a < layout.shape.rank(); ++a) {
    const std::int64_t span = (layout.shape[a] - 1) * layout.strides[a];
    (span < 0 ? first : last) += span;
  }
  return {first, last + 1};
}

ir::TensorData materialize(const Value& value) {
  Buffer& buffer = *value.buffer;
  if (!buffer.storage) {
    auto storage = std::make_shared<ir::Storage>(buffer.dtype, buffer.numel());
    for (std::int64_t i = 0; i < buffer.numel(); ++i) {
      if (is_floating(buffer.dtype)) {
        ir::store_double(storage->host.data(), buffer.dtype, i, buffer.floats[i]);
      } else {
        ir::store_int(storage->host.data(), buffer.dtype, i, buffer.ints[i]);
      }
    }
    buffer.storage = std::move(storage);
  }
  ir::Layout layout = value.layout;
  layout.offset += buffer.storage_offset;
  return {buffer.storage, layout};
}

std::vector<double> gather_floats(const Value& value, const Shape& shape, DType as) {
  std::vector<double> out(std::size_t(shape.numel()));
  const Buffer& b = *value.buffer;
  bool exact =
      b.dtype == as || (as == DType::f32 && b.dtype != DType::i64 && b.dtype != DType::i32);
  for_each_index(value.layout, shape, [&](std::int64_t i, std::int64_t offset) {
    if (is_floating(b.dtype)) {
      out[i] = exact ? b.floats[offset] : ir::round_to_dtype(b.floats[offset], as);
    } else {
      out[i] = exact ? double(b.ints[offset]) : ir::integer_to_float_dtype(b.ints[offset], as);
    }
  });
  return out;
}

std::vector<std::int64_t> gather_ints(const Value& value, const Shape& shape, DType as) {
  std::vector<std::int64_t> out(std::size_t(shape.numel()));
  const Buffer& b = *value.buffer;
  for_each_index(value.layout, shape, [&](std::int64_t i, std::int64_t offset) {
    if (is_floating(b.dtype)) {
      out[i] = ir::float_to_integer_dtype(b.floats[offset], as);
    } else {
      out[i] = ir::wrap_to_dtype(b.ints[offset], as);
    }
  });
  return out;
}

Value dense_copy(const Value& value) {
  const Shape& shape = value.layout.shape;
  auto buffer = std::make_shared<Buffer>(value.buffer->dtype, shape.numel());
  if (is_floating(buffer->dtype)) {
    buffer->floats = gather_floats(value, shape, buffer->dtype);
  } else {
    buffer->ints = gather_ints(value, shape, buffer->dtype);
  }
  return {buffer, ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref
