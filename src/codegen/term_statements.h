// The statements both kernel emitters write for a term: `const T v<t> = ...;` for a scalar
// argument, and for a pointwise op or generator over its operands' values, commented with the
// op and the user's file:line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "fuse/partition.h"

namespace lazy::codegen {

std::string lower(std::string_view name);

// The dtype of a term's value: an external input's for a load of one, else its node's.
DType term_dtype(const fuse::Term& term, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals);

// "exp (model.cpp:42)": the op and where the user recorded it, for comments in generated code.
std::string op_and_place(const ir::Node& node);

// Scalar term t, from kernel argument a.s<t> (floats travel as f32 bits).
std::string scalar_statement(std::size_t t, DType dtype);
// The kernel argument scalar_statement reads for a Scalar node: its value in the node's dtype
// (ir::scalar_as_float / scalar_as_int, as the reference holds it), floats as f32 bits.
std::uint64_t scalar_argument(const ir::Node& scalar);

// Op or generator term t of `node`; operand_dtypes[i] is the dtype of v<operand i>, `index` the
// generator's linear index expression (unused for ops).
std::string computed_statement(const fuse::Term& term, std::size_t t, const ir::Node& node,
                               std::span<const DType> operand_dtypes, const std::string& index,
                               bool fast_math);

}  // namespace lazy::codegen
