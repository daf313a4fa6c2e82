// Records a pair or one-hot step (pair_steps.h) through the public API, with its shape and
// bounds: outer's are mul's; a distance's the p-norm's of x - y + eps; isclose is checked where
// the data decide it (operands exact and on a grid coarser than the tolerance, so that only equal
// ones are close, or ranges farther apart than it) and unchecked elsewhere; one_hot is exact.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// Throws lazy::Error when the API refuses the step.
RecordedStep record_pair(const Step& step, const Builder& earlier, std::source_location loc);
RecordedStep record_one_hot(const Program& program, const Step& step, const Builder& earlier,
                            std::source_location loc);

}  // namespace lazy::fuzz
