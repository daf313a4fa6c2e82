// The shape a reduction over `axes` gives (all axes when none are named), checked: an axis out of
// range or named twice is an AxisError naming `name`.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

#include "lazy/reductions.h"
#include "lazy/shape.h"

namespace lazy::api {

struct ReducedShape {
  std::uint64_t mask = 0;   // bit a: axis a is folded
  Shape shape;              // the result's shape
  std::int64_t extent = 1;  // elements folded into each result
};

ReducedShape reduced_shape(const Shape& in, const Axes& axes, bool keepdim, std::string_view name,
                           std::source_location loc);

}  // namespace lazy::api
