// One device function per primitive of the op table (src/ir/op.h), named lz_<op>: generated
// kernels call these and nothing else for an op's value. Operands arrive already converted to
// the C++ type the op reads (float for every floating dtype, int, long long, bool); integers
// wrap like the hardware, and bool arithmetic is logic. The host meaning of each is in
// src/ir/op_reference.cpp; the two must agree within the fuzzer's tolerances.
#pragma once

#define LZ_OP __device__ __forceinline__

// Integer ops are templates over int and long long; float and bool take the non-template
// overload, which an exact match prefers.

// Negation and |x| flip or clear the sign bit in PTX, not -x and fabsf: ptxas 13.0 for sm_90
// folds them into a multiply's operands and can then merge that multiply with the plain product,
// storing x * y for |x * y| (found by lazyfuse-fuzz; docs/architecture.md, "Compiler defects").
LZ_OP float lz_neg(float x) {
  unsigned int bits;
  asm("xor.b32 %0, %1, 0x80000000;" : "=r"(bits) : "r"(__float_as_uint(x)));
  return __uint_as_float(bits);
}
template <class I> LZ_OP I lz_neg(I x) { return (I)lz_wrap_sub(0LL, x); }
LZ_OP float lz_abs(float x) {
  unsigned int bits;
  asm("and.b32 %0, %1, 0x7fffffff;" : "=r"(bits) : "r"(__float_as_uint(x)));
  return __uint_as_float(bits);
}
template <class I> LZ_OP I lz_abs(I x) { return x < 0 ? (I)lz_wrap_sub(0LL, x) : x; }
LZ_OP bool lz_abs(bool x) { return x; }
LZ_OP float lz_sign(float x) { return (float)((0.0f < x) - (x < 0.0f)); }
template <class I> LZ_OP I lz_sign(I x) { return (I)((0 < x) - (x < 0)); }
LZ_OP bool lz_sign(bool x) { return x; }
LZ_OP float lz_square(float x) { return x * x; }
template <class I> LZ_OP I lz_square(I x) { return (I)lz_wrap_mul(x, x); }
LZ_OP float lz_relu(float x) { return (x > 0.0f || x != x) ? x : 0.0f; }
template <class I> LZ_OP I lz_relu(I x) { return x > 0 ? x : (I)0; }
LZ_OP bool lz_relu(bool x) { return x; }
LZ_OP float lz_floor(float x) { return floorf(x); }
LZ_OP float lz_ceil(float x) { return ceilf(x); }
LZ_OP float lz_round(float x) { return rintf(x); }  // half to even
LZ_OP float lz_trunc(float x) { return truncf(x); }
LZ_OP float lz_exp(float x) { return expf(x); }
LZ_OP float lz_exp2(float x) { return exp2f(x); }
LZ_OP float lz_log(float x) { return logf(x); }
LZ_OP float lz_log2(float x) { return log2f(x); }
LZ_OP float lz_log1p(float x) { return log1pf(x); }
LZ_OP float lz_expm1(float x) { return expm1f(x); }
LZ_OP float lz_sqrt(float x) { return sqrtf(x); }
LZ_OP float lz_rsqrt(float x) { return rsqrtf(x); }
// sin and cos within 1.6 ulp (CUDA's sinf and cosf: 2), with the large-argument path out of
// line. sinf inlines a Payne-Hanek reduction at every call, and NVRTC's time grows with it: 20
// chained sins took 2.6 s to compile, 0.38 s as exps. Below 105615, π/2 in three parts comes off
// with fmas, exact enough for the bound, and polynomials on [-π/4, π/4] (Cephes' sinf and cosf
// coefficients) finish; larger, infinite and NaN arguments call sinf or cosf, once per kernel.
static __device__ __noinline__ float lz_sin_large(float x) { return sinf(x); }
static __device__ __noinline__ float lz_cos_large(float x) { return cosf(x); }
// sin(x + quarter_turns * π/2) for |x| <= 105615.
LZ_OP float lz_sin_reduced(float x, int quarter_turns) {
  const float turns = rintf(x * 0.6366197467f);  // x / (π/2), nearest
  float r = fmaf(turns, -1.570796371f, x);
  r = fmaf(turns, 4.371138829e-08f, r);
  r = fmaf(turns, 1.715124510e-15f, r);
  const int quadrant = int(turns) + quarter_turns;
  const float s = r * r;
  // Both polynomials and a select: a branch per call multiplies ptxas's time in long chains.
  float c = fmaf(2.443315711809948e-5f, s, -1.388731625493765e-3f);
  c = fmaf(c, s, 4.166664568298827e-2f);
  c = fmaf(s * s, c, fmaf(-0.5f, s, 1.0f));
  float p = fmaf(-1.9515295891e-4f, s, 8.3321608736e-3f);
  p = fmaf(p, s, -1.6666654611e-1f);
  const float v = (quadrant & 1) ? c : fmaf(r * s, p, r);
  return (quadrant & 2) ? -v : v;
}
constexpr float kLzTrigReducedBound = 105615.0f;
LZ_OP float lz_sin(float x) {
  if (!(fabsf(x) <= kLzTrigReducedBound)) return lz_sin_large(x);
  return x == 0.0f ? x : lz_sin_reduced(x, 0);  // keeps the sign of a zero
}
LZ_OP float lz_cos(float x) {
  return fabsf(x) <= kLzTrigReducedBound ? lz_sin_reduced(x, 1) : lz_cos_large(x);
}
// tan as sin over cos of one reduced argument (each within 1.6 ulp, so the quotient within 4,
// CUDA's tanf's bound), the large-argument path out of line as sin's.
static __device__ __noinline__ float lz_tan_large(float x) { return tanf(x); }
LZ_OP float lz_tan(float x) {
  if (!(fabsf(x) <= kLzTrigReducedBound)) return lz_tan_large(x);
  return x == 0.0f ? x : lz_sin_reduced(x, 0) / lz_sin_reduced(x, 1);
}
LZ_OP float lz_asin(float x) { return asinf(x); }
LZ_OP float lz_acos(float x) { return acosf(x); }
LZ_OP float lz_atan(float x) { return atanf(x); }
LZ_OP float lz_sinh(float x) { return sinhf(x); }
LZ_OP float lz_cosh(float x) { return coshf(x); }
LZ_OP float lz_asinh(float x) { return asinhf(x); }
LZ_OP float lz_acosh(float x) { return acoshf(x); }
LZ_OP float lz_atanh(float x) { return atanhf(x); }
LZ_OP float lz_log10(float x) { return log10f(x); }
LZ_OP float lz_erf(float x) { return erff(x); }
LZ_OP float lz_reciprocal(float x) { return 1.0f / x; }

