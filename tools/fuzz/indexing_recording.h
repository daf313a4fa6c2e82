// Records a gather or scatter step through the public API and works out its symbolic shape and
// bounds, as the Builder does for other steps.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throw lazy::Error when the API refuses the
// step and StepRejected when its values cannot be bounded.
RecordedStep record_gather(const Step& step, const Builder& earlier, std::source_location loc);
RecordedStep record_scatter(const Step& step, const Builder& earlier, std::source_location loc);

}  // namespace lazy::fuzz
