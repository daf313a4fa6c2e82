// NVRTC's first compile in a process costs more than the next ones (its library and builtins
// load: 50 against 24 ms for a small kernel on the 2-core machine). A program's first sync needs
// kernels right after CUDA initialises, so the device starts a throwaway compile on a thread of
// its own while CUDA initialises, and the first real compile, or loading kernels from disk (whose
// key needs NVRTC's version), finds NVRTC ready.
#pragma once

namespace lazy::jit {

// Starts the warm-up once per process; later calls do nothing. The thread is joined at exit.
void start_nvrtc_warm_up();

}  // namespace lazy::jit