// The hardware exponent and reciprocal, as Inductor's sigmoid, in their flush-to-zero forms (one
// instruction each): e^-x is within 2 ulp + |x| * 2^-24 relative, 1 / (1 + e) within 1 ulp; what
// is flushed is below 2^-126 either way. The precise library calls would cost half of a
// transcendental chain. Keeping a subnormal result (silu(-88) is -5.3e-37, not -0) cost a probe's
// chain of 8 sigmoids and tanhs 20% with the reciprocal's non-flushing form, 9% rescaled (H200).
LZ_OP float lz_sigmoid(float x) {
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(x * -1.44269504088896341f));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return r;
}

// tanh within 2 ulp: below 0.6 an odd polynomial (minimax for relative error, fitted for
// lazyfuse: 0.8 ulp, no special-function unit at all); above it 1 - 2 / (1 + e^2|x|) on the
// hardware exponent and reciprocal. A warp whose values are all below 0.6 skips the second form:
// the vote makes that a real branch (a per-thread `if` is predicated, running both), and the
// special-function unit is what bounds transcendental chains.
LZ_OP float lz_tanh(float x) {
  const float a = fabsf(x);
  const float s = x * x;
  float p = fmaf(-0.0058832005597651005f, s, 0.020785124972462654f);
  p = fmaf(p, s, -0.05378039553761482f);
  p = fmaf(p, s, 0.13331879675388336f);
  p = fmaf(p, s, -0.33333295583724976f);
  // copysignf keeps -0 (x s p is +0 there, and +0 + -0 is +0); elsewhere the sign is x's already.
  const float small = copysignf(fmaf(x * s, p, x), x);
  if (__all_sync(__activemask(), a < 0.6f)) return small;
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(a * 2.88539008177792681f));  // 2 log2(e)
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return a < 0.6f ? small : copysignf(fmaf(-2.0f, r, 1.0f), x);
}

