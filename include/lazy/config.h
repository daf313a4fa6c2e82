// Settings that change how recorded work is run. Each starts from an environment variable and can
// be changed from code; a change applies from the next sync.
#pragma once

#include <string>

namespace lazy {

// True when recorded work runs on a GPU (LAZY_DEVICE, default: the first GPU if one is usable).
bool on_gpu();
// "NVIDIA H100 80GB HBM3 (sm_90)", or "host: <why no GPU>".
std::string device_description();

// Fusion of ops into shared kernels (LAZY_FUSION, default on). Off, every op is its own kernel:
// the unfused baseline, for debugging and for benchmarks.
void set_fusion_enabled(bool enabled);
bool fusion_enabled();

}  // namespace lazy
