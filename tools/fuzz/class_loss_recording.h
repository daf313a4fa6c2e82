// Records a class loss step (loss_steps.h: cross_entropy against class indices or probabilities,
// nll_loss) through the public API, with its shape and bounds: each element's loss from
// log_softmax's bounds (the input's own for nll_loss), 0 where the target is ignored, the mean
// over the elements counted (NaN where none is), and label smoothing mixed in by the rules of
// its products and sum.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `loss` and `reduction` as the step's name spells them.
RecordedStep record_class_loss(const Step& step, const std::string& loss, Reduction reduction,
                               const Builder& earlier, std::source_location loc);

}  // namespace lazy::fuzz