// LAZY_FAST_MATH=1: the hardware's approximations. tanh.approx.f32 has a relative error under
// 2^-10.9 (PTX ISA); sigmoid through it inherits that bound.
LZ_OP float lz_tanh_fast(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
LZ_OP float lz_sigmoid_fast(float x) { return fmaf(0.5f, lz_tanh_fast(0.5f * x), 0.5f); }

// PyTorch's gelu(approximate="tanh"), 0.5 x (1 + tanh(u)) with u = sqrt(2/pi) (x + 0.044715 x^3),
// written as x / (1 + exp(-2u)): the same value without 1 + tanh(u) cancelling for negative x
// (at x = -3 that lost 1e-5 relative on H100). The approximate division (2 ulp) skips IEEE
// division's slow path; it gives 0 past a divisor of 2^126 (from x = -10.00, where the quotient is
// still 1e-37), so both sides are scaled by 1/4 first. Below x = -10.06 exp overflows and the
// result is -0 (the quotient 3e-38 and less); past |x| ~ 2e13 the cube overflows, exp is 0 or inf
// and the result x or -0, as in double; -inf gives NaN (-inf * 0), as PyTorch's.
LZ_OP float lz_gelu_tanh(float x) {
  const float inner = 0.7978845608028654f * fmaf(0.044715f * x, x * x, x);
  return __fdividef(0.25f * x, 0.25f + 0.25f * expf(-2.0f * inner));
}

// g * gelu_tanh'(x), as ir/op_reference.cpp's gelu_tanh_grad. Where tanh is saturated the second
// term is x * 0 without u': u' is inf once x * x overflows (|x| > 1.8e19), and 0 * inf = NaN is
// PyTorch's f32 result there. At x = +-inf it is NaN still, as PyTorch's.
LZ_OP float lz_gelu_tanh_grad(float g, float x) {
  const float c = 0.7978845608028654f, k = 0.044715f;
  const float t = tanhf(c * fmaf(k * x, x * x, x));
  const float sech2 = 1.0f - t * t;
  const float du = sech2 == 0.0f ? 1.0f : c * fmaf(3.0f * k, x * x, 1.0f);
  return g * (0.5f * (1.0f + t) + 0.5f * x * sech2 * du);
}

LZ_OP bool lz_logical_not(bool x) { return !x; }
LZ_OP bool lz_isnan(float x) { return x != x; }
template <class T> LZ_OP bool lz_isnan(T) { return false; }
LZ_OP bool lz_isinf(float x) { return isinf(x); }
template <class T> LZ_OP bool lz_isinf(T) { return false; }
LZ_OP bool lz_isfinite(float x) { return isfinite(x); }
template <class T> LZ_OP bool lz_isfinite(T) { return true; }

// Casts, one function per target dtype. Floats to integers truncate and saturate (NaN to 0);
// integers go to f16 or bf16 through f32, as PyTorch's casts do.
LZ_OP float lz_cast_f32(float x) { return x; }
template <class T> LZ_OP float lz_cast_f32(T x) { return (float)x; }
LZ_OP float lz_cast_f16(float x) { return lz_round_f16(x); }
template <class T> LZ_OP float lz_cast_f16(T x) { return lz_round_f16((float)x); }
LZ_OP float lz_cast_bf16(float x) { return lz_round_bf16(x); }
template <class I> LZ_OP float lz_cast_bf16(I x) { return lz_int_to_bf16(x); }
LZ_OP float lz_cast_bf16(bool x) { return (float)x; }
LZ_OP int lz_cast_i32(float x) { return lz_f32_to_i32(x); }
template <class T> LZ_OP int lz_cast_i32(T x) { return (int)x; }
LZ_OP long long lz_cast_i64(float x) { return lz_f32_to_i64(x); }
template <class T> LZ_OP long long lz_cast_i64(T x) { return (long long)x; }
template <class T> LZ_OP bool lz_cast_bool(T x) { return x != 0; }
LZ_OP bool lz_cast_bool(bool x) { return x; }

LZ_OP float lz_add(float a, float b) { return a + b; }
template <class I> LZ_OP I lz_add(I a, I b) { return (I)lz_wrap_add(a, b); }
LZ_OP bool lz_add(bool a, bool b) { return a || b; }
LZ_OP float lz_sub(float a, float b) { return a - b; }
template <class I> LZ_OP I lz_sub(I a, I b) { return (I)lz_wrap_sub(a, b); }
LZ_OP float lz_mul(float a, float b) { return a * b; }
template <class I> LZ_OP I lz_mul(I a, I b) { return (I)lz_wrap_mul(a, b); }
LZ_OP bool lz_mul(bool a, bool b) { return a && b; }
LZ_OP float lz_div(float a, float b) { return a / b; }
// a / b with the same bits, from r = 1 / (double)b computed once for many a (a row's sum): no
// reciprocal and check per element. The double product lies within 2^-52 of a / b, and a float
// quotient is at least 2^-49 from a rounding tie unless it is subnormal, where it may be one.
LZ_OP float lz_div_by(float a, float b, double r) {
  const float q = (float)((double)a * r);
  if ((__float_as_uint(q) & 0x7fffffffu) <= 0x00800000u && a != 0.0f) return a / b;
  return q;
}
LZ_OP float lz_pow(float a, float b) { return powf(a, b); }
template <class I> LZ_OP I lz_pow(I a, I b) { return (I)lz_ipow(a, b); }
// lz_maximum and lz_minimum of float and int are in lz_device.cuh: the folds use them too.
template <class I> LZ_OP I lz_maximum(I a, I b) { return a > b ? a : b; }
LZ_OP bool lz_maximum(bool a, bool b) { return a || b; }
template <class I> LZ_OP I lz_minimum(I a, I b) { return a < b ? a : b; }
LZ_OP bool lz_minimum(bool a, bool b) { return a && b; }
// Division rounding toward zero (fmod) or down (remainder, floor_divide), as PyTorch computes
// them: the remainder takes the divisor's sign, the quotient is the nearest integer to
// (a - fmod(a, b)) / b. An integer divisor of 0 gives 0 (NumPy's; PyTorch's CPU kernels throw).
LZ_OP float lz_fmod(float a, float b) { return fmodf(a, b); }
LZ_OP float lz_remainder(float a, float b) {
  float mod = fmodf(a, b);
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) mod += b;
  return mod;
}
LZ_OP float lz_floor_divide(float a, float b) {
  if (b == 0.0f) return a / b;
  const float mod = fmodf(a, b);
  float quotient = (a - mod) / b;
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) quotient -= 1.0f;
  if (quotient == 0.0f) return copysignf(0.0f, a / b);
  const float down = floorf(quotient);
  return quotient - down > 0.5f ? down + 1.0f : down;
}
// The least value over -1 overflows: its quotient wraps to itself and leaves no remainder.
template <class I> LZ_OP I lz_fmod(I a, I b) { return (b == 0 || b == -1) ? (I)0 : (I)(a % b); }
template <class I> LZ_OP I lz_remainder(I a, I b) {
  const I mod = lz_fmod(a, b);
  return (mod != 0 && ((b < 0) != (mod < 0))) ? (I)(mod + b) : mod;
}
template <class I> LZ_OP I lz_floor_divide(I a, I b) {
  if (b == 0) return (I)0;
  if (b == -1) return (I)lz_wrap_sub(0LL, a);
  const I quotient = (I)(a / b);
  return (a % b != 0 && ((a < 0) != (b < 0))) ? (I)(quotient - 1) : quotient;
}
LZ_OP float lz_atan2(float y, float x) { return atan2f(y, x); }
LZ_OP float lz_hypot(float a, float b) { return hypotf(a, b); }
// log(e^a + e^b) as the larger plus log1p(e^-|a - b|); equal infinities give themselves.
LZ_OP float lz_logaddexp(float a, float b) {
  if (isinf(a) && a == b) return a;
  return fmaxf(a, b) + log1pf(expf(-fabsf(a - b)));
}

