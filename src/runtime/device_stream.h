// The device's streams: one per thread that queues work, so that threads do not wait for each
// other's kernels. A thread takes a stream on first use and hands it back when it exits; streams
// are never destroyed, since memory allocated on one may be freed on it long after its thread is
// gone.
//
// Ordering across streams: memory belongs to the stream it was allocated on (its home), and is
// freed or kept for reuse there, in order after everything its home queued. A stream that reads
// memory of another home first waits for an event recorded on that home, and holds the memory
// until it has synchronized, so the home cannot free it under the reader.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

#include <absl/container/flat_hash_map.h>

#include "runtime/free_blocks.h"

struct CUstream_st;
struct CUevent_st;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;

namespace lazy::runtime {

class DeviceBuffer;

struct DeviceStream {
  CUstream stream = nullptr;
  // Freed blocks homed here: reusing one on this stream needs no synchronization.
  FreeBlocks free_blocks;
  // Memory of other homes read by work queued here, held until this stream synchronizes.
  std::mutex foreign_mutex;
  absl::flat_hash_map<const DeviceBuffer*, std::shared_ptr<const DeviceBuffer>> foreign_reads;
  // Pinned host memory small reads back (item) go through: a copy from device memory to pageable
  // memory costs the driver a staging step and more of its locks. Made on first use.
  void* pinned_staging = nullptr;
  // cuBLASLt's workspace for calls queued here (runtime/cublaslt_context.h), made on first use.
  std::shared_ptr<DeviceBuffer> matmul_workspace;
  // Orders this stream and its thread's caller stream (lazy::set_stream), made on first use.
  CUevent caller_event = nullptr;
};

// Reads back of at most this many bytes go through the stream's pinned staging memory.
inline constexpr std::size_t kPinnedStagingBytes = 64 << 10;

// Past this many foreign buffers held, a stream synchronizes to let them go.
inline constexpr std::size_t kMostForeignReads = 4096;

}  // namespace lazy::runtime
