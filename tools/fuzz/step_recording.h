// The steps recorded by a module of their own (indexing, products, losses, row ops, ...) rather
// than by the builder's switch: which they are, and the call that records one.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

bool recorded_by_its_module(Op op);
// Throws lazy::Error when the API refuses the step and StepRejected when its values cannot be
// bounded.
RecordedStep record_by_its_module(Program& program, const Step& step, const Builder& earlier,
                                  std::source_location loc);

}  // namespace lazy::fuzz