template <class T> LZ_OP bool lz_eq(T a, T b) { return a == b; }
template <class T> LZ_OP bool lz_ne(T a, T b) { return a != b; }
template <class T> LZ_OP bool lz_lt(T a, T b) { return a < b; }
template <class T> LZ_OP bool lz_le(T a, T b) { return a <= b; }
template <class T> LZ_OP bool lz_gt(T a, T b) { return a > b; }
template <class T> LZ_OP bool lz_ge(T a, T b) { return a >= b; }
LZ_OP bool lz_logical_and(bool a, bool b) { return a && b; }
LZ_OP bool lz_logical_or(bool a, bool b) { return a || b; }
LZ_OP bool lz_logical_xor(bool a, bool b) { return a != b; }

// Bits of int and long long, and logic of bool (bitwise_not of bool is recorded as logical_not).
// PyTorch's shifts: a count below 0 or of the width or more shifts every bit out, leaving 0, or
// for a right shift the sign. A left shift goes through unsigned bits, so it wraps.
template <class I> LZ_OP I lz_bitwise_and(I a, I b) { return a & b; }
template <class I> LZ_OP I lz_bitwise_or(I a, I b) { return a | b; }
template <class I> LZ_OP I lz_bitwise_xor(I a, I b) { return a ^ b; }
LZ_OP bool lz_bitwise_and(bool a, bool b) { return a && b; }
LZ_OP bool lz_bitwise_or(bool a, bool b) { return a || b; }
LZ_OP bool lz_bitwise_xor(bool a, bool b) { return a != b; }
template <class I> LZ_OP I lz_bitwise_not(I x) { return ~x; }
template <class I> LZ_OP I lz_bitwise_left_shift(I a, I b) {
  constexpr I kWidth = 8 * sizeof(I);
  return (b < 0 || b >= kWidth) ? (I)0 : (I)((unsigned long long)a << b);
}
template <class I> LZ_OP I lz_bitwise_right_shift(I a, I b) {
  constexpr I kWidth = 8 * sizeof(I);
  return a >> ((b < 0 || b >= kWidth) ? kWidth - 1 : b);
}

