// Ways to make a tensor. Factories record ops like any other call (the data of from_data is
// copied at the call), so filling and random generation fuse with their consumers later.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

#include "lazy/tensor.h"

namespace lazy {

// Copies host data. The element count must match the shape. Without a dtype the tensor takes
// the data's type (double data gives f32, as PyTorch's default float type); with one, values are
// converted (rounded to nearest even for f16 and bf16).
// Bool data as one byte per element (non-zero is true), since std::vector<bool> has no data().
Tensor from_bool_bytes(std::span<const std::uint8_t> data, const Shape& shape,
                       std::optional<DType> dtype = {},
                       std::source_location loc = std::source_location::current());
template <HostElement T>
Tensor from_data(std::span<const T> data, const Shape& shape, std::optional<DType> dtype = {},
                 std::source_location loc = std::source_location::current());
template <HostElement T>
Tensor from_data(const std::vector<T>& data, const Shape& shape, std::optional<DType> dtype = {},
                 std::source_location loc = std::source_location::current()) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::uint8_t> bytes(data.begin(), data.end());
    return from_bool_bytes(bytes, shape, dtype, loc);
  } else {
    return from_data(std::span<const T>(data), shape, dtype, loc);
  }
}

Tensor zeros(const Shape& shape, DType dtype = DType::f32,
             std::source_location loc = std::source_location::current());
Tensor ones(const Shape& shape, DType dtype = DType::f32,
            std::source_location loc = std::source_location::current());
// Without a dtype: f32 for a float value, i64 for an integer, bool for a bool (as torch.full).
Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype = {},
            std::source_location loc = std::source_location::current());

// [start, stop) in steps of step. Without a dtype: i64 when all three are integers, else f32.
Tensor arange(Scalar start, Scalar stop, Scalar step = 1, std::optional<DType> dtype = {},
              std::source_location loc = std::source_location::current());
Tensor arange(Scalar stop, std::source_location loc = std::source_location::current());

// Uniform on [0, 1) and standard normal, from Philox-4x32-10 keyed by seed: the same seed and
// shape give the same values on every backend (randn's within f32 rounding). Floating dtypes only.
Tensor rand(const Shape& shape, std::uint64_t seed, DType dtype = DType::f32,
            std::source_location loc = std::source_location::current());
Tensor randn(const Shape& shape, std::uint64_t seed, DType dtype = DType::f32,
             std::source_location loc = std::source_location::current());

// `steps` values from start to end, evenly spaced, both ends included (PyTorch's linspace): the
// first half counts up from start by (end - start) / (steps - 1), the second half down from end,
// so both ends are exact. Without a dtype: f32. Floating dtypes compute in f32 and round once;
// integer dtypes take each exact quotient truncated toward zero (PyTorch computes it in double,
// which can land one below an exact integer). One step gives [start]; zero steps, [].
Tensor linspace(Scalar start, Scalar end, std::int64_t steps, std::optional<DType> dtype = {},
                std::source_location loc = std::source_location::current());

// torch.eye: a [rows, columns] matrix (columns = rows by default) with ones on its main diagonal.
Tensor eye(std::int64_t rows, std::optional<std::int64_t> columns = {}, DType dtype = DType::f32,
           std::source_location loc = std::source_location::current());

// How meshgrid lays out its grids: "ij" indexes them as the inputs are given, "xy" swaps the
// first two axes (Cartesian, as NumPy's default).
enum class MeshIndexing { ij, xy };
// torch.meshgrid: for N 1-d (or 0-d, as one element) tensors of one dtype, of sizes n0, n1, ..., N grids of
// shape [n0, n1, ...] (xy: [n1, n0, ...]), grid k holding tensor k's value along its axis. Views
// of the inputs (expanded), so they fuse with what reads them.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors,
                             MeshIndexing indexing = MeshIndexing::ij,
                             std::source_location loc = std::source_location::current());

// Factories shaped like x, in x's dtype unless one is given (as torch.zeros_like and its kin).
// Only the shape and dtype are taken: x is not computed, and the result does not depend on it.
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype = {},
                  std::source_location loc = std::source_location::current());
Tensor ones_like(const Tensor& x, std::optional<DType> dtype = {},
                 std::source_location loc = std::source_location::current());
Tensor full_like(const Tensor& x, Scalar value, std::optional<DType> dtype = {},
                 std::source_location loc = std::source_location::current());
Tensor rand_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype = {},
                 std::source_location loc = std::source_location::current());
Tensor randn_like(const Tensor& x, std::uint64_t seed, std::optional<DType> dtype = {},
                  std::source_location loc = std::source_location::current());

}  // namespace lazy
