// Reverse-mode gradients of functions of tensors, in MLX's and JAX's functional style: no tape
// and no requires_grad flag. The function's ops are recorded as usual, and its backward ops are
// recorded into the same trace, so forward, backward and whatever uses the gradients (an
// optimizer step) fuse and run in one sync.
//
// Gradients are taken with respect to the function's inputs. Tensors the function reaches in any
// other way (captured weights, globals) are constants, as are values passed through
// stop_gradient. Integer and bool values carry no gradient; comparisons, rounding, argmax and
// casts to integers pass none back (zero), as PyTorch's do. An op with no gradient rule yet is a
// lazy::ValueError naming it at the grad or vjp call.
//
// The function may not sync or read pending values on the host (item, to_vector, lazy::eval):
// that is a lazy::RuntimeError at the call, since a sync would cut the graph the gradient is
// traced through. Nothing is computed by the call itself: evaluate the gradients as any tensor.
#pragma once

#include <functional>
#include <initializer_list>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/tensor.h"

namespace lazy {

// The same values as `x`, through which no gradient flows.
Tensor stop_gradient(const Tensor& x, std::source_location loc = std::source_location::current());

// A function of tensors to differentiate.
using Differentiable = std::function<std::vector<Tensor>(std::span<const Tensor>)>;
// A function of tensors to a floating tensor of one element (a loss).
using ScalarFunction = std::function<Tensor(std::span<const Tensor>)>;

struct VjpResult {
  std::vector<Tensor> outputs;    // f(primals)
  std::vector<Tensor> gradients;  // one per primal, of its shape and dtype
};

// f's outputs at `primals`, and the vector-Jacobian product of the cotangents (one per output, of
// its shape) with f's Jacobian there: sum over outputs of cotangent . d output / d primal.
VjpResult vjp(const Differentiable& f, std::span<const Tensor> primals,
              std::span<const Tensor> cotangents,
              std::source_location loc = std::source_location::current());

struct ValueAndGradients {
  Tensor value;
  std::vector<Tensor> gradients;  // one per input
};

// value_and_grad(f)(inputs): f's value and its gradient with respect to each input.
class ValueAndGrad {
 public:
  explicit ValueAndGrad(ScalarFunction f) : f_(std::move(f)) {}
  ValueAndGradients operator()(std::span<const Tensor> inputs,
                               std::source_location loc = std::source_location::current()) const;
  ValueAndGradients operator()(std::initializer_list<Tensor> inputs,
                               std::source_location loc = std::source_location::current()) const {
    return (*this)(std::span<const Tensor>(inputs.begin(), inputs.size()), loc);
  }

 private:
  ScalarFunction f_;
};

// grad(f)(inputs): the gradient of f with respect to each input. Each input is an argument of its
// own: a tensor passed twice gets, for each, the gradient with respect to that argument.
class Grad {
 public:
  explicit Grad(ScalarFunction f) : value_and_grad_(std::move(f)) {}
  std::vector<Tensor> operator()(std::span<const Tensor> inputs,
                                 std::source_location loc = std::source_location::current()) const {
    return value_and_grad_(inputs, loc).gradients;
  }
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs,
                                 std::source_location loc = std::source_location::current()) const {
    return value_and_grad_(inputs, loc).gradients;
  }

 private:
  ValueAndGrad value_and_grad_;
};

inline ValueAndGrad value_and_grad(ScalarFunction f) {
  return ValueAndGrad(std::move(f));
}
inline Grad grad(ScalarFunction f) {
  return Grad(std::move(f));
}

}  // namespace lazy
