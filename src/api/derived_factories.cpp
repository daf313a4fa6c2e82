// linspace, built from a range.
#include <cstdint>
#include <limits>
#include <vector>

#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "lazy/factories.h"
#include "lazy/ops.h"

namespace lazy {

namespace {

// Integer linspace: element i is trunc(start + (end - start) * i / (steps - 1)), exactly. With
// (end - start) = q * (steps - 1) + r, 0 <= r < steps - 1, that is base = start + q * i +
// floor(r * i / (steps - 1)) plus 1 where base is negative and the division left a remainder.
// The sums wrap in i64 on the way, and land where the exact value (between the ends) lies.
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
  if (intervals == 1) return from_data(std::vector<std::int64_t>{from, to}, {2}, dtype, loc);
  const __int128 span = __int128(to) - from;
  __int128 q = span / intervals, r = span % intervals;
  if (r < 0) {  // floor division
    q -= 1;
    r += intervals;
  }
  if (r != 0 && intervals > std::numeric_limits<std::int64_t>::max() / (intervals - 1)) {
    api::fail<ValueError>(loc, "linspace", "an integer range of ", steps,
                          " steps whose step is not whole is too long to compute exactly; use "
                          "at most 3037000501 steps or a floating dtype");
  }
  const auto wrapped = [](__int128 v) { return std::int64_t(std::uint64_t(v)); };
  const Tensor index = arange(0, steps, 1, DType::i64, loc);
  const Tensor scaled = mul(index, std::int64_t(r), loc);
  const Tensor base =
      add(add(mul(index, wrapped(q), loc), from, loc), floor_divide(scaled, intervals, loc), loc);
  const Tensor up =
      logical_and(lt(base, 0, loc), ne(remainder(scaled, intervals, loc), 0, loc), loc);
  return add(base, up.to(DType::i64, loc), loc).to(dtype, loc);
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

}  // namespace lazy
