// The tensor a data leaf records: its values drawn from its DataSpec (input_values.h), in memory
// of lazyfuse's own or taken in through from_blob (DataSpec::external).
#pragma once

#include <source_location>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/input_values.h"
#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// `values` (row-major) in memory of lazyfuse's own, or taken in laid out as fz_external's
// `external` layout when it is not 0.
template <class T>
Tensor leaf_of(const std::vector<T>& values, const Shape& shape, DType dtype, int external,
               std::source_location loc = std::source_location::current()) {
  return external ? fz_external(values, shape, dtype, external)
                  : from_data(values, shape, dtype, loc);
}

Tensor data_leaf(const DataSpec& data, DType dtype, const Shape& shape,
                 std::source_location loc = std::source_location::current());

}  // namespace lazy::fuzz
