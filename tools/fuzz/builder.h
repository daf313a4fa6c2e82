// Records a fuzz program through lazyfuse's public API, step by step, and works out each
// step's symbolic shape and value bounds on the way.
#pragma once

#include <map>
#include <stdexcept>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/bounds.h"
#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// A step the API accepts but whose values the fuzzer cannot bound (a log of values that may be
// negative, a sum that may overflow): the generator picks another.
struct StepRejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A step recorded by a function of its own (products, gathers, scatters): its tensor, bounds and
// symbolic shape.
struct RecordedStep {
  Tensor out;
  Bounds bounds;
  std::vector<Dim> shape;
};

class Builder {
 public:
  explicit Builder(Program& program) : program_(program) {}

  // Records step `i` (all earlier ones recorded). Throws lazy::Error when the API refuses it and
  // StepRejected when its values cannot be bounded; nothing is kept then.
  void apply(int i);
  // Records every step; held steps stay held by tensors().
  void apply_all();
  // Step `i` is recorded as usual, then `value` (of its shape and dtype) takes its place: the
  // gradient check moves data leaves and holds stop_gradient steps fixed this way.
  void substitute(int i, Tensor value) { substitutes_[i] = std::move(value); }
  // Drops the handles of steps that are not held, so they are intermediates at the sync.
  void release_intermediates();

  const Tensor& tensor(int i) const { return tensors_[i]; }
  const Bounds& bounds(int i) const { return bounds_[i]; }
  const std::vector<Dim>& shape(int i) const { return shapes_[i]; }
  int size() const { return int(tensors_.size()); }

 private:
  void record(const Step& step, Tensor& out, Bounds& bounds, std::vector<Dim>& shape);
  // Sets bounds.specials_may_differ where `step` may make a NaN on one side only, or reads one.
  void mark_specials_that_may_differ(const Step& step, DType result, Bounds& bounds) const;
  Program& program_;
  std::vector<Tensor> tensors_;
  std::vector<Bounds> bounds_;
  std::vector<std::vector<Dim>> shapes_;
  std::map<int, Tensor> substitutes_;
};

// Forgets what the calling thread recorded and did not sync (the generator's and printer's
// recordings, a run that failed), without planning or computing any of it.
void discard_recording();

// Broadcast of two symbolic shapes (NumPy's rule); nullopt-like empty flag when they do not.
bool broadcast_dims(const std::vector<Dim>& a, const std::vector<Dim>& b, std::vector<Dim>& out);

}  // namespace lazy::fuzz
