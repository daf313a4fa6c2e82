// The host's memory, checked before a large host buffer is allocated (a vector a user reads, a
// result the reference evaluator computes): one larger than the machine gets the process killed
// by the operating system, not a std::bad_alloc.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

namespace lazy::ir {

// Throws RuntimeError ("lazy::<op>: ..." at `loc`), naming the bytes, when `elements` of
// `element_bytes` each are more than the machine's physical memory.
void check_fits_in_host_memory(std::int64_t elements, std::int64_t element_bytes,
                               std::string_view op, std::source_location loc);

}  // namespace lazy::ir
