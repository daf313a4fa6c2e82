// Settings that change how recorded work is run. Each starts from an environment variable and can
// be changed from code; a change applies from the next sync.
#pragma once

#include <string>

namespace lazy {

// True when recorded work runs on a GPU (LAZY_DEVICE, default: the first GPU if one is usable).
bool on_gpu();
// "NVIDIA H100 80GB HBM3 (sm_90)", or "host (<why no GPU>)".
std::string device_description();

// Fusion of ops into shared kernels (LAZY_FUSION, default on). Off, every op is its own kernel:
// the unfused baseline, for debugging and for benchmarks.
void set_fusion_enabled(bool enabled);
bool fusion_enabled();

// The GPU's fast approximations for transcendental math (LAZY_FAST_MATH=1, default off): the
// hardware tanh (relative error under 2^-10.9, about 5e-4) for tanh and sigmoid, and NVRTC's
// --use_fast_math for the rest (exp, log, sin, cos, division, square root: a few ulp, growing
// with the argument for exp, sin and cos; denormals flush to zero). Default math is within a
// few ulp of the correctly rounded result. docs/semantics.md has the bounds the tests check.
void set_fast_math(bool enabled);
bool fast_math();

}  // namespace lazy
