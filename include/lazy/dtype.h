// Element types of lazyfuse tensors.
#pragma once

#include <cstdint>
#include <string_view>

namespace lazy {

enum class DType : std::uint8_t { f32, f16, bf16, i32, i64, bool_ };

inline constexpr DType f32 = DType::f32;
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType bool_ = DType::bool_;

// "f32", "bf16", "bool", ...
std::string_view dtype_name(DType dtype);

// Bytes one element occupies in memory (bool is one byte).
int itemsize(DType dtype);

constexpr bool is_floating(DType d) {
  return d == DType::f32 || d == DType::f16 || d == DType::bf16;
}
constexpr bool is_integer(DType d) {
  return d == DType::i32 || d == DType::i64;
}

}  // namespace lazy
