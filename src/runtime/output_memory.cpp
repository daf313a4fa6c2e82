#include "runtime/output_memory.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "lazy/error.h"
#include "runtime/storage_mirror.h"

namespace lazy::runtime {

namespace {

// Bytes of `numel` elements of `dtype`; the largest size_t when that does not fit in one.
std::size_t bytes_of(std::int64_t numel, DType dtype) {
  const auto item = std::size_t(itemsize(dtype));
  if (numel < 0 || std::size_t(numel) > std::numeric_limits<std::size_t>::max() / item) {
    return std::numeric_limits<std::size_t>::max();
  }
  return std::size_t(numel) * item;
}

std::string gib_text(std::size_t bytes) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << double(bytes) / double(1ull << 30) << " GiB";
  return text.str();
}

std::string bytes_text(std::size_t bytes) {
  return std::to_string(bytes) + " bytes (" + gib_text(bytes) + ")";
}

// "mul's result, [4096, 4096] f32," or "an input, [4096] f32,": what asks for memory.
std::string request(const ir::Node& node, bool input) {
  std::string what;
  if (input) {
    what = "an input";
  } else {
    for (char c : ir::op_name(node.op)) what += char(std::tolower(static_cast<unsigned char>(c)));
    what += "'s result";
  }
  return what + ", " + node.shape.to_string() + " " + std::string(dtype_name(node.dtype)) + ",";
}

// The node that asks for output `out`'s memory, and whether it is an input (a dense copy).
const ir::Node& output_node(const PlannedOutput& out, std::span<const ir::NodePtr> pending,
                            std::span<const ir::NodePtr> externals) {
  if (out.added) return *out.added;
  return out.external_copy ? *externals[out.node] : *pending[out.node];
}

void check_fits(const ir::Node& node, std::size_t bytes, bool input, std::size_t device_bytes,
                std::string_view device) {
  if (bytes <= device_bytes) return;
  throw RuntimeError("lazyfuse: " + request(node, input) + " needs " + bytes_text(bytes) +
                         " of GPU memory, more than " + std::string(device) + " has in all (" +
                         gib_text(device_bytes) +
                         "); nothing was allocated. Compute it in smaller pieces",
                     node.loc);
}

[[noreturn]] void throw_no_room(const ir::Node& node, std::size_t bytes, bool input,
                                const Device& device, const MemoryLimitExceeded* limit) {
  if (limit != nullptr) {
    throw RuntimeError("lazyfuse: " + request(node, input) + " needs " + bytes_text(bytes) +
                           " of GPU memory, which would take lazyfuse past its memory limit of " +
                           bytes_text(std::size_t(limit->limit)) +
                           " (lazy::set_memory_limit or "
                           "LAZY_MEMORY_LIMIT) with " +
                           bytes_text(std::size_t(limit->in_use)) +
                           " in use, even with the pool's cache freed. Drop the handles of "
                           "tensors you no longer need, raise the limit, or compute in smaller "
                           "pieces; the recorded work is kept, so the program can go on",
                       node.loc);
  }
  throw RuntimeError("lazyfuse: " + request(node, input) + " needs " + bytes_text(bytes) +
                         " of GPU memory, and " + device.description() +
                         " has no room left for it (CUDA_ERROR_OUT_OF_MEMORY; " +
                         gib_text(device.total_memory()) +
                         " in all). Drop the handles of tensors you no longer need, or compute "
                         "in smaller pieces; the recorded work is kept, so the program can go on",
                     node.loc);
}

}  // namespace

void check_plan_fits(const Plan& plan, std::span<const ir::NodePtr> pending,
                     std::span<const ir::NodePtr> externals, std::size_t device_bytes,
                     std::string_view device) {
  for (const PlannedKernel& kernel : plan.kernels) {
    for (const codegen::ArgSource& arg : kernel.args) {
      if (arg.kind != codegen::ArgSource::Kind::external_pointer) continue;
      const ir::Node& input = *externals[arg.value];
      check_fits(input, input.data->storage->bytes(), true, device_bytes, device);
    }
    for (const PlannedOutput& out : kernel.outputs) {
      check_fits(output_node(out, pending, externals), bytes_of(out.numel, out.dtype),
                 out.external_copy, device_bytes, device);
    }
  }
}

std::shared_ptr<ir::Storage> allocate_output(Device& device, const PlannedOutput& out,
                                             std::span<const ir::NodePtr> pending,
                                             std::span<const ir::NodePtr> externals) {
  try {
    return allocate_device_storage(device, out.dtype, out.numel);
  } catch (const OutOfDeviceMemory& error) {
    throw_no_room(output_node(out, pending, externals), bytes_of(out.numel, out.dtype),
                  out.external_copy, device, dynamic_cast<const MemoryLimitExceeded*>(&error));
  }
}

CUdeviceptr input_address(Device& device, const ir::Node& input) {
  try {
    return device_address(*input.data->storage, device);
  } catch (const OutOfDeviceMemory& error) {
    throw_no_room(input, input.data->storage->bytes(), true, device,
                  dynamic_cast<const MemoryLimitExceeded*>(&error));
  }
}

}  // namespace lazy::runtime
