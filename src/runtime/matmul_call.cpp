#include "runtime/matmul_call.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ir/debug.h"
#include "ir/hash.h"
#include "ir/settings.h"
#include "lazy/error.h"
#include "runtime/autotune.h"
#include "runtime/cublaslt.h"
#include "runtime/cublaslt_context.h"
#include "runtime/matmul_algorithm_store.h"

namespace lazy::runtime {
namespace {

// How many of the heuristic's candidates LAZY_AUTOTUNE times: past the first few, cuBLASLt's
// ranking is rarely wrong by much, and each candidate costs a few runs once per product.
constexpr int kAutotuneCandidates = 8;
// LAZY_AUTOTUNE also times these many first candidates with K split in kSplitKCounts: the
// heuristic rarely offers split-K for a skinny product, and a decode step's [16, 4096] x
// [4096, 4096]^T without it runs on a few dozen of H100's 132 SMs.
constexpr std::size_t kSplitKBases = 4;
constexpr std::uint32_t kSplitKCounts[] = {2, 4, 8, 16};

// Owns one cuBLASLt descriptor, destroyed through the library's table.
template <class Handle>
class Descriptor {
 public:
  using Destroy = cublasStatus_t (*)(Handle);
  Descriptor() = default;
  Descriptor(Handle handle, Destroy destroy) : handle_(handle), destroy_(destroy) {}
  Descriptor(Descriptor&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), destroy_(other.destroy_) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(destroy_, other.destroy_);
    return *this;
  }
  ~Descriptor() {
    if (handle_ != nullptr) destroy_(handle_);  // host memory only: safe at any time
  }
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
  Destroy destroy_ = nullptr;
};

// The alignment an operand's first element keeps: its storage's, lowered by its offset.
std::uint32_t operand_alignment(std::uint32_t base, std::int64_t offset_bytes) {
  std::uint64_t alignment = std::bit_floor(std::max<std::uint32_t>(base, 1));
  alignment = std::min<std::uint64_t>(alignment, kPoolAlignment);
  if (offset_bytes != 0) {
    alignment = std::min<std::uint64_t>(alignment, std::uint64_t(offset_bytes & -offset_bytes));
  }
  return std::uint32_t(alignment);
}

std::string operand_text(std::string_view name, const ir::MatrixOperand& x, std::int64_t batch) {
  std::string text = std::string(name) + "=" + std::to_string(x.rows) + "x" +
                     std::to_string(x.cols) + " ld=" + std::to_string(x.ld) +
                     (x.transposed ? " T" : " N");
  if (batch > 1) text += " stride=" + std::to_string(x.batch_stride);
  return text;
}

std::string describe_spec(const MatmulSpec& spec) {
  const ir::MatmulProblem& p = spec.problem;
  std::string text =
      "cuBLASLt " + std::string(dtype_name(spec.dtype)) +
      (spec.tf32 && spec.dtype == DType::f32 ? " (tf32)" : "") + " m=" + std::to_string(p.m) +
      " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
      (p.k == 0 ? " (reads zeros)" : "") + " batch=" + std::to_string(p.batch) +
      " epilogue=" + std::string(epilogue_name(epilogue_of(spec.activation, spec.bias))) + " " +
      operand_text("A", p.a, p.batch) + " " + operand_text("B", p.b, p.batch);
  if (p.c) text += " " + operand_text("C", *p.c, p.batch);
  text += " D ld=" + std::to_string(p.d.ld);
  return text;
}

// A product over k == 0 is activation(bias + residual): the same call with k = 1 over a column
// and a row of zeros gives it, epilogue included, where cuBLASLt would reject k = 0.
ir::MatmulProblem over_zeros(ir::MatmulProblem problem) {
  problem.k = 1;
  problem.a = {problem.m, 1, std::max<std::int64_t>(problem.m, 1), false, 0, 0};
  problem.b = {1, problem.n, 1, false, 0, 0};
  return problem;
}

[[noreturn]] void internal_error(const std::string& what) {
  throw RuntimeError("lazyfuse internal error: " + what + "; please report it",
                     std::source_location::current());
}

}  // namespace

