#include "tools/fuzz/row_recording.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

// How far x / |x| (2-norm over rows) may move for x's error: 2 |e| / |x|, |x| being at least
// sqrt(n) times the least |element| where |e| is at most sqrt(n) times x's error; -1 when a
// row's norm may be near 0, or its squares below f32's normal range, where the reference's
// (exact) norm and f32's part.
double unit_vector_error(const Bounds& x) {
  if (x.err == 0 && x.quantum != kNoQuantum && x.quantum <= 60) return 0;
  const double nearest = distance_from_zero(x.lo, x.hi);
  if (nearest - x.err <= 1e-18) return -1;
  return 2 * x.err / (nearest - x.err);
}

// The squares of a row of n, summed in f32, must not overflow.
void check_squares(const Bounds& x, std::int64_t n, const char* op) {
  const double m = x.magnitude() + x.err;
  if (!(double(n) * m * m < largest(DType::f32) / 16)) reject(op, "the squares may overflow");
}

// A result within [-1, 1]: the f32 norm's and sum's rounding over n, each narrow rounding, and
// the inputs' part (unchecked when unknown).
Bounds unit_result(DType dtype, std::int64_t n, int narrow_roundings, double inherited,
                   bool unknown) {
  const double arithmetic = (double(n) + 10) * std::ldexp(1.0, -23) +
                            (dtype == DType::f32 ? 0.0 : narrow_roundings * ulp(dtype, 1.0));
  Bounds b = inexact_result(dtype, -1, 1, inherited + arithmetic, 2);
  b.unchecked = unknown;
  return b;
}

}  // namespace

RecordedStep record_row_op(Program& program, const Step& step, const Builder& earlier,
                           std::source_location loc) {
  const int xi = step.args[0].step;
  const Tensor& x = earlier.tensor(xi);
  const Bounds& xb = earlier.bounds(xi);
  const int rank = x.rank();
  const int axis = (step.axis % rank + rank) % rank;
  const std::int64_t n = x.shape()[axis];
  RecordedStep out;
  out.shape = earlier.shape(xi);
  if (step.name == "glu") {
    out.out = glu(x, step.axis, loc);
    // a * sigmoid(b) of the halves, in f32, rounded once.
    const Operand half{converted(xb, x.dtype(), DType::f32), DType::f32};
    const Operand gate{unary_rule("sigmoid", half, DType::f32), DType::f32};
    out.bounds = binary_rule("mul", half, gate, DType::f32, x.dtype());
    program.sizes[std::size_t(step.derived_size)].value = out.out.shape()[axis];
    out.shape[std::size_t(axis)] = Dim{{step.derived_size}, 1};
    return out;
  }
  if (step.name == "normalize") {
    out.out = normalize(x, 2, step.axis, 1e-12, loc);
    check_squares(xb, n, "normalize");
    const double moved = unit_vector_error(xb);
    out.bounds = unit_result(x.dtype(), n, 3, std::max(moved, 0.0), xb.unchecked || moved < 0);
    out.bounds.special = xb.special;
    return out;
  }
  const int yi = step.args[1].step;
  out.out = cosine_similarity(x, earlier.tensor(yi), step.axis, 1e-8, loc);
  // Both as the op takes them, in the common dtype (an i64 arange past f16's range is inf).
  const Bounds xc = converted(xb, x.dtype(), out.out.dtype());
  const Bounds yb = converted(earlier.bounds(yi), earlier.tensor(yi).dtype(), out.out.dtype());
  check_squares(xc, n, "cosine_similarity");
  check_squares(yb, n, "cosine_similarity");
  out.shape.erase(out.shape.begin() + axis);
  const double moved_x = unit_vector_error(xc), moved_y = unit_vector_error(yb);
  out.bounds = unit_result(out.out.dtype(), n, 8, std::max(moved_x, 0.0) + std::max(moved_y, 0.0),
                           xc.unchecked || yb.unchecked || moved_x < 0 || moved_y < 0);
  out.bounds.special = xc.special || yb.special;
  return out;
}

}  // namespace lazy::fuzz
