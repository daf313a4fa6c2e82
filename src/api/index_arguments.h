// Checks and conversions the indexing ops (gathers, scatters, masks) share.
#pragma once

#include <source_location>
#include <string_view>

#include "api/recording.h"
#include "ir/gather.h"
#include "ir/scatter.h"
#include "lazy/factories.h"
#include "lazy/scalar.h"

namespace lazy::api {

// An index tensor must hold i32 or i64 positions.
inline void require_index(ir::Node* index, std::string_view op, std::source_location loc) {
  if (index->dtype != DType::i32 && index->dtype != DType::i64) {
    fail<DTypeError>(loc, op, "needs an i32 or i64 index, got ", dtype_name(index->dtype),
                     "; convert it with .to(lazy::DType::i64)");
  }
}

// A 0-d tensor of x's dtype holding `value`, which must fit it as a fill value.
inline Tensor scalar_of(const Tensor& x, const Scalar& value, std::string_view op,
                        std::source_location loc) {
  check_fill_fits(value, x.dtype(), op, loc);
  return full({}, value, x.dtype(), loc);
}

// scatter_add of a gather-family op's cotangent into zeros of its source's shape, named in errors
// as the gradient of `caller`, the op the user called.
Tensor scatter_gather_cotangent(const Tensor& zeros, int axis, const Tensor& index,
                                const Tensor& cotangent, ir::GatherCaller caller,
                                std::source_location loc);

// A gather or a scatter that a gradient records, named in errors as `caller` names it.
Tensor named_gather(const Tensor& x, int axis, const Tensor& index, ir::GatherCaller caller,
                    std::source_location loc);
Tensor named_scatter(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                     ir::ScatterCaller caller, std::source_location loc);

}  // namespace lazy::api
