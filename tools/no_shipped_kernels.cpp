// The shipped kernels of a library built without them: lazyfuse-ship-kernels, which makes them,
// and a library configured with LAZY_SHIP_KERNELS=OFF.
#include "jit/shipped_kernels.h"

namespace lazy::jit {

std::span<const ShippedKernel> shipped_kernels() {
  return {};
}

}  // namespace lazy::jit
