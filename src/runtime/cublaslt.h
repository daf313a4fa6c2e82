// cuBLASLt, the CUDA toolkit's matrix product library, opened with dlopen the first time a plan
// holds a matrix product, so that programs without one run without the library. <cublasLt.h>
// supplies the types and prototypes only; nothing links against libcublasLt.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/matmul.h"
#include "lazy/dtype.h"

namespace lazy::runtime {

// Every cuBLASLt function lazyfuse calls.
#define LAZY_CUBLASLT_FUNCTIONS(X)        \
  X(cublasLtGetVersion)                   \
  X(cublasLtGetStatusName)                \
  X(cublasLtGetStatusString)              \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutSetAttribute)     \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulAlgoCheck)              \
  X(cublasLtMatmulAlgoConfigGetAttribute) \
  X(cublasLtMatmulAlgoConfigSetAttribute) \
  X(cublasLtMatmul)

#define LAZY_CUBLASLT_MEMBER(name) decltype(&::name) name = nullptr;

struct CublasLt {
  LAZY_CUBLASLT_FUNCTIONS(LAZY_CUBLASLT_MEMBER)
  std::size_t version = 0;  // cublasLtGetVersion(): major * 10000 + minor * 100 + patch
  std::string path;         // where the loader found it
};

#undef LAZY_CUBLASLT_MEMBER

// The library's function table, loaded on first use and never unloaded. Throws
// lazy::RuntimeError naming the library, every place it was looked for and what to install.
const CublasLt& cublaslt();

// Where libcublasLt is looked for (as jit::toolkit_library_candidates says, for the major
// version of the headers lazyfuse was built with).
std::vector<std::string> cublaslt_library_candidates(const char* cuda_home, const char* cuda_path);

// "CUBLAS_STATUS_NOT_SUPPORTED (the requested functionality is not supported)"; the number alone
// when the library cannot be loaded.
std::string cublas_status_text(cublasStatus_t status);

// Throws lazy::RuntimeError: "lazyfuse: <what> failed with <status> for <problem>".
[[noreturn]] void throw_cublaslt_error(cublasStatus_t status, std::string_view what,
                                       std::string_view problem);

// cuBLASLt's names for a dtype and for an epilogue.
cudaDataType_t data_type(DType dtype);
cublasLtEpilogue_t epilogue_of(ir::MatmulActivation activation, bool bias);
std::string_view epilogue_name(cublasLtEpilogue_t epilogue);

inline void check_cublaslt(cublasStatus_t status, std::string_view what, std::string_view problem) {
  if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]] {
    throw_cublaslt_error(status, what, problem);
  }
}

}  // namespace lazy::runtime
