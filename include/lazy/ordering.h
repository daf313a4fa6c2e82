// Ordering along one axis: the k largest or smallest elements (PyTorch's topk), and sorting.
// Negative axes count from the end. NaN ranks above every number, -0 equals 0, equal values come
// in order of position (every sort is stable), and values come with their positions (i64) along
// the axis. The pointwise work that produces the input runs inside the kernel.
#pragma once

#include <cstdint>
#include <source_location>

#include "lazy/scans.h"
#include "lazy/tensor.h"

namespace lazy {

// The k largest (smallest, with largest = false) elements along `axis` and their positions; the
// result has x's shape with k along `axis`, best first. k must be in [0, extent].
ValuesAndIndices topk(const Tensor& x, std::int64_t k, int axis = -1, bool largest = true,
                      std::source_location loc = std::source_location::current());

// x sorted along `axis`, ascending (descending: largest first), and where each value was: stable,
// as PyTorch's sort with stable = true. NaN sorts last ascending, first descending.
ValuesAndIndices sort(const Tensor& x, int axis = -1, bool descending = false,
                      std::source_location loc = std::source_location::current());

// The positions that sort x along `axis` (sort's indices).
Tensor argsort(const Tensor& x, int axis = -1, bool descending = false,
               std::source_location loc = std::source_location::current());

}  // namespace lazy
