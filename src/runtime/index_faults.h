// Where kernels report a gather index out of range: one record in host-mapped memory per process
// (state, site, value; lz_index_fault in nvrtc_templates/lz_device.cuh writes it), read without
// waiting for the GPU. A fault shows once the kernel that found it has run.
#pragma once

#include <cuda.h>

#include "runtime/device.h"

namespace lazy::runtime {

// The record's device address, allocated on first use.
CUdeviceptr index_fault_record(Device& device);

// Throws lazy::IndexError for the first bad index found since the last throw, by a finished
// kernel or the reference evaluator, and clears it, after the work this thread queued has run:
// the throw stands for the faults of all of it. Called after each sync and host read.
void raise_index_faults();

}  // namespace lazy::runtime
