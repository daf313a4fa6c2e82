// Tensors in and out of lazyfuse without copies: DLPack (the exchange format of PyTorch, JAX,
// CuPy and others) and raw pointers.
//
// Memory taken in (from_dlpack, from_blob) stays the producer's: lazyfuse reads it where it is,
// never writes it, and treats its values as fixed for as long as a lazy tensor may read it (a
// result computed from it is not computed again if the producer changes it later). Device memory
// must be on the GPU lazyfuse computes on, with the producer's writes to it queued before the
// call that takes it in: on the stream bound with lazy::set_stream, else on the legacy default
// stream (or a stream that synchronizes with it; PyTorch's default), or finished. The calling
// thread's later lazyfuse work waits for them; a producer on any other stream must bind it.
// When the last lazy tensor reading it goes, lazyfuse waits for its own reads of it and calls the
// deleter, from the thread that dropped it.
//
// A tensor given out (to_dlpack, data_ptr) is computed first and its computation finished. Its
// memory stays valid until the consumer calls the deleter (to_dlpack) or the last lazy handle
// goes (data_ptr). It must not be written: lazyfuse may hand the same memory to other tensors
// (views, or results that equal an input). A consumer on the bound stream is ordered after its
// computation; without a bound stream, lazyfuse waits for it, and for the whole GPU before the
// memory of a tensor given out is freed.
#pragma once

#include <cstdint>
#include <functional>
#include <source_location>
#include <span>

#include "lazy/tensor.h"

// As <cuda.h> declares it.
struct CUstream_st;
using CUstream = CUstream_st*;

// <dlpack/dlpack.h> (Debian's libdlpack-dev) declares it; only a pointer is needed here, so this
// header does not pull DLPack in beside another library's copy of it. The unversioned struct is
// what at::toDLPack / at::fromDLPack and `__dlpack__()` without max_version exchange; DLPack 1's
// DLManagedTensorVersioned is not taken.
struct DLManagedTensor;

namespace lazy {

// Wraps a DLPack tensor: kDLCUDA memory of the GPU lazyfuse computes on, or host memory (kDLCPU,
// kDLCUDAHost), of strides of 0 or more (a negative one along an axis of one is taken as 0), and
// of dtype f32, f16, bf16, i32, i64 or bool.
// lazyfuse takes ownership: it calls the tensor's deleter when done (also when it throws). Throws
// lazy::ValueError for another device or dtype, naming what it got and what it accepts.
Tensor from_dlpack(DLManagedTensor* tensor,
                   std::source_location loc = std::source_location::current());

// The tensor as DLPack, without a copy (computed first; a view with a negative step, which
// DLPack's consumers refuse, goes out as a dense copy). The caller owns the result and must call
// its deleter, which keeps lazyfuse's memory alive until then. Device memory when lazyfuse
// computes on a GPU, host memory otherwise. `data` is the first element and `byte_offset` 0, as
// PyTorch's own exports, since some consumers ignore byte_offset.
DLManagedTensor* to_dlpack(const Tensor& tensor,
                           std::source_location loc = std::source_location::current());

// Orders the calling thread's lazyfuse work with the caller's own GPU work on `stream` (a CUDA
// stream of the GPU lazyfuse computes on; nullptr unbinds). Each sync of the thread then starts
// after the work queued on `stream` before it, and work queued on `stream` after the sync starts
// after the sync's kernels and products: a producer kernel, a lazy computation and a consumer
// kernel run in that order with no host wait. lazyfuse still launches on a stream of its own (its
// memory's lifetime never depends on the caller's stream) and orders the two with events. With a
// stream bound, data_ptr and to_dlpack need no host wait, and memory taken in or given out is
// given back or freed in order with the stream too. The stream must stay valid while bound, and
// the binding is the thread's alone. Without a GPU it has no effect (get_stream gives nullptr).
void set_stream(CUstream stream);
CUstream get_stream();

// Binds `stream` for a scope, then restores the binding it found.
class StreamGuard {
 public:
  explicit StreamGuard(CUstream stream) : previous_(get_stream()) { set_stream(stream); }
  ~StreamGuard() { set_stream(previous_); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  CUstream previous_;
};

enum class MemoryKind : std::uint8_t { host, cuda };

// Wraps `data` without a copy: `shape` elements of `dtype` at `strides` (in elements, 0 or more,
// a negative one along an axis of one taken as 0; empty for row-major), host memory or device
// memory of the GPU lazyfuse computes on. `deleter`, if given, is called with `data` once
// lazyfuse no longer needs it. Throws lazy::ValueError for a null pointer with elements, strides
// of the wrong rank or negative (as PyTorch refuses them), or device memory without a GPU; a call
// that throws never calls `deleter`: the memory stays the caller's.
Tensor from_blob(void* data, const Shape& shape, std::span<const std::int64_t> strides, DType dtype,
                 MemoryKind memory, std::function<void(void*)> deleter = {},
                 std::source_location loc = std::source_location::current());

}  // namespace lazy
