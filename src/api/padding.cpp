// pad: per padded axis, the border pieces (fills, mirrored or edge slices, or the wrapped ends)
// joined to x by one cat, so padding fuses with its neighbours and differentiates as views do.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "api/composites.h"
#include "api/recording.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"

namespace lazy {

namespace {

std::string_view mode_name(PadMode mode) {
  switch (mode) {
    case PadMode::constant:
      return "constant";
    case PadMode::reflect:
      return "reflect";
    case PadMode::replicate:
      return "replicate";
    case PadMode::circular:
      return "circular";
  }
  return "?";
}

// The pieces `mode` puts before (`before`) or after x along `axis`, `count` elements wide.
Tensor border(const Tensor& x, int axis, std::int64_t count, bool before, PadMode mode,
              const Scalar& value, std::source_location loc) {
  const Shape& shape = x.node()->shape;
  const std::int64_t extent = shape[axis];
  switch (mode) {
    case PadMode::constant: {
      Shape piece = shape;
      piece[axis] = count;
      return full(piece, value, x.dtype(), loc);
    }
    case PadMode::reflect:  // the `count` elements next to the edge one, mirrored
      return (before ? x.slice(axis, 1, count + 1, 1, loc)
                     : x.slice(axis, extent - 1 - count, extent - 1, 1, loc))
          .slice(axis, std::nullopt, std::nullopt, -1, loc);
    case PadMode::replicate: {
      Shape piece = shape;
      piece[axis] = count;
      return (before ? x.slice(axis, 0, 1, 1, loc) : x.slice(axis, extent - 1, extent, 1, loc))
          .expand(piece, loc);
    }
    case PadMode::circular:
      return before ? x.slice(axis, extent - count, extent, 1, loc)
                    : x.slice(axis, 0, count, 1, loc);
  }
  return x;
}

// Negative padding crops first (in every mode, as PyTorch's); the rest must fit what is left.
void check_padding(const Shape& shape, int axis, std::int64_t before, std::int64_t after,
                   PadMode mode, std::source_location loc) {
  // In 128 bits: padding near the i64 limits must not wrap past the checks.
  const __int128 kept =
      __int128(shape[axis]) + std::min<std::int64_t>(before, 0) + std::min<std::int64_t>(after, 0);
  const __int128 padded =
      kept + std::max<std::int64_t>(before, 0) + std::max<std::int64_t>(after, 0);
  if (padded > kMaxElements) {
    api::fail<ShapeError>(loc, "pad", "padding (", before, ", ", after, ") makes axis ", axis,
                          " longer than 2^60 elements");
  }
  if (kept < 0) {
    api::fail<ShapeError>(loc, "pad", "padding (", before, ", ", after, ") crops more than the ",
                          shape[axis], " elements of axis ", axis, " of shape ", shape.to_string());
  }
  const std::int64_t wider = std::max<std::int64_t>({before, after, 0});
  const bool fits = mode == PadMode::constant || wider == 0 ? true
                    : mode == PadMode::reflect              ? wider < kept
                    : mode == PadMode::circular             ? wider <= kept
                                                            : kept > 0;
  if (!fits) {
    api::fail<ShapeError>(loc, "pad", mode_name(mode), " padding (", before, ", ", after,
                          ") does not fit axis ", axis, " of shape ", shape.to_string(), ": ",
                          mode == PadMode::reflect    ? "it must be less than the axis"
                          : mode == PadMode::circular ? "it must be at most the axis"
                                                      : "the axis must not be empty",
                          before < 0 || after < 0 ? " (after cropping)" : "");
  }
}

// x padded by `pads` (checked by check_padding), one axis at a time from the last.
Tensor padded(const Tensor& x, const std::vector<std::int64_t>& pads, PadMode mode,
              const Scalar& fill, std::source_location loc) {
  const int rank = x.node()->shape.rank();
  Tensor out = x;
  for (std::size_t pair = 0; pair < pads.size() / 2; ++pair) {
    const int axis = rank - 1 - int(pair);
    std::int64_t before = pads[2 * pair], after = pads[2 * pair + 1];
    // Negative padding crops first.
    const std::int64_t extent = out.node()->shape[axis];
    if (before < 0 || after < 0) {
      const std::int64_t start = before < 0 ? -before : 0;
      const std::int64_t stop = after < 0 ? extent + after : extent;
      out = out.slice(axis, start, stop, 1, loc);
      before = std::max<std::int64_t>(before, 0);
      after = std::max<std::int64_t>(after, 0);
    }
    if (before == 0 && after == 0) continue;
    std::vector<Tensor> pieces;
    if (before > 0) pieces.push_back(border(out, axis, before, true, mode, fill, loc));
    pieces.push_back(out);
    if (after > 0) pieces.push_back(border(out, axis, after, false, mode, fill, loc));
    out = cat(pieces, axis, loc);
  }
  return out;
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<std::int64_t>& pads, PadMode mode,
           std::optional<Scalar> value, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "pad", loc)->shape;
  if (pads.size() % 2 != 0 || int(pads.size()) > 2 * shape.rank()) {
    api::fail<ShapeError>(loc, "pad", "takes (before, after) pairs for at most the ", shape.rank(),
                          " axes of shape ", shape.to_string(), ", got ", pads.size(), " numbers");
  }
  if (mode != PadMode::constant && value) {
    api::fail<ValueError>(loc, "pad", mode_name(mode), " padding takes no value; only constant ",
                          "padding fills with one");
  }
  // Each pair pads its own axis, so the checks see the extents the padding will.
  for (std::size_t pair = 0; pair < pads.size() / 2; ++pair) {
    check_padding(shape, shape.rank() - 1 - int(pair), pads[2 * pair], pads[2 * pair + 1], mode,
                  loc);
  }
  const Scalar fill = value.value_or(Scalar(0));
  if (mode == PadMode::constant) {
    api::check_fill_fits(fill, x.dtype(), "pad", loc);
    return padded(x, pads, mode, fill, loc);
  }
  // The other modes' borders copy x, so their gradient adds cotangents.
  return api::adding_copies_in_f32(
      x, loc, [&](const Tensor& v) { return padded(v, pads, mode, fill, loc); });
}

}  // namespace lazy
