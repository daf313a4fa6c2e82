// Each step's gradient alone, for tools/fuzz/torch_check.py to compare with PyTorch's autograd
// op by op: central differences (gradient_check.h) cannot judge a gradient at a kink or a tie,
// where only a convention (PyTorch's) says what it is, and they check f32 copies only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// vjp of one step's result with respect to its floating tensor arguments, at the values the
// forward sync computed for them.
struct StepGradient {
  int step = -1;
  std::vector<int> wrt;           // the arguments' steps, each once
  Tensor cotangent;               // of the step's result shape and dtype, values in [-1, 1]
  std::vector<Tensor> gradients;  // one per `wrt`, pending
  std::string refused;            // why vjp refused the step (no gradients then)
};

// Records the gradient of every step of `forward`'s program that has a floating result and a
// floating tensor argument (leaves, `full` and `arange` excepted), each step on its own. `forward`
// has recorded every step and its tensors hold computed values. Nothing is synced.
std::vector<StepGradient> record_step_gradients(const Program& program, const Builder& forward,
                                                std::uint64_t key);

}  // namespace lazy::fuzz
