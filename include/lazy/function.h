// lazy::Function: a step captured once and then replayed without recording it again.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/tensor.h"

namespace lazy {

// Wraps a function of tensors (a model's forward, a simulation step, an optimizer update). Its
// first call with inputs of given dtypes, shapes and layouts runs the function, which records
// and syncs as usual, and keeps what the sync ran. Later calls with inputs like those do not run
// the function: they launch the kept kernels on the new inputs, with new output buffers. Inputs
// of another dtype, shape or layout (or sharing memory differently) capture again. It keeps the
// LAZY_FUNCTION_CAPTURES (64) most recently called signatures: a call with one it dropped runs the
// function and captures again, so what a replay "does not see" below is that latest capture's.
//
// A replay does not run the function, so it does not see:
// - host values the function used (numbers, host containers, branches on host variables): they
//   are those of the capture. Pass what changes as tensors (a 0-d tensor for a number);
// - tensors the function reaches other than through its inputs: they are those of the capture;
// - host reads. Reading values (item, to_vector) or syncing (lazy::sync, lazy::eval) inside the
//   function is refused with a RuntimeError at the call (a computed tensor's strides() may be
//   read: layouts are part of what a capture is for);
// - its random numbers anew: rand and randn take their seed on the host, so every replay draws
//   those of the capture. Pass random tensors in as inputs where each call needs new ones;
// - tensors it stores outside: they hold the capture's values; a replay returns only outputs.
// An output that is undefined is a ValueError, and one pending in another thread's trace a
// RuntimeError, whether the call captures or runs inline.
// Inputs still pending are computed first (a sync point). A Function called while another one
// captures, or inside lazy::grad / vjp, runs inline, as part of the outer work. Calls from
// several threads are safe: the first call of a signature captures it, others of that signature
// wait for it and replay. If the function throws, the call rethrows and nothing is captured; what
// it recorded stays pending, as eager code's would: the next sync computes what the caller holds.
// Without a GPU a replay records the captured graph again and computes it on the host.
class Function {
 public:
  using Body = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

  // Throws lazy::ValueError for an empty body.
  explicit Function(Body body, std::source_location loc = std::source_location::current());

  std::vector<Tensor> operator()(std::span<const Tensor> inputs,
                                 std::source_location loc = std::source_location::current()) const;
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs,
                                 std::source_location loc = std::source_location::current()) const;

  // How many captures it has made, including those of signatures it has since dropped (it keeps
  // the LAZY_FUNCTION_CAPTURES most recently called, 64 by default).
  std::size_t captures() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// A Function from a callable taking std::span<const Tensor> and returning one Tensor or a
// std::vector<Tensor>.
template <class Fn>
Function compile(Fn fn) {
  using Result = std::invoke_result_t<Fn&, std::span<const Tensor>>;
  if constexpr (std::same_as<Result, Tensor>) {
    return Function([fn = std::move(fn)](std::span<const Tensor> inputs) mutable {
      return std::vector<Tensor>{fn(inputs)};
    });
  } else {
    static_assert(std::same_as<Result, std::vector<Tensor>>,
                  "lazy::compile: the function must return a lazy::Tensor or a "
                  "std::vector<lazy::Tensor>");
    return Function(std::move(fn));
  }
}

}  // namespace lazy
