// Writes generated programs for a check against another library (tools/fuzz/torch_check.py runs
// them in PyTorch): the fuzzer's own check compares the GPU with our reference evaluator, so an
// op whose meaning both get wrong passes it. This check compares the meaning with PyTorch's.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "tools/fuzz/session.h"

namespace lazy::fuzz {

struct ExportSummary {
  std::int64_t programs = 0;  // written, their values computed
  std::int64_t failed = 0;    // written with the error their sync threw, no values
};

// Programs (seed, start) to (seed, start + count - 1), each recorded with every step held and
// synced on the current device. `dir`/programs.jsonl gets one JSON object a program: its steps
// (op, arguments, attributes), each step's result dtype, shape and bounds (bounds.h) and where
// its values lie in `dir`/values.bin (f64 for floating dtypes, i64 for the others). With
// options.gradients each step also gets "grad": its gradient alone for a random cotangent
// (step_gradients.h), whose values go to values.bin as well.
ExportSummary export_programs(const SessionOptions& options, const std::string& dir,
                              std::ostream& log);

}  // namespace lazy::fuzz
