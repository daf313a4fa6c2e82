// Ordering along one axis: the k largest or smallest elements (PyTorch's topk), sorting, and the
// order statistics read off a sort (median, kthvalue, quantile).
// Negative axes count from the end. NaN ranks above every number, -0 equals 0, equal values come
// in order of position (every sort is stable), and values come with their positions (i64) along
// the axis. The pointwise work that produces the input runs inside the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

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

// The element at position (n - 1) / 2 of x sorted along `axis` (the lower of the two middle
// ones), and where it was; positions among equal values are the stable sort's, as PyTorch's
// on the CPU (its CUDA kernel may pick another of them). A row holding NaN gives NaN and the
// position of its first NaN. The axis must not be empty; keepdim keeps it as an axis of 1. The
// gradient reaches the picked element. Bool is refused, as PyTorch does.
ValuesAndIndices median(const Tensor& x, int axis, bool keepdim = false,
                        std::source_location loc = std::source_location::current());
// The median of every element (NaN if any is NaN, or if there is none), a 0-d tensor. Its
// gradient is shared equally by the elements equal to it (the NaNs, where it is NaN), as PyTorch's.
Tensor median(const Tensor& x, std::source_location loc = std::source_location::current());
// median over the elements that are not NaN; a row of only NaN gives NaN and position 0.
ValuesAndIndices nanmedian(const Tensor& x, int axis, bool keepdim = false,
                           std::source_location loc = std::source_location::current());
Tensor nanmedian(const Tensor& x, std::source_location loc = std::source_location::current());

// The k-th smallest element along `axis` (k from 1 to the axis' size) and where it was, NaN
// ranking above every number. Among equal values the position is the stable sort's; PyTorch
// leaves it unspecified (its CPU and CUDA kernels differ).
ValuesAndIndices kthvalue(const Tensor& x, std::int64_t k, int axis = -1, bool keepdim = false,
                          std::source_location loc = std::source_location::current());

// How quantile reads a quantile that falls between two sorted elements i < j at rank r:
// linear: lerp(x_i, x_j, r - i); lower: x_i; higher: x_j; midpoint: lerp(x_i, x_j, 0.5);
// nearest: the element at r rounded half to even.
enum class QuantileInterpolation : std::uint8_t { linear, lower, higher, midpoint, nearest };

// torch.quantile of an f32 x (PyTorch takes float and double only: cast f16 and bf16 first): the
// q-quantile (q in [0, 1]) along `axis`, or of every element without one, at rank q * (n - 1) of
// the sorted values, computed in f32 as PyTorch's. A row holding NaN gives NaN. x must not be
// empty. keepdim keeps the folded axis as 1 (without an axis: every axis).
Tensor quantile(const Tensor& x, double q, std::optional<int> axis = {}, bool keepdim = false,
                QuantileInterpolation interpolation = QuantileInterpolation::linear,
                std::source_location loc = std::source_location::current());
// One quantile per element of q, along a new first axis of the result (PyTorch's 1-d q).
Tensor quantile(const Tensor& x, const std::vector<double>& q, std::optional<int> axis = {},
                bool keepdim = false,
                QuantileInterpolation interpolation = QuantileInterpolation::linear,
                std::source_location loc = std::source_location::current());
// quantile over the elements that are not NaN (rank q * (count - 1)); a row of only NaN is NaN.
Tensor nanquantile(const Tensor& x, double q, std::optional<int> axis = {}, bool keepdim = false,
                   QuantileInterpolation interpolation = QuantileInterpolation::linear,
                   std::source_location loc = std::source_location::current());
Tensor nanquantile(const Tensor& x, const std::vector<double>& q, std::optional<int> axis = {},
                   bool keepdim = false,
                   QuantileInterpolation interpolation = QuantileInterpolation::linear,
                   std::source_location loc = std::source_location::current());

}  // namespace lazy
