#include "tools/fuzz/pair_recording.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/statistic_recording.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

// isclose(a, b): |a - b| <= atol + rtol |b| in the operands' dtype. A kernel may compute it in f32
// where the reference rounds each op to the dtype: the tolerance is rounded up to twice and the
// difference down once, by half an ulp each (2^-8 in bf16).
Bounds isclose_rule(const Bounds& a, const Bounds& b, DType dtype, bool same, double rtol,
                    double atol) {
  const bool unknown = a.unchecked || b.unchecked || a.specials_may_differ || b.specials_may_differ;
  // x against itself: close everywhere but at NaN (unless equal_nan), on either side alike.
  if (same) return bool_result(unknown, a.special ? 0 : 1, 1);
  const double u = is_floating(dtype) ? std::ldexp(1.0, -significand_bits(dtype)) : 0;
  const double margin = std::max(1.01, std::pow(1 + 2 * u, 3) / (1 - 2 * u));
  const double tolerance = (atol + rtol * (b.magnitude() + b.err)) * margin;
  const bool grids = a.quantum != kNoQuantum && b.quantum != kNoQuantum;
  const bool only_equal_close = a.exact() && b.exact() && grids &&
                                std::ldexp(1.0, -std::max(a.quantum, b.quantum)) > tolerance;
  const bool apart =
      a.lo - a.err - (b.hi + b.err) > tolerance || b.lo - b.err - (a.hi + a.err) > tolerance;
  return bool_result(unknown || !(only_equal_close || apart));
}

}  // namespace

RecordedStep record_pair(const Step& step, const Builder& earlier, std::source_location loc) {
  const int xi = step.args[0].step, yi = step.args[1].step;
  const Tensor& x = earlier.tensor(xi);
  const Tensor& y = earlier.tensor(yi);
  const Operand xo{earlier.bounds(xi), x.dtype()}, yo{earlier.bounds(yi), y.dtype()};
  RecordedStep out;
  if (step.name == "outer") {
    out.out = outer(x, y, loc);
    const DType dtype = out.out.dtype();
    out.bounds = binary_rule("mul", xo, yo, dtype, dtype);
    out.shape = {earlier.shape(xi)[0], earlier.shape(yi)[0]};
    return out;
  }
  out.shape = earlier.shape(xi);
  if (step.name == "isclose") {
    out.out = isclose(x, y, step.q, step.eps, step.largest, loc);
    out.bounds = isclose_rule(xo.bounds, yo.bounds, x.dtype(), xi == yi, step.q, step.eps);
    return out;
  }
  out.out = pairwise_distance(x, y, step.q, 1e-6, step.keepdim, loc);
  const DType dtype = out.out.dtype();
  const Operand difference{binary_rule("sub", xo, yo, dtype, dtype), dtype};
  const Operand shifted{binary_rule("add", difference, number_operand(1e-6, dtype), dtype, dtype),
                        dtype};
  out.bounds = vector_norm_rule(shifted, step.q, dtype, x.shape()[x.rank() - 1]);
  if (step.keepdim)
    out.shape.back() = Dim{};
  else
    out.shape.pop_back();
  return out;
}

RecordedStep record_one_hot(const Program& program, const Step& step, const Builder& earlier,
                            std::source_location loc) {
  const int ids = step.args[0].step;
  RecordedStep out;
  out.out = one_hot(earlier.tensor(ids), dim_value(program, step.shape[0]), step.dtype, loc);
  out.bounds = Bounds{0, 1, 0, 0};
  out.shape = earlier.shape(ids);
  out.shape.push_back(step.shape[0]);
  return out;
}

}  // namespace lazy::fuzz
