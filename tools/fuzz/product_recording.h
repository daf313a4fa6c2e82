// Records a matrix product step (Op::product: matmul, bmm, linear, addmm, einsum) through the
// public API and works out its symbolic shape and bounds, as the Builder does for other steps.
#pragma once

#include <source_location>
#include <string>
#include <vector>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throws lazy::Error when the API refuses the
// step and StepRejected when its shape or values cannot be followed symbolically or bounded.
RecordedStep record_product(const Program& program, const Step& step, const Builder& earlier,
                            std::source_location loc);

}  // namespace lazy::fuzz
