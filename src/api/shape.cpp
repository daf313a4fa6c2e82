#include "lazy/shape.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "lazy/error.h"

namespace lazy {

Shape::Shape(std::initializer_list<std::int64_t> dims)
    : Shape(std::span(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const std::int64_t> dims) {
  for (std::int64_t dim : dims) push_back(dim);
}

void Shape::push_back(std::int64_t dim) {
  if (rank_ == kMaxRank) {
    throw ShapeError(absl::StrCat("lazy: a shape has at most ", kMaxRank, " axes"),
                     std::source_location::current());
  }
  dims_[rank_++] = dim;
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (std::int64_t dim : *this) n *= dim;
  return n;
}

std::string Shape::to_string() const {
  return absl::StrCat("[", absl::StrJoin(dims(), ", "), "]");
}

}  // namespace lazy
