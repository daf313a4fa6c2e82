// NVRTC's first compile in a process costs more than the next ones (its library and builtins
// load: 50 against 24 ms for a small kernel on the 2-core machine). A program's first sync needs
// kernels right after CUDA initialises, so the device runs a throwaway compile on a thread of its
// own while it creates the CUDA context, and the first real compile, or loading kernels from disk
// (whose key needs NVRTC's version), finds NVRTC ready.
#pragma once

namespace lazy::jit {

// Loads NVRTC and compiles a kernel that includes the device header, throwing the result away.
// Never throws: a compile that fails here fails again, with its message, when needed. The caller
// joins the thread that runs it before the program can end: a compile running while the process
// exits crashes inside NVRTC once its destructors have run.
void warm_up_nvrtc() noexcept;

}  // namespace lazy::jit
