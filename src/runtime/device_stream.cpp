// The Device's streams (runtime/device_stream.h): one per thread, and the ordering of memory one
// stream reads from another.
#include "runtime/device_stream.h"

#include <cstdio>

#include "runtime/cuda_driver.h"
#include "runtime/device.h"
#include "runtime/device_failures.h"

namespace lazy::runtime {

// Hands the thread's stream back when the thread exits.
struct StreamLease {
  Device* device = nullptr;
  DeviceStream* stream = nullptr;
  CUstream caller = nullptr;  // lazy::set_stream
  ~StreamLease();
};

namespace {

thread_local StreamLease lease;

}  // namespace

DeviceStream& Device::current_stream() {
  StreamLease& mine = lease;
  if (mine.stream == nullptr) [[unlikely]] {
    mine.stream = &take_stream();
    mine.device = this;
  }
  return *mine.stream;
}

DeviceStream& Device::take_stream() {
  std::lock_guard lock(streams_mutex_);
  if (!idle_streams_.empty()) {
    DeviceStream& stream = *idle_streams_.back();
    idle_streams_.pop_back();
    return stream;
  }
  make_current();
  auto stream = std::make_unique<DeviceStream>();
  failures_->check(driver_.cuStreamCreate(&stream->stream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate");
  streams_.push_back(std::move(stream));
  return *streams_.back();
}

void Device::return_stream(DeviceStream& stream) noexcept {
  if (current_for_teardown()) {
    // Its foreign memory may go once its work is done; the next thread starts clean.
    if (driver_.cuStreamSynchronize(stream.stream) == CUDA_SUCCESS) caught_up(stream);
  }
  std::lock_guard lock(streams_mutex_);
  idle_streams_.push_back(&stream);
}

StreamLease::~StreamLease() {
  if (stream != nullptr) device->return_stream(*stream);
}

void Device::caught_up(DeviceStream& stream) {
  absl::flat_hash_map<const DeviceBuffer*, std::shared_ptr<const DeviceBuffer>> released;
  {
    std::lock_guard lock(stream.foreign_mutex);
    released.swap(stream.foreign_reads);
  }
  // Freed here, outside the lock: each goes back to its own home stream.
}

void Device::set_caller_stream(CUstream stream) {
  lease.caller = stream;
}

CUstream Device::caller_stream() {
  return lease.caller;
}

namespace {

// Queues on `waiting` a wait for the work queued so far on `done`.
void order(const CudaDriver& driver, DeviceFailures& failures, CUevent& event, CUstream done,
           CUstream waiting) {
  if (event == nullptr) {
    failures.check(driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  }
  failures.check(driver.cuEventRecord(event, done), "cuEventRecord");
  failures.check(driver.cuStreamWaitEvent(waiting, event, 0), "cuStreamWaitEvent");
}

}  // namespace

bool Device::wait_for_caller() {
  if (lease.caller == nullptr) return false;
  DeviceStream& here = current_stream();
  make_current();
  order(driver_, *failures_, here.caller_event, lease.caller, here.stream);
  return true;
}

bool Device::make_caller_wait() {
  if (lease.caller == nullptr) return false;
  DeviceStream& here = current_stream();
  make_current();
  order(driver_, *failures_, here.caller_event, here.stream, lease.caller);
  return true;
}

void Device::wait_for_producer() {
  DeviceStream& here = current_stream();
  make_current();
  order(driver_, *failures_, here.caller_event,
        lease.caller != nullptr ? lease.caller : CU_STREAM_LEGACY, here.stream);
}

void Device::order_free_after_caller(const std::shared_ptr<void>& owner) {
  wait_for_consumers(static_cast<const DeviceBuffer*>(owner.get()));
}

void Device::wait_for_consumers(const DeviceBuffer* buffer) {
  if (buffer != nullptr && !buffer->give_back_ && buffer->home_ == &current_stream() &&
      wait_for_caller()) {
    return;
  }
  synchronize_all();
}

void Device::released_by_consumer(const std::shared_ptr<void>& owner, bool last_reference) {
  if (last_reference) return order_free_after_caller(owner);
  // Another holder may drop the last reference on any thread: the buffer orders its own reuse.
  given_out(owner);
}

void Device::given_out(const std::shared_ptr<void>& owner) {
  if (owner != nullptr) static_cast<const DeviceBuffer*>(owner.get())->read_elsewhere_ = true;
}

void Device::rewritten(const std::shared_ptr<void>& owner) {
  const auto* buffer = static_cast<const DeviceBuffer*>(owner.get());
  std::lock_guard lock(buffer->written_mutex_);
  buffer->written_is_current_ = false;
}

bool Device::writable_here(const std::shared_ptr<void>& owner) {
  const auto* buffer = static_cast<const DeviceBuffer*>(owner.get());
  return buffer != nullptr && !buffer->give_back_ && !buffer->read_elsewhere_ &&
         buffer->home_ == &current_stream() && owner.use_count() == 1;
}

void Device::read_on_this_stream(const std::shared_ptr<void>& owner) {
  const auto* buffer = static_cast<const DeviceBuffer*>(owner.get());
  DeviceStream& here = current_stream();
  if (buffer->home_ == &here || buffer->ptr_ == 0) return;
  {
    std::lock_guard lock(buffer->written_mutex_);
    make_current();
    if (buffer->written_ == nullptr) {
      CUevent event = nullptr;
      failures_->check(driver_.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
      buffer->written_ = event;
    }
    if (!buffer->written_is_current_) {
      failures_->check(driver_.cuEventRecord(buffer->written_, buffer->home_->stream),
                       "cuEventRecord");
      buffer->written_is_current_ = true;
    }
    failures_->check(driver_.cuStreamWaitEvent(here.stream, buffer->written_, 0),
                     "cuStreamWaitEvent");
  }
  bool full = false;
  {
    std::lock_guard lock(here.foreign_mutex);
    here.foreign_reads.try_emplace(buffer, std::shared_ptr<const DeviceBuffer>(owner, buffer));
    full = here.foreign_reads.size() > kMostForeignReads;
  }
  if (full) synchronize();
}

void Device::synchronize_all() {
  make_current();
  // Each stream's foreign memory stays held: only its own thread knows what it queued since.
  failures_->check(driver_.cuCtxSynchronize(), "cuCtxSynchronize");
}

void Device::destroy_event(CUevent event) noexcept {
  // Destroying an event whose record is pending is allowed: it goes once the record completes.
  if (current_for_teardown()) driver_.cuEventDestroy(event);
}

}  // namespace lazy::runtime
