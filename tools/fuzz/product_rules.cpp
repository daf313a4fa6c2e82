#include "tools/fuzz/product_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// Error of one f32 accumulation step relative to its operands' magnitude: a whole f32 ulp, not
// half of one, since tensor cores align an inner product's addends by truncating them (Fasi et
// al., "Numerical behavior of NVIDIA tensor cores", 2021).
constexpr double kAccumulationStep = 0x1p-23;
// TF32 operands keep 10 bits of significand: each is off by up to 2^-11, a product by ~2^-10.
constexpr double kTf32Product = 0x1p-10;
// Significand bits that grid-valued partial sums may use for the accumulation to be exact in any
// order: two short of f32's 24, so that an accumulator keeping few guard bits when it aligns
// addends still holds every partial sum.
constexpr int kExactAccumulatorBits = 22;

double times(double x, double y) {
  return x * y;
}

}  // namespace

Bounds product_rule(const Operand& a_in, const Operand& b_in, DType result, std::int64_t k,
                    bool tf32) {
  const Bounds& a = a_in.bounds;
  const Bounds& b = b_in.bounds;
  if (k == 0) return Bounds{0, 0, 0, 0};  // nothing is read: zeros, whatever the operands hold
  const double kd = double(k);
  const auto [term_lo, term_hi] = corners(a.lo, a.hi, b.lo, b.hi, times);
  const double lo = kd * term_lo, hi = kd * term_hi;
  // sum_k |a_ik| |b_kj| with the operands' errors: what every partial sum stays below, in
  // whatever order a backend adds the terms, and what the accumulation error scales with.
  const double sum_abs = kd * (a.magnitude() + a.err) * (b.magnitude() + b.err);
  if (!(sum_abs < largest(result) / 4)) reject("product", "may overflow");
  const bool reduced = tf32 && result == DType::f32;
  const bool grids = a.quantum != kNoQuantum && b.quantum != kNoQuantum;
  if (a.exact() && b.exact() && grids && !reduced) {
    // Terms on a grid of 2^-(qa + qb) whose partial sums fit f32 with bits to spare add exactly
    // in any order: only the final rounding to the result's dtype remains.
    const int quantum = a.quantum + b.quantum;
    if (quantum <= finest_quantum(DType::f32) &&
        std::ldexp(sum_abs, quantum) <= std::ldexp(1.0, kExactAccumulatorBits))
      return with_flags(exact_result(result, lo, hi, quantum), a, b);
  }
  const double inherited = kd * (a.magnitude() * b.err + b.magnitude() * a.err + a.err * b.err);
  // k - 1 additions and the products' roundings (f32 operands), each within a step of sum_abs.
  double accumulation = (kd + 2) * kAccumulationStep * sum_abs;
  if (reduced) accumulation += kTf32Product * sum_abs;
  return with_flags(inexact_result(result, lo, hi, inherited + accumulation, 1), a, b);
}

}  // namespace lazy::fuzz
