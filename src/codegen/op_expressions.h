// CUDA C++ for single values: the C++ type a dtype computes in, conversions between dtypes, and
// the call that computes an op (its row's device function, nvrtc_templates/lz_pointwise.cuh).
// Generated kernels are a list of these, one statement each.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ir/node.h"

namespace lazy::codegen {

// The type values of `dtype` are computed in: float for every floating dtype.
std::string_view value_type(DType dtype);
// The type elements of `dtype` are stored as in memory.
std::string_view storage_type(DType dtype);

// A stored element (expression of storage_type) as a value, and back.
std::string load_conversion(DType dtype, const std::string& raw);
std::string store_conversion(DType dtype, const std::string& value);

// A value of dtype `from` converted to dtype `to` the way an op reads an operand: integers to
// floats round once; a narrower floating `to` rounds to its precision.
std::string convert(DType from, DType to, const std::string& value);

// A value of dtype `dtype` as memory would hold it: an f16 or bf16 value, which kernels keep
// unrounded in f32, rounded to its dtype; others unchanged.
std::string as_stored(DType dtype, const std::string& value);

// Operand i of `node`, a value of dtype `from` (kept unrounded in f32 when f16 or bf16), as the
// op reads it. An op whose result jumps (a comparison, a truth test, a cast to an integer or
// bool, floor, ceil, round, trunc, sign, floor_divide, remainder, fmod) reads an f16 or bf16
// operand rounded, as stored:
// unrounded, `x == max(x)` found no element equal to the stored maximum.
std::string operand_as_read(const ir::Node& node, int i, DType from, const std::string& value);

// The call of a pointwise or generator op's device function over operand expressions, each
// already converted to what the op reads (ir::operand_dtype); a generator's last operand is the
// element's linear index. With fast_math, ops that have a _fast variant use it.
std::string op_expression(const ir::Node& node, std::span<const std::string> operands,
                          bool fast_math = false);

}  // namespace lazy::codegen
