// Converting numbers to and from each dtype's bits, with the rounding a store into that dtype
// does. Shared by factories, the reference evaluator and host reads.
#pragma once

#include <cstdint>

#include "lazy/dtype.h"
#include "lazy/scalar.h"

namespace lazy::ir {

// Rounds to the nearest value the dtype holds, ties to even; overflow gives infinity for
// floating dtypes. Integer dtypes truncate toward zero and saturate; NaN gives 0 (as the GPU's
// conversion does). Bool gives 1 for any non-zero value, NaN included.
double round_to_dtype(double value, DType dtype);
// The largest finite value of a floating dtype (f16's 65504).
double largest_finite(DType dtype);
// Wraps to the integer dtype's width as two's complement; bool gives 0 or 1.
std::int64_t wrap_to_dtype(std::int64_t value, DType dtype);

// A floating value converted to an integer or bool dtype: truncated toward zero and saturated,
// NaN giving 0 (bool: non-zero, NaN included, gives 1). Exact where round_to_dtype's double
// could not hold the result (the saturated i64 maximum).
std::int64_t float_to_integer_dtype(double value, DType dtype);
// An integer converted to a floating dtype as PyTorch converts it: rounded once to f32 (exactly,
// not through double, which could round twice past 2^53), then to f16 or bf16.
double integer_to_float_dtype(std::int64_t value, DType dtype);
// A double the user gives (from_data, full) in a floating dtype as PyTorch stores it: through
// f32, so a value near an f16 or bf16 tie can round twice (1 + 2^-11 + 2^-40 is 1 in f16).
double double_to_float_dtype(double value, DType dtype);

// A number as a tensor of `dtype` holds it, the one conversion every backend uses for a Scalar
// node (a kernel argument, the reference's value, a held 0-d result): a floating number into an
// integer dtype truncates and saturates, into bool is non-zero; an integer wraps, or rounds as
// integer_to_float_dtype; a float rounds as double_to_float_dtype.
double scalar_as_float(const Scalar& value, DType dtype);      // `dtype` floating
std::int64_t scalar_as_int(const Scalar& value, DType dtype);  // `dtype` integer or bool

// A double rounded to f32, overflowing to infinity (a plain cast is undefined out of range).
float to_f32(double value);

// Element `index` of a buffer of `dtype`, widened.
double load_as_double(const void* data, DType dtype, std::int64_t index);
std::int64_t load_as_int(const void* data, DType dtype, std::int64_t index);
// Writes element `index`, converting (and rounding) to the dtype.
void store_double(void* data, DType dtype, std::int64_t index, double value);
void store_int(void* data, DType dtype, std::int64_t index, std::int64_t value);

std::uint16_t double_to_f16_bits(double value);
std::uint16_t double_to_bf16_bits(double value);
double f16_bits_to_double(std::uint16_t bits);
double bf16_bits_to_double(std::uint16_t bits);

}  // namespace lazy::ir
