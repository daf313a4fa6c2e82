#include "lazy/shape.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "lazy/error.h"

namespace lazy {

namespace {

[[noreturn]] void fail_rank(std::span<const std::int64_t> dims, std::source_location loc) {
  throw ShapeError(absl::StrCat("lazy::Shape: [", absl::StrJoin(dims, ", "), "] has ", dims.size(),
                                " axes; a shape has at most ", kMaxRank),
                   loc);
}

}  // namespace

Shape::Shape(std::initializer_list<std::int64_t> dims, std::source_location loc)
    : Shape(std::span(dims.begin(), dims.size()), loc) {}

Shape::Shape(std::span<const std::int64_t> dims, std::source_location loc) {
  if (dims.size() > std::size_t(kMaxRank)) fail_rank(dims, loc);
  for (std::int64_t dim : dims) dims_[rank_++] = dim;
}

void Shape::fail_axis(int axis) const {
  throw AxisError(
      absl::StrCat("lazy::Shape: axis ", axis, " is out of range for ", to_string(),
                   rank_ == 0 ? ", which has no axes"
                              : absl::StrCat(" (axes -", int(rank_), " to ", int(rank_) - 1, ")")),
      std::source_location::current());
}

void Shape::push_back(std::int64_t dim, std::source_location loc) {
  if (rank_ == kMaxRank) {
    std::array<std::int64_t, kMaxRank + 1> dims;
    std::copy(begin(), end(), dims.begin());
    dims[kMaxRank] = dim;
    fail_rank(dims, loc);
  }
  dims_[rank_++] = dim;
}

// Unsigned, so a shape no op would accept wraps instead of overflowing (undefined behaviour).
std::int64_t Shape::numel() const {
  std::uint64_t n = 1;
  for (std::int64_t dim : *this) n *= std::uint64_t(dim);
  return std::int64_t(n);
}

std::string Shape::to_string() const {
  return absl::StrCat("[", absl::StrJoin(dims(), ", "), "]");
}

}  // namespace lazy
