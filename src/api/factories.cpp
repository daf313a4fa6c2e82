// Factories: host data becomes a computed leaf; fills, ranges and random draws are recorded ops.
#include "lazy/factories.h"

#include <cmath>

#include "api/broadcast.h"
#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "ir/type_promotion.h"

namespace lazy {

namespace {

using ir::Op;

void check_shape(const Shape& shape, std::string_view op, std::source_location loc) {
  for (std::int64_t dim : shape)
    if (dim < 0) api::fail<ShapeError>(loc, op, "negative size in shape ", shape.to_string());
}

template <class T>
constexpr DType natural_dtype() {
  if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  if constexpr (std::is_same_v<T, bool>) return DType::bool_;
  return DType::f32;  // float, and double (there is no f64 dtype)
}

// A computed leaf holding a copy of the data; it is not pending in any trace.
template <class T>
Tensor data_leaf(std::span<const T> data, const Shape& shape, DType dtype, std::string_view op,
                 std::source_location loc) {
  check_shape(shape, op, loc);
  if (std::int64_t(data.size()) != shape.numel()) {
    api::fail<ShapeError>(loc, op, "got ", data.size(), " values for shape ", shape.to_string(),
                          " (", shape.numel(), " elements)");
  }
  auto storage = std::make_shared<ir::Storage>(dtype, shape.numel());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      ir::store_double(storage->host.data(), dtype, std::int64_t(i), double(data[i]));
    } else {
      ir::store_int(storage->host.data(), dtype, std::int64_t(i), std::int64_t(data[i]));
    }
  }
  ir::NodePtr node = api::new_node(Op::Data, dtype, shape, loc);
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

Tensor random(Op op, std::string_view name, const Shape& shape, std::uint64_t seed, DType dtype,
              std::source_location loc) {
  api::sync_if_trace_full();
  check_shape(shape, name, loc);
  if (!is_floating(dtype)) {
    api::fail<DTypeError>(loc, name, "draws floating values; ", dtype_name(dtype),
                          " is not a floating dtype");
  }
  ir::NodePtr node = api::new_node(op, dtype, shape, loc);
  node->inputs.push_back(
      api::scalar_node(static_cast<std::int64_t>(seed), DType::i64, ir::ScalarRole::number, loc));
  return api::record(node);
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
  std::vector<std::int64_t> values(data.begin(), data.end());
  for (std::int64_t& v : values) v = v != 0;
  return data_leaf(std::span<const std::int64_t>(values), shape, dtype.value_or(DType::bool_),
                   "from_data", loc);
}

Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype,
            std::source_location loc) {
  api::sync_if_trace_full();
  check_shape(shape, "full", loc);
  DType type = dtype.value_or(default_dtype_of(value));
  api::check_scalar_fits(value, type, "full", loc);
  ir::NodePtr scalar = api::scalar_node(value, type, ir::ScalarRole::tensor, loc);
  return Tensor(api::expand_node(scalar, shape, loc));
}

Tensor zeros(const Shape& shape, DType dtype, std::source_location loc) {
  return full(shape, 0, dtype, loc);
}

Tensor ones(const Shape& shape, DType dtype, std::source_location loc) {
  return full(shape, 1, dtype, loc);
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
  if (is_integer(type) &&
      (start.kind() == Scalar::Kind::floating || step.kind() == Scalar::Kind::floating)) {
    api::fail<ValueError>(loc, "arange", "an integer range needs integer start and step");
  }
  std::int64_t length;
  if (all_integers) {
    std::int64_t span = stop.to_int() - start.to_int();
    std::int64_t s = step.to_int();
    length = (span % s == 0) ? span / s : span / s + ((span < 0) == (s < 0) ? 1 : 0);
  } else {
    length = std::int64_t(std::ceil((stop.to_double() - start.to_double()) / step.to_double()));
  }
  length = std::max<std::int64_t>(length, 0);
  // Start and step are inputs, so a new range of the same length reuses everything compiled.
  DType scalar_type = is_floating(type) ? ir::compute_type_of(type) : DType::i64;
  ir::NodePtr node = api::new_node(Op::Arange, type, Shape{length}, loc);
  node->compute_dtype = scalar_type;
  node->inputs.push_back(api::scalar_node(start, scalar_type, ir::ScalarRole::number, loc));
  node->inputs.push_back(api::scalar_node(step, scalar_type, ir::ScalarRole::number, loc));
  return api::record(node);
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

}  // namespace lazy
