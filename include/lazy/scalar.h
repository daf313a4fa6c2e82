// A number given where a tensor could be: `x * 1.2f`, `maximum(x, 0)`. Scalars become inputs of
// the recorded graph, not constants in it, so changing one never changes the graph's key.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace lazy {

// The character types, which are arithmetic in C++ but not numbers to a tensor library.
template <class T>
inline constexpr bool is_character_type =
    std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

class Scalar {
 public:
  // The category decides type promotion as in PyTorch: a float scalar does not widen a bf16
  // tensor, an int scalar does not widen an i32 tensor.
  enum class Kind : std::uint8_t { boolean, integer, floating };

  // Any arithmetic type but the character types: x * 'a' is a typo, not a number.
  template <class T>
  requires(std::is_arithmetic_v<T> && !is_character_type<T>)
      Scalar(T value) {  // NOLINT(google-explicit-constructor): numbers stand in for tensors
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::boolean;
      int_ = value ? 1 : 0;
      float_ = int_;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::integer;
      int_ = static_cast<std::int64_t>(value);
      float_ = static_cast<double>(value);
      // A uint64 past INT64_MAX (or an __int128 past int64) would wrap in int_: ops refuse it
      // (lazy::ValueError).
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
        fits_int64_ = value <= T(INT64_MAX);
      } else if constexpr (sizeof(T) > sizeof(std::int64_t)) {
        fits_int64_ = value >= T(INT64_MIN) && value <= T(INT64_MAX);
      }
    } else {
      kind_ = Kind::floating;
      int_ = 0;
      if constexpr (sizeof(T) > sizeof(double)) {
        // A finite long double past double's range would be inf (or undefined): refused.
        fits_double_ = !(value > T(DBL_MAX) || value < T(-DBL_MAX)) || value != value ||
                       value - value != value - value;
        float_ = fits_double_ ? static_cast<double>(value) : (value > 0 ? HUGE_VAL : -HUGE_VAL);
      } else {
        float_ = static_cast<double>(value);
      }
    }
  }

  Kind kind() const { return kind_; }
  double to_double() const { return float_; }
  // Exact for boolean and integer scalars that fit in int64; 0 for a floating one (to_double).
  std::int64_t to_int() const { return int_; }
  // False for an integer past int64 (to_int() then holds its low bits).
  bool fits_int64() const { return fits_int64_; }
  // False for a finite long double past double's range (to_double() is then infinite).
  bool fits_double() const { return fits_double_; }

 private:
  Kind kind_;
  bool fits_int64_ = true;
  bool fits_double_ = true;
  double float_;
  std::int64_t int_;
};

}  // namespace lazy
