// Shapes of rank 0 to kMaxRank, held inline so that copying one costs no allocation.
//
// A shape of more than kMaxRank dims cannot be held, so it is refused where it is made: the
// constructors and push_back throw lazy::ShapeError naming `loc`, which defaults to the line that
// wrote the shape (for `lazy::ones({...})`, the user's call). Sizes are checked by the op that
// receives the shape, since only it knows whether -1 means something.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <span>
#include <string>

namespace lazy {

inline constexpr int kMaxRank = 8;

// The most elements a tensor may have (its sizes other than 0 multiplied): 2^60, so that the
// bytes of any tensor in any dtype (8 bytes at most per element), and every stride, fit in an
// int64. Ops throw lazy::ShapeError for a larger result instead of letting a count wrap.
inline constexpr std::int64_t kMaxElements = std::int64_t(1) << 60;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<std::int64_t> dims,
        std::source_location loc = std::source_location::current());
  explicit Shape(std::span<const std::int64_t> dims,
                 std::source_location loc = std::source_location::current());

  int rank() const { return rank_; }
  // The size of an axis; a negative one counts from the end (shape[-1] is the last). Outside
  // [-rank, rank) throws lazy::AxisError.
  std::int64_t operator[](int axis) const { return dims_[std::size_t(checked(axis))]; }
  std::int64_t& operator[](int axis) { return dims_[std::size_t(checked(axis))]; }
  std::span<const std::int64_t> dims() const { return {dims_.data(), std::size_t(rank_)}; }
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + rank_; }

  // Product of the dims; 1 for rank 0. Exact for every shape an op accepted (kMaxElements).
  std::int64_t numel() const;

  // Appends one dim; throws lazy::ShapeError past kMaxRank.
  void push_back(std::int64_t dim, std::source_location loc = std::source_location::current());

  // "[16384, 4096]"
  std::string to_string() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i)
      if (a.dims_[i] != b.dims_[i]) return false;
    return true;
  }

 private:
  int checked(int axis) const {
    const int index = axis < 0 ? axis + rank_ : axis;
    if (index < 0 || index >= rank_) [[unlikely]]
      fail_axis(axis);
    return index;
  }
  [[noreturn]] void fail_axis(int axis) const;

  std::array<std::int64_t, kMaxRank> dims_{};
  std::int8_t rank_ = 0;
};

}  // namespace lazy
