// The values of a fuzz program's data leaves, drawn from a key. Written once as a macro so that a
// printed reproducer carries the same code as text (LAZY_FUZZ_INPUT_VALUES_TEXT).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

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
  }

#define LAZY_FUZZ_STRINGIFY(...) #__VA_ARGS__
#define LAZY_FUZZ_TEXT_OF(macro) LAZY_FUZZ_STRINGIFY(macro)

namespace lazy::fuzz {
LAZY_FUZZ_INPUT_VALUES()
// The same definitions as source text, for printed reproducers.
inline constexpr const char* kInputValuesText = LAZY_FUZZ_TEXT_OF(LAZY_FUZZ_INPUT_VALUES());
}  // namespace lazy::fuzz
