// Settings that change how recorded work is run. Each starts from an environment variable and can
// be changed from code; a change applies from the next sync.
#pragma once

namespace lazy {

// Fusion of ops into shared kernels (LAZY_FUSION, default on). Off, every op is its own kernel:
// the unfused baseline, for debugging and for benchmarks.
void set_fusion_enabled(bool enabled);
bool fusion_enabled();

}  // namespace lazy