// Device addresses of the call's operands for one run, in cuBLASLt's names.
struct OperandPointers {
  CUdeviceptr a, b, c, d, bias, aux;
};

struct MatmulCall::State {
  MatmulSpec spec;
  ir::MatmulProblem call;  // spec.problem, with k == 0 made a product of zeros
  std::string description;
  Device* device = nullptr;
  const CublasLt* library = nullptr;
  CublasLtContext* context = nullptr;
  std::size_t element_bytes = 0;
  // Base alignments the preference promised cuBLASLt, in cuBLASLt's names.
  std::uint32_t align_a = 0, align_b = 0, align_c = 0, align_d = 0, align_bias = 0, align_aux = 0;
  Descriptor<cublasLtMatmulDesc_t> matmul;
  Descriptor<cublasLtMatrixLayout_t> layout_a, layout_b, layout_c, layout_d;
  cublasLtMatmulAlgo_t algo{};
  MatmulAlgorithmSource source = MatmulAlgorithmSource::none;
  // LAZY_AUTOTUNE: the heuristic's candidates, timed by the first run.
  std::vector<cublasLtMatmulAlgo_t> candidates;
  ir::Hash128 key;
  std::string identity;  // what the key is hashed from
  AlgorithmScope scope{};
  std::shared_ptr<DeviceBuffer> zeros;  // k == 0: the operands read instead of a and b
  CUdeviceptr bias_pointer = 0;         // the one the descriptor holds
  CUdeviceptr aux_pointer = 0;          // likewise
  // Plans are shared by threads: two replays of one plan must not set the descriptor's bias
  // pointer (or tune) at once.
  std::mutex running;

  template <class T>
  void set(cublasLtMatmulDescAttributes_t attribute, const T& value, const char* name) {
    check_cublaslt(
        library->cublasLtMatmulDescSetAttribute(matmul.get(), attribute, &value, sizeof value),
        std::string("cublasLtMatmulDescSetAttribute(") + name + ")", description);
  }
  Descriptor<cublasLtMatrixLayout_t> make_layout(const ir::MatrixOperand& x) const;
  void make_descriptors();
  std::vector<cublasLtMatmulAlgo_t> ask_heuristic(int count) const;
  bool accepts(const cublasLtMatmulAlgo_t& candidate) const;
  void add_split_k_variants();
  void choose_algorithm();
  OperandPointers operand_pointers(const MatmulPointers& pointers) const;
  cublasStatus_t queue(const cublasLtMatmulAlgo_t& with, const OperandPointers& at) const;
  void autotune(const OperandPointers& at);
  [[noreturn]] void throw_no_algorithm() const;
};

