// One GPU as lazyfuse uses it: the device's primary context, a non-blocking stream per thread
// (runtime/device_stream.h), memory from the device's stream-ordered pool, module loading and
// kernel launches. Each operation is queued on the calling thread's stream. This header needs no
// CUDA headers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lazy/error.h"
#include "runtime/device_stream.h"
#include "runtime/launch_log.h"

// Handle types exactly as <cuda.h> declares them (a repeated alias of the same type is legal),
// so users of this header need not have the toolkit's include directory.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
struct CUmemPoolHandle_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUevent = CUevent_st*;
using CUmemoryPool = CUmemPoolHandle_st*;
using CUdeviceptr = unsigned long long;

namespace lazy::runtime {

struct CudaDriver;
class Device;
class DeviceFailures;
struct StreamLease;

// The GPU has no room for an allocation (not sticky: the program can go on). The runtime catches
// it to name the op that needed the memory.
class OutOfDeviceMemory : public RuntimeError {
  using RuntimeError::RuntimeError;
};

// The allocation would take the bytes in use past the memory limit (lazy::set_memory_limit),
// even once the pool's cache was freed.
class MemoryLimitExceeded : public OutOfDeviceMemory {
 public:
  MemoryLimitExceeded(const std::string& what, std::int64_t limit, std::int64_t in_use)
      : OutOfDeviceMemory(what, std::source_location::current()), limit(limit), in_use(in_use) {}
  std::int64_t limit;
  std::int64_t in_use;
};

// What lazy::memory_stats() reports for one device, in bytes.
struct DeviceMemoryStats {
  std::int64_t in_use = 0;    // held by live buffers (tensors, workspaces)
  std::int64_t peak = 0;      // the most in use at once since the start or reset_peak_memory()
  std::int64_t reserved = 0;  // lazyfuse's pool holds from the GPU: in use plus cached
  std::int64_t limit = 0;     // 0: none
};

// Where LAZY_DEVICE asks lazyfuse to compute.
struct DeviceSpec {
  enum class Kind { kHost, kCuda };
  Kind kind = Kind::kCuda;
  int ordinal = 0;  // the GPU's ordinal when kind is kCuda
  bool operator==(const DeviceSpec&) const = default;
};

// "cpu", "cuda" (GPU 0) or "cuda:N"; nullopt for anything else.
std::optional<DeviceSpec> parse_device_spec(std::string_view text);

// The spec for a value of LAZY_DEVICE: unset or empty means GPU 0 when one is usable, else the
// host. Throws lazy::RuntimeError naming LAZY_DEVICE and its valid values when unparsable.
DeviceSpec device_spec_from_env(const char* value);

// Device memory from the pool, freed (ordered on its home stream) when the last owner lets go.
class DeviceBuffer {
 public:
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  CUdeviceptr ptr() const { return ptr_; }  // 0 when bytes() is 0
  std::size_t bytes() const { return bytes_; }
  Device& device() const { return *device_; }

 private:
  friend class Device;
  DeviceBuffer(Device* device, std::size_t bytes, DeviceStream& home)
      : device_(device), bytes_(bytes), home_(&home) {}

  Device* device_;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_;
  DeviceStream* home_;  // the stream it was allocated (or adopted) on
  // Memory someone else owns (Device::adopt): run instead of a free.
  std::function<void()> give_back_;
  // Recorded on the home stream when another stream reads the buffer, and again at the next such
  // read after an in-place write (Device::rewritten): what reads elsewhere wait for.
  mutable std::mutex written_mutex_;
  mutable CUevent written_ = nullptr;
  mutable bool written_is_current_ = false;
  // Memory given out (data_ptr, or to_dlpack whose consumer let go while lazyfuse still held it):
  // its reuse waits for the consumer's streams first, and nothing writes over it in place.
  mutable std::atomic<bool> read_elsewhere_{false};
};

// What the driver says about a loaded kernel (for launch configuration and LAZY_DEBUG).
struct FunctionInfo {
  int max_threads_per_block;
  int registers_per_thread;
  int static_shared_bytes;
  int local_bytes_per_thread;
};

class Device {
 public:
  // The device lazyfuse computes on, chosen once from LAZY_DEVICE; nullptr when computing on the
  // host (LAZY_DEVICE=cpu, no driver, no GPU). Throws lazy::RuntimeError for an unparsable
  // LAZY_DEVICE, a cuda:N beyond the GPUs present, or a GPU that fails to initialise.
  // The device lives until the process exits.
  static Device* get();
  // Why get() returns nullptr, as a clause to put in a sentence (no "lazyfuse:" in front);
  // empty when it does not.
  static std::string why_host();
  // Why work may not run on the host though no GPU is usable: LAZY_DEVICE named one (cuda or
  // cuda:N). Nothing when a GPU is in use or the host was not ruled out.
  static std::optional<std::string> gpu_asked_for_in_vain();

  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();

