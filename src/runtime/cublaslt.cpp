#include "runtime/cublaslt.h"

#include <dlfcn.h>

#include <optional>

#include "ir/settings.h"
#include "jit/toolkit_library.h"
#include "lazy/error.h"

namespace lazy::runtime {
namespace {

// The major version of the headers: a library of another major has another ABI.
constexpr int kCublasMajor = CUBLAS_VER_MAJOR;

struct CublasLtState {
  std::optional<CublasLt> library;
  std::string why;
};

std::string library_file() {
  return "libcublasLt.so." + std::to_string(kCublasMajor);
}

std::string version_text(std::size_t version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

// Resolves every function and checks the major version, or says why the library will not do.
std::optional<CublasLt> resolve(void* handle, const std::string& path, std::string* why) {
  CublasLt library;
  std::string missing;
#define LAZY_CUBLASLT_RESOLVE(name)                                              \
  library.name = reinterpret_cast<decltype(library.name)>(dlsym(handle, #name)); \
  if (library.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  LAZY_CUBLASLT_FUNCTIONS(LAZY_CUBLASLT_RESOLVE)
#undef LAZY_CUBLASLT_RESOLVE
  if (!missing.empty()) {
    *why = path + " lacks " + missing;
    return std::nullopt;
  }
  library.version = library.cublasLtGetVersion();
  library.path = path;
  if (int(library.version / 10000) != kCublasMajor) {
    *why = path + " is cuBLASLt " + version_text(library.version) + ", but lazyfuse was built " +
           "with the headers of cuBLASLt " + std::to_string(kCublasMajor);
    return std::nullopt;
  }
  return library;
}

CublasLtState load_cublaslt() {
  CublasLtState state;
  std::string tried;
  const std::vector<std::string> candidates =
      cublaslt_library_candidates(ir::foreign_variable(ir::ForeignVariable::cuda_home),
                                  ir::foreign_variable(ir::ForeignVariable::cuda_path));
  auto accept = [&](void* handle, const std::string& path) {
    std::string why;
    state.library = resolve(handle, path, &why);
    return why;
  };
  if (jit::open_toolkit_library(candidates, accept, &tried)) return state;
  const std::string major = std::to_string(kCublasMajor);
  state.why =
      "lazyfuse: this program multiplies matrices on the GPU, which needs cuBLASLt, the "
      "CUDA toolkit's matrix product library (" +
      library_file() + "), and it could not be loaded. Looked for it in:" + tried +
      "\nInstall cuBLAS for CUDA " + major + ": NVIDIA's libcublas-" + major +
      "-x package (or cuda-libraries-" + major +
      "-x, or the full CUDA toolkit), or Debian's and Ubuntu's libcublaslt" + major +
      " (nvidia-cuda-toolkit). Then add its directory to LD_LIBRARY_PATH, or set "
      "CUDA_HOME to a toolkit root that holds lib64/" +
      library_file() + ".";
  return state;
}

const CublasLtState& cublaslt_state() {
  static const CublasLtState state = load_cublaslt();
  return state;
}

}  // namespace

const CublasLt& cublaslt() {
  const CublasLtState& state = cublaslt_state();
  if (!state.library) throw RuntimeError(state.why, std::source_location::current());
  return *state.library;
}

std::vector<std::string> cublaslt_library_candidates(const char* cuda_home, const char* cuda_path) {
  return jit::toolkit_library_candidates("cublasLt", kCublasMajor, cuda_home, cuda_path);
}

std::string cublas_status_text(cublasStatus_t status) {
  const CublasLtState& state = cublaslt_state();
  if (!state.library) return "cublasStatus_t " + std::to_string(int(status));
  const char* name = state.library->cublasLtGetStatusName(status);
  const char* description = state.library->cublasLtGetStatusString(status);
  std::string text = name != nullptr ? name : "cublasStatus_t " + std::to_string(int(status));
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

void throw_cublaslt_error(cublasStatus_t status, std::string_view what, std::string_view problem) {
  throw RuntimeError("lazyfuse: " + std::string(what) + " failed with " +
                         cublas_status_text(status) + " for " + std::string(problem),
                     std::source_location::current());
}

cudaDataType_t data_type(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

cublasLtEpilogue_t epilogue_of(ir::MatmulActivation activation, bool bias) {
  switch (activation) {
    case ir::MatmulActivation::relu:
      return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    case ir::MatmulActivation::gelu_tanh:  // cuBLASLt's GELU is the tanh approximation
      return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    case ir::MatmulActivation::gelu_tanh_grad:  // no bias: the partitioner folds none with it
      return CUBLASLT_EPILOGUE_DGELU;
    case ir::MatmulActivation::none:
      break;
  }
  return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

std::string_view epilogue_name(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
    case CUBLASLT_EPILOGUE_BIAS:
      return "BIAS";
    case CUBLASLT_EPILOGUE_RELU:
      return "RELU";
    case CUBLASLT_EPILOGUE_RELU_BIAS:
      return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU:
      return "GELU";
    case CUBLASLT_EPILOGUE_GELU_BIAS:
      return "GELU_BIAS";
    case CUBLASLT_EPILOGUE_DGELU:
      return "DGELU";
    default:
      return "DEFAULT";
  }
}

}  // namespace lazy::runtime
