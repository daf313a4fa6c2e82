// Scans: running folds along one axis (PyTorch's cumsum, cumprod, cummax, cummin). Negative axes
// count from the end; a 0-d tensor is scanned as one element (axis 0 or -1). Result dtypes follow
// PyTorch: cumsum and cumprod of integers and bools give i64, f16 and bf16 accumulate in f32 and
// keep their dtype; cummax and cummin keep the input's dtype, and their indices are i64.
// The pointwise work that produces the input runs inside the scan's kernel.
#pragma once

#include <source_location>

#include "lazy/tensor.h"

namespace lazy {

// A running extreme and where along the axis it was found.
struct ValuesAndIndices {
  Tensor values;
  Tensor indices;
};

// Element j along `axis` is the sum (product) of elements 0..j, added in that order.
Tensor cumsum(const Tensor& x, int axis,
              std::source_location loc = std::source_location::current());
Tensor cumprod(const Tensor& x, int axis,
               std::source_location loc = std::source_location::current());
// The largest (smallest) of elements 0..j and its position; equal values give the later
// position; once a NaN is met it is the value, with the first NaN's position (PyTorch moves the
// position to each later NaN).
ValuesAndIndices cummax(const Tensor& x, int axis,
                        std::source_location loc = std::source_location::current());
ValuesAndIndices cummin(const Tensor& x, int axis,
                        std::source_location loc = std::source_location::current());

}  // namespace lazy
