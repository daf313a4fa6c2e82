// Factories: host data becomes a computed leaf; fills, ranges and random draws are recorded ops.
#include "lazy/factories.h"

#include <cmath>
#include <limits>

#include <absl/strings/str_cat.h>

#include "api/broadcast.h"
#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "ir/host_memory.h"
#include "ir/type_promotion.h"

namespace lazy {

namespace {

using ir::Op;

template <class T>
constexpr DType natural_dtype() {
  if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  if constexpr (std::is_same_v<T, bool>) return DType::bool_;
  return DType::f32;  // float, and double (there is no f64 dtype)
}

// A computed leaf holding a copy of the data; it is not pending in any trace. Bytes (uint8_t)
// are bools: non-zero is true.
template <class T>
Tensor data_leaf(std::span<const T> data, const Shape& shape, DType dtype, std::string_view op,
                 std::source_location loc) {
  api::check_shape(shape, op, loc);
  if (data.size() != std::size_t(shape.numel())) {
    api::fail<ShapeError>(loc, op, "got ", data.size(), " values for shape ", shape.to_string(),
                          " (", shape.numel(), " elements)");
  }
  ir::check_fits_in_host_memory(shape.numel(), itemsize(dtype), op, loc);
  auto storage = std::make_shared<ir::Storage>(dtype, shape.numel());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      const double value =
          is_floating(dtype) ? ir::double_to_float_dtype(double(data[i]), dtype) : double(data[i]);
      ir::store_double(storage->host.data(), dtype, std::int64_t(i), value);
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      ir::store_int(storage->host.data(), dtype, std::int64_t(i), data[i] != 0);
    } else {
      ir::store_int(storage->host.data(), dtype, std::int64_t(i), std::int64_t(data[i]));
    }
  }
  ir::NodePtr node = ir::make_node(Op::Data, dtype, shape, loc);
  node->data = std::make_unique<ir::TensorData>(std::move(storage), ir::Layout::contiguous(shape));
  return Tensor(node);
}

DType default_dtype_of(const Scalar& value) {
  switch (value.kind()) {
    case Scalar::Kind::boolean:
      return DType::bool_;
    case Scalar::Kind::integer:
      return DType::i64;
    case Scalar::Kind::floating:
      return DType::f32;
  }
  return DType::f32;
}

// A number as the user wrote it, for messages: integers without an exponent.
std::string text_of(const Scalar& value) {
  return value.kind() == Scalar::Kind::floating ? api::number_text(value.to_double())
                                                : absl::StrCat(value.to_int());
}

// full, zeros and ones, each named in its errors.
Tensor filled(const Shape& shape, const Scalar& value, std::optional<DType> dtype,
              std::string_view name, std::source_location loc) {
  api::sync_if_trace_full();
  api::check_shape(shape, name, loc);
  DType type = dtype.value_or(default_dtype_of(value));
  api::check_fill_fits(value, type, name, loc);
  ir::Node* scalar = api::scalar_node(value, type, ir::ScalarRole::tensor, loc);
  return Tensor(ir::NodePtr(api::expand_node(scalar, shape, loc)));
}

// Elements in [start, stop) by step; ShapeError past kMaxElements. Integers count in unsigned
// arithmetic: the distance between two int64 values can exceed the int64 range.
std::int64_t range_length(const Scalar& start, const Scalar& stop, const Scalar& step,
                          bool integers, std::source_location loc) {
  bool too_long = false;
  std::int64_t length = 0;
  if (integers) {
    const std::int64_t from = start.to_int(), to = stop.to_int(), by = step.to_int();
    if (by > 0 ? to <= from : to >= from) return 0;
    const std::uint64_t distance =
        by > 0 ? std::uint64_t(to) - std::uint64_t(from) : std::uint64_t(from) - std::uint64_t(to);
    const std::uint64_t stride = by > 0 ? std::uint64_t(by) : 0 - std::uint64_t(by);
    const std::uint64_t count = (distance - 1) / stride + 1;
    too_long = count > std::uint64_t(kMaxElements);
    length = std::int64_t(count);
  } else {
    // Infinite when the distance overflows a double.
    const double count =
        std::max(0.0, std::ceil((stop.to_double() - start.to_double()) / step.to_double()));
    too_long = !(count <= double(kMaxElements));
    if (!too_long) length = std::int64_t(count);
  }
  if (too_long) {
    api::fail<ShapeError>(loc, "arange", "the range ", text_of(start), " to ", text_of(stop),
                          " by ", text_of(step), " has more than 2^60 elements, ",
                          "the most a tensor can hold");
  }
  return length;
}

