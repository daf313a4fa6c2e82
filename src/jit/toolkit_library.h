// Finding and opening a CUDA toolkit library (NVRTC, cuBLASLt) with dlopen, so that lazyfuse
// links and runs without the toolkit and says, when one is missing, everywhere it looked.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lazy::jit {

// Where lib<name>.so is looked for, in order: the loader's search path (bare names), then
// <cuda_home>/lib64, <cuda_path>/lib64 (each when not null or empty), /usr/local/cuda/lib64,
// /usr/local/cuda-<major>*/lib64 and /usr/lib/x86_64-linux-gnu. lib<name>.so.<major> comes
// before lib<name>.so everywhere: the unversioned name may be another major version.
std::vector<std::string> toolkit_library_candidates(std::string_view name, int major,
                                                    const char* cuda_home, const char* cuda_path);

struct OpenedLibrary {
  void* handle;
  std::string path;  // where the loader found it
};

// Opens the first candidate that dlopen loads and `accept` takes. accept(handle, path) resolves
// what it needs and returns an empty string, or says why the library will not do (it is then
// closed and the next tried). Appends a line per refused candidate to *tried.
std::optional<OpenedLibrary> open_toolkit_library(
    std::span<const std::string> candidates,
    const std::function<std::string(void* handle, const std::string& path)>& accept,
    std::string* tried);

}  // namespace lazy::jit
