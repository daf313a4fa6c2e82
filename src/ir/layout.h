// How a tensor's elements sit in its storage: shape, strides and offset, in elements.
// Views compose layouts; a layout is what a kernel's indexing is built from.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "lazy/shape.h"

namespace lazy::ir {

struct Layout {
  Shape shape;
  std::array<std::int64_t, kMaxRank> strides{};
  std::int64_t offset = 0;

  static Layout contiguous(const Shape& shape);
  bool is_contiguous() const;
};

Layout permute_layout(const Layout& in, std::span<const std::int64_t> axes);
// NumPy's broadcast_to: axes align from the right; new leading axes and size-1 axes that grow
// get stride 0.
Layout expand_layout(const Layout& in, const Shape& shape);
Layout slice_layout(const Layout& in, int axis, std::int64_t start, std::int64_t step,
                    std::int64_t length);
// The reshaped layout when the new shape can be expressed with strides over the same storage
// (always for a contiguous input), otherwise nothing: the caller must copy.
std::optional<Layout> reshape_layout(const Layout& in, const Shape& shape);

}  // namespace lazy::ir
