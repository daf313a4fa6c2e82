// isclose and allclose, as PyTorch's: the same tensor ops in the same order, each rounding to the
// dtype.
#include "api/recording.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan,
               std::source_location loc) {
  api::sync_if_trace_full();
  const DType dtype = api::node_of(a, "isclose", loc)->dtype;
  const DType other = api::node_of(b, "isclose", loc)->dtype;
  if (dtype != other) {
    api::fail<DTypeError>(loc, "isclose", "compares tensors of one dtype, got ", dtype_name(dtype),
                          " and ", dtype_name(other), "; cast one first");
  }
  if (!(rtol >= 0) || !(atol >= 0)) {
    api::fail<ValueError>(loc, "isclose", "rtol and atol must be >= 0, got ", rtol, " and ", atol);
  }
  // PyTorch's order of tensor ops, each rounding to the dtype: equal, or both NaN, or a finite
  // error within atol + |rtol * b|.
  Tensor close = eq(a, b, loc);
  if (equal_nan && is_floating(dtype)) {
    close = logical_or(close, logical_and(isnan(a, loc), isnan(b, loc), loc), loc);
  }
  if (rtol == 0 && atol == 0) return close;
  // Bools as f32; integers subtract in their own dtype and compare with the f32 bound.
  const Tensor x = dtype == DType::bool_ ? a.to(DType::f32, loc) : a;
  const Tensor y = dtype == DType::bool_ ? b.to(DType::f32, loc) : b;
  const Tensor error = abs(sub(x, y, loc), loc);
  const Tensor bound = add(abs(mul(y, rtol, loc), loc), atol, loc);
  return logical_or(close, logical_and(isfinite(error, loc), le(error, bound, loc), loc), loc);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan,
              std::source_location loc) {
  return all(isclose(a, b, rtol, atol, equal_nan, loc), {}, false, loc).item<bool>(loc);
}

}  // namespace lazy
