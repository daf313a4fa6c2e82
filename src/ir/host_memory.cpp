#include "ir/host_memory.h"

#include <unistd.h>

#include <sstream>

#include "lazy/error.h"

namespace lazy::ir {

namespace {

// Physical memory, read once (it does not change while the process runs); 0 if unknown.
std::int64_t physical_memory_bytes() {
  static const std::int64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page_size > 0 ? std::int64_t(pages) * page_size : 0;
  }();
  return bytes;
}

}  // namespace

void check_fits_in_host_memory(std::int64_t elements, std::int64_t element_bytes,
                               std::string_view op, std::source_location loc) {
  const std::int64_t memory = physical_memory_bytes();
  // Compared by division: 2^60 elements of 8 bytes do not fit in an int64.
  if (memory > 0 && element_bytes > 0 && elements > memory / element_bytes) {
    std::ostringstream message;
    message << "lazy::" << op << ": needs "
            << static_cast<unsigned long long>(elements) *
                   static_cast<unsigned long long>(element_bytes)
            << " bytes of host memory (" << elements << " elements of " << element_bytes
            << " bytes), more than this machine has (" << memory << " bytes)";
    throw RuntimeError(message.str(), loc);
  }
}

}  // namespace lazy::ir
