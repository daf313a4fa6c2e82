// Skeleton of a column reduction; codegen fills the $-names. Neighbouring results are neighbours
// in memory, so a block's threads are `lanes` along the results, each folding a group of $V
// consecutive ones (one 16-byte load per tensor where layouts allow), times `slices` along the
// folded elements: a warp reads runs of consecutive addresses. Slice s folds elements s,
// s + slices, ... in order, then the slices' partials combine pairwise in a fixed tree, so a
// result never depends on timing.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // index of a group of results, or of a folded element
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  const Index groups = (Index)a.groups;
  const Index extent = (Index)a.extent;
  const unsigned int lanes = (unsigned int)a.lanes;
  const unsigned int lane = threadIdx.x % lanes;
  const unsigned int slice = threadIdx.x / lanes;
  const unsigned int slices = blockDim.x / lanes;
  __shared__ $ACC partial[$THREADS][$V];
  __shared__ long long partial_at[$THREADS][$V];
$UNIFORM_LOADS
  for (Index tile = blockIdx.x; tile * lanes < groups; tile += gridDim.x) {
    const Index group = tile * lanes + lane;
    const bool active = group < groups;
    const Index i = group * $V;  // the group's first result
    $ACC acc[$V];
    long long at[$V];
#pragma unroll
    for (int e = 0; e < $V; ++e) {
      acc[e] = $INIT;
      at[e] = -1;
    }
    if (active) {
$KEPT_OFFSETS
#pragma unroll 4
      for (Index r = slice; r < extent; r += slices) {
$ELEMENT
      }
    }
    if (slices > 1) {
#pragma unroll
      for (int e = 0; e < $V; ++e) {
        partial[threadIdx.x][e] = acc[e];
        partial_at[threadIdx.x][e] = at[e];
      }
      __syncthreads();
      // Pairwise: slice s folds slice s + half, for half = slices / 2, ..., 1.
      for (unsigned int half = slices / 2; half > 0; half /= 2) {
        if (slice < half) {
          const unsigned int other = threadIdx.x + half * lanes;
#pragma unroll
          for (int e = 0; e < $V; ++e) {
            $FOLD(acc[e], at[e], partial[other][e], partial_at[other][e]);
            partial[threadIdx.x][e] = acc[e];
            partial_at[threadIdx.x][e] = at[e];
          }
        }
        __syncthreads();
      }
    }
    if (slice == 0 && active) {
#pragma unroll
      for (int e = 0; e < $V; ++e) a.out0[i + e] = $STORE;
    }
  }
}
