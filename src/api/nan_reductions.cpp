// nansum, nanmean and count_nonzero, written from sum over a where or a comparison, as PyTorch's
// are (its nanmean is nansum divided by the count of non-NaN elements).
#include "api/composites.h"
#include "lazy/reductions.h"

namespace lazy {

Tensor nansum(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* node = api::node_of(x, "nansum", loc);
  api::check_axes(node->shape, axes, "nansum", loc);
  if (!is_floating(node->dtype)) return sum(x, axes, keepdim, loc);
  return sum(where(isnan(x, loc), 0.0, x, loc), axes, keepdim, loc);
}

Tensor nanmean(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  api::sync_if_trace_full();
  api::require_floating(x, "nanmean", loc);
  api::check_axes(x.shape(), axes, "nanmean", loc);
  // nansum's body, its axes checked here already.
  const Tensor nan = isnan(x, loc);
  const Tensor counted = sum(logical_not(nan, loc), axes, keepdim, loc);
  return div(sum(where(nan, 0.0, x, loc), axes, keepdim, loc), counted, loc);
}

Tensor count_nonzero(const Tensor& x, const Axes& axes, std::source_location loc) {
  api::sync_if_trace_full();
  api::check_axes(api::node_of(x, "count_nonzero", loc)->shape, axes, "count_nonzero", loc);
  return sum(ne(x, 0, loc), axes, false, loc);
}

}  // namespace lazy
