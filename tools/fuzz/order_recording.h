// Records an order-statistic step (median, nanmedian, kthvalue, quantile, nanquantile, cdist)
// through the public API, with its symbolic shape and bounds: a picked element keeps x's bounds
// (the i-th smallest of values within err of the reference's is within err of its i-th smallest),
// an interpolated quantile adds the lerp's rounding, and a distance the rounding of its sum.
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throws lazy::Error when the API refuses the
// step and StepRejected when its values cannot be bounded.
RecordedStep record_order_statistic(const Step& step, const Builder& earlier,
                                    std::source_location loc);

}  // namespace lazy::fuzz
