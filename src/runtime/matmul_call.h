// One MatMul node as a cuBLASLt call: descriptors, layouts and the algorithm chosen once when a
// plan is built, then a run per replay that only queues cublasLtMatmul on the device's stream.
//
// The algorithm is cuBLASLt heuristic's first choice; with LAZY_AUTOTUNE=1 the first run times
// the heuristic's top candidates on the run's own buffers and keeps the fastest, for this
// process and on disk (runtime/matmul_algorithm_store.h), so later runs time nothing. This
// header needs no CUDA headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ir/matmul.h"
#include "ir/matmul_problem.h"
#include "lazy/dtype.h"
#include "runtime/device.h"

namespace lazy::runtime {

// What allocations from a device's pool are aligned to (the driver's cuMemAlloc guarantee),
// which is also the most cuBLASLt asks for.
inline constexpr std::uint32_t kPoolAlignment = 256;

// The byte alignment of each storage base pointer a call will be given (a power of two); the call
// combines it with the operand's offset. Named after the node's operands.
struct MatmulAlignments {
  std::uint32_t a = kPoolAlignment;
  std::uint32_t b = kPoolAlignment;
  std::uint32_t bias = kPoolAlignment;
  std::uint32_t residual = kPoolAlignment;
  std::uint32_t aux = kPoolAlignment;
  std::uint32_t result = kPoolAlignment;
};

// What one call computes: activation(a @ b + bias + residual) in `dtype` (f32, f16 or bf16), or
// for gelu_tanh_grad (a @ b) * gelu_tanh'(aux), aux laid out as the result (cuBLASLt's DGELU),
// accumulated in f32 (TF32 tensor cores for f32 when tf32), over the layouts of `problem`
// (ir::map_matmul). A residual is there when problem.c is.
struct MatmulSpec {
  DType dtype = DType::f32;
  bool tf32 = false;
  ir::MatmulProblem problem;
  ir::MatmulActivation activation = ir::MatmulActivation::none;
  bool bias = false;
  std::int64_t bias_offset = 0;  // elements from the bias storage's base to its first element
  MatmulAlignments alignments;
};

// The storages' base pointers for one run, named after the node's operands: a [..., M, K],
// b [..., K, N], bias [N], residual, aux and result [..., M, N]. Unused ones may be 0. The result
// must not overlap an input: autotuning runs the call several times.
struct MatmulPointers {
  CUdeviceptr a = 0;
  CUdeviceptr b = 0;
  CUdeviceptr bias = 0;
  CUdeviceptr residual = 0;
  CUdeviceptr aux = 0;
  CUdeviceptr result = 0;
};

// Where a call's algorithm came from.
enum class MatmulAlgorithmSource : std::uint8_t {
  none,       // the problem is empty (batch, m or n is 0): nothing is queued
  heuristic,  // cuBLASLt's heuristic's first choice
  autotuned,  // the fastest of the heuristic's candidates, timed in this process
  from_disk,  // timed by an earlier run, read from the algorithm store
};
std::string_view matmul_algorithm_source_name(MatmulAlgorithmSource source);

class MatmulCall {
 public:
  // Builds the descriptors and chooses the algorithm on `device` (loading cuBLASLt and making the
  // device's handle and workspace on first use; an empty problem needs neither). Throws
  // lazy::RuntimeError when cuBLASLt cannot be loaded, rejects the problem or has no algorithm
  // for it, each naming the problem.
  MatmulCall(Device& device, const MatmulSpec& spec);
  ~MatmulCall();
  MatmulCall(const MatmulCall&) = delete;
  MatmulCall& operator=(const MatmulCall&) = delete;

  // Queues the product on device.stream(); no host synchronisation, except that the first run
  // of an autotuned call waits for its timings. `device` must be the one the call was built on.
  // One call runs on one thread at a time (a plan's calls are the plan's); calls of different
  // plans may run concurrently.
  void run(Device& device, const MatmulPointers& pointers);

  // `autotuned` only once the first run has timed the candidates.
  MatmulAlgorithmSource algorithm_source() const;
  // For LAZY_DEBUG: "cuBLASLt f16 m=4096 n=8192 k=1024 batch=1 epilogue=GELU_BIAS
  // A=4096x1024 ld=4096 N B=1024x8192 ld=1024 N D ld=4096".
  const std::string& describe() const;
  const MatmulSpec& spec() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lazy::runtime
