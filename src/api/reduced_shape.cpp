#include "api/reduced_shape.h"

#include "api/composites.h"

namespace lazy::api {

ReducedShape reduced_shape(const Shape& in, const Axes& axes, bool keepdim, std::string_view name,
                           std::source_location loc) {
  ReducedShape out;
  if (in.rank() == 0) {
    // A 0-d tensor's one element is named by axis 0 or -1, as in PyTorch (once).
    for (int axis : axes.list())
      if (axis != 0 && axis != -1) api::normalize_axis(axis, 1, name, loc);
    if (axes.list().size() > 1) api::fail<AxisError>(loc, name, "axis 0 is named twice");
    return out;
  }
  if (axes.list().empty()) {
    for (int a = 0; a < in.rank(); ++a) out.mask |= std::uint64_t(1) << a;
  }
  for (int axis : axes.list()) {
    int a = api::normalize_axis(axis, in.rank(), name, loc);
    if (out.mask & (std::uint64_t(1) << a)) {
      api::fail<AxisError>(loc, name, "axis ", a, " is named twice");
    }
    out.mask |= std::uint64_t(1) << a;
  }
  for (int a = 0; a < in.rank(); ++a) {
    bool folded = out.mask & (std::uint64_t(1) << a);
    if (folded) out.extent *= in[a];
    if (!folded) {
      out.shape.push_back(in[a]);
    } else if (keepdim) {
      out.shape.push_back(1);
    }
  }
  return out;
}

}  // namespace lazy::api
