// What the fuzzer knows about a tensor's values without computing them: their range, how far a
// correct backend may stray from the reference evaluator, and whether they are exact. The
// tolerance of every comparison comes from here, so it grows with the chain that made a value
// and is zero where the math is exact.
#pragma once

#include <cstdint>

#include <lazy/dtype.h>

namespace lazy::fuzz {

inline constexpr int kNoQuantum = -100000;

struct Bounds {
  // Every finite element lies in [lo, hi] (exact math; a backend's value within err of it).
  double lo = 0, hi = 0;
  // |backend - reference| for finite elements: 0 means the same bits are expected.
  double err = 0;
  // Exact values are multiples of 2^-quantum (kNoQuantum: unknown).
  int quantum = kNoQuantum;
  // NaN or infinities may occur; they come from the data and follow IEEE rules exactly.
  bool special = false;
  // The values cannot be predicted closely enough to compare (a comparison of inexact values).
  bool unchecked = false;
  // An element NaN or infinite on one side may be anything on the other: an infinity met a
  // value that rounding leaves 0 on one side only (inf * 0 is NaN, inf * 1e-30 is inf), and
  // later steps may make that infinity a number (1 / inf).
  bool specials_may_differ = false;

  bool exact() const { return err == 0 && !unchecked; }
  double magnitude() const;
};

// Bits of significand (with the implicit one), largest finite value, finest spacing.
int significand_bits(DType dtype);
double largest(DType dtype);
// The least value an integer dtype holds (-2^31, -2^63), and its greatest as a double (2^63 - 1
// reads as 2^63): where infinities saturate, and what neg and abs of the least give back.
double integer_min(DType dtype);
double integer_max(DType dtype);
int finest_quantum(DType dtype);

// Spacing of `dtype` values at magnitude `mag` (the finest spacing below the normal range).
double ulp(DType dtype, double mag);

// True when every multiple of 2^-quantum in [lo, hi] is a value of `dtype`.
bool fits(DType dtype, double lo, double hi, int quantum);

// Bounds of an exact result in [lo, hi] on a grid of 2^-quantum stored as `dtype`: exact when it
// fits, else one rounding apart (a fused kernel may keep a narrow intermediate in f32).
Bounds exact_result(DType dtype, double lo, double hi, int quantum);

// Bounds of a computed result: `inherited` from the inputs' errors, plus `ulps` of f32 at the
// result's magnitude for the math itself, plus one rounding to `dtype`.
Bounds inexact_result(DType dtype, double lo, double hi, double inherited, double ulps);

// The value a tensor gets when converted to `dtype` (as operands are before an op).
Bounds converted(const Bounds& b, DType from, DType to);

}  // namespace lazy::fuzz
