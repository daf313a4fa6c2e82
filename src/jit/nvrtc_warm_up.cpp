#include "jit/nvrtc_warm_up.h"

#include "jit/kernel_cache.h"
#include "jit/nvrtc.h"

namespace lazy::jit {

namespace {

// Includes the device header, as every generated kernel does.
constexpr const char* kWarmUpSource =
    "#include \"lz_device.cuh\"\n"
    "extern \"C\" __global__ void lz_warm_up(float* out) { out[threadIdx.x] = lz_exp(1.0f); }\n";

// Any architecture NVRTC knows: the warm-up's code is thrown away.
constexpr int kWarmUpArch = 90;

}  // namespace

void warm_up_nvrtc() noexcept {
  if (!nvrtc_available()) return;  // the first real compile says why
  try {
    compile_kernel_source(kWarmUpSource, "lz_warm_up", kWarmUpArch, {});
  } catch (...) {
    // Only a warm-up.
  }
}

}  // namespace lazy::jit
