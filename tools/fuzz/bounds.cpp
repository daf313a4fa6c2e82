#include "tools/fuzz/bounds.h"

#include <algorithm>
#include <cmath>

namespace lazy::fuzz {

double Bounds::magnitude() const {
  return std::max(std::abs(lo), std::abs(hi));
}

int significand_bits(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 24;
    case DType::f16:
      return 11;
    case DType::bf16:
      return 8;
    case DType::i32:
      return 31;
    case DType::i64:
      return 53;  // the reference evaluator holds integers exactly; reads go through double
    case DType::bool_:
      return 1;
  }
  return 0;
}

double largest(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 3.4028234663852886e38;
    case DType::f16:
      return 65504.0;
    case DType::bf16:
      return 3.3895313892515355e38;
    case DType::i32:
      return 2147483647.0;
    case DType::i64:
      return 9007199254740992.0;
    case DType::bool_:
      return 1;
  }
  return 0;
}

double integer_min(DType dtype) {
  return dtype == DType::i64 ? -0x1p63 : dtype == DType::i32 ? -0x1p31 : 0.0;
}

double integer_max(DType dtype) {
  return dtype == DType::i64 ? 0x1p63 : dtype == DType::i32 ? 0x1p31 - 1 : 1.0;
}

int finest_quantum(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 149;
    case DType::f16:
      return 24;
    case DType::bf16:
      return 133;
    default:
      return 0;
  }
}

double ulp(DType dtype, double mag) {
  if (!is_floating(dtype)) return 0;
  double finest = std::ldexp(1.0, -finest_quantum(dtype));
  if (mag <= 0 || !std::isfinite(mag)) return finest;
  int exponent = std::ilogb(mag);
  return std::max(finest, std::ldexp(1.0, exponent - (significand_bits(dtype) - 1)));
}

bool fits(DType dtype, double lo, double hi, int quantum) {
  if (quantum == kNoQuantum) return false;
  double mag = std::max(std::abs(lo), std::abs(hi));
  if (!std::isfinite(mag) || mag > largest(dtype)) return false;
  if (!is_floating(dtype)) return quantum <= 0;
  if (mag == 0) return true;
  if (quantum > finest_quantum(dtype)) return false;
  return std::ldexp(mag, quantum) <= std::ldexp(1.0, significand_bits(dtype));
}

Bounds exact_result(DType dtype, double lo, double hi, int quantum) {
  Bounds b{std::min(lo, hi), std::max(lo, hi), 0, quantum, false, false};
  if (dtype == DType::bool_) {
    b.quantum = 0;
    return b;
  }
  if (!fits(dtype, b.lo, b.hi, quantum)) {
    // Not representable: the reference rounds at once, a fused kernel when it stores.
    b.err = ulp(dtype, b.magnitude()) + ulp(DType::f32, b.magnitude());
    b.quantum = kNoQuantum;
  }
  return b;
}

Bounds inexact_result(DType dtype, double lo, double hi, double inherited, double ulps) {
  Bounds b{std::min(lo, hi), std::max(lo, hi), 0, kNoQuantum, false, false};
  double mag = b.magnitude();
  b.err = inherited + ulps * ulp(DType::f32, mag) + ulp(dtype, mag);
  if (!is_floating(dtype)) b.err = inherited;
  return b;
}

Bounds converted(const Bounds& b, DType from, DType to) {
  if (from == to || b.unchecked) return b;
  Bounds out = b;
  if (to == DType::bool_) {
    // Non-zero is true: decided exactly unless an inexact value may sit at zero.
    bool ambiguous = b.err > 0 && b.lo - b.err <= 0 && b.hi + b.err >= 0;
    // The special values are NaN, infinities and -0: the last is false, the others true.
    bool may_be_zero = (b.lo <= 0 && b.hi >= 0) || b.special;
    out = Bounds{may_be_zero ? 0.0 : 1.0, 1.0, 0, 0, false, ambiguous};
    if (!may_be_zero) out.lo = 1;
    return out;
  }
  if (is_floating(from) && !is_floating(to)) {
    // Truncation toward zero: exact for exact inputs; an inexact one may cross an integer.
    out = Bounds{std::trunc(b.lo), std::trunc(b.hi), 0, 0, false, b.err > 0};
    // NaN gives 0 and infinities saturate (docs/semantics.md): finite integers, as far out as
    // the dtype reaches (for i64 past largest(), which is where doubles stop holding every
    // integer: seed 17314 program 2715). Seed 17296 program 843 summed such values in f32.
    if (b.special) {
      out.lo = std::min(out.lo, integer_min(to));
      out.hi = std::max(out.hi, integer_max(to));
    }
    return out;
  }
  if (is_floating(to) && std::max(std::abs(b.lo), std::abs(b.hi)) + b.err > largest(to)) {
    // Past the dtype's largest value, conversion gives infinity (an i64 of 10^6 as f16); the
    // finite values that remain lie within the largest.
    out.special = true;
    out.lo = std::clamp(b.lo, -largest(to), largest(to));
    out.hi = std::clamp(b.hi, -largest(to), largest(to));
  }
  if (out.err == 0 && fits(to, out.lo, out.hi, out.quantum)) return out;
  // An exact value rounds the same way everywhere; an inexact one stays as inexact.
  if (out.err == 0) {
    out.quantum = kNoQuantum;
    out.lo -= ulp(to, std::abs(out.lo));  // the rounded ends may lie just outside the range
    out.hi += ulp(to, std::abs(out.hi));
    if (is_floating(to)) {  // but no finite value lies past the largest
      out.lo = std::max(out.lo, -largest(to));
      out.hi = std::min(out.hi, largest(to));
    }
    return out;
  }
  out.err = b.err + ulp(to, out.magnitude());
  out.quantum = kNoQuantum;
  return out;
}

}  // namespace lazy::fuzz
