// lazy::Tensor: a cheap value handle to a recorded op or to data already computed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "lazy/dtype.h"
#include "lazy/scalar.h"
#include "lazy/shape.h"

namespace lazy {

namespace ir {
struct Node;
struct TensorData;
class NodePtr;
// A handle's owner of its node, added and dropped in the library, where a node is complete.
void add_handle(Node* node) noexcept;
void drop_handle(Node* node) noexcept;
}  // namespace ir

// Element types a tensor can be read into on the host.
template <class T>
concept HostElement = std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>;

// Tensors are immutable values. Copying a handle is cheap and shares the node. Ops on tensors
// record work; reading values (item, to_vector) is a sync point that computes everything the
// thread has recorded and still holds.
class Tensor {
 public:
  // An undefined handle; any op on it throws lazy::ValueError.
  Tensor() = default;
  Tensor(const Tensor& other) : node_(other.node_) {
    if (node_ != nullptr) ir::add_handle(node_);
  }
  Tensor(Tensor&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  Tensor& operator=(const Tensor& other) {
    Tensor copy(other);
    std::swap(node_, copy.node_);
    return *this;
  }
  Tensor& operator=(Tensor&& other) noexcept {
    Tensor taken(std::move(other));
    std::swap(node_, taken.node_);
    return *this;
  }
  ~Tensor() {
    if (node_ != nullptr) ir::drop_handle(node_);
  }

  bool defined() const { return node_ != nullptr; }
  // These throw lazy::ValueError, naming the caller's line, on an undefined tensor.
  DType dtype(std::source_location loc = std::source_location::current()) const;
  const Shape& shape(std::source_location loc = std::source_location::current()) const;
  int rank(std::source_location loc = std::source_location::current()) const {
    return shape(loc).rank();
  }
  std::int64_t numel(std::source_location loc = std::source_location::current()) const {
    return shape(loc).numel();
  }
  // Size of one axis; negative axes count from the end.
  std::int64_t size(int axis, std::source_location loc = std::source_location::current()) const;
  // True once a sync has computed this tensor's values.
  bool is_evaluated() const;

  // Sync points. item() needs a tensor of one element.
  // The element converted to T, checked as LibTorch's item<T>(): NaN, or a value past T's range,
  // into an integer T is a lazy::ValueError (to_vector converts as a cast would).
  template <HostElement T>
  T item(std::source_location loc = std::source_location::current()) const {
    if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t value = 0;
      item_to_host(HostType::boolean, &value, loc);
      return value != 0;
    } else {
      T value{};
      item_to_host(host_type<T>(), &value, loc);
      return value;
    }
  }
  // All elements in row-major order, converted to T as a cast would. Throws lazy::RuntimeError,
  // before allocating or computing anything, when they would not fit in the host's memory.
  template <HostElement T>
  std::vector<T> to_vector(std::source_location loc = std::source_location::current()) const {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<std::uint8_t> bytes(host_elements(sizeof(std::uint8_t), loc));
      copy_to_host(HostType::boolean, bytes.data(), loc);
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> values(host_elements(sizeof(T), loc));
      copy_to_host(host_type<T>(), values.data(), loc);
      return values;
    }
  }

  // Where the values are, for code outside lazyfuse (lazy/interop.h says how long it stays
  // valid): the address of element 0, computed and finished first, in device memory when lazyfuse
  // computes on a GPU, host memory otherwise; and the steps between neighbours along each axis,
  // in elements, as the computed tensor is laid out.
  void* data_ptr(std::source_location loc = std::source_location::current()) const;
  std::vector<std::int64_t> strides(
      std::source_location loc = std::source_location::current()) const;

  // Views: they change how elements are indexed and never copy.
  // reshape accepts one -1, inferred from the element count.
  Tensor reshape(const Shape& shape,
                 std::source_location loc = std::source_location::current()) const;
  Tensor permute(std::span<const int> axes,
                 std::source_location loc = std::source_location::current()) const;
  Tensor permute(std::initializer_list<int> axes,
                 std::source_location loc = std::source_location::current()) const;
  Tensor transpose(int axis0, int axis1,
                   std::source_location loc = std::source_location::current()) const;
  // NumPy broadcasting to `shape`; a -1 keeps the existing size of that axis.
  Tensor expand(const Shape& shape,
                std::source_location loc = std::source_location::current()) const;
  Tensor broadcast_to(const Shape& shape,
                      std::source_location loc = std::source_location::current()) const;
  // NumPy's x[start:stop:step] along one axis: negative indices count from the end, bounds are
  // clamped, an absent start or stop takes the default for the step's sign, step is not 0.
  Tensor slice(int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
               std::int64_t step = 1,
               std::source_location loc = std::source_location::current()) const;
  // Removes every axis of size 1, or just `axis` if its size is 1 (else x as it is, as PyTorch).
  Tensor squeeze(std::source_location loc = std::source_location::current()) const;
  Tensor squeeze(int axis, std::source_location loc = std::source_location::current()) const;
  Tensor unsqueeze(int axis, std::source_location loc = std::source_location::current()) const;
  // Merges axes start_axis..end_axis (inclusive) into one.
  Tensor flatten(int start_axis = 0, int end_axis = -1,
                 std::source_location loc = std::source_location::current()) const;

  // A copy laid out densely in row-major order.
  Tensor contiguous(std::source_location loc = std::source_location::current()) const;
  // Conversion to another dtype, as static_cast would (floats to integers truncate).
  Tensor to(DType dtype, std::source_location loc = std::source_location::current()) const;

  // For the library's own modules: a handle taking over the owner `node` holds.
  explicit Tensor(ir::NodePtr node);
  ir::Node* node() const { return node_; }

 private:
  enum class HostType { f32, f64, i32, i64, boolean };
  template <class T>
  static constexpr HostType host_type() {
    if constexpr (std::is_same_v<T, float>) return HostType::f32;
    if constexpr (std::is_same_v<T, double>) return HostType::f64;
    if constexpr (std::is_same_v<T, std::int32_t>) return HostType::i32;
    return HostType::i64;
  }
  void item_to_host(HostType as, void* dst, std::source_location loc) const;
  // Each element of `data`, in row-major order, converted as a cast would (rounded once).
  static void convert_to_host(const ir::TensorData& data, HostType as, void* dst);
  // The element count of a host copy of `element_bytes` per element, once it is known to fit.
  std::size_t host_elements(std::size_t element_bytes, std::source_location loc) const;
  void copy_to_host(HostType as, void* dst, std::source_location loc) const;

  ir::Node* node_ = nullptr;  // counts as one of the node's owners
};

}  // namespace lazy
