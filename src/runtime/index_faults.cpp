#include "runtime/index_faults.h"

#include <atomic>
#include <mutex>

#include "ir/index_faults.h"
#include "runtime/cuda_driver.h"

namespace lazy::runtime {

namespace {

// What lz_index_fault writes: state 0 (none), 1 (being written), 2 (written).
struct FaultRecord {
  unsigned int state;
  unsigned int site;
  long long value;
};

std::mutex record_mutex;
// Host view of the mapped record, never freed; read by every sync without the mutex.
std::atomic<FaultRecord*> record{nullptr};
CUdeviceptr record_address = 0;

}  // namespace

CUdeviceptr index_fault_record(Device& device) {
  std::lock_guard lock(record_mutex);
  if (record.load(std::memory_order_relaxed) != nullptr) return record_address;
  device.make_current();
  const CudaDriver& driver = *cuda_driver();
  void* host = nullptr;
  check_cuda(driver.cuMemHostAlloc(&host, sizeof(FaultRecord),
                                   CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
             "cuMemHostAlloc of the index fault record");
  check_cuda(driver.cuMemHostGetDevicePointer(&record_address, host, 0),
             "cuMemHostGetDevicePointer of the index fault record");
  *static_cast<FaultRecord*>(host) = FaultRecord{0, 0, 0};
  record.store(static_cast<FaultRecord*>(host), std::memory_order_release);
  return record_address;
}

void raise_index_faults() {
  FaultRecord* mapped = record.load(std::memory_order_acquire);
  if (mapped != nullptr && std::atomic_ref(mapped->state).load(std::memory_order_acquire) == 2) {
    // The throw answers for all the work this thread queued: let it finish before the record
    // clears, or a later kernel of a sync that throws here (nll_loss's two gathers) would throw
    // its fault at a later, unrelated call (seen under racecheck's slow kernels). Only a fault pays
    // this wait.
    if (Device* device = Device::get()) device->synchronize();
    std::lock_guard lock(record_mutex);  // one reader takes the fault
    if (std::atomic_ref(mapped->state).load(std::memory_order_acquire) == 2) {
      const unsigned int site = std::atomic_ref(mapped->site).load(std::memory_order_relaxed);
      const long long value = std::atomic_ref(mapped->value).load(std::memory_order_relaxed);
      ir::report_index_fault(ir::index_site(site), value);
      std::atomic_ref(mapped->state).store(0, std::memory_order_release);
    }
  }
  ir::throw_index_fault_if_any();
}

}  // namespace lazy::runtime
