// Ordering along one axis: the k largest or smallest elements (PyTorch's topk). Negative axes
// count from the end. NaN ranks above every number, equal values come in order of position, and
// the values are returned best first with their positions (i64) along the axis.
// The pointwise work that produces the input runs inside the top-k kernel.
#pragma once

#include <cstdint>
#include <source_location>

#include "lazy/scans.h"
#include "lazy/tensor.h"

namespace lazy {

// The largest k a top-k kernel selects: its candidates live in shared memory.
inline constexpr std::int64_t kMaxTopK = 1024;

// The k largest (smallest, with largest = false) elements along `axis` and their positions; the
// result has x's shape with k along `axis`. k must be in [0, min(extent, kMaxTopK)].
ValuesAndIndices topk(const Tensor& x, std::int64_t k, int axis = -1, bool largest = true,
                      std::source_location loc = std::source_location::current());

}  // namespace lazy
