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
FaultRecord* record = nullptr;  // host view of the mapped record; never freed
CUdeviceptr record_address = 0;

}  // namespace

CUdeviceptr index_fault_record(Device& device) {
  std::lock_guard lock(record_mutex);
  if (record != nullptr) return record_address;
  device.make_current();
  const CudaDriver& driver = *cuda_driver();
  void* host = nullptr;
  check_cuda(driver.cuMemHostAlloc(&host, sizeof(FaultRecord),
                                   CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
             "cuMemHostAlloc of the index fault record");
  check_cuda(driver.cuMemHostGetDevicePointer(&record_address, host, 0),
             "cuMemHostGetDevicePointer of the index fault record");
  record = static_cast<FaultRecord*>(host);
  *record = FaultRecord{0, 0, 0};
  return record_address;
}

void raise_index_faults() {
  {
    std::lock_guard lock(record_mutex);
    if (record != nullptr && std::atomic_ref(record->state).load(std::memory_order_acquire) == 2) {
      const unsigned int site = std::atomic_ref(record->site).load(std::memory_order_relaxed);
      const long long value = std::atomic_ref(record->value).load(std::memory_order_relaxed);
      ir::report_index_fault(ir::index_site(site), value);
      std::atomic_ref(record->state).store(0, std::memory_order_release);
    }
  }
  ir::throw_index_fault_if_any();
}

}  // namespace lazy::runtime