Descriptor<cublasLtMatrixLayout_t> MatmulCall::State::make_layout(
    const ir::MatrixOperand& x) const {
  cublasLtMatrixLayout_t handle = nullptr;
  check_cublaslt(
      library->cublasLtMatrixLayoutCreate(&handle, data_type(spec.dtype), std::uint64_t(x.rows),
                                          std::uint64_t(x.cols), x.ld),
      "cublasLtMatrixLayoutCreate", description);
  Descriptor<cublasLtMatrixLayout_t> layout(handle, library->cublasLtMatrixLayoutDestroy);
  if (call.batch > 1) {
    const std::int32_t count = std::int32_t(call.batch);
    const std::int64_t stride = x.batch_stride;
    check_cublaslt(library->cublasLtMatrixLayoutSetAttribute(
                       handle, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                   "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)", description);
    check_cublaslt(library->cublasLtMatrixLayoutSetAttribute(
                       handle, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                   "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)", description);
  }
  return layout;
}

void MatmulCall::State::make_descriptors() {
  const bool tf32 = spec.tf32 && spec.dtype == DType::f32;
  cublasLtMatmulDesc_t handle = nullptr;
  check_cublaslt(library->cublasLtMatmulDescCreate(
                     &handle, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F),
                 "cublasLtMatmulDescCreate", description);
  matmul = Descriptor<cublasLtMatmulDesc_t>(handle, library->cublasLtMatmulDescDestroy);
  const std::int32_t transa = call.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const std::int32_t transb = call.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  set(CUBLASLT_MATMUL_DESC_TRANSA, transa, "TRANSA");
  set(CUBLASLT_MATMUL_DESC_TRANSB, transb, "TRANSB");
  const std::uint32_t epilogue = epilogue_of(spec.activation, spec.bias);
  set(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue, "EPILOGUE");
  if (spec.activation == ir::MatmulActivation::gelu_tanh_grad) {
    // The aux operand is laid out as D; the first run sets its pointer (as the bias's).
    const std::int64_t aux_ld = call.d.ld;
    set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, aux_ld, "EPILOGUE_AUX_LD");
    if (call.batch > 1) {
      const std::int64_t aux_stride = call.d.batch_stride;
      set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, aux_stride, "EPILOGUE_AUX_BATCH_STRIDE");
    }
    const void* placeholder = reinterpret_cast<const void*>(std::uintptr_t(align_aux));
    set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, placeholder, "EPILOGUE_AUX_POINTER");
  }
  if (spec.bias) {
    const std::int32_t bias_type = data_type(spec.dtype);
    set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type, "BIAS_DATA_TYPE");
    // The heuristic reads the bias pointer's alignment, not its data: an address aligned exactly
    // as promised stands in until the first run sets the real one.
    const void* placeholder = reinterpret_cast<const void*>(std::uintptr_t(align_bias));
    set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, placeholder, "BIAS_POINTER");
  }
  layout_a = make_layout(call.a);
  layout_b = make_layout(call.b);
  layout_d = make_layout(call.d);
  if (call.c) layout_c = make_layout(*call.c);
}

std::vector<cublasLtMatmulAlgo_t> MatmulCall::State::ask_heuristic(int count) const {
  cublasLtMatmulPreference_t handle = nullptr;
  check_cublaslt(library->cublasLtMatmulPreferenceCreate(&handle), "cublasLtMatmulPreferenceCreate",
                 description);
  Descriptor<cublasLtMatmulPreference_t> preference(handle,
                                                    library->cublasLtMatmulPreferenceDestroy);
  auto prefer = [&](cublasLtMatmulPreferenceAttributes_t attribute, const auto& value,
                    const char* name) {
    check_cublaslt(
        library->cublasLtMatmulPreferenceSetAttribute(handle, attribute, &value, sizeof value),
        std::string("cublasLtMatmulPreferenceSetAttribute(") + name + ")", description);
  };
  prefer(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t(kCublasLtWorkspaceBytes),
         "MAX_WORKSPACE_BYTES");
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a, "MIN_ALIGNMENT_A_BYTES");
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b, "MIN_ALIGNMENT_B_BYTES");
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c, "MIN_ALIGNMENT_C_BYTES");
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d, "MIN_ALIGNMENT_D_BYTES");
  // Split-K partial sums in f32 only: summed in the output's f16 or bf16 they would round many
  // times, where the result must round once. INPLACE sums in the output's type (cublasLt.h), so
  // it is allowed for an f32 output alone.
  const std::uint32_t reductions =
      CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE |
      (spec.dtype == DType::f32 ? CUBLASLT_REDUCTION_SCHEME_INPLACE : 0u);
  prefer(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, reductions, "REDUCTION_SCHEME_MASK");

  std::vector<cublasLtMatmulHeuristicResult_t> results(count);
  int returned = 0;
  device->make_current();
  const cublasStatus_t status = library->cublasLtMatmulAlgoGetHeuristic(
      context->handle, matmul.get(), layout_a.get(), layout_b.get(),
      (call.c ? layout_c : layout_d).get(), layout_d.get(), handle, count, results.data(),
      &returned);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) throw_no_algorithm();
  check_cublaslt(status, "cublasLtMatmulAlgoGetHeuristic", description);
  std::vector<cublasLtMatmulAlgo_t> algos;
  for (int i = 0; i < returned; ++i) {
    if (results[i].state == CUBLAS_STATUS_SUCCESS &&
        results[i].workspaceSize <= kCublasLtWorkspaceBytes) {
      algos.push_back(results[i].algo);
    }
  }
  if (algos.empty()) throw_no_algorithm();
  return algos;
}

