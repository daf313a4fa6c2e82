// CUDA C++ for single values: the C++ type a dtype computes in, conversions between dtypes, and
// the expression of each pointwise op. One op, one expression: generated kernels are a list of
// these, one statement each.
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

// The expression of a pointwise op (not a generator) over operand expressions, each already
// converted to what the op reads (see operand_dtype).
// With fast_math, tanh and sigmoid use the hardware tanh.
std::string op_expression(const ir::Node& node, std::span<const std::string> operands,
                          bool fast_math = false);

// Ops computed on the special-function unit (or as long instruction sequences): worth computing
// once per element rather than again.
bool is_transcendental(ir::Op op);

// The dtype an op reads operand `i` as: numbers keep their own, tensors take the op's common
// dtype; logical ops, classification, casts and where's condition read operands as they are.
DType operand_dtype(const ir::Node& node, int i);

// A generator's value at linear index `index` (an expression), from its operand expressions
// (start and step, or the seed).
std::string generator_expression(const ir::Node& node, std::span<const std::string> operands,
                                 const std::string& index);

}  // namespace lazy::codegen
