// The reference meaning of each pointwise primitive on one element: the host function its row
// in the op table (ir/op.h) names. Floating dtypes compute in double, integer and bool dtypes in
// exact int64 with wrapping arithmetic (bool arithmetic is logic); an op that is not defined on
// a domain has no overload for it. The reference evaluator rounds or wraps the result to the
// op's dtype afterwards, as a store does on the GPU.
#pragma once

#include <cstdint>

namespace lazy::ir::reference {

using std::int64_t;

double neg(double x);
int64_t neg(int64_t x);
double abs(double x);
int64_t abs(int64_t x);
double sign(double x);
int64_t sign(int64_t x);
double square(double x);
int64_t square(int64_t x);
double relu(double x);
int64_t relu(int64_t x);
double floor(double x);
double ceil(double x);
double round(double x);
double trunc(double x);
double exp(double x);
double exp2(double x);
double log(double x);
double log2(double x);
double log1p(double x);
double expm1(double x);
double sqrt(double x);
double rsqrt(double x);
double sin(double x);
double cos(double x);
double tanh(double x);
double tan(double x);
double asin(double x);
double acos(double x);
double atan(double x);
double sinh(double x);
double cosh(double x);
double asinh(double x);
double acosh(double x);
double atanh(double x);
double log10(double x);
double erf(double x);
double sigmoid(double x);
double gelu_tanh(double x);
double reciprocal(double x);
bool logical_not(int64_t x);
bool isnan(double x);
bool isnan(int64_t x);
bool isinf(double x);
bool isinf(int64_t x);
bool isfinite(double x);
bool isfinite(int64_t x);
double cast(double x);
int64_t cast(int64_t x);

double add(double a, double b);
int64_t add(int64_t a, int64_t b);
double sub(double a, double b);
int64_t sub(int64_t a, int64_t b);
double mul(double a, double b);
int64_t mul(int64_t a, int64_t b);
double div(double a, double b);
double pow(double a, double b);
int64_t pow(int64_t a, int64_t b);
double maximum(double a, double b);
int64_t maximum(int64_t a, int64_t b);
double minimum(double a, double b);
int64_t minimum(int64_t a, int64_t b);
// PyTorch's: the remainder has the divisor's sign; an integer divisor of 0 gives 0.
double remainder(double a, double b);
int64_t remainder(int64_t a, int64_t b);
double fmod(double a, double b);
int64_t fmod(int64_t a, int64_t b);
double floor_divide(double a, double b);
int64_t floor_divide(int64_t a, int64_t b);
double atan2(double y, double x);
double hypot(double a, double b);
// g * gelu_tanh'(x): (1 + t) / 2 + x / 2 (1 - t^2) u'(x), t = tanh(u), u = c (x + k x^3).
double gelu_tanh_grad(double g, double x);
double logaddexp(double a, double b);
bool eq(double a, double b);
bool eq(int64_t a, int64_t b);
bool ne(double a, double b);
bool ne(int64_t a, int64_t b);
bool lt(double a, double b);
bool lt(int64_t a, int64_t b);
bool le(double a, double b);
bool le(int64_t a, int64_t b);
bool gt(double a, double b);
bool gt(int64_t a, int64_t b);
bool ge(double a, double b);
bool ge(int64_t a, int64_t b);
bool logical_and(int64_t a, int64_t b);
bool logical_or(int64_t a, int64_t b);
bool logical_xor(int64_t a, int64_t b);
// Two's complement bits; PyTorch's shifts (a count outside [0, 64) gives 0, or the sign).
int64_t bitwise_and(int64_t a, int64_t b);
int64_t bitwise_or(int64_t a, int64_t b);
int64_t bitwise_xor(int64_t a, int64_t b);
int64_t bitwise_not(int64_t x);
int64_t bitwise_left_shift(int64_t a, int64_t b);
int64_t bitwise_right_shift(int64_t a, int64_t b);

double where(double condition, double a, double b);
int64_t where(int64_t condition, int64_t a, int64_t b);
double lerp(double start, double end, double weight);

}  // namespace lazy::ir::reference
