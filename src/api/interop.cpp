// DLPack and raw pointers in and out (lazy/interop.h): memory taken in becomes a computed leaf
// over a borrowed storage; a tensor given out hands its storage's memory with a reference to it.
#include "lazy/interop.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/recording.h"
#include "ir/layout.h"
#include "ir/storage.h"
#include "runtime/device.h"
#include "runtime/matmul_call.h"

namespace lazy {

namespace {

using ir::Op;

// DLPack 0.8's kDLBool, which Debian's 0.6 header lacks; PyTorch exports bool tensors with it.
constexpr std::uint8_t kDLBoolCode = 6;
// DLPack's code for managed (unified) memory, readable by the GPU as device memory.
constexpr int kDLCUDAManagedCode = 13;

std::string dlpack_dtype_text(const DLDataType& type) {
  return "code " + std::to_string(type.code) + " bits " + std::to_string(type.bits) + " lanes " +
         std::to_string(type.lanes);
}

DType dtype_of(const DLDataType& type, std::source_location loc) {
  if (type.lanes == 1) {
    if (type.code == kDLFloat && type.bits == 32) return DType::f32;
    if (type.code == kDLFloat && type.bits == 16) return DType::f16;
    if (type.code == kDLBfloat && type.bits == 16) return DType::bf16;
    if (type.code == kDLInt && type.bits == 32) return DType::i32;
    if (type.code == kDLInt && type.bits == 64) return DType::i64;
    if (type.code == kDLBoolCode && type.bits == 8) return DType::bool_;
  }
  api::fail<ValueError>(loc, "from_dlpack", "a DLPack dtype lazyfuse has no dtype for (",
                        dlpack_dtype_text(type),
                        "); it takes f32, f16, bf16, i32, i64 and bool (8-bit)");
}

DLDataType dlpack_dtype(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return {kDLFloat, 32, 1};
    case DType::f16:
      return {kDLFloat, 16, 1};
    case DType::bf16:
      return {kDLBfloat, 16, 1};
    case DType::i32:
      return {kDLInt, 32, 1};
    case DType::i64:
      return {kDLInt, 64, 1};
    case DType::bool_:
      return {kDLBoolCode, 8, 1};
  }
  return {kDLFloat, 32, 1};
}

// Elements from the first to the last one the strides (0 or more) reach: the wrapped storage;
// nothing when that is past kMaxElements (or int64), which no memory holds.
std::optional<std::int64_t> span_of(const Shape& shape, std::span<const std::int64_t> strides) {
  if (shape.numel() == 0) return 0;
  std::int64_t last = 0;
  for (int a = 0; a < shape.rank(); ++a) {
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(shape[a] - 1, strides[std::size_t(a)], &reach) ||
        __builtin_add_overflow(last, reach, &last) || last >= kMaxElements) {
      return std::nullopt;
    }
  }
  return last + 1;
}

