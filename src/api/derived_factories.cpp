// Factories built from the others: linspace from a range, the *_like family from x's shape.
#include <cstdint>
#include <limits>

#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "lazy/factories.h"
#include "lazy/ops.h"

namespace lazy {

namespace {

// The exact quotient of an i64 numerator by a positive divisor, truncated toward zero.
Tensor truncated_quotient(const Tensor& numerator, std::int64_t divisor, std::source_location loc) {
  return where(ge(numerator, 0, loc), floor_divide(numerator, divisor, loc),
               neg(floor_divide(neg(numerator, loc), divisor, loc), loc), loc);
}

// Integer linspace: element i is trunc((start * (steps - 1) + (end - start) * i) / (steps - 1)),
// computed exactly in i64 where it fits.
Tensor integer_linspace(const Scalar& start, const Scalar& end, std::int64_t steps, DType dtype,
                        std::source_location loc) {
  const auto whole = [&](const Scalar& x) {
    // PyTorch converts the ends to the dtype first, truncating a floating one.
    return x.kind() == Scalar::Kind::floating ? std::int64_t(x.to_double()) : x.to_int();
  };
  api::check_scalar_fits(start, dtype, "linspace", loc);
  api::check_scalar_fits(end, dtype, "linspace", loc);
  const std::int64_t from = whole(start), to = whole(end), intervals = steps - 1;
  if (intervals == 0) return full(Shape{1}, from, dtype, loc);
  const __int128 span = __int128(to) - from;
  const __int128 largest = (from < 0 ? -__int128(from) : __int128(from)) * intervals +
                           (span < 0 ? -span : span) * intervals;
  if (largest > std::numeric_limits<std::int64_t>::max()) {
    api::fail<ValueError>(loc, "linspace", "the integer range ", from, " to ", to, " in ", steps,
                          " steps is too wide to compute exactly; use a floating dtype");
  }
  const Tensor index = arange(0, steps, 1, DType::i64, loc);
  const Tensor numerator = add(mul(index, std::int64_t(span), loc), from * intervals, loc);
  return truncated_quotient(numerator, intervals, loc).to(dtype, loc);
}

}  // namespace

Tensor linspace(Scalar start, Scalar end, std::int64_t steps, std::optional<DType> dtype,
                std::source_location loc) {
  api::sync_if_trace_full();
  const DType type = dtype.value_or(DType::f32);
  if (steps < 0) api::fail<ValueError>(loc, "linspace", "steps must be >= 0, got ", steps);
  if (type == DType::bool_) api::fail<DTypeError>(loc, "linspace", "cannot make a bool range");
  api::check_shape(Shape{steps}, "linspace", loc);
  if (steps == 0) return zeros(Shape{0}, type, loc);
  if (!is_floating(type)) return integer_linspace(start, end, steps, type, loc);
  api::check_fill_fits(start, type, "linspace", loc);
  api::check_fill_fits(end, type, "linspace", loc);
  // As PyTorch's kernel: the ends in the dtype, the step in its compute precision (f32).
  const float from = float(ir::double_to_float_dtype(start.to_double(), type));
  const float to = float(ir::double_to_float_dtype(end.to_double(), type));
  if (steps == 1) return full(Shape{1}, from, type, loc);
  const float step = (to - from) / float(steps - 1);
  const Tensor index = arange(0, steps, 1, DType::i64, loc);
  const Tensor up = add(mul(index.to(DType::f32, loc), step, loc), from, loc);
  const Tensor down = sub(to, mul(sub(steps - 1, index, loc).to(DType::f32, loc), step, loc), loc);
  return where(lt(index, steps / 2, loc), up, down, loc).to(type, loc);
}

Tensor zeros_like(const Tensor& x, std::optional<DType> dtype, std::source_location loc) {
  const ir::Node* node = api::node_of(x, "zeros_like", loc);
  return zeros(node->shape, dtype.value_or(node->dtype), loc);
}

Tensor ones_like(const Tensor& x, std::optional<DType> dtype, std::source_location loc) {
  const ir::Node* node = api::node_of(x, "ones_like", loc);
  return ones(node->shape, dtype.value_or(node->dtype), loc);
}

Tensor full_like(const Tensor& x, Scalar value, std::optional<DType> dtype,
                 std::source_location loc) {
  const ir::Node* node = api::node_of(x, "full_like", loc);
  return full(node->shape, value, dtype.value_or(node->dtype), loc);
}

Tensor rand_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype,
                 std::source_location loc) {
  const ir::Node* node = api::node_of(x, "rand_like", loc);
  return rand(node->shape, seed, dtype.value_or(node->dtype), loc);
}

Tensor randn_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype,
                  std::source_location loc) {
  const ir::Node* node = api::node_of(x, "randn_like", loc);
  return randn(node->shape, seed, dtype.value_or(node->dtype), loc);
}

}  // namespace lazy
