// Records a strided view step (view_steps.h) through the public API: its values are x's, moved,
// so x's bounds hold; the shape follows the view (a piece's or a diagonal's length is a size the
// step defines, read off its result).
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// Throws lazy::Error when the API refuses the step, StepRejected when it names a missing piece.
RecordedStep record_strided_view(Program& program, const Step& step, const Builder& earlier,
                                 std::source_location loc);

}  // namespace lazy::fuzz
