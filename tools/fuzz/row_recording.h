// Records a row op step (row_steps.h) through the public API, with its shape and bounds: glu's
// from sigmoid's and the product's rules; a unit vector's and a cosine's elements within [-1, 1],
// off by the norm's rounding (and each narrow dtype's), and by the inputs' errors scaled by
// 2 / |x| where the rows' norms are known to stay away from 0 (else unchecked).
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// Throws lazy::Error when the API refuses the step.
RecordedStep record_row_op(Program& program, const Step& step, const Builder& earlier,
                           std::source_location loc);

}  // namespace lazy::fuzz
