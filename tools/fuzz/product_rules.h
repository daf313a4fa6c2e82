// What a matrix product does to what the fuzzer knows about values (tools/fuzz/bounds.h): the
// range of a sum of k products, and how far an f32 accumulation in any order (cuBLASLt's tiles
// and split-K, the reference evaluator's double) may stray from the exact sum.
#pragma once

#include <cstdint>

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

// a @ b with inner size k; operands and result of one dtype (f32, f16 or bf16), accumulated in
// f32 (on TF32 tensor cores for f32 when `tf32`) and rounded once to the result's dtype.
Bounds product_rule(const Operand& a, const Operand& b, DType result, std::int64_t k, bool tf32);

}  // namespace lazy::fuzz
