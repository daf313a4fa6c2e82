// The public API functions the fuzzer records, looked up by the names its steps carry.
#pragma once

#include <source_location>
#include <string_view>

#include <lazy/lazy.h>

namespace lazy::fuzz {

using UnaryFn = Tensor (*)(const Tensor&, std::source_location);
using BinaryFn = Tensor (*)(const lazy::Operand&, const lazy::Operand&, std::source_location);
using ReduceFn = Tensor (*)(const Tensor&, const Axes&, bool, std::source_location);

// Throw std::logic_error for a name no table holds (a fuzzer bug).
UnaryFn unary_fn(std::string_view name);
BinaryFn binary_fn(std::string_view name);
ReduceFn reduce_fn(std::string_view name);

// Binary ops whose result is floating whatever their operands (integers and bools give f32).
bool has_floating_result(std::string_view name);

}  // namespace lazy::fuzz