void MatmulCall::State::throw_no_algorithm() const {
  throw RuntimeError(
      "lazyfuse: cuBLASLt has no algorithm for " + description + " on " + device->description() +
          ". Its kernels want leading dimensions and offsets that are multiples of 16 bytes "
          "(8 elements of f16 or bf16, 4 of f32): a .contiguous() copy of a sliced operand, or "
          "sizes padded to a multiple of 8, usually gives it one. If the operands are already "
          "contiguous, please report this message.",
      std::source_location::current());
}

bool MatmulCall::State::accepts(const cublasLtMatmulAlgo_t& candidate) const {
  // An algorithm kept on disk may sum split-K partials in an f16 or bf16 output (an older
  // library allowed it): not used, as the preference rules it out of the heuristic's answers.
  std::uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_NONE;
  std::size_t written = 0;
  if (spec.dtype != DType::f32 &&
      library->cublasLtMatmulAlgoConfigGetAttribute(
          &candidate, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme, &written) ==
          CUBLAS_STATUS_SUCCESS &&
      (scheme & (CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE)) != 0) {
    return false;
  }
  cublasLtMatmulHeuristicResult_t result{};
  device->make_current();
  const cublasStatus_t status = library->cublasLtMatmulAlgoCheck(
      context->handle, matmul.get(), layout_a.get(), layout_b.get(),
      (call.c ? layout_c : layout_d).get(), layout_d.get(), &candidate, &result);
  return status == CUBLAS_STATUS_SUCCESS && result.workspaceSize <= kCublasLtWorkspaceBytes;
}

void MatmulCall::State::add_split_k_variants() {
  const std::size_t bases = std::min(candidates.size(), kSplitKBases);
  for (std::size_t i = 0; i < bases; ++i) {
    std::uint32_t splits = 1;
    std::size_t written = 0;
    if (library->cublasLtMatmulAlgoConfigGetAttribute(
            &candidates[i], CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits, &written) !=
            CUBLAS_STATUS_SUCCESS ||
        splits != 1) {
      continue;
    }
    for (const std::uint32_t count : kSplitKCounts) {
      cublasLtMatmulAlgo_t variant = candidates[i];
      // Partial sums in f32, as the preference asks of the heuristic's own split-K.
      const std::uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      if (library->cublasLtMatmulAlgoConfigSetAttribute(&variant, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                        &count,
                                                        sizeof count) == CUBLAS_STATUS_SUCCESS &&
          library->cublasLtMatmulAlgoConfigSetAttribute(
              &variant, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme) ==
              CUBLAS_STATUS_SUCCESS &&
          accepts(variant)) {
        candidates.push_back(variant);
      }
    }
  }
}

void MatmulCall::State::choose_algorithm() {
  if (!ir::on_off_setting(ir::Setting::autotune)) {
    algo = ask_heuristic(1).front();
    source = MatmulAlgorithmSource::heuristic;
    return;
  }
  scope = {library->version, device->sm_arch()};
  // Everything the fastest algorithm depends on; the description has the sizes, strides and
  // epilogue, the alignments rule algorithms in or out.
  identity = description + " alignments A=" + std::to_string(align_a) +
             " B=" + std::to_string(align_b) + " C=" + std::to_string(align_c) +
             " D=" + std::to_string(align_d) + " bias=" + std::to_string(align_bias) + " on sm_" +
             std::to_string(scope.arch) + " with " +
             std::to_string(device->multiprocessor_count()) + " SMs, cuBLASLt " +
             std::to_string(scope.cublaslt_version);
  key = ir::hash_bytes(identity.data(), identity.size());
  if (std::optional<StoredAlgorithm> stored = find_matmul_algorithm(key, identity, scope)) {
    if (accepts(stored->algo)) {
      algo = stored->algo;
      source =
          stored->from_disk ? MatmulAlgorithmSource::from_disk : MatmulAlgorithmSource::autotuned;
      return;
    }
    forget_matmul_algorithm(key, scope);
  }
  candidates = ask_heuristic(kAutotuneCandidates);
  add_split_k_variants();
  algo = candidates.front();
  source = MatmulAlgorithmSource::heuristic;
}

