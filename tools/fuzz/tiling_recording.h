// Records a tiling step (roll, repeat, tile, pad) through the public API, with its symbolic shape
// and bounds: each copies x's elements, and constant padding adds its fill.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`; padding sets the size it defines in
// `program`. Throws lazy::Error when the API refuses the step.
RecordedStep record_tiling(Program& program, const Step& step, const Builder& earlier,
                           std::source_location loc);

}  // namespace lazy::fuzz
