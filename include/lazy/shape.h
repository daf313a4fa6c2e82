// Shapes of rank 0 to kMaxRank, held inline so that copying one costs no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace lazy {

inline constexpr int kMaxRank = 8;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::span<const std::int64_t> dims);

  int rank() const { return rank_; }
  std::int64_t operator[](int axis) const { return dims_[axis]; }
  std::int64_t& operator[](int axis) { return dims_[axis]; }
  std::span<const std::int64_t> dims() const { return {dims_.data(), std::size_t(rank_)}; }
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + rank_; }

  // Product of the dims; 1 for rank 0.
  std::int64_t numel() const;

  // Appends one dim; throws lazy::ShapeError past kMaxRank.
  void push_back(std::int64_t dim);

  // "[16384, 4096]"
  std::string to_string() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i)
      if (a.dims_[i] != b.dims_[i]) return false;
    return true;
  }

 private:
  std::array<std::int64_t, kMaxRank> dims_{};
  std::int8_t rank_ = 0;
};

}  // namespace lazy