OperandPointers MatmulCall::State::operand_pointers(const MatmulPointers& pointers) const {
  const auto at = [&](CUdeviceptr base, std::int64_t offset) {
    return base + CUdeviceptr(offset) * element_bytes;
  };
  OperandPointers operands{};
  if (zeros != nullptr) {
    operands.a = operands.b = zeros->ptr();
  } else {
    operands.a = at(pointers.b, call.a.offset);
    operands.b = at(pointers.a, call.b.offset);
  }
  operands.d = at(pointers.result, call.d.offset);
  operands.c = call.c ? at(pointers.residual, call.c->offset) : operands.d;
  operands.bias = spec.bias ? at(pointers.bias, spec.bias_offset) : 0;
  const bool aux = spec.activation == ir::MatmulActivation::gelu_tanh_grad;
  operands.aux = aux ? at(pointers.aux, call.d.offset) : 0;
  // A wrong pointer here would be a fault inside cuBLASLt, far from its cause.
  const auto require = [&](const char* name, CUdeviceptr base, CUdeviceptr address,
                           std::uint32_t alignment) {
    if (base == 0 || address % alignment != 0) {
      internal_error(std::string("the ") + name + " pointer of " + description +
                     " is null or not aligned to the " + std::to_string(alignment) +
                     " bytes its plan promised");
    }
  };
  if (zeros == nullptr) {
    require("a", pointers.a, operands.b, align_b);
    require("b", pointers.b, operands.a, align_a);
  }
  require("result", pointers.result, operands.d, align_d);
  if (call.c) require("residual", pointers.residual, operands.c, align_c);
  if (spec.bias) require("bias", pointers.bias, operands.bias, align_bias);
  if (aux) require("aux", pointers.aux, operands.aux, align_aux);
  return operands;
}

cublasStatus_t MatmulCall::State::queue(const cublasLtMatmulAlgo_t& with,
                                        const OperandPointers& at) const {
  const float alpha = 1.0f;
  const float beta = call.c ? 1.0f : 0.0f;
  const auto address = [](CUdeviceptr pointer) { return reinterpret_cast<void*>(pointer); };
  device->make_current();
  return library->cublasLtMatmul(context->handle, matmul.get(), &alpha, address(at.a),
                                 layout_a.get(), address(at.b), layout_b.get(), &beta,
                                 address(at.c), (call.c ? layout_c : layout_d).get(), address(at.d),
                                 layout_d.get(), &with, address(cublaslt_workspace(*device)),
                                 kCublasLtWorkspaceBytes, device->stream());
}

// Times every candidate on the run's own buffers: the result is only written, so running it
// again and again leaves the inputs as they were.
void MatmulCall::State::autotune(const OperandPointers& at) {
  const CandidateTimes times = time_candidates(*device, candidates.size(), [&](std::size_t i) {
    return queue(candidates[i], at) == CUBLAS_STATUS_SUCCESS;
  });
  if (ir::debug_level() >= 1) {
    std::string list;
    for (float ms : times.milliseconds) list += " " + std::to_string(ms);
    ir::debug_print("lazyfuse: autotuned " + description + ": candidates' ms" + list +
                    "; kept candidate " + std::to_string(times.fastest.value_or(0)) +
                    " (0 is the heuristic's choice)");
  }
  // With every candidate failing, the heuristic's choice stays and its run reports the error.
  if (times.fastest) {
    algo = candidates[*times.fastest];
    source = MatmulAlgorithmSource::autotuned;
    store_matmul_algorithm(key, identity, algo, scope);
  }
  candidates.clear();
}

