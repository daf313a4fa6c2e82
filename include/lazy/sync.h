// Sync points: where recorded work is computed.
//
// Every sync point computes the whole of the calling thread's pending graph: each recorded op a
// handle still holds gets its value; ops nobody holds are dropped without being computed.
//
// On a GPU, a sync queues the kernels on the calling thread's own stream and returns; reading
// values (item, to_vector) waits for that stream only, so threads do not wait for each other.
// A tensor computed by one thread may be used by another: its stream waits for the kernels that
// wrote it.
#pragma once

#include <initializer_list>
#include <source_location>
#include <span>

#include "lazy/tensor.h"

namespace lazy {

// Computes everything the calling thread has recorded and still holds. Returns once the work is
// queued.
void sync();

// Syncs, then waits until the GPU has finished everything the calling thread queued (for
// timing, or before handing the GPU to other code). Nothing to wait for on the host.
void wait();

// Makes sure these tensors are computed: a sync of the calling thread's pending work. A tensor
// pending on another thread is a lazy::RuntimeError (that thread must sync it).
void eval(std::span<const Tensor> tensors,
          std::source_location loc = std::source_location::current());
void eval(std::initializer_list<Tensor> tensors,
          std::source_location loc = std::source_location::current());

}  // namespace lazy
