// Runs programs fused on the GPU, unfused, replayed, and on the reference evaluator, and
// compares every held value with the reference within the bounds the fuzzer derived.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// replayed: fused, synced again until the plan replays as a CUDA graph (runtime/eager_graphs.h).
// run_time_sizes: fused, every row kernel and skinny product taking its sizes at run time
// (runtime/size_variants.h), planned twice: the second finds the kernel texts cached.
// compiled: the batch as the body of a lazy::Function of its data leaves, called on them (the
// capture) and then on copies in new memory: the replay's values are compared.
// threaded: fused, the batch recorded and synced on kFuzzThreads threads at once, each on its own
// copy of the programs and twice (the second sync a plan hit); every thread's values compared.
enum class Mode { reference, fused, unfused, replayed, run_time_sizes, compiled, threaded };
inline constexpr int kFuzzThreads = 4;
const char* mode_name(Mode mode);

struct Failure {
  enum class Kind { mismatch, error, out_of_bounds };
  Kind kind;
  Mode mode;
  int program = 0;  // index into the batch
  int step = -1;
  std::string detail;
};
const char* kind_name(Failure::Kind kind);

struct RunReport {
  // Why the programs no longer record (a shrinking step made them invalid); nothing was compared.
  std::optional<std::string> invalid;
  std::vector<Failure> failures;
  std::int64_t outputs = 0;    // held values, per mode
  std::int64_t compared = 0;   // elements compared with the reference, over all modes
  std::int64_t unchecked = 0;  // elements only checked for NaN (values not predictable)
};

// Records the programs together, syncs once per mode, compares. Throws nothing a program does:
// an error a sync throws is a Failure of kind error. On a host without a GPU every mode runs the
// reference evaluator after planning as it would for the GPU (partition, codegen, NVRTC).
RunReport run_programs(std::vector<Program>& programs);

}  // namespace lazy::fuzz