Tensor random(Op op, std::string_view name, const Shape& shape, std::uint64_t seed, DType dtype,
              std::source_location loc) {
  api::sync_if_trace_full();
  api::check_shape(shape, name, loc);
  if (!is_floating(dtype)) {
    api::fail<DTypeError>(loc, name, "draws floating values; ", dtype_name(dtype),
                          " is not a floating dtype");
  }
  ir::NodePtr node = ir::make_node(op, dtype, shape, loc);
  node->inputs.push_back(
      api::scalar_node(static_cast<std::int64_t>(seed), DType::i64, ir::ScalarRole::number, loc));
  return api::record(std::move(node));
}

}  // namespace

template <HostElement T>
Tensor from_data(std::span<const T> data, const Shape& shape, std::optional<DType> dtype,
                 std::source_location loc) {
  return data_leaf(data, shape, dtype.value_or(natural_dtype<T>()), "from_data", loc);
}
template Tensor from_data(std::span<const float>, const Shape&, std::optional<DType>,
                          std::source_location);
template Tensor from_data(std::span<const double>, const Shape&, std::optional<DType>,
                          std::source_location);
template Tensor from_data(std::span<const std::int32_t>, const Shape&, std::optional<DType>,
                          std::source_location);
template Tensor from_data(std::span<const std::int64_t>, const Shape&, std::optional<DType>,
                          std::source_location);
template Tensor from_data(std::span<const bool>, const Shape&, std::optional<DType>,
                          std::source_location);

Tensor from_bool_bytes(std::span<const std::uint8_t> data, const Shape& shape,
                       std::optional<DType> dtype, std::source_location loc) {
  return data_leaf(data, shape, dtype.value_or(DType::bool_), "from_data", loc);
}

Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype,
            std::source_location loc) {
  return filled(shape, value, dtype, "full", loc);
}

Tensor zeros(const Shape& shape, DType dtype, std::source_location loc) {
  return filled(shape, 0, dtype, "zeros", loc);
}

Tensor ones(const Shape& shape, DType dtype, std::source_location loc) {
  return filled(shape, 1, dtype, "ones", loc);
}

