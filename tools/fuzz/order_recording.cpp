#include "tools/fuzz/order_recording.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

QuantileInterpolation interpolation_of(const std::string& name) {
  const std::string mode = name.substr(name.find('_') + 1);
  if (mode == "lower") return QuantileInterpolation::lower;
  if (mode == "higher") return QuantileInterpolation::higher;
  if (mode == "midpoint") return QuantileInterpolation::midpoint;
  if (mode == "nearest") return QuantileInterpolation::nearest;
  return QuantileInterpolation::linear;
}

// cdist(x, x, p) of f32 rows of m coordinates: each distance is at most m^(1/p) times the
// largest difference (m for p = 0), off by the sum's roundings, and by the inputs' errors as the
// norm (1-Lipschitz in its argument for p >= 1) passes them on.
RecordedStep record_cdist(const Step& step, const Tensor& x, const Bounds& xb,
                          const std::vector<Dim>& in, std::source_location loc) {
  RecordedStep out;
  out.out = cdist(x, x, step.q, loc);
  const double p = step.q;
  const double m = double(x.rank() >= 2 ? x.shape()[x.rank() - 1] : 0);
  const double spread = 2 * (xb.magnitude() + xb.err);
  // The terms |d|^p (squares, cubes) and their sum are held in f32.
  if (!(m * std::pow(spread, std::max(p, 1.0)) < largest(DType::f32) / 16)) {
    throw StepRejected("cdist's terms may pass f32's range");
  }
  const double hi = p == 0 ? m : std::pow(std::max(m, 1.0), 1 / p) * spread;
  const double inherited = 2 * xb.err * m;
  out.bounds = inexact_result(DType::f32, 0, hi, inherited, (m + 16) * std::max(1.0, 1 / p));
  // Below p = 1 the norm is not Lipschitz at 0, and p = 0 counts exact zeros: an inexact x
  // cannot be followed.
  out.bounds.unchecked = xb.unchecked || (xb.err > 0 && p < 1);
  out.bounds.special = xb.special;
  out.bounds.specials_may_differ = xb.specials_may_differ;
  out.shape = in;
  out.shape.back() = in[in.size() - 2];
  return out;
}

}  // namespace

RecordedStep record_order_statistic(const Step& step, const Builder& earlier,
                                    std::source_location loc) {
  const int xi = step.args[0].step;
  const Tensor& x = earlier.tensor(xi);
  const Operand xin{earlier.bounds(xi), x.dtype()};
  const std::vector<Dim>& in = earlier.shape(xi);
  const std::string& name = step.name;
  if (name == "cdist") return record_cdist(step, x, xin.bounds, in, loc);
  const int rank = x.rank();
  const int axis = rank == 0 ? 0 : (step.axis + rank) % rank;
  const std::int64_t n = rank == 0 ? 1 : x.shape()[axis];
  const bool skip_nan = name.starts_with("nan");
  RecordedStep out;
  out.bounds = xin.bounds;
  if (name.ends_with("_all")) {
    out.out = skip_nan ? nanmedian(x, loc) : median(x, loc);
    out.bounds.special = out.bounds.special || x.numel() == 0;  // the median of nothing is NaN
    return out;
  }
  out.shape = reduced_shape(in, {axis}, step.keepdim);
  if (name.find("quantile_") != std::string::npos) {
    const QuantileInterpolation mode = interpolation_of(name);
    const std::optional<int> along = step.no_axis ? std::nullopt : std::optional<int>(step.axis);
    out.out = skip_nan ? nanquantile(x, step.q, along, step.keepdim, mode, loc)
                       : quantile(x, step.q, along, step.keepdim, mode, loc);
    if (step.no_axis) out.shape = std::vector<Dim>(step.keepdim ? in.size() : 0, Dim{});
    if (mode == QuantileInterpolation::linear || mode == QuantileInterpolation::midpoint) {
      // lerp of two picked elements: their errors, and its own few roundings.
      const Bounds& b = xin.bounds;
      out.bounds = inexact_result(DType::f32, b.lo, b.hi, b.err, 4);
      out.bounds.special = b.special;
      out.bounds.unchecked = b.unchecked;
      out.bounds.specials_may_differ = b.specials_may_differ;
    }
    return out;
  }
  const ValuesAndIndices picked =
      name.starts_with("kthvalue") ? kthvalue(x, std::min(step.k, n), step.axis, step.keepdim, loc)
                                   : (skip_nan ? nanmedian(x, step.axis, step.keepdim, loc)
                                               : median(x, step.axis, step.keepdim, loc));
  const bool indices = name.ends_with("_indices");
  out.out = indices ? picked.indices : picked.values;
  if (indices) out.bounds = arg_reduce_rule(xin, n);
  return out;
}

}  // namespace lazy::fuzz