std::string_view matmul_algorithm_source_name(MatmulAlgorithmSource source) {
  switch (source) {
    case MatmulAlgorithmSource::none:
      return "none";
    case MatmulAlgorithmSource::heuristic:
      return "heuristic";
    case MatmulAlgorithmSource::autotuned:
      return "autotuned";
    case MatmulAlgorithmSource::from_disk:
      return "from disk";
  }
  return "?";
}

MatmulCall::MatmulCall(Device& device, const MatmulSpec& spec) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.spec = spec;
  s.call = spec.problem;
  s.device = &device;
  s.description = describe_spec(spec);
  if (!is_floating(spec.dtype)) {
    internal_error("a " + std::string(dtype_name(spec.dtype)) + " matrix product reached cuBLASLt");
  }
  const ir::MatmulProblem& p = spec.problem;
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;  // nothing to compute, nothing to load
  if (p.batch > std::numeric_limits<std::int32_t>::max()) {
    throw RuntimeError("lazyfuse: " + s.description +
                           ": cuBLASLt runs at most 2^31 - 1 products in a batch; reshape the "
                           "batch axes into fewer, larger products",
                       std::source_location::current());
  }
  s.library = &cublaslt();
  s.context = &cublaslt_context(device);
  s.element_bytes = std::size_t(itemsize(spec.dtype));
  if (p.k == 0) {
    s.call = over_zeros(p);
    const std::size_t bytes = std::size_t(std::max(p.m, p.n)) * s.element_bytes;
    s.zeros = device.allocate(bytes);
    device.fill_bytes(s.zeros->ptr(), 0, bytes);
  }
  const auto bytes = [&](std::int64_t elements) {
    return elements * std::int64_t(s.element_bytes);
  };
  const MatmulAlignments& aligned = spec.alignments;
  s.align_a = s.zeros ? kPoolAlignment : operand_alignment(aligned.b, bytes(s.call.a.offset));
  s.align_b = s.zeros ? kPoolAlignment : operand_alignment(aligned.a, bytes(s.call.b.offset));
  s.align_d = operand_alignment(aligned.result, bytes(s.call.d.offset));
  s.align_c = s.call.c ? operand_alignment(aligned.residual, bytes(s.call.c->offset)) : s.align_d;
  s.align_bias = operand_alignment(aligned.bias, bytes(spec.bias_offset));
  s.align_aux = operand_alignment(aligned.aux, bytes(s.call.d.offset));
  s.make_descriptors();
  s.choose_algorithm();
}

MatmulCall::~MatmulCall() = default;

void MatmulCall::run(Device& device, const MatmulPointers& pointers) {
  State& s = *state_;
  if (s.source == MatmulAlgorithmSource::none) return;
  if (&device != s.device) {
    internal_error(s.description + " was built for " + s.device->description() + " and run on " +
                   device.description());
  }
  // The zeros were written on the stream that built the call: another thread's replay waits for
  // that, and holds them until its stream synchronizes.
  if (s.zeros != nullptr) device.read_on_this_stream(s.zeros);
  const OperandPointers at = s.operand_pointers(pointers);
  std::lock_guard lock(s.running);
  if (s.spec.bias && at.bias != s.bias_pointer) {
    const void* bias = reinterpret_cast<const void*>(at.bias);
    s.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias, "BIAS_POINTER");
    s.bias_pointer = at.bias;
  }
  if (at.aux != 0 && at.aux != s.aux_pointer) {
    const void* aux = reinterpret_cast<const void*>(at.aux);
    s.set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux, "EPILOGUE_AUX_POINTER");
    s.aux_pointer = at.aux;
  }
  if (!s.candidates.empty()) s.autotune(at);
  check_cublaslt(s.queue(s.algo, at), "cublasLtMatmul", s.description);
}

MatmulAlgorithmSource MatmulCall::algorithm_source() const {
  return state_->source;
}

const std::string& MatmulCall::describe() const {
  return state_->description;
}

const MatmulSpec& MatmulCall::spec() const {
  return state_->spec;
}

}  // namespace lazy::runtime