// A computed leaf over memory someone else owns; `give_back` runs once lazyfuse is done with it.
Tensor wrap(std::byte* data, const Shape& shape, std::span<const std::int64_t> given_strides,
            DType dtype, bool on_device, std::function<void()> give_back, const char* op,
            std::source_location loc) {
  api::check_shape(shape, op, loc);
  // A negative stride that never moves (along an axis of one, or of an empty tensor) is taken as
  // 0: NumPy gives a reversed axis of one a negative stride, and to_dlpack sends it as dense.
  std::vector<std::int64_t> strides(given_strides.begin(), given_strides.end());
  for (std::size_t a = 0; a < strides.size(); ++a)
    if (strides[a] < 0 && (shape.numel() == 0 || shape[int(a)] <= 1)) strides[a] = 0;
  for (std::size_t a = 0; a < strides.size(); ++a) {
    if (strides[a] < 0) {
      api::fail<ValueError>(loc, op, "stride ", strides[a], " along axis ", a, " of ",
                            shape.to_string(),
                            ": negative strides are not supported (nor in PyTorch); pass a copy "
                            "laid out with strides of 0 or more");
    }
  }
  const std::optional<std::int64_t> reached = span_of(shape, strides);
  if (!reached) {
    std::string listed;
    for (std::int64_t stride : strides)
      listed += (listed.empty() ? "" : ", ") + std::to_string(stride);
    api::fail<ValueError>(
        loc, op, "strides [", listed, "] over ", shape.to_string(),
        " reach past 2^60 elements, more memory than there is; check the strides");
  }
  const std::int64_t span = *reached;
  std::shared_ptr<ir::Storage> storage;
  std::int64_t offset = 0;
  if (on_device) {
    runtime::Device* device = runtime::Device::get();
    if (device == nullptr) {
      api::fail<ValueError>(loc, op, "device memory, but lazyfuse computes on the host (",
                            runtime::Device::why_host(), ")");
    }
    // Plans take a storage to start aligned as the pool's blocks do, and an input's alignment
    // from its offset: the storage starts at the aligned address below the data (inside the same
    // allocation, whose start is aligned), the difference its offset. A view PyTorch gives out
    // (t[1:]) would otherwise get 16-byte loads from an address 4 bytes past a multiple of 16.
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t base = address & ~std::uintptr_t(runtime::kPoolAlignment - 1);
    if ((address - base) % std::uintptr_t(itemsize(dtype)) != 0) {
      api::fail<ValueError>(loc, op, "the data pointer is not a multiple of the ", itemsize(dtype),
                            "-byte ", dtype_name(dtype),
                            " elements apart from any 256-byte boundary; pass aligned memory");
    }
    offset = std::int64_t(address - base) / itemsize(dtype);
    std::shared_ptr<runtime::DeviceBuffer> buffer = device->adopt(
        base, std::size_t(span + offset) * std::size_t(itemsize(dtype)), std::move(give_back));
    storage = std::make_shared<ir::Storage>(dtype, span + offset, std::move(buffer), base);
  } else {
    auto owner = std::shared_ptr<void>(nullptr, [give_back = std::move(give_back)](void*) {
      if (give_back) give_back();
    });
    storage =
        std::make_shared<ir::Storage>(dtype, span, ir::Storage::Borrowed{std::move(owner), data});
  }
  ir::Layout layout;
  layout.shape = shape;
  layout.offset = offset;
  std::copy(strides.begin(), strides.end(), layout.strides.begin());
  ir::NodePtr node = ir::make_node(Op::Data, dtype, shape, loc);
  node->data = std::make_unique<ir::TensorData>(std::move(storage), layout);
  return Tensor(node);
}

// What a DLPack tensor given out holds: lazyfuse's storage, and the arrays its DLTensor points
// into.
struct Export {
  DLManagedTensor managed{};
  std::shared_ptr<const ir::Storage> storage;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

void delete_export(DLManagedTensor* managed) {
  std::unique_ptr<Export> held(static_cast<Export*>(managed->manager_ctx));
  // The consumer's streams must be done with the memory before lazyfuse frees it into its pool or
  // writes over it: now when this is the last reference, else when that happens.
  if (held->storage->on_device) {
    if (runtime::Device* device = runtime::Device::get()) {
      device->released_by_consumer(held->storage->device_owner, held->storage.use_count() == 1);
    }
  }
}

void call_deleter(DLManagedTensor* tensor) {
  if (tensor->deleter != nullptr) tensor->deleter(tensor);
}

}  // namespace

void set_stream(CUstream stream) {
  if (runtime::Device* device = runtime::Device::get()) device->set_caller_stream(stream);
}

CUstream get_stream() {
  runtime::Device* device = runtime::Device::get();
  return device != nullptr ? device->caller_stream() : nullptr;
}

Tensor from_dlpack(DLManagedTensor* tensor, std::source_location loc) {
  if (tensor == nullptr) api::fail<ValueError>(loc, "from_dlpack", "got a null DLManagedTensor");
  // Owned from here on: the deleter runs however this ends.
  std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> guard(tensor, call_deleter);
  auto give_back = [tensor] { call_deleter(tensor); };
  const DLTensor& dl = tensor->dl_tensor;
  const DType dtype = dtype_of(dl.dtype, loc);
  if (dl.ndim < 0 || dl.ndim > kMaxRank) {
    api::fail<ValueError>(loc, "from_dlpack", "a tensor of rank ", dl.ndim,
                          "; lazyfuse takes 0 to ", kMaxRank);
  }
  Shape shape;
  for (int a = 0; a < dl.ndim; ++a) shape.push_back(dl.shape[a]);
  // No strides in a DLTensor means a dense row-major one.
  const ir::Layout dense = ir::Layout::contiguous(shape);
  const std::span<const std::int64_t> strides(
      dl.strides != nullptr ? dl.strides : dense.strides.data(), std::size_t(dl.ndim));
  bool on_device = false;
  switch (int(dl.device.device_type)) {
    case kDLCPU:
    case kDLCUDAHost:
      break;
    case kDLCUDA:
    case kDLCUDAManagedCode: {
      on_device = true;
      const runtime::Device* device = runtime::Device::get();
      if (device != nullptr && dl.device.device_id != device->ordinal()) {
        api::fail<ValueError>(loc, "from_dlpack", "memory of GPU ", dl.device.device_id,
                              ", but lazyfuse computes on GPU ", device->ordinal(),
                              " (LAZY_DEVICE); copy it there first");
      }
      break;
    }
    default:
      api::fail<ValueError>(loc, "from_dlpack", "memory of DLPack device type ",
                            int(dl.device.device_type),
                            "; lazyfuse takes kDLCUDA (its GPU), kDLCPU and kDLCUDAHost");
  }
  auto* data = static_cast<std::byte*>(dl.data) + dl.byte_offset;
  Tensor wrapped = wrap(data, shape, strides, dtype, on_device, give_back, "from_dlpack", loc);
  guard.release();  // the storage calls the deleter now
  return wrapped;
}

