// Records a loss step (loss_steps.h) through the public API, with its shape and bounds: each
// loss's per-element bounds composed from the rules of the ops its implementation is written
// in (a difference, its square or magnitude, log_sigmoid, exp, xlogy), then the reduction's.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throws lazy::Error when the API refuses the
// step and StepRejected when its values cannot be bounded.
RecordedStep record_loss(const Step& step, const Builder& earlier, std::source_location loc);

// xlogy(t, t), t log t (0 where t is 0), of a t that is at least 0, computed in f32 and rounded
// once to `result`.
Bounds self_xlogy_rule(const Bounds& t, DType result);

}  // namespace lazy::fuzz
