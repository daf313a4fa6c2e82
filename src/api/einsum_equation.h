// An einsum equation read against its operands' shapes, as PyTorch reads it: each operand's
// indices (a repeated index is a diagonal), the output's (explicit after "->", else NumPy's
// implicit one), an ellipsis replaced by letters the equation leaves free, and each index's size.
// Every error is thrown here, before anything is recorded.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lazy/shape.h"

namespace lazy::api {

struct EinsumEquation {
  std::vector<std::string> operands;  // one string of indices per operand, one letter an axis
  std::string out;
  std::string ellipsis;  // the letters standing for the ellipsis's axes, outermost first
  // Each index's size, by letter: the largest among the operands (a size of 1 broadcasts).
  std::array<std::int64_t, 128> sizes;
};

EinsumEquation read_einsum(std::string_view equation, std::span<const Shape> shapes,
                           std::source_location loc);

// Whether `indices` names index `c`.
inline bool names_index(std::string_view indices, char c) {
  return indices.find(c) != std::string_view::npos;
}

}  // namespace lazy::api
