// Layouts written out in tests: a dense one, or explicit strides and offset (in elements).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "ir/layout.h"

namespace lazy_test {

inline lazy::ir::Layout contiguous(std::initializer_list<std::int64_t> shape) {
  return lazy::ir::Layout::contiguous(lazy::Shape(shape));
}

inline lazy::ir::Layout strided(std::initializer_list<std::int64_t> shape,
                                std::initializer_list<std::int64_t> strides,
                                std::int64_t offset = 0) {
  lazy::ir::Layout layout;
  layout.shape = lazy::Shape(shape);
  int axis = 0;
  for (std::int64_t stride : strides) layout.strides[axis++] = stride;
  layout.offset = offset;
  return layout;
}

}  // namespace lazy_test
