// Indexing: reading at positions held in an index tensor, joining and splitting along an axis,
// and masks.
// Index tensors are i32 or i64. An index outside the axis it picks along is a lazy::IndexError:
// thrown when the values are computed (by the first sync or host read after the kernel ran),
// naming the op, the value, the valid range and the line of the call; the bad elements read 0
// and everything else that sync computed is kept. docs/semantics.md lists each op's rules.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/dtype.h"
#include "lazy/scalar.h"
#include "lazy/tensor.h"

namespace lazy {

// PyTorch's gather: out[c] = x[c with c[axis] = index[c]]. index has x's rank (a 0-d tensor counts
// as 1-d of one element) and, along every other axis, at most x's size; the result has index's
// shape. Negative indices are out of range.
Tensor gather(const Tensor& x, int axis, const Tensor& index,
              std::source_location loc = std::source_location::current());

// NumPy's take_along_axis (PyTorch's take_along_dim with an axis): gather after broadcasting x and
// index against each other along every axis but `axis`.
Tensor take_along_axis(const Tensor& x, const Tensor& index, int axis,
                       std::source_location loc = std::source_location::current());

// The slices of x at the positions in `index` (1-d, or 0-d for one) along `axis`, in that order;
// repeats allowed. The result has x's shape with index's length along `axis`.
Tensor index_select(const Tensor& x, int axis, const Tensor& index,
                    std::source_location loc = std::source_location::current());

// Rows of a [num, dim] table: the result has ids' shape followed by dim.
Tensor embedding(const Tensor& weight, const Tensor& ids,
                 std::source_location loc = std::source_location::current());

// PyTorch's scatter_add: x with src[c] added into the element at c with c[axis] = index[c], for
// every c of index. index has x's rank (a 0-d tensor counting as 1-d of one element, as in src
// and x), at most x's sizes along the other axes and at most src's
// along every axis (src's elements past index's are not read); src has x's dtype. An index may
// repeat: its contributions are added in order of position, so the result is the same bits on
// every run. Indices must lie in [0, x's size along axis): others are an IndexError.
Tensor scatter_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                   std::source_location loc = std::source_location::current());

// PyTorch's scatter: as scatter_add, but src[c] replaces the element. Where an index repeats,
// the last position wins (PyTorch leaves it undefined).
Tensor scatter(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
               std::source_location loc = std::source_location::current());
// ... with every picked element replaced by `value` (converted to x's dtype).
Tensor scatter(const Tensor& x, int axis, const Tensor& index, const Scalar& value,
               std::source_location loc = std::source_location::current());

// PyTorch's index_add: x with alpha * src's slice j along `axis` added into x's slice index[j].
// index is 1-d (or 0-d for one); src has x's shape except index's length along `axis`, and x's
// dtype (alpha must be a whole number for integer dtypes). Deterministic as scatter_add.
Tensor index_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                 const Scalar& alpha = 1,
                 std::source_location loc = std::source_location::current());

// ids' shape followed by n: 1 where the last coordinate equals the id, else 0 (PyTorch's one_hot,
// in any dtype). n = -1 counts max(ids) + 1 classes, which reads ids on the host (a sync) as
// PyTorch does. An id outside [0, n) gives a row of zeros, as JAX does: checking it would need
// the values on the host.
Tensor one_hot(const Tensor& ids, std::int64_t n, DType dtype = DType::i64,
               std::source_location loc = std::source_location::current());

// x where mask (bool) is false, `value` (converted to x's dtype) where it is true; x and mask
// broadcast together, as PyTorch's out-of-place masked_fill.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value,
                   std::source_location loc = std::source_location::current());

// The lower (upper) triangle of the last two axes: elements with column - row <= diagonal
// (>= diagonal) are kept, the others are 0.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0,
            std::source_location loc = std::source_location::current());
Tensor triu(const Tensor& x, std::int64_t diagonal = 0,
            std::source_location loc = std::source_location::current());

// The tensors joined along `axis`, in order (PyTorch's cat): every one has the same rank, at
// least 1, and the same sizes on the other axes; sizes along `axis` may be 0. A 1-d tensor of size
// 0 is skipped whatever the others' shapes (PyTorch's legacy rule). Their dtypes, the skipped
// ones' too, promote as arithmetic's do. Computed in the same sync, each is written straight into
// its part of the result; tensors already computed are copied by one kernel for all of them.
Tensor cat(const std::vector<Tensor>& tensors, int axis = 0,
           std::source_location loc = std::source_location::current());
