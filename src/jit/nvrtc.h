// NVRTC, the CUDA run-time compiler, opened with dlopen so that lazyfuse links and runs without
// the toolkit. Compiles generated kernels to CUBIN for one GPU architecture.
#pragma once

#include <compare>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lazy::jit {

struct NvrtcVersion {
  int major;
  int minor;

  friend auto operator<=>(const NvrtcVersion&, const NvrtcVersion&) = default;
};

// True when libnvrtc could be loaded; otherwise *why (when given) says which library, every
// place it was looked for, and what to install.
bool nvrtc_available(std::string* why = nullptr);

// The loaded NVRTC's version (part of every kernel cache key). Throws lazy::RuntimeError when
// NVRTC is unavailable.
NvrtcVersion nvrtc_version();
// The sm_XX numbers the loaded NVRTC compiles for, ascending (nvrtc_available() first).
std::vector<int> nvrtc_supported_archs();

// Where libnvrtc is looked for, in order: the loader's search path (bare names), then
// <cuda_home>/lib64, <cuda_path>/lib64 (each when not null or empty), /usr/local/cuda/lib64,
// /usr/local/cuda-<major>*/lib64 and /usr/lib/x86_64-linux-gnu.
std::vector<std::string> nvrtc_library_candidates(const char* cuda_home, const char* cuda_path);

// The options compile_to_cubin passes: a real CUBIN for sm_<sm_arch>, C++17, IEEE math (no
// --use_fast_math unless extra_options has it; without it --fmad=false, each multiply and add
// rounded), then extra_options.
std::vector<std::string> nvrtc_compile_options(int sm_arch,
                                               std::span<const std::string> extra_options = {});

// A header the program #includes by name, given as text (NVRTC reads no files for it).
struct InMemoryHeader {
  std::string_view name;
  std::string_view text;
};

// Compiles one translation unit to a CUBIN for sm_<sm_arch> (90 for H100). Thread-safe and
// unlocked. Throws lazy::CompileError with the source and NVRTC's log when compilation fails,
// lazy::RuntimeError when NVRTC is unavailable.
std::vector<char> compile_to_cubin(std::string_view source, std::string_view program_name,
                                   int sm_arch, std::span<const std::string> extra_options = {},
                                   std::span<const InMemoryHeader> headers = {});

}  // namespace lazy::jit
