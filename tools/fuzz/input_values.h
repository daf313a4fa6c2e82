// The values of a fuzz program's data leaves, drawn from a key. Written once as a macro so that a
// printed reproducer carries the same code as text (LAZY_FUZZ_INPUT_VALUES_TEXT).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <lazy/lazy.h>

#define LAZY_FUZZ_INPUT_VALUES(...)                                                             \
  inline std::uint64_t fz_mix(std::uint64_t z) {                                                \
    z += 0x9e3779b97f4a7c15ull;                                                                 \
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;                                                \
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;                                                \
    return z ^ (z >> 31);                                                                       \
  }                                                                                             \
  inline std::vector<double> fz_floats(std::uint64_t key, std::int64_t n, double lo, double hi, \
                                       int q, int special) {                                    \
    static const double specials[4] = {std::numeric_limits<double>::quiet_NaN(),                \
                                       std::numeric_limits<double>::infinity(),                 \
                                       -std::numeric_limits<double>::infinity(), -0.0};         \
    std::vector<double> v(static_cast<std::size_t>(n));                                         \
    for (std::int64_t i = 0; i < n; ++i) {                                                      \
      std::uint64_t r = fz_mix(key + static_cast<std::uint64_t>(i));                            \
      double x = lo + (hi - lo) * static_cast<double>(r >> 11) * 0x1p-53;                       \
      if (q >= 0) x = std::nearbyint(std::ldexp(x, q)) * std::ldexp(1.0, -q);                   \
      if (static_cast<int>(r & 127) < special) x = specials[(r >> 7) & 3];                      \
      v[static_cast<std::size_t>(i)] = x;                                                       \
    }                                                                                           \
    return v;                                                                                   \
  }                                                                                             \
  inline std::vector<std::int64_t> fz_ints(std::uint64_t key, std::int64_t n, std::int64_t lo,  \
                                           std::int64_t hi) {                                   \
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));                                   \
    for (std::int64_t i = 0; i < n; ++i)                                                        \
      v[static_cast<std::size_t>(i)] =                                                          \
          lo + static_cast<std::int64_t>(fz_mix(key + static_cast<std::uint64_t>(i)) %          \
                                         static_cast<std::uint64_t>(hi - lo + 1));              \
    return v;                                                                                   \
  }                                                                                             \
  inline std::vector<bool> fz_bools(std::uint64_t key, std::int64_t n, int percent) {           \
    std::vector<bool> v(static_cast<std::size_t>(n));                                           \
    for (std::int64_t i = 0; i < n; ++i)                                                        \
      v[static_cast<std::size_t>(i)] =                                                          \
          static_cast<int>(fz_mix(key + static_cast<std::uint64_t>(i)) % 100) < percent;        \
    return v;                                                                                   \
  }                                                                                             \
  /* The values (row-major) in memory lazyfuse takes in through from_blob: layout 1 starts one  \
     element in, rows padded by 3 (off the 16-byte alignment); layout 2 has the axes in reverse \
     order (column-major). The buffer is a tensor of its own, kept by the deleter. */           \
  template <class T>                                                                            \
  lazy::Tensor fz_external(const std::vector<T>& values, const lazy::Shape& shape,              \
                           lazy::DType dtype, int layout) {                                     \
    const int rank = shape.rank();                                                              \
    if (values.empty() || rank == 0) return lazy::from_data(values, shape, dtype);              \
    std::vector<std::int64_t> strides(static_cast<std::size_t>(rank));                          \
    std::int64_t step = 1;                                                                      \
    for (int j = 0; j < rank; ++j) {                                                            \
      const int k = layout == 1 ? rank - 1 - j : j;                                             \
      strides[static_cast<std::size_t>(k)] = step;                                              \
      step *= shape[k] + (layout == 1 && j == 0 ? 3 : 0);                                       \
    }                                                                                           \
    const std::int64_t start = layout == 1 ? 1 : 0;                                             \
    std::vector<T> buffer(static_cast<std::size_t>(start + step), T{});                         \
    std::vector<std::int64_t> at(static_cast<std::size_t>(rank), 0);                            \
    for (std::size_t i = 0; i < values.size(); ++i) {                                           \
      std::int64_t offset = start;                                                              \
      for (int k = 0; k < rank; ++k)                                                            \
        offset += at[static_cast<std::size_t>(k)] * strides[static_cast<std::size_t>(k)];       \
      buffer[static_cast<std::size_t>(offset)] = values[i];                                     \
      for (int k = rank - 1; k >= 0 && ++at[static_cast<std::size_t>(k)] == shape[k]; --k)      \
        at[static_cast<std::size_t>(k)] = 0;                                                    \
    }                                                                                           \
    lazy::Tensor memory =                                                                       \
        lazy::from_data(buffer, lazy::Shape{static_cast<std::int64_t>(buffer.size())}, dtype);  \
    char* base = static_cast<char*>(memory.data_ptr()) + start * lazy::itemsize(dtype);         \
    return lazy::from_blob(base, shape, strides, dtype,                                         \
                           lazy::on_gpu() ? lazy::MemoryKind::cuda : lazy::MemoryKind::host,    \
                           [memory](void*) {});                                                 \
  }

#define LAZY_FUZZ_STRINGIFY(...) #__VA_ARGS__
#define LAZY_FUZZ_TEXT_OF(macro) LAZY_FUZZ_STRINGIFY(macro)

namespace lazy::fuzz {
LAZY_FUZZ_INPUT_VALUES()
// The same definitions as source text, for printed reproducers.
inline constexpr const char* kInputValuesText = LAZY_FUZZ_TEXT_OF(LAZY_FUZZ_INPUT_VALUES());
}  // namespace lazy::fuzz
