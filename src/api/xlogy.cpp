// xlogy as PyTorch's kernel computes it: NaN for a NaN y, else 0 for x == 0, else x * log(y).
// The log reads 1 where x is 0, so log(0) never meets the zero cotangent of the branch not taken.
#include <cmath>

#include "api/recording.h"
#include "lazy/factories.h"
#include "lazy/ops.h"

namespace lazy {

namespace {

Tensor as_tensor(const Operand& x, std::source_location loc) {
  return x.is_tensor() ? x.tensor() : full({}, x.scalar(), {}, loc);
}

}  // namespace

Tensor xlogy(const Operand& x, const Operand& y, std::source_location loc) {
  api::sync_if_trace_full();
  if (!x.is_tensor() && !y.is_tensor()) {
    api::fail<ValueError>(loc, "xlogy",
                          "needs at least one tensor; compute two numbers on the host");
  }
  const Tensor a = as_tensor(x, loc), b = as_tensor(y, loc);
  const Tensor at_zero = eq(a, 0, loc);
  const Tensor product = mul(a, log(where(at_zero, 1, b, loc), loc), loc);
  return where(isnan(b, loc), NAN, where(at_zero, 0.0, product, loc), loc);
}

}  // namespace lazy
