// dropout as PyTorch's kernels compute it: x times a 0/1 mask times 1 / (1 - p), so a NaN in a
// dropped element stays NaN (0 * NaN), as theirs does.
#include <cmath>
#include <cstdint>

#include "api/composites.h"
#include "lazy/factories.h"
#include "lazy/ops.h"

namespace lazy {

Tensor dropout(const Tensor& x, double p, std::uint64_t seed, bool training,
               std::source_location loc) {
  api::sync_if_trace_full();
  if (!(p >= 0 && p <= 1)) {
    api::fail<ValueError>(loc, "dropout", "probability must be in [0, 1], got ", p);
  }
  // As PyTorch's: x itself, whatever its dtype, where nothing is dropped.
  if (!training || p == 0 || api::node_of(x, "dropout", loc)->shape.numel() == 0) return x;
  if (p == 1) return mul(x, 0, loc);  // as PyTorch: every element dropped, NaN kept
  api::require_floating(x, "dropout", loc);
  const Tensor kept = lt(rand_like(x, seed, DType::f32, loc), 1 - p, loc);
  return mul(mul(x, kept.to(x.dtype(), loc), loc), 1 / (1 - p), loc);
}

}  // namespace lazy
