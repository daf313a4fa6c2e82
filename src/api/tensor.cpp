#include "lazy/tensor.h"

#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "ir/host_memory.h"
#include "lazy/sync.h"
#include "runtime/device.h"
#include "runtime/index_faults.h"
#include "runtime/storage_mirror.h"

namespace lazy {

namespace {

// The computed values of a tensor, syncing its thread's trace first if needed.
const ir::TensorData& computed_data(const Tensor& t, std::string_view op,
                                    std::source_location loc) {
  ir::Node* node = api::node_of(t, op, loc);
  // A replay would not read the value again; a gradient cannot be traced through a sync.
  if (api::capturing() || (!node->data && api::syncs_refused()))
    api::refuse_while_capturing("read (" + std::string(op) + ")", loc);
  if (!node->data) sync();
  return *node->data;
}

// Calls fn(storage_index) for each element in row-major order of the layout.
template <class Fn>
void for_each_element(const ir::Layout& layout, Fn fn) {
  std::int64_t n = layout.shape.numel();
  if (n == 0) return;
  int rank = layout.shape.rank();
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t offset = layout.offset;
  for (std::int64_t i = 0; i < n; ++i) {
    fn(offset);
    for (int axis = rank - 1; axis >= 0; --axis) {
      if (++index[axis] < layout.shape[axis]) {
        offset += layout.strides[axis];
        break;
      }
      offset -= layout.strides[axis] * (layout.shape[axis] - 1);
      index[axis] = 0;
    }
  }
}

}  // namespace

namespace ir {

void add_handle(Node* node) noexcept {
  node->owners.fetch_add(1, std::memory_order_relaxed);
}

void drop_handle(Node* node) noexcept {
  drop_owner(node);
}

}  // namespace ir

Tensor::Tensor(ir::NodePtr node) : node_(node.release()) {}

DType Tensor::dtype(std::source_location loc) const {
  return api::defined_node(*this, "dtype", loc)->dtype;
}

const Shape& Tensor::shape(std::source_location loc) const {
  return api::defined_node(*this, "shape", loc)->shape;
}

std::int64_t Tensor::size(int axis, std::source_location loc) const {
  ir::Node* node = api::defined_node(*this, "size", loc);
  return node->shape[api::normalize_axis(axis, node->shape.rank(), "size", loc)];
}

bool Tensor::is_evaluated() const {
  return node_ && node_->data != nullptr;
}

void Tensor::item_to_host(HostType as, void* dst, std::source_location loc) const {
  if (node_ && node_->shape.numel() != 1) {
    api::fail<ShapeError>(loc, "item", "needs a tensor of one element, not shape ",
                          node_->shape.to_string());
  }
  const ir::TensorData& data = computed_data(*this, "item", loc);
  // The sync only queued the work: the copy waits for it, and only then do the index faults of
  // the kernels that made the value show (found by racecheck, whose slow kernels finished after
  // a check made before the copy).
  convert_to_host(data, as, dst);
  runtime::raise_index_faults();
  // Checked, as LibTorch's item<T>() (c10's checked_convert): NaN, or a value outside the
  // integer's range, is an error where a cast would saturate or wrap.
  const DType dtype = data.storage->dtype;
  if ((as == HostType::i32 || as == HostType::i64) && is_floating(dtype)) {
    double value = 0;
    convert_to_host(data, HostType::f64, &value);
    const double limit = as == HostType::i32 ? 2147483648.0 : 9223372036854775808.0;
    if (!(value >= -limit && value < limit)) {
      api::fail<ValueError>(loc, "item", "the ", dtype_name(dtype), " value ",
                            api::number_text(value), " does not fit ",
                            as == HostType::i32 ? "std::int32_t" : "std::int64_t",
                            "; read it as a double");
    }
  } else if (as == HostType::i32 && is_integer(dtype)) {
    std::int64_t value = 0;
    convert_to_host(data, HostType::i64, &value);
    if (value != std::int32_t(value)) {
      api::fail<ValueError>(loc, "item", "the value ", value,
                            " does not fit std::int32_t; read it as std::int64_t");
    }
  }
}

std::size_t Tensor::host_elements(std::size_t element_bytes, std::source_location loc) const {
  const std::int64_t n = api::node_of(*this, "to_vector", loc)->shape.numel();
  ir::check_fits_in_host_memory(n, std::int64_t(element_bytes), "to_vector", loc);
  return std::size_t(n);
}

void* Tensor::data_ptr(std::source_location loc) const {
  const ir::TensorData& data = computed_data(*this, "data_ptr", loc);
  const ir::Storage& storage = *data.storage;
  const auto offset = std::size_t(data.layout.offset * itemsize(storage.dtype));
  runtime::Device* device = runtime::Device::get();
  if (device == nullptr) return const_cast<std::byte*>(runtime::host_bytes(storage)) + offset;
  const CUdeviceptr address = runtime::device_address(storage, *device);
  // The consumer reads it on its own streams, which lazyfuse cannot see: no write over it in
  // place, and its reuse waits for them (lazy/interop.h).
  device->given_out(storage.device_owner);
  // On the caller's stream the sync ordered itself already; any other stream must find it done,
  // and then a bad index of the work that wrote it is thrown here, as a host read throws it.
  if (!device->make_caller_wait()) {
    device->synchronize();
    runtime::raise_index_faults();
  }
  return reinterpret_cast<void*>(address + offset);
}

std::vector<std::int64_t> Tensor::strides(std::source_location loc) const {
  // Of a computed tensor, read even while capturing: a layout, not values, and fixed for the
  // capture (its inputs' layouts are part of what it is for).
  const ir::Node* node = api::node_of(*this, "strides", loc);
  const ir::Layout& layout =
      node->data ? node->data->layout : computed_data(*this, "strides", loc).layout;
  return {layout.strides.begin(), layout.strides.begin() + layout.shape.rank()};
}

void Tensor::copy_to_host(HostType as, void* dst, std::source_location loc) const {
  const ir::TensorData& data = computed_data(*this, "to_vector", loc);
  DType dtype = data.storage->dtype;
  // The common case, a dense tensor read as its own type: one copy.
  bool same_type = (as == HostType::f32 && dtype == DType::f32) ||
                   (as == HostType::i32 && dtype == DType::i32) ||
                   (as == HostType::i64 && dtype == DType::i64) ||
                   (as == HostType::boolean && dtype == DType::bool_);
  if (same_type && data.layout.is_contiguous()) {
    runtime::copy_storage_to_host(
        *data.storage, std::size_t(data.layout.offset * itemsize(dtype)),
        std::size_t(data.layout.shape.numel()) * std::size_t(itemsize(dtype)), dst);
    runtime::raise_index_faults();
    return;
  }
  convert_to_host(data, as, dst);
  runtime::raise_index_faults();
}

void Tensor::convert_to_host(const ir::TensorData& data, HostType as, void* dst) {
  const DType dtype = data.storage->dtype;
  const void* src = runtime::host_bytes(*data.storage);
  std::int64_t i = 0;
  for_each_element(data.layout, [&](std::int64_t offset) {
    switch (as) {
      case HostType::f32:
        // An integer straight to float: through double, 2^60 + 2^36 + 1 would round twice.
        static_cast<float*>(dst)[i] = is_floating(dtype)
                                          ? float(ir::load_as_double(src, dtype, offset))
                                          : float(ir::load_as_int(src, dtype, offset));
        break;
      case HostType::f64:
        static_cast<double*>(dst)[i] = ir::load_as_double(src, dtype, offset);
        break;
      case HostType::i32:
        if (is_floating(dtype)) {
          ir::store_double(dst, DType::i32, i, ir::load_as_double(src, dtype, offset));
        } else {
          ir::store_int(dst, DType::i32, i, ir::load_as_int(src, dtype, offset));
        }
        break;
      case HostType::i64:
        static_cast<std::int64_t*>(dst)[i] = ir::load_as_int(src, dtype, offset);
        break;
      case HostType::boolean:
        static_cast<std::uint8_t*>(dst)[i] = ir::load_as_double(src, dtype, offset) != 0;
        break;
    }
    ++i;
  });
}

}  // namespace lazy
