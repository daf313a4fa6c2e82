// Reductions over one axis, a set of axes or all of them, and the normalizations built from them.
// Negative axes count from the end; an empty set of axes means all of them. Result dtypes follow
// PyTorch: sum and prod of integers and bools give i64, f16 and bf16 accumulate in f32 and keep
// their dtype, mean/var/std need a floating input, argmax/argmin give i64, any/all give bool.
#pragma once

#include <concepts>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/tensor.h"

namespace lazy {

// The axes a reduction folds: `{}` for all, one axis, or a list.
class Axes {
 public:
  Axes() = default;
  Axes(int axis) : axes_{axis} {}  // NOLINT(google-explicit-constructor)
  // A number or bool where an axis goes (max(x, 0.5) meant maximum) does not compile.
  template <class T>
  requires std::floating_point<T> || std::same_as<T, bool> Axes(T)
  = delete;
  Axes(std::initializer_list<int> axes) : axes_(axes) {}  // NOLINT(google-explicit-constructor)
  Axes(std::span<const int> axes) : axes_(axes.begin(), axes.end()) {}  // NOLINT
  const std::vector<int>& list() const { return axes_; }

 private:
  std::vector<int> axes_;
};

#define LAZY_DECLARE_REDUCTION(name)                                        \
  Tensor name(const Tensor& x, const Axes& axes = {}, bool keepdim = false, \
              std::source_location loc = std::source_location::current());
LAZY_DECLARE_REDUCTION(sum)
LAZY_DECLARE_REDUCTION(mean)
LAZY_DECLARE_REDUCTION(prod)
// max and min propagate NaN, as PyTorch's amax and amin.
LAZY_DECLARE_REDUCTION(max)
LAZY_DECLARE_REDUCTION(min)
// log(sum(exp(x))), computed without overflow.
LAZY_DECLARE_REDUCTION(logsumexp)
LAZY_DECLARE_REDUCTION(any)
LAZY_DECLARE_REDUCTION(all)
#undef LAZY_DECLARE_REDUCTION

// sum and mean that skip NaN (torch.nansum, torch.nanmean): NaN counts as 0 in the sum and not at
// all in the mean's count, whose rows of only NaN are NaN; nansum of integers is sum. nanmean
// needs a floating x, and divides nansum's (rounded) result by the count, as PyTorch's does.
Tensor nansum(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
              std::source_location loc = std::source_location::current());
Tensor nanmean(const Tensor& x, const Axes& axes = {}, bool keepdim = false,
               std::source_location loc = std::source_location::current());
// The number of non-zero elements (NaN counts), as i64 (torch.count_nonzero).
Tensor count_nonzero(const Tensor& x, const Axes& axes = {},
                     std::source_location loc = std::source_location::current());

// The index of the first largest (smallest) element along one axis, or in the flattened tensor
// when no axis is given. NaN counts as the largest (and the smallest), as in PyTorch.
Tensor argmax(const Tensor& x, std::optional<int> axis = {}, bool keepdim = false,
              std::source_location loc = std::source_location::current());
Tensor argmin(const Tensor& x, std::optional<int> axis = {}, bool keepdim = false,
              std::source_location loc = std::source_location::current());

// Variance and standard deviation with Bessel's correction by default (correction = 1).
Tensor var(const Tensor& x, const Axes& axes = {}, double correction = 1, bool keepdim = false,
           std::source_location loc = std::source_location::current());
Tensor std(const Tensor& x, const Axes& axes = {}, double correction = 1, bool keepdim = false,
           std::source_location loc = std::source_location::current());

// Normalizations over the last axis, written from primitives so fusion sees through them.
Tensor softmax(const Tensor& x, int axis = -1,
               std::source_location loc = std::source_location::current());
Tensor log_softmax(const Tensor& x, int axis = -1,
                   std::source_location loc = std::source_location::current());
// (x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance, as PyTorch).
// weight and bias hold one value per element of that axis (shape [x.shape()[-1]]); an undefined
// Tensor() leaves either out, as PyTorch's None.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5,
                  std::source_location loc = std::source_location::current());
// x / sqrt(mean(x^2) + eps) * weight over the last axis; weight as layer_norm's. eps defaults to
// f32's machine epsilon (2^-23), as PyTorch's does without one.
Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps = 0x1p-23,
                std::source_location loc = std::source_location::current());

// torch.linalg.vector_norm: (sum |x|^ord)^(1 / ord) over `axes` (all by default), of a floating
// x; ord 2 by default, 1, any other positive or negative power, infinity (max |x|), -infinity
// (min |x|) or 0 (the count of non-zero elements). f16 and bf16 compute in f32 and round once.
// The 2-norm's gradient at a zero norm is 0, as PyTorch's. Over no element the norm is 0, and
// -infinity and negative powers (which have no identity there) are a ValueError, as infinity is.
Tensor vector_norm(const Tensor& x, double ord = 2, const Axes& axes = {}, bool keepdim = false,
                   std::source_location loc = std::source_location::current());
// torch.nn.functional.cosine_similarity: x1 and x2 broadcast, each divided by its 2-norm over
// `axis` clamped at eps, multiplied and summed over `axis`. As PyTorch's, the clamp passes the
// norm's gradient on (it is made without one), and the operands must promote to a floating dtype.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int axis = 1, double eps = 1e-8,
                         std::source_location loc = std::source_location::current());
// torch.nn.functional.pairwise_distance: vector_norm(x1 - x2 + eps, p) over the last axis of the
// broadcast result.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6,
                         bool keepdim = false,
                         std::source_location loc = std::source_location::current());
// torch.cdist: the p-norm distance between each row of x1 [..., P, M] and each row of x2
// [..., R, M], [..., P, R], the batch axes broadcast; p >= 0 (0 counts the coordinates that
// differ, infinity takes the largest difference). f32 only, as PyTorch's CUDA kernel (cast f16 and
// bf16 first). Every distance is summed from its differences, never through a matrix product, so
// a point's distance to itself is 0 (PyTorch's p = 2 takes a product past 25 rows, and does not
// promise that). The gradient at a zero distance is 0; where several coordinates tie for the
// largest difference (p = infinity) they share it equally, where PyTorch gives each all of it.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::source_location loc = std::source_location::current());
// torch.nn.functional.normalize: x / max(vector_norm(x, p, axis), eps), the norm kept as an
// axis of 1 so it broadcasts back; axis 1 by default, as PyTorch's.
Tensor normalize(const Tensor& x, double p = 2, int axis = 1, double eps = 1e-12,
                 std::source_location loc = std::source_location::current());

}  // namespace lazy