Tensor arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype,
              std::source_location loc) {
  api::sync_if_trace_full();
  bool all_integers = start.kind() != Scalar::Kind::floating &&
                      stop.kind() != Scalar::Kind::floating &&
                      step.kind() != Scalar::Kind::floating;
  DType type = dtype.value_or(all_integers ? DType::i64 : DType::f32);
  if (type == DType::bool_) api::fail<DTypeError>(loc, "arange", "cannot make a bool range");
  if (step.to_double() == 0) api::fail<ValueError>(loc, "arange", "step must not be 0");
  // Start and step become numbers of scalar_type; stop bounds them, so it must fit as well. An
  // i32 range's start and last element must fit i32 (checked below), not its exclusive stop:
  // arange(0, 2^31, 2^30) is [0, 2^30], as in PyTorch.
  DType scalar_type = is_floating(type) ? ir::compute_type_of(type) : DType::i64;
  api::check_scalar_fits(start, type == DType::i32 ? type : scalar_type, "arange", loc);
  api::check_scalar_fits(stop, scalar_type, "arange", loc);
  api::check_scalar_fits(step, scalar_type, "arange", loc);
  if (!std::isfinite(start.to_double()) || !std::isfinite(stop.to_double()) ||
      !std::isfinite(step.to_double())) {
    api::fail<ValueError>(loc, "arange", "unsupported range: ", text_of(start), " to ",
                          text_of(stop), " by ", text_of(step));
  }
  const std::int64_t length = range_length(start, stop, step, all_integers, loc);
  if (is_integer(type) && !all_integers) {
    // As PyTorch: the length from the numbers given, start and step truncated to integers.
    const auto truncated = [](const Scalar& x) { return Scalar(std::int64_t(x.to_double())); };
    if (truncated(step).to_int() == 0) {
      api::fail<ValueError>(loc, "arange", "step ", text_of(step), " truncates to 0 in an ",
                            dtype_name(type), " range; pass an integer step");
    }
    start = truncated(start);
    step = truncated(step);
  }
  if (type == DType::i32 && length > 0) {
    const __int128 last = __int128(start.to_int()) + __int128(length - 1) * step.to_int();
    if (last < std::numeric_limits<std::int32_t>::min() ||
        last > std::numeric_limits<std::int32_t>::max()) {
      api::fail<ValueError>(loc, "arange", "the i32 range ", text_of(start), " to ", text_of(stop),
                            " by ", text_of(step), " reaches ", std::int64_t(last),
                            ", past i32; make it i64");
    }
  }
  // The kernel and the reference take start and step in scalar_type (f32 for floating ranges)
  // and compute each element exactly from them: a step that rounds to 0 there would repeat start.
  if (is_floating(type) && float(step.to_double()) == 0.0f) {
    api::fail<ValueError>(loc, "arange", "step ", text_of(step), " is 0 in f32, where ",
                          dtype_name(type), " ranges are computed");
  }
  // Start and step are inputs, so a new range of the same length reuses everything compiled.
  ir::NodePtr node = ir::make_node(Op::Arange, type, Shape{length}, loc);
  node->compute_dtype = scalar_type;
  node->inputs.push_back(api::scalar_node(start, scalar_type, ir::ScalarRole::number, loc));
  node->inputs.push_back(api::scalar_node(step, scalar_type, ir::ScalarRole::number, loc));
  return api::record(std::move(node));
}

Tensor arange(Scalar stop, std::source_location loc) {
  return arange(0, stop, 1, {}, loc);
}

Tensor rand(const Shape& shape, std::uint64_t seed, DType dtype, std::source_location loc) {
  return random(Op::RandUniform, "rand", shape, seed, dtype, loc);
}

Tensor randn(const Shape& shape, std::uint64_t seed, DType dtype, std::source_location loc) {
  return random(Op::RandNormal, "randn", shape, seed, dtype, loc);
}

// The *_like family: x's shape, and its dtype unless one is given; named in errors as called.
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype, std::source_location loc) {
  const ir::Node* node = api::node_of(x, "zeros_like", loc);
  return filled(node->shape, 0, dtype.value_or(node->dtype), "zeros_like", loc);
}

Tensor ones_like(const Tensor& x, std::optional<DType> dtype, std::source_location loc) {
  const ir::Node* node = api::node_of(x, "ones_like", loc);
  return filled(node->shape, 1, dtype.value_or(node->dtype), "ones_like", loc);
}

Tensor full_like(const Tensor& x, Scalar value, std::optional<DType> dtype,
                 std::source_location loc) {
  const ir::Node* node = api::node_of(x, "full_like", loc);
  return filled(node->shape, value, dtype.value_or(node->dtype), "full_like", loc);
}

Tensor rand_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype,
                 std::source_location loc) {
  const ir::Node* node = api::node_of(x, "rand_like", loc);
  return random(Op::RandUniform, "rand_like", node->shape, seed, dtype.value_or(node->dtype), loc);
}

Tensor randn_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype,
                  std::source_location loc) {
  const ir::Node* node = api::node_of(x, "randn_like", loc);
  return random(Op::RandNormal, "randn_like", node->shape, seed, dtype.value_or(node->dtype), loc);
}

}  // namespace lazy
