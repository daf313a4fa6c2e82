// Records a step that keeps some of x's elements and replaces the others with a number (tril,
// triu, masked_fill) through the public API, with its symbolic shape and bounds.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throws lazy::Error when the API refuses the
// step.
RecordedStep record_mask(const Step& step, const Builder& earlier, std::source_location loc);

}  // namespace lazy::fuzz
