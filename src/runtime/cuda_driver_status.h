// Whether the CUDA driver could be loaded, in terms that need no CUDA headers, so tests and code
// outside the runtime can ask without the toolkit's include directory.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace lazy::runtime {

// Tried in order through the dynamic loader's search path; the driver installs the first.
inline constexpr std::array<const char*, 2> kCudaDriverLibraryNames = {"libcuda.so.1",
                                                                       "libcuda.so"};

// True when libcuda loaded, exports every function lazyfuse uses, and cuInit succeeded.
bool cuda_driver_available();

// Why the driver is unusable: which library, where it was looked for, what failed and what to
// install. Empty when cuda_driver_available().
std::string why_no_cuda_driver();

// The exact symbols looked up in libcuda, as <cuda.h> names them after its version macros
// (cuMemcpyHtoDAsync is looked up as cuMemcpyHtoDAsync_v2).
std::span<const std::string_view> cuda_driver_symbol_names();

}  // namespace lazy::runtime
