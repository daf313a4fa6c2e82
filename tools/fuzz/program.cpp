#include "tools/fuzz/program.h"

namespace lazy::fuzz {

std::int64_t dim_value(const Program& program, const Dim& dim) {
  std::int64_t n = dim.literal;
  for (int id : dim.sizes) n *= program.sizes[id].value;
  return n;
}

Shape concrete_shape(const Program& program, const std::vector<Dim>& dims) {
  Shape shape;
  for (const Dim& d : dims) shape.push_back(dim_value(program, d));
  return shape;
}

std::int64_t element_count(const Program& program, const std::vector<Dim>& dims) {
  std::int64_t n = 1;
  for (const Dim& d : dims) n *= dim_value(program, d);
  return n;
}

}  // namespace lazy::fuzz
