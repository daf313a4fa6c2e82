// A number given where a tensor could be: `x * 1.2f`, `maximum(x, 0)`. Scalars become inputs of
// the recorded graph, not constants in it, so changing one never changes the graph's key.
#pragma once

#include <cstdint>
#include <type_traits>

namespace lazy {

class Scalar {
 public:
  // The category decides type promotion as in PyTorch: a float scalar does not widen a bf16
  // tensor, an int scalar does not widen an i32 tensor.
  enum class Kind : std::uint8_t { boolean, integer, floating };

  template <class T>
  requires std::is_arithmetic_v<T> Scalar(
      T value) {  // NOLINT(google-explicit-constructor): numbers stand in for tensors
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::boolean;
      int_ = value ? 1 : 0;
      float_ = int_;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::integer;
      int_ = static_cast<std::int64_t>(value);
      float_ = static_cast<double>(value);
      // A uint64 past INT64_MAX would wrap in int_: ops refuse it (lazy::ValueError).
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == sizeof(std::int64_t)) {
        fits_int64_ = value <= std::uint64_t(INT64_MAX);
      }
    } else {
      kind_ = Kind::floating;
      float_ = static_cast<double>(value);
      int_ = 0;
    }
  }

  Kind kind() const { return kind_; }
  double to_double() const { return float_; }
  // Exact for boolean and integer scalars that fit in int64.
  std::int64_t to_int() const { return int_; }
  // False for an unsigned integer above INT64_MAX (to_int() then holds its bits).
  bool fits_int64() const { return fits_int64_; }

 private:
  Kind kind_;
  bool fits_int64_ = true;
  double float_;
  std::int64_t int_;
};

}  // namespace lazy