template <class T> LZ_OP T lz_where(bool condition, T a, T b) { return condition ? a : b; }
// PyTorch's two-sided form: exact at both ends (weight 0 gives start, 1 gives end).
LZ_OP float lz_lerp(float start, float end, float weight) {
  return fabsf(weight) < 0.5f ? start + weight * (end - start) : end - (end - start) * (1.0f - weight);
}

// Generators: element `index` of arange (in double, like the host: start + i * step rounds
// once) and of the Philox streams (the same numbers as the host evaluator).
LZ_OP float lz_arange_f32(float start, float step, long long index) {
  return (float)((double)start + (double)index * (double)step);
}
LZ_OP float lz_arange_f16(float start, float step, long long index) {
  return lz_round_f16(lz_f64_to_f32_odd((double)start + (double)index * (double)step));
}
LZ_OP float lz_arange_bf16(float start, float step, long long index) {
  return lz_round_bf16(lz_f64_to_f32_odd((double)start + (double)index * (double)step));
}
LZ_OP int lz_arange_i32(int start, int step, long long index) {
  return (int)lz_wrap_add(start, lz_wrap_mul(index, step));
}
LZ_OP long long lz_arange_i64(long long start, long long step, long long index) {
  return lz_wrap_add(start, lz_wrap_mul(index, step));
}
// Uniforms on the grid of the dtype's precision (24, 11 or 8 bits), so rounding never reaches 1.
LZ_OP float lz_rand_uniform_f32(unsigned long long seed, unsigned long long index) {
  return lz_uniform_from_word(lz_philox_word(seed, index), 24);
}
LZ_OP float lz_rand_uniform_f16(unsigned long long seed, unsigned long long index) {
  return lz_uniform_from_word(lz_philox_word(seed, index), 11);
}
LZ_OP float lz_rand_uniform_bf16(unsigned long long seed, unsigned long long index) {
  return lz_uniform_from_word(lz_philox_word(seed, index), 8);
}
// Out of line: Philox, a log and a sine are ~400 instructions, and a kernel unrolls its loop body
// and repeats it for the tail, so inlined copies took a two-output randn 134 ms to compile (50
// out of line, on the 2-core machine); a call costs little next to the work.
static __device__ __noinline__ float lz_rand_normal(unsigned long long seed,
                                                   unsigned long long index) {
  lz_normal_inputs u = lz_normal_uniforms(seed, index);
  // Not below 0: LAZY_FAST_MATH's approximate log of a uniform just under 1 can be above 0.
  float radius = sqrtf(fmaxf(-2.0f * logf(u.radius_uniform), 0.0f));
  float angle = 6.28318530717958648f * u.angle_uniform;  // below 2π: no large-argument path
  return radius * lz_sin_reduced(angle, u.use_sine ? 0 : 1);
}

#undef LZ_OP
