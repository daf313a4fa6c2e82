#include "api/recording.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>

#include <absl/strings/str_cat.h>

#include "api/composite_marks.h"
#include "ir/dtype_codec.h"
#include "lazy/sync.h"

namespace lazy::api {

namespace {

// The line of the lazy::Function call whose body the thread is capturing, if any.
thread_local std::optional<std::source_location> capture_call;
// The line of the outermost lazy::grad / vjp call the thread is differentiating, if any.
thread_local std::optional<std::source_location> differentiate_call;
thread_local std::string_view differentiate_op = "grad";

}  // namespace

void sync_full_trace() {
  if (!capture_call && !differentiate_call) sync();
}

DifferentiationScope::DifferentiationScope(std::source_location call, std::string_view op) {
  if (!differentiate_call) {
    differentiate_call = call;
    differentiate_op = op;
    outermost_ = true;
  }
}

DifferentiationScope::~DifferentiationScope() {
  if (!outermost_) return;
  differentiate_call.reset();
  differentiate_op = "grad";
  clear_composite_marks();
}

bool differentiating() {
  return differentiate_call.has_value();
}

std::string_view differentiation_op() {
  return differentiate_op;
}

CaptureScope::CaptureScope(std::source_location call) {
  capture_call = call;
}

CaptureScope::~CaptureScope() {
  capture_call.reset();
}

bool capturing() {
  return capture_call.has_value();
}

bool syncs_refused() {
  return capture_call.has_value() || differentiate_call.has_value();
}

void refuse_while_capturing(std::string_view what, std::optional<std::source_location> asked) {
  // The error is the call's (where the function was given), the line that asked is in the text.
  const std::string place =
      asked ? absl::StrCat(" at ", asked->file_name(), ":", asked->line()) : std::string();
  if (differentiate_call) {
    fail<RuntimeError>(*differentiate_call, differentiate_op,
                       "the function being differentiated asked for a host ", what, place,
                       "; a sync computes the values its gradient must be traced through. "
                       "Return the tensor, or keep it in a variable, and read it after the call");
  }
  if (!capture_call) return;
  const std::source_location call = *capture_call;
  fail<RuntimeError>(call, "Function", "the function being captured asked for a host ", what, place,
                     "; its replays do not run the function, so it may only record ops. Return "
                     "the tensor and read it after the call, or call the function uncompiled");
}

ir::Node* defined_node(const Tensor& t, std::string_view op, std::source_location loc) {
  ir::Node* node = t.node();
  if (node == nullptr) fail<ValueError>(loc, op, "the tensor is undefined (default-constructed)");
  return node;
}

void refuse_node(const Tensor& t, std::string_view op, std::source_location loc) {
  if (defined_node(t, op, loc)->trace == nullptr) {
    fail<RuntimeError>(loc, op,
                       "the tensor was never computed: the thread that recorded it ended (or "
                       "dropped its recorded ops) before a sync; call lazy::eval() on it in that "
                       "thread before handing it over");
  }
  fail<RuntimeError>(loc, op,
                     "the tensor was recorded on another thread and is not computed yet; "
                     "call lazy::sync() or lazy::eval() on that thread first");
}

void check_shape(const Shape& shape, std::string_view op, std::source_location loc) {
  for (std::int64_t dim : shape)
    if (dim < 0) fail<ShapeError>(loc, op, "negative size in shape ", shape.to_string());
  std::int64_t elements = 1;
  for (std::int64_t dim : shape) {
    if (dim == 0) continue;
    if (elements > kMaxElements / dim) {
      fail<ShapeError>(loc, op, "shape ", shape.to_string(), " has more than 2^60 elements, ",
                       "the most a tensor can hold");
    }
    elements *= dim;
  }
}

Tensor record(ir::NodePtr node) {
  ir::NodePtr handle = ir::share_unpublished(node.get());
  ir::Trace::current().append(std::move(node));
  return Tensor(std::move(handle));
}

void check_scalar_fits(const Scalar& value, DType dtype, std::string_view op,
                       std::source_location loc, NumberUse use) {
  // Integers are carried as int64; a larger one would wrap. As a double it can be used.
  if (!value.fits_int64()) {
    const double v = value.to_double();  // its digits exactly up to 2^64, else rounded
    if (v >= 0 && v <= 18446744073709551616.0) {
      // Bitwise ops refuse floating numbers: the int64 of the same bits is what they want.
      if (use == NumberUse::bits) {
        fail<ValueError>(loc, op, "the integer ", std::uint64_t(value.to_int()),
                         " is past the int64 range; write it as the int64 of the same bits, ",
                         value.to_int());
      }
      fail<ValueError>(loc, op, "the integer ", std::uint64_t(value.to_int()),
                       " is past the int64 range; write it as a floating-point number");
    }
    fail<ValueError>(loc, op, "the integer ", v,
                     " is past the int64 range; write it as a floating-point number");
  }
  if (!value.fits_double()) {
    fail<ValueError>(loc, op, "the long double number is past double's range (", DBL_MAX, ")");
  }
  if (is_integer(dtype) && value.kind() != Scalar::Kind::floating) {
    std::int64_t v = value.to_int();
    if (dtype == DType::i32 && (v < std::numeric_limits<std::int32_t>::min() ||
                                v > std::numeric_limits<std::int32_t>::max())) {
      fail<ValueError>(loc, op, "the scalar ", v, " does not fit in i32");
    }
  }
  if (is_integer(dtype) && value.kind() == Scalar::Kind::floating) {
    // The range check PyTorch makes: the truncated value must be representable.
    double v = value.to_double();
    double limit = dtype == DType::i32 ? 2147483648.0 : 9223372036854775808.0;  // 2^31, 2^63
    if (!(std::trunc(v) >= -limit && std::trunc(v) < limit)) {
      fail<ValueError>(loc, op, "the scalar ", v, " does not fit in ", dtype_name(dtype));
    }
  }
  // No number up to f16's largest (the smallest of the floating dtypes' largest values) rounds to
  // infinity, which spares nearly every number the rounding.
  constexpr double kFitsEveryFloatingDType = 65504.0;
  if (is_floating(dtype) && use != NumberUse::rounded &&
      std::fabs(value.to_double()) > kFitsEveryFloatingDType && std::isfinite(value.to_double()) &&
      std::isinf(ir::round_to_dtype(value.to_double(), dtype))) {
    fail<ValueError>(loc, op, "the scalar ", value.to_double(), " overflows ", dtype_name(dtype));
  }
}

void check_fill_fits(const Scalar& value, DType dtype, std::string_view op,
                     std::source_location loc) {
  check_scalar_fits(value, dtype, op, loc);
  const double v = value.to_double();
  if (is_floating(dtype) && std::isfinite(v) && std::fabs(v) > ir::largest_finite(dtype)) {
    fail<ValueError>(loc, op, "the value ", number_text(v), " is past ", dtype_name(dtype),
                     "'s largest finite value (", ir::largest_finite(dtype), ")");
  }
}

ir::Node* scalar_node(const Scalar& value, DType dtype, ir::ScalarRole role,
                      std::source_location loc) {
  ir::NodePtr node = ir::make_node(ir::Op::Scalar, dtype, Shape{}, loc);
  node->scalar = value;
  node->attrs.push(std::int64_t(role));
  ir::Node* leaf = node.get();
  ir::Trace::current().append(std::move(node));
  return leaf;
}

int normalize_axis(int axis, int rank, std::string_view op, std::source_location loc) {
  if (rank == 0) fail<AxisError>(loc, op, "axis ", axis, " is out of range: a 0-d tensor has none");
  if (axis < -rank || axis >= rank) {
    fail<AxisError>(loc, op, "axis ", axis, " is out of range: it must be in [", -rank, ", ",
                    rank - 1, "]");
  }
  return axis < 0 ? axis + rank : axis;
}

void require_room_for_an_axis(const Shape& shape, std::string_view op, std::source_location loc) {
  if (shape.rank() >= kMaxRank) {
    fail<ShapeError>(loc, op, "a tensor of shape ", shape.to_string(), " has rank ", shape.rank(),
                     ", and the result would need one more axis (at most ", kMaxRank, ")");
  }
}

}  // namespace lazy::api
