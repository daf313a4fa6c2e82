// Skeleton of a fused pointwise kernel; codegen fills the $-names. Each thread takes groups of
// $V consecutive elements of the iteration space (one 16-byte access per tensor where layouts
// allow), computes every output from the loads, and stores them. Elements past the last whole
// group are done one at a time.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  const Index n = (Index)a.n;
  const Index stride = (Index)gridDim.x * blockDim.x;
  const Index first = (Index)blockIdx.x * blockDim.x + threadIdx.x;
$UNIFORM_LOADS
  for (Index group = first; group < $GROUPS; group += stride) {
    const Index i = $GROUP_START;
$GROUP_BODY
  }
$TAIL
}
