// Sync points: where recorded work is computed.
//
// Every sync point computes the whole of the calling thread's pending graph: each recorded op a
// handle still holds gets its value; ops nobody holds are dropped without being computed.
#pragma once

#include <initializer_list>
#include <source_location>
#include <span>

#include "lazy/tensor.h"

namespace lazy {

// Computes everything the calling thread has recorded and still holds.
void sync();

// Makes sure these tensors are computed (a sync of their threads' pending work).
void eval(std::span<const Tensor> tensors,
          std::source_location loc = std::source_location::current());
void eval(std::initializer_list<Tensor> tensors,
          std::source_location loc = std::source_location::current());

}  // namespace lazy
