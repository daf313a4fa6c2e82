// The fuzzer's check of gradients: lazy::vjp of a random program against central differences of
// the same program, along a random direction through its floating data leaves.
#pragma once

#include <string>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

struct GradientOutcome {
  enum class Kind { checked, skipped, failed };
  Kind kind = Kind::skipped;
  std::string detail;  // why it was skipped (a short reason, for counts), or what failed
};

// Runs on an f32 copy of the program (central differences cannot resolve a gradient through
// bf16 roundings), with the data leaves (and rand and randn ones) drawn again off their quantum
// so no two tie. The loss
// is the held floating outputs weighed by random cotangents. Steps whose values jump with zero
// gradient (rounding, integer and bool results) and stop_gradient are held at their values while
// the leaves move; points where the loss is still not smooth along the direction (a kink, a
// sort's order changing) are skipped.
GradientOutcome check_gradients(const Program& program);

}  // namespace lazy::fuzz
