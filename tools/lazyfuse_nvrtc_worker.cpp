// lazyfuse-nvrtc-worker: compiles kernels for the library in a process of its own, so that many
// kernels compile in parallel (NVRTC serializes the compiles of one process). The library starts
// it; it is not meant to be run by hand. Requests on stdin, CUBINs on stdout.
#include <unistd.h>

#include "jit/compile_workers.h"

int main() {
  return lazy::jit::serve_compile_requests(STDIN_FILENO, STDOUT_FILENO);
}
