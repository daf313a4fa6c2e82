// A program while it is generated: each step is recorded as it is appended, so one the API refuses
// or whose values cannot be bounded is dropped at once. What the generator's step makers share
// (tools/fuzz/generator.cpp, indexing_steps.cpp, product_steps.cpp): the program so far, its random
// numbers, leaves and sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/random_choices.h"

namespace lazy::fuzz {

class GrowingProgram {
 public:
  GrowingProgram(std::uint64_t seed, std::int64_t index, const GenerateOptions& options);
  GrowingProgram(const GrowingProgram&) = delete;
  GrowingProgram& operator=(const GrowingProgram&) = delete;

  // Appends `step`; keeps it when the API accepts it and its values can be bounded.
  bool try_add(Step step);
  // try_add, then the new step's index, or -1.
  int add(Step step) { return try_add(std::move(step)) ? count() - 1 : -1; }

  int count() const { return int(program_.steps.size()); }
  // An earlier step, recent ones more often so that chains grow deep.
  int pick_step();

  // A new free size: random (random_size), or of the given value.
  int new_size();
  int new_size(std::int64_t value);
  // A size a slice defines, read off its result when it is recorded.
  int new_derived_size();
  // A free size: an existing one or a new one.
  int some_size();
  std::vector<Dim> fresh_shape();
  // A shape that broadcasts against `shape`: leading axes dropped, some axes set to 1.
  std::vector<Dim> broadcastable(const std::vector<Dim>& shape);
  // An axis of a tensor of `rank`, negative now and then.
  int random_axis(int rank, bool allow_negative = true);
  // The axes a reduction of a tensor of `rank` folds: none named (all), one, or several.
  std::vector<int> random_axes(int rank);
  // A leaf (mostly data) of `shape`: its index, or -1.
  int add_leaf(const std::vector<Dim>& shape, std::optional<DType> dtype = {});

  static Step step_of(Op op, std::string name, std::vector<Arg> args);
  static Arg tensor_arg(int step);

  Random& random() { return random_; }
  const GenerateOptions& options() const { return options_; }
  const Program& program() const { return program_; }
  const std::vector<Dim>& shape(int step) const { return builder_.shape(step); }
  const Bounds& bounds(int step) const { return builder_.bounds(step); }
  DType dtype(int step) const { return builder_.tensor(step).dtype(); }

 protected:
  Random random_;
  GenerateOptions options_;
  Program program_;
  Builder builder_;
};

}  // namespace lazy::fuzz
