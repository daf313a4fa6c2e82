#include "tools/fuzz/growing_program.h"

#include <algorithm>

namespace lazy::fuzz {

GrowingProgram::GrowingProgram(std::uint64_t seed, std::int64_t index,
                               const GenerateOptions& options)
    : random_(mix(seed, std::uint64_t(index) + 1)), options_(options), builder_(program_) {
  program_.seed = seed;
  program_.index = index;
}

bool GrowingProgram::try_add(Step step) {
  program_.steps.push_back(std::move(step));
  std::size_t sizes = program_.sizes.size();
  try {
    builder_.apply(int(program_.steps.size()) - 1);
    return true;
  } catch (const lazy::Error&) {
    // Most refusals are right (a dtype an op does not take); counted, a wrong one can show.
    if (options_.refusals != nullptr) (*options_.refusals)[step_label(program_.steps.back())]++;
  } catch (const StepRejected&) {
  }
  program_.steps.pop_back();
  program_.sizes.resize(sizes);
  return false;
}

int GrowingProgram::pick_step() {
  int n = count();
  if (random_.chance(60)) return int(std::max<std::int64_t>(0, n - 1 - random_.below(3)));
  return int(random_.below(n));
}

std::vector<int> GrowingProgram::random_axes(int rank) {
  std::vector<int> axes;
  int kind = random_.weighted({25, 45, 30});
  if (kind == 0 || rank == 0) return axes;
  if (kind == 1) return {random_axis(rank)};
  for (int a = 0; a < rank; ++a)
    if (random_.chance(50)) axes.push_back(random_.chance(20) ? a - rank : a);
  return axes;
}

int GrowingProgram::random_axis(int rank, bool allow_negative) {
  if (rank == 0) return 0;
  const int a = int(random_.below(rank));
  return allow_negative && random_.chance(30) ? a - rank : a;
}

int GrowingProgram::new_size() {
  return new_size(random_size(random_));
}

int GrowingProgram::new_size(std::int64_t value) {
  program_.sizes.push_back(SizeVar{value, false});
  return int(program_.sizes.size()) - 1;
}

int GrowingProgram::new_derived_size() {
  program_.sizes.push_back(SizeVar{0, true});
  return int(program_.sizes.size()) - 1;
}

int GrowingProgram::some_size() {
  std::vector<int> free;
  for (int i = 0; i < int(program_.sizes.size()); ++i)
    if (!program_.sizes[i].derived) free.push_back(i);
  if (free.empty() || random_.chance(30)) return new_size();
  return random_.pick(free);
}

std::vector<Dim> GrowingProgram::fresh_shape() {
  for (int attempt = 0; attempt < 20; ++attempt) {
    int rank = random_.weighted({8, 20, 30, 18, 10, 8, 6});
    std::vector<Dim> shape;
    for (int a = 0; a < rank; ++a) {
      int kind = random_.weighted({80, 12, 8});
      if (kind == 1)
        shape.push_back(Dim{});
      else if (kind == 2) {
        Dim d{{some_size(), some_size()}, 1};
        std::sort(d.sizes.begin(), d.sizes.end());
        shape.push_back(d);
      } else
        shape.push_back(Dim{{some_size()}, 1});
    }
    std::int64_t limit = random_.chance(5) ? options_.max_elements : options_.max_elements / 16;
    if (element_count(program_, shape) <= limit) return shape;
  }
  return {};
}

std::vector<Dim> GrowingProgram::broadcastable(const std::vector<Dim>& shape) {
  std::vector<Dim> out(shape.begin() + random_.below(std::int64_t(shape.size()) + 1), shape.end());
  for (Dim& d : out)
    if (random_.chance(30)) d = Dim{};
  return out;
}

int GrowingProgram::add_leaf(const std::vector<Dim>& shape, std::optional<DType> dtype) {
  Step s;
  s.dtype = dtype.value_or(random_dtype(random_));
  s.shape = shape;
  int kind = random_.weighted({70, 12, 6, 6, 6});
  if (kind == 0) {
    s.op = Op::data;
    s.data = random_data(random_, s.dtype);
  } else if (kind == 1) {
    s.op = Op::full;
    s.name = std::vector<std::string>{"full", "zeros", "ones"}[random_.below(3)];
    s.args.push_back(random_number(random_));
  } else if (kind == 2 && shape.size() == 1) {
    s.op = Op::arange;
    s.start = random_.between(-5, 5);
    s.step = random_.pick(std::vector<std::int64_t>{1, 2, -1, 3});
    if (random_.chance(50)) s.dtype = DType::i64;
  } else if (kind == 3 && is_floating(s.dtype)) {
    s.op = random_.chance(50) ? Op::rand : Op::randn;
    s.data.key = random_.next();
  } else {
    s.op = Op::data;
    s.data = random_data(random_, s.dtype);
  }
  return add(s);
}

Step GrowingProgram::step_of(Op op, std::string name, std::vector<Arg> args) {
  Step s;
  s.op = op;
  s.name = std::move(name);
  s.args = std::move(args);
  return s;
}

Arg GrowingProgram::tensor_arg(int step) {
  Arg a;
  a.step = step;
  return a;
}

}  // namespace lazy::fuzz
