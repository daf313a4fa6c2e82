// The tensor a data leaf records: its values drawn from its DataSpec (input_values.h), in memory
// of lazyfuse's own or taken in through from_blob (DataSpec::external).
#pragma once

#include <source_location>

#include <lazy/lazy.h>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

Tensor data_leaf(const DataSpec& data, DType dtype, const Shape& shape,
                 std::source_location loc = std::source_location::current());

}  // namespace lazy::fuzz