  int ordinal() const { return ordinal_; }
  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }  // "GPU 0 (<name>)"
  int sm_arch() const { return sm_arch_; }  // compute capability major * 10 + minor: 90 for H100
  int multiprocessor_count() const { return multiprocessor_count_; }
  std::size_t total_memory() const { return total_memory_; }
  // The calling thread's stream, taken from the device's on the thread's first call.
  DeviceStream& current_stream();
  CUstream stream() { return current_stream().stream; }

  // Device memory someone else owns (lazy::from_dlpack, lazy::from_blob) as a buffer homed on the
  // calling thread's stream, which waits for its producer (wait_for_producer): not counted, never
  // written over (writable_here is false) nor freed.
  // When its last owner lets go, the home stream is synchronized, so lazyfuse's reads of it are
  // done, and `give_back` runs (the producer's deleter).
  std::shared_ptr<DeviceBuffer> adopt(CUdeviceptr ptr, std::size_t bytes,
                                      std::function<void()> give_back);

  // Stream-ordered allocation: a small block the program freed (runtime/free_blocks.h), else
  // memory from the device's pool; 0 bytes gives a buffer with ptr() 0. Throws
  // OutOfDeviceMemory when the GPU has no room, even once the kept blocks are freed.
  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes);

  // Returns when the copy is done, so `src` may be reused at once.
  void copy_to_device(CUdeviceptr dst, const void* src, std::size_t bytes);
  // Waits for all work queued before it, then copies.
  void copy_to_host(void* dst, CUdeviceptr src, std::size_t bytes);
  // Queued on the stream; does not wait.
  void copy_device_to_device(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes);
  void fill_bytes(CUdeviceptr dst, std::uint8_t value, std::size_t bytes);
  // Memory accounting (lazy/memory.h). Bytes are counted as the pool hands them out: a buffer
  // is in use from its allocation to its release, which stream-orders its free.
  DeviceMemoryStats memory_stats();
  void reset_peak_memory();
  // Waits for every stream, then gives the GPU back what the pool and the kept blocks cache.
  void empty_cache();
  // 0 removes the limit.
  void set_memory_limit(std::int64_t bytes);

  // Waits for everything queued on the thread's stream; reports errors of earlier launches.
  void synchronize();
  // Waits for every stream: before memory that graphs launched on several streams is freed.
  void synchronize_all();

  // The stream the calling thread's own GPU work is on (lazy::set_stream), or null. lazyfuse's
  // work stays on its own stream; these order the two on the GPU, never waiting on the host.
  void set_caller_stream(CUstream stream);
  CUstream caller_stream();
  // This thread's stream waits for the work queued on the caller's stream so far; false (and
  // nothing done) without a caller stream.
  bool wait_for_caller();
  // The caller's stream waits for the work queued on this thread's stream so far; false without.
  bool make_caller_wait();
  // Memory taken in now is ready for this thread's later work: that work waits for what is
  // queued so far on the caller's stream, else on the legacy default stream, where a producer
  // that binds no stream (PyTorch by default) queued its writes.
  void wait_for_producer();
  // Before the last reference to `owner`'s memory, given out to code that reads it on its own
  // streams, goes: orders its free after the caller's stream when it is homed here and the thread
  // has one, else waits for the whole device.
  void order_free_after_caller(const std::shared_ptr<void>& owner);
  // A consumer of `owner`'s memory given out let go of it: its free now (`last_reference`), else
  // its reuse or a write over it later, waits for the consumer.
  void released_by_consumer(const std::shared_ptr<void>& owner, bool last_reference);
  // `owner`'s memory was given out (data_ptr) to code that may read it on its own streams while
  // lazyfuse holds it: no write over it in place, and its reuse waits for the consumer.
  void given_out(const std::shared_ptr<void>& owner);
  // Work queued on this thread's stream is about to write over `owner`'s memory in place: the
  // next read on another stream waits for it.
  void rewritten(const std::shared_ptr<void>& owner);

  // Called before the thread's stream reads `owner`'s memory (a DeviceBuffer): when another
  // stream is its home, this stream waits for the work queued there so far and holds the memory
  // until it synchronizes.
  void read_on_this_stream(const std::shared_ptr<void>& owner);
  // Whether work queued on the calling thread's stream may write over the memory `owner` (a
  // DeviceBuffer) holds: it is homed on this stream, and no other stream holds it for a read.
  bool writable_here(const std::shared_ptr<void>& owner);

  // Throws lazy::RuntimeError with the driver's error when the image is not a loadable CUBIN.
  CUmodule load_module(std::span<const char> cubin);
  void unload_module(CUmodule module);
  CUfunction get_function(CUmodule module, const char* name);
  FunctionInfo function_info(CUfunction function);

  // Names `function` in errors about its launches (and in the error of a lost context).
  void label_kernel(CUfunction function, KernelLabel label);
  bool kernel_labelled(CUfunction function) const;

  // Queues a 1-d launch (and waits for it with LAZY_SYNC_LAUNCHES=1 or CUDA_LAUNCH_BLOCKING=1).
  // packed_args is the kernel's parameters laid out as the kernel declares them (lazyfuse packs
  // 8-byte fields); grid_x and block_x must be at least 1.
  void launch(CUfunction function, unsigned grid_x, unsigned block_x,
              std::span<const std::byte> packed_args, unsigned dynamic_shared_bytes = 0);

  // True once a sticky error (a kernel that faulted) lost the context: nothing more can run.
  bool context_lost() const;

  // Makes this device's context current on the calling thread; every method above calls it.
  // Once a sticky error lost the context, it throws a short lazy::RuntimeError saying so.
  void make_current();

  // Whether a destructor of a device object may call the driver, with the context made current:
  // not once the process's exit handlers run (the driver may be tearing down) or the context is
  // lost. Never throws: a failure to make the context current is printed.
  bool current_for_teardown() noexcept;

 private:
  friend class DeviceBuffer;
  friend class DeviceTimer;
  friend class DeviceGraph;
  friend struct StreamLease;

  Device(const CudaDriver& driver, int ordinal);
  CUdeviceptr allocate_from_pool(std::size_t bytes, DeviceStream& home);
  // Frees the kept blocks of every stream (queued on their streams).
  void free_kept_blocks();
  // Throws MemoryLimitExceeded when `size` more bytes in use would pass the limit (freeing the
  // cache first, so the memory is there for what the program does next).
  void check_limit(std::size_t size);
  // Frees the cache when the pool growing by `size` would hold more than the limit. Asks the
  // driver what the pool holds: called only when no kept block serves the allocation.
  void keep_reserved_under_limit(std::size_t size);
  // Keeps a freed block for reuse on its home stream, or frees it there.
  void release(CUdeviceptr ptr, std::size_t bytes, DeviceStream& home) noexcept;
  void destroy_event(CUevent event) noexcept;
  // Orders what reuses or writes `buffer`'s memory next after the caller's stream, when the buffer
  // is homed on this thread's stream and the thread has one; else waits for the whole device.
  void wait_for_consumers(const DeviceBuffer* buffer);
  // A stream no thread uses, made when there is none; and back when its thread exits.
  DeviceStream& take_stream();
  void return_stream(DeviceStream& stream) noexcept;
  // Waits for `here` (the calling thread's stream): the launches counted before `mark` have
  // finished, and the foreign memory it held may go.
  void wait_for(DeviceStream& here, std::uint64_t mark, std::string_view what);
  // The stream has synchronized: the foreign memory it held may go.
  static void caught_up(DeviceStream& stream);

  const CudaDriver& driver_;
  std::unique_ptr<DeviceFailures> failures_;
  bool sync_launches_ = false;  // LAZY_SYNC_LAUNCHES=1 or CUDA_LAUNCH_BLOCKING=1
  int ordinal_;
  int cu_device_ = 0;
  CUcontext context_ = nullptr;
  std::mutex streams_mutex_;
  std::vector<std::unique_ptr<DeviceStream>> streams_;
  std::vector<DeviceStream*> idle_streams_;
  CUmemoryPool pool_ = nullptr;  // lazyfuse's own: its counters and trims are lazyfuse's alone
  std::atomic<std::int64_t> in_use_{0};
  std::atomic<std::int64_t> peak_{0};
  std::atomic<std::int64_t> limit_{0};
  std::string name_;
  std::string description_;
  int sm_arch_ = 0;
  int multiprocessor_count_ = 0;
  std::size_t total_memory_ = 0;
};

// Times work queued on a device's stream between start() and stop() (LAZY_DEBUG=3).
class DeviceTimer {
 public:
  explicit DeviceTimer(Device& device);
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  ~DeviceTimer();

  void start();
  void stop();
  // Waits for stop() to be reached on the stream.
  float elapsed_ms();

 private:
  Device& device_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

}  // namespace lazy::runtime