// Tensors of one shape joined along a new axis `axis` of the result (in [-rank - 1, rank]).
Tensor stack(const std::vector<Tensor>& tensors, int axis = 0,
             std::source_location loc = std::source_location::current());

// Views along `axis`: pieces of `size` elements (the last may be shorter), of the given sizes
// (which must add up to the axis), or `chunks` pieces of ceil(extent / chunks) as PyTorch's chunk
// (fewer when the axis is short; `chunks` empty ones when it is empty).
std::vector<Tensor> split(const Tensor& x, std::int64_t size, int axis = 0,
                          std::source_location loc = std::source_location::current());
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, int axis = 0,
                          std::source_location loc = std::source_location::current());
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, int axis = 0,
                          std::source_location loc = std::source_location::current());
// Views as PyTorch's: `length` elements from `start` along `axis` (start in [-extent, extent],
// negative counting from the end; past the axis is a ShapeError where slice would clamp); each
// slice along `axis` without that axis; reversed along each of `axes` (a step -1 slice: negative
// strides, where PyTorch's flip copies).
Tensor narrow(const Tensor& x, int axis, std::int64_t start, std::int64_t length,
              std::source_location loc = std::source_location::current());
std::vector<Tensor> unbind(const Tensor& x, int axis = 0,
                           std::source_location loc = std::source_location::current());
Tensor flip(const Tensor& x, std::span<const int> axes,
            std::source_location loc = std::source_location::current());
Tensor flip(const Tensor& x, std::initializer_list<int> axes,
            std::source_location loc = std::source_location::current());

// torch.diagonal: the elements x[..., i, i + offset] over axes axis1 and axis2 (an offset below 0
// starts |offset| rows down), as a new last axis, the others kept in order; an offset past the
// matrix gives an empty axis. Its gradient puts each element back in place.
Tensor diagonal(const Tensor& x, std::int64_t offset = 0, int axis1 = 0, int axis2 = 1,
                std::source_location loc = std::source_location::current());

// x repeated along each axis (torch.Tensor.repeat): `repeats` names at least x's rank of counts,
// the leading extra ones adding new axes; a count of 0 gives an empty axis. tile is the same with
// `repeats` padded with leading 1s to x's rank (torch.tile). Both fuse with their consumers.
Tensor repeat(const Tensor& x, const std::vector<std::int64_t>& repeats,
              std::source_location loc = std::source_location::current());
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& repeats,
            std::source_location loc = std::source_location::current());

// Elements shifted by `shifts[i]` along `axes[i]`, those pushed past the end coming back at the
// start (torch.roll); negative shifts go the other way, and an axis may be named twice (the
// shifts add). Without axes, x is rolled as if flattened, by one shift.
Tensor roll(const Tensor& x, const std::vector<std::int64_t>& shifts,
            const std::vector<int>& axes = {},
            std::source_location loc = std::source_location::current());
Tensor roll(const Tensor& x, std::int64_t shift, std::optional<int> axis = {},
            std::source_location loc = std::source_location::current());

// What fills the border that pad adds (torch.nn.functional.pad's modes).
enum class PadMode {
  constant,   // `value`
  reflect,    // x mirrored about its edge elements, which are not repeated
  replicate,  // the edge elements repeated
  circular,   // x wrapped around
};
// x padded by `pads`, pairs of (before, after) counts from the last axis backwards, as
// torch.nn.functional.pad: {1, 2} pads the last axis, {1, 2, 0, 3} the last two. Negative padding
// crops, in every mode; what is added must then be less than the axis left for reflect, at most
// it for circular, and needs a non-empty axis for replicate. Any number of trailing axes may be
// padded at any rank. Constant mode fills with `value` (0 by default), which must fit x's dtype;
// the other modes take no value.
Tensor pad(const Tensor& x, const std::vector<std::int64_t>& pads,
           PadMode mode = PadMode::constant, std::optional<Scalar> value = {},
           std::source_location loc = std::source_location::current());

}  // namespace lazy