DLManagedTensor* to_dlpack(const Tensor& tensor, std::source_location loc) {
  api::defined_node(tensor, "to_dlpack", loc);
  // Computed, and finished or ordered before the caller's stream, as data_ptr says.
  auto* first = static_cast<std::byte*>(tensor.data_ptr(loc));
  const ir::TensorData& data = *tensor.node()->data;
  // A reversed view goes out as a dense copy: PyTorch and DLPack's other consumers (ours too)
  // refuse negative strides. One along an axis of size 1 (or of an empty tensor) steps nowhere:
  // it goes out as the dense stride, with no copy (contiguous() would make none).
  const ir::Layout& layout = data.layout;
  const bool empty = layout.shape.numel() == 0;
  for (int a = 0; a < layout.shape.rank(); ++a) {
    if (layout.strides[a] < 0 && layout.shape[a] > 1 && !empty)
      return to_dlpack(tensor.contiguous(loc), loc);
  }
  const runtime::Device* device = runtime::Device::get();
  auto held = std::make_unique<Export>();
  held->storage = data.storage;
  const ir::Storage& storage = *data.storage;
  DLTensor& dl = held->managed.dl_tensor;
  // The first element itself, with no byte_offset, as PyTorch's and IREE's exports do: PyTorch
  // up to 2.9 and other consumers ignore byte_offset, and would read a view from its base.
  dl.byte_offset = 0;
  dl.data = first;
  dl.device = device != nullptr ? DLDevice{kDLCUDA, device->ordinal()} : DLDevice{kDLCPU, 0};
  held->shape.assign(layout.shape.begin(), layout.shape.end());
  held->strides.assign(layout.strides.begin(), layout.strides.begin() + layout.shape.rank());
  const ir::Layout dense = ir::Layout::contiguous(layout.shape);
  for (int a = 0; a < layout.shape.rank(); ++a)
    if (held->strides[std::size_t(a)] < 0) held->strides[std::size_t(a)] = dense.strides[a];
  dl.ndim = layout.shape.rank();
  dl.dtype = dlpack_dtype(storage.dtype);
  dl.shape = held->shape.data();
  dl.strides = held->strides.data();
  held->managed.manager_ctx = held.get();
  held->managed.deleter = delete_export;
  return &held.release()->managed;
}

Tensor from_blob(void* data, const Shape& shape, std::span<const std::int64_t> strides, DType dtype,
                 MemoryKind memory, std::function<void(void*)> deleter, std::source_location loc) {
  if (!strides.empty() && std::int64_t(strides.size()) != shape.rank()) {
    api::fail<ValueError>(loc, "from_blob", strides.size(), " strides for the ", shape.rank(),
                          " axes of ", shape.to_string());
  }
  api::check_shape(shape, "from_blob", loc);  // before numel(), which a negative size upsets
  if (data == nullptr && shape.numel() > 0) {
    api::fail<ValueError>(loc, "from_blob", "a null pointer for ", shape.numel(), " elements");
  }
  const ir::Layout dense = ir::Layout::contiguous(shape);
  auto give_back = [data, deleter = std::move(deleter)] {
    if (deleter) deleter(data);
  };
  return wrap(
      static_cast<std::byte*>(data), shape,
      strides.empty() ? std::span(dense.strides.data(), std::size_t(shape.rank())) : strides, dtype,
      memory == MemoryKind::cuda, std::move(give_back), "from_blob", loc);
}

}  // namespace lazy
